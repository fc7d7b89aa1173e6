#!/usr/bin/env bash
# interop.sh: frontdesk against the official MCP SDKs, both ways.
#
# Usage:
#   scripts/interop.sh install     install the pinned SDKs (idempotent)
#   scripts/interop.sh run         install, then run the whole matrix
#
# The peers are programs of this repository (scripts/interop/*), written on the
# TypeScript SDK v2 (@modelcontextprotocol/server, /client 2.4.0), the Python SDK
# v2 (mcp 2.3.0) and the TypeScript SDK 1.x (1.32.2, 2025-11-25 only), installed
# from the npm registry and PyPI at the versions pinned in scripts/interop/ into
# target/interop (or $INTEROP_DIR). frontdesk's side is two example programs of
# frontdesk-cli, built by `cargo test` (or `cargo build -p frontdesk-cli --examples`):
# interop_server (the tools ask_form, ask_url and ask_twice) and interop_client
# (calls them).
#
# Every case calls a tool that asks one question, answers it accept, decline or
# cancel, and checks what the tool reports; one more asks two questions in one
# call, both answered accept with their fields' defaults:
#   - frontdesk's client against each peer's server, and each peer's client
#     against frontdesk's server;
#   - both revisions (the TypeScript SDK 1.x: 2025-11-25), stdio and HTTP;
#   - form mode (ask_form) and URL mode (ask_url);
#   - defaults and a second question in one call (ask_twice: a name defaulting
#     to "Grace", then go ahead defaulting to true; on 2026-07-28 two
#     input_required rounds, the name carried in requestState).
# Left out, as the SDK cannot serve it: the TypeScript SDK v2's server over HTTP
# at 2025-11-25 (its legacy HTTP serving is stateless and cannot send requests).
# Each client runs all its cases in one process. Prints one line per case, PASS or
# FAIL, then `N passed, N failed`; exits 0 only when nothing failed.
#
# Then their clients through `frontdesk gateway` to their servers, each client on
# the revision its server is not spoken to in (the gateway bridges), stdio and
# HTTP on each side (see gateway_matrix); these lines name the pairing.
#
# Environment: INTEROP_DIR (default <repo>/target/interop), FRONTDESK_EXAMPLES
# (default <repo>/target/debug/examples), FRONTDESK (the frontdesk command, default
# <repo>/target/debug/frontdesk), NODE (default node, >= 20), PYTHON (default
# python3, >= 3.10).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${INTEROP_DIR:-$ROOT/target/interop}"
EXAMPLES="${FRONTDESK_EXAMPLES:-$ROOT/target/debug/examples}"
NODE="${NODE:-node}"
PYTHON="${PYTHON:-python3}"
FRONTDESK="${FRONTDESK:-$ROOT/target/debug/frontdesk}"
PEERS="$ROOT/scripts/interop"

say() { echo "interop: $*" >&2; }
die() { say "$*"; exit 2; }

install() {
  mkdir -p "$DIR/node"
  command -v "$NODE" > /dev/null || die "node is needed"
  local major
  major="$("$NODE" -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || die "node $major is too old (>= 20)"
  if ! cmp -s "$PEERS/package.json" "$DIR/node/package.json" || [ ! -d "$DIR/node/node_modules/sdk1" ]; then
    say "installing the TypeScript SDKs into $DIR/node"
    cp "$PEERS/package.json" "$DIR/node/package.json"
    (cd "$DIR/node" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error \
      --cache "$DIR/npm-cache" < /dev/null > install.log 2>&1) ||
      { cat "$DIR/node/install.log" >&2; die "npm install failed"; }
  fi
  # ESM resolves packages next to the importing file: the peers run from there.
  cp "$PEERS"/*.mjs "$DIR/node/"
  if ! cmp -s "$PEERS/requirements.txt" "$DIR/py/requirements.txt" 2> /dev/null; then
    say "installing the Python SDK into $DIR/py"
    rm -rf "$DIR/py"
    "$PYTHON" -m venv "$DIR/py" || die "cannot make a venv with $PYTHON ($(df -h "$DIR" | awk 'NR==2 {print $4}') free on its disk)"
    "$DIR/py/bin/pip" install --quiet --disable-pip-version-check -r "$PEERS/requirements.txt" \
      > "$DIR/pip.log" 2>&1 || { cat "$DIR/pip.log" >&2; die "pip install failed"; }
    cp "$PEERS/requirements.txt" "$DIR/py/requirements.txt"
  fi
  cp "$PEERS"/*.py "$DIR/py/"
}

PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT

# Start an HTTP server command (stopped when the script ends); its endpoint, the
# rest of the first line of its output that starts with <marker>, goes into $URL.
URL=""
start_serving() { # <log> <marker> <command…>
  local log="$1" marker="$2"
  shift 2
  # Emptied here, before the start: the redirection below happens in the
  # background job, and a log left by an earlier run could be read first.
  : > "$log"
  "$@" > "$log" 2>&1 < /dev/null &
  PIDS+=($!)
  local i line
  for ((i = 0; i < 150; i++)); do
    # The markers hold no regular-expression characters.
    line="$(grep -m1 -- "^$marker" "$log" 2> /dev/null || true)"
    if [ -n "$line" ]; then
      URL="${line#"$marker"}"
      return 0
    fi
    sleep 0.1
  done
  cat "$log" >&2
  die "no endpoint from: $*"
}

# A peer's HTTP server: its first line is "listening URL".
start_http() { # <log> <command…>
  local log="$1"
  shift
  start_serving "$log" "listening " "$@"
}

# `frontdesk gateway --http` with these arguments: "frontdesk gateway: MCP endpoint
# at URL" on stderr.
start_gateway_http() { # <log> <gateway arguments after --http ADDR…>
  local log="$1"
  shift
  start_serving "$log" "frontdesk gateway: MCP endpoint at " \
    "$FRONTDESK" gateway --http 127.0.0.1:0 "$@"
}

PASSED=0
FAILED=0
# Run one client process; count its PASS/FAIL lines (each shown after $LABEL).
LABEL=""
cases() { # <command…>
  local out line
  out="$(timeout 300 "$@" 2>&1 < /dev/null)" || true
  while IFS= read -r line; do
    case "$line" in
      PASS\ *) PASSED=$((PASSED + 1)); echo "${line/#PASS /PASS $LABEL}" ;;
      FAIL\ *) FAILED=$((FAILED + 1)); echo "${line/#FAIL /FAIL $LABEL}" ;;
    esac
  done <<< "$out"
  if ! grep -qE '^(PASS|FAIL) ' <<< "$out"; then
    FAILED=$((FAILED + 1))
    echo "FAIL $LABEL$* (no case ran): $(tail -n 3 <<< "$out" | tr '\n' ' ')"
  fi
}

run() {
  install
  local fd_server="$EXAMPLES/interop_server" fd_client="$EXAMPLES/interop_client"
  [ -x "$fd_server" ] && [ -x "$fd_client" ] ||
    die "build frontdesk's peers first: cargo build -p frontdesk-cli --examples"
  local py="$DIR/py/bin/python" logs="$DIR/logs"
  mkdir -p "$logs"
  say "SDKs: TypeScript v2 2.4.0, Python mcp 2.3.0, TypeScript 1.32.2; node $("$NODE" --version)"

  # frontdesk's server, over HTTP once for every client.
  local fd_url
  start_http "$logs/frontdesk-http.log" "$fd_server" http
  fd_url="$URL"

  # Their clients against frontdesk's server.
  local rev t
  for rev in 2025-11-25 2026-07-28; do
    cases "$NODE" "$DIR/node/ts2-client.mjs" "$rev" stdio "$fd_server" stdio
    cases "$NODE" "$DIR/node/ts2-client.mjs" "$rev" http "$fd_url"
    cases "$py" "$DIR/py/py-client.py" "$rev" stdio "$fd_server" stdio
    cases "$py" "$DIR/py/py-client.py" "$rev" http "$fd_url"
  done
  cases "$NODE" "$DIR/node/ts1-client.mjs" 2025-11-25 stdio "$fd_server" stdio
  cases "$NODE" "$DIR/node/ts1-client.mjs" 2025-11-25 http "$fd_url"

  # frontdesk's client against their servers.
  local ts2_url ts1_url py_url
  start_http "$logs/ts2-http.log" "$NODE" "$DIR/node/ts2-server.mjs" http
  ts2_url="$URL"
  start_http "$logs/ts1-http.log" "$NODE" "$DIR/node/ts1-server.mjs" http
  ts1_url="$URL"
  start_http "$logs/py-http.log" "$py" "$DIR/py/py-server.py" http
  py_url="$URL"
  for rev in 2025-11-25 2026-07-28; do
    cases "$fd_client" ts2 "$rev" stdio "$NODE" "$DIR/node/ts2-server.mjs" stdio
    cases "$fd_client" py "$rev" stdio "$py" "$DIR/py/py-server.py" stdio
    cases "$fd_client" py "$rev" http "$py_url"
  done
  cases "$fd_client" ts2 2026-07-28 http "$ts2_url"
  cases "$fd_client" ts1 2025-11-25 stdio "$NODE" "$DIR/node/ts1-server.mjs" stdio
  cases "$fd_client" ts1 2025-11-25 http "$ts1_url"

  gateway_matrix "$py" "$logs" "$py_url" "$ts2_url"

  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

# Their clients through `frontdesk gateway` to their servers, each client on a
# revision its server is not spoken to in (the gateway's --upstream-protocol is
# the other one): stdio and HTTP in front, stdio and HTTP behind. The client's
# cases are the same as against a server directly: what the server's tool
# reports is what the person answered.
gateway_matrix() { # <python> <logs> <py server url> <ts2 server url>
  local py="$1" logs="$2" py_url="$3" ts2_url="$4"
  local gw=("$FRONTDESK" gateway --stdio --upstream-protocol)
  [ -x "$FRONTDESK" ] || die "build the frontdesk command first: cargo build -p frontdesk-cli"
  # stdio in front, a stdio server behind.
  LABEL="[ts1 2025 → gateway → ts2 server at 2026] "
  cases "$NODE" "$DIR/node/ts1-client.mjs" 2025-11-25 stdio \
    "${gw[@]}" 2026-07-28 -- "$NODE" "$DIR/node/ts2-server.mjs" stdio
  LABEL="[ts2 2026 → gateway → ts1 server at 2025] "
  cases "$NODE" "$DIR/node/ts2-client.mjs" 2026-07-28 stdio \
    "${gw[@]}" 2025-11-25 -- "$NODE" "$DIR/node/ts1-server.mjs" stdio
  LABEL="[py 2026 → gateway → py server at 2025] "
  cases "$py" "$DIR/py/py-client.py" 2026-07-28 stdio \
    "${gw[@]}" 2025-11-25 -- "$py" "$DIR/py/py-server.py" stdio
  LABEL="[py 2025 → gateway → ts2 server at 2026] "
  cases "$py" "$DIR/py/py-client.py" 2025-11-25 stdio \
    "${gw[@]}" 2026-07-28 -- "$NODE" "$DIR/node/ts2-server.mjs" stdio
  # HTTP in front: a stdio server, then HTTP servers, behind.
  start_gateway_http "$logs/gateway-ts1.log" --upstream-protocol 2025-11-25 -- \
    "$NODE" "$DIR/node/ts1-server.mjs" stdio
  LABEL="[py 2026 over HTTP → gateway → ts1 server at 2025] "
  cases "$py" "$DIR/py/py-client.py" 2026-07-28 http "$URL"
  start_gateway_http "$logs/gateway-py.log" --upstream-protocol 2026-07-28 --url "$py_url"
  LABEL="[ts1 2025 over HTTP → gateway → py server at 2026 over HTTP] "
  cases "$NODE" "$DIR/node/ts1-client.mjs" 2025-11-25 http "$URL"
  start_gateway_http "$logs/gateway-ts2.log" --upstream-protocol 2026-07-28 --url "$ts2_url"
  LABEL="[ts2 2025 over HTTP → gateway → ts2 server at 2026 over HTTP] "
  cases "$NODE" "$DIR/node/ts2-client.mjs" 2025-11-25 http "$URL"
  LABEL=""
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
