#!/usr/bin/env bash
# conformance.sh: run the official MCP conformance suite against frontdesk.
#
# Usage:
#   scripts/conformance.sh install                    fetch Node 22 and the pinned suite (idempotent)
#   scripts/conformance.sh server [REV]               start the demo server, run the server scenarios
#   scripts/conformance.sh server-requirements [REV]  start the demo server, run the full
#                                                     --requirements set of each revision
#   scripts/conformance.sh client CMD [REV]           run the client scenarios against CMD
#   scripts/conformance.sh client-requirements CMD [REV]
#                                                     run the client's full frozen requirement
#                                                     sets (--requirements REV) against CMD
#   scripts/conformance.sh plan [REV]                 print the scenarios that would run
#   scripts/conformance.sh suite ARGS...              run the suite's own CLI (e.g. `suite list --server`)
#
# REV is 2025-11-25, 2026-07-28 or both (default both).
#
# server: starts $FRONTDESK_SERVER_CMD (default below), waits for its port, and
#   runs each scenario as its own suite invocation with --spec-version; the
#   server is stopped when the script exits. With FRONTDESK_SERVER_URL set, no
#   server is started and that URL is tested instead.
# server-requirements: the same server, tested with the suite's frozen
#   `--requirements REV` set (every server scenario the revision requires,
#   plus extensions such as tasks and pending scenarios, which run but are
#   not scored). One suite invocation per revision; its summary is printed
#   as is, then `REQUIREMENTS <rev> PASS|FAIL <the suite's Total line>`.
#   The suite's exit status decides: only scored scenarios count, unless
#   STRICT_UNSCORED=1, which also fails a revision whose not-scored
#   scenarios (extensions, pending) have failures.
#   With EXPECTED_FAILURES, the suite checks its scored scenarios against
#   that baseline instead (unscored ones are not checked): the run fails on
#   a scored scenario that fails and is not listed, and on a listed one that
#   now passes (a stale entry). SCENARIOS and STRICT_WARNINGS do not apply.
# client: for each scenario the suite starts a mock server and runs
#   `CMD <mock-url>` with MCP_CONFORMANCE_SCENARIO and
#   MCP_CONFORMANCE_PROTOCOL_VERSION set. The suite splits CMD on spaces, so
#   CMD must not need quoting.
#
# client-requirements: one suite run per revision with --requirements REV, every
#   scenario of the set at once (auth, SSE, headers, schema, MRTR…). Prints the
#   suite's summary (scored and unscored scenarios), then per revision
#   `REV: N passed, N failed` counting the scored scenarios only; the last line
#   is the total over the revisions. Fails when a scored scenario fails (the
#   unscored ones, extensions and scenarios added after the release, are shown
#   but do not count). No expected-failures file is used.
#
# Prints one line per scenario: PASS, FAIL or SKIP. SKIP (the suite found the
# scenario not applicable at that revision) counts as a failure, and so does a
# scenario in which no check ran at all. Check lines that failed or warned
# follow a FAIL or SKIP, warning lines follow a PASS. The last line, alone, is
# `N passed, N failed`. Exit status: 0 only when every scenario passed, 1 on
# failures, 2 on usage or setup errors.
#
# Environment (all optional):
#   FRONTDESK_SERVER_CMD  server command; $PORT is expanded by the shell that runs it
#                         (default: target/release/frontdesk serve --conformance-fixtures --http 127.0.0.1:$PORT)
#   FRONTDESK_SERVER_URL  test a server that is already running; nothing is started
#   PORT                  port for the started server (default 3917)
#   WAIT_SECS             how long to wait for the server's port (default 30)
#   TIMEOUT_MS            per-scenario timeout given to the suite (default 30000)
#   SCENARIOS             space-separated scenarios replacing the built-in plan
#   EXPECTED_FAILURES     baseline YAML passed to the suite's --expected-failures
#   STRICT_WARNINGS=1     count a scenario with WARNING checks as failed (the suite
#                         itself fails server scenarios only on FAILURE checks)
#   STRICT_UNSCORED=1     server-requirements mode: not-scored scenarios must pass too
#   CONFORMANCE_DIR       cache and results (default <repo>/target/conformance)
#   CONFORMANCE_NODE      a Node >= 22 to use instead of the pinned npm package
#   VERBOSE=1             print the whole suite output of every scenario
#
# Needs bash and npm (only to install); works as root and without stdin.

set -euo pipefail

# ------------------------------------------------------------------ pins ----
SUITE_PKG="@modelcontextprotocol/conformance"
SUITE_VERSION="0.2.0-alpha.12"
SUITE_SDK_VERSION="1.32.2"  # pinned inside the suite through npm "overrides"
NODE_VERSION="22.23.5"      # npm package node-linux-<arch>; the suite needs Node >= 22

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CONFORMANCE_DIR:-$ROOT/target/conformance}"
RESULTS="$CACHE/results"
PORT="${PORT:-3917}"
WAIT_SECS="${WAIT_SECS:-30}"
TIMEOUT_MS="${TIMEOUT_MS:-30000}"
# Single quotes on purpose: $PORT is expanded when the command runs.
# shellcheck disable=SC2016
DEFAULT_SERVER_CMD='target/release/frontdesk serve --conformance-fixtures --http 127.0.0.1:$PORT'

say() { echo "conformance: $*" >&2; }
die() { say "$*"; exit 2; }

# ------------------------------------------------------------------ plan ----
# The elicitation scenarios and their prerequisites (notes/conformance.md §4).
plan() { # <server|client> <revision>
  case "$1 $2" in
    "server 2025-11-25")
      echo server-initialize tools-list tools-call-elicitation \
        elicitation-sep1034-defaults elicitation-sep1330-enums ;;
    "server 2026-07-28")
      echo server-stateless tools-list
      local s
      for s in basic-elicitation basic-sampling basic-list-roots request-state \
        multiple-input-requests multi-round missing-input-response non-tool-request \
        result-type unsupported-methods tampered-state capability-check \
        ignore-extra-params validate-input; do
        echo "input-required-result-$s"
      done ;;
    "client 2025-11-25") echo initialize tools_call elicitation-sep1034-client-defaults ;;
    "client 2026-07-28") echo tools_call request-metadata sep-2322-client-request-state ;;
    *) return 1 ;;
  esac
}

revisions() { # <2025-11-25|2026-07-28|both>
  case "$1" in
    2025-11-25 | 2026-07-28) echo "$1" ;;
    both) echo 2025-11-25 2026-07-28 ;;
    *) die "unknown revision '$1' (use 2025-11-25, 2026-07-28 or both)" ;;
  esac
}

scenarios() { # <side> <revision>
  if [ -n "${SCENARIOS:-}" ]; then echo "$SCENARIOS"; else plan "$1" "$2"; fi
}

# --------------------------------------------------------------- install ----
node_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) echo linux-x64 ;;
    aarch64 | arm64) echo linux-arm64 ;;
    *) die "no npm-packaged Node for $(uname -m); set CONFORMANCE_NODE to a Node >= 22" ;;
  esac
}

npm_install() { # <prefix> ; installs the prefix's package.json, quietly
  command -v npm > /dev/null || die "npm is needed to install the conformance suite"
  npm install --prefix "$1" --cache "$CACHE/npm-cache" --no-audit --no-fund \
    --ignore-scripts --loglevel=error < /dev/null > "$1/install.log" 2>&1 ||
    { cat "$1/install.log" >&2; die "npm install in $1 failed"; }
}

install_node() {
  local pkg dir
  pkg="node-$(node_arch)"
  dir="$CACHE/node-$NODE_VERSION"
  NODE="$dir/node_modules/$pkg/bin/node"
  [ -x "$NODE" ] && return 0
  say "installing $pkg@$NODE_VERSION into $dir"
  mkdir -p "$dir"
  printf '{"private":true,"dependencies":{"%s":"%s"}}\n' "$pkg" "$NODE_VERSION" > "$dir/package.json"
  npm_install "$dir"
  [ -x "$NODE" ] || die "no node binary at $NODE after install"
}

install_suite() {
  local dir="$CACHE/suite-$SUITE_VERSION"
  SUITE="$dir/node_modules/$SUITE_PKG/dist/index.js"
  [ -f "$SUITE" ] && return 0
  say "installing $SUITE_PKG@$SUITE_VERSION (sdk $SUITE_SDK_VERSION) into $dir"
  mkdir -p "$dir"
  cat > "$dir/package.json" << EOF
{
  "private": true,
  "dependencies": { "$SUITE_PKG": "$SUITE_VERSION" },
  "overrides": { "@modelcontextprotocol/sdk": "$SUITE_SDK_VERSION" }
}
EOF
  npm_install "$dir"
  [ -f "$SUITE" ] || die "suite entry point missing after install: $SUITE"
}

install() {
  mkdir -p "$CACHE"
  if [ -n "${CONFORMANCE_NODE:-}" ]; then
    NODE="$CONFORMANCE_NODE"
  else
    install_node
  fi
  local major
  major="$("$NODE" -p 'process.versions.node.split(".")[0]' < /dev/null)" || die "cannot run $NODE"
  [ "$major" -ge 22 ] || die "$NODE is Node $major; the suite needs Node >= 22"
  install_suite
}

suite() { "$NODE" "$SUITE" "$@" < /dev/null; }

# ---------------------------------------------------------------- server ----
SERVER_PID=""
stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  # The server runs in its own process group (setsid): stop the whole group.
  kill -TERM -- "-$SERVER_PID" 2> /dev/null || true
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 -- "-$SERVER_PID" 2> /dev/null || break
    sleep 0.2
  done
  kill -KILL -- "-$SERVER_PID" 2> /dev/null || true
  SERVER_PID=""
}
trap stop_server EXIT
trap 'exit 130' INT TERM

port_open() { # <host> <port>
  (exec 3<> "/dev/tcp/$1/$2") 2> /dev/null
}

start_server() {
  local cmd="${FRONTDESK_SERVER_CMD:-$DEFAULT_SERVER_CMD}" log="$RESULTS/server.log" i
  mkdir -p "$RESULTS"
  port_open 127.0.0.1 "$PORT" && die "port $PORT is already in use; set PORT"
  say "starting: $cmd (log: $log)"
  (cd "$ROOT" && PORT="$PORT" exec setsid bash -c "exec $cmd" < /dev/null > "$log" 2>&1) &
  SERVER_PID=$!
  for ((i = 0; i < WAIT_SECS * 5; i++)); do
    port_open 127.0.0.1 "$PORT" && return 0
    if ! kill -0 "$SERVER_PID" 2> /dev/null; then
      tail -n 20 "$log" >&2 || true
      die "server exited before listening on port $PORT"
    fi
    sleep 0.2
  done
  die "server did not listen on port $PORT within ${WAIT_SECS}s"
}

# --------------------------------------------------------------- running ----
PASSED=0
FAILED=0
FAILED_LIST=()

run_scenario() { # <side> <target> <revision> <scenario>
  local side="$1" target="$2" rev="$3" sc="$4"
  local dir="$RESULTS/$rev/$side" log status rc=0 summary
  mkdir -p "$dir/json"
  log="$dir/$sc.log"
  local args=("$side")
  if [ "$side" = server ]; then args+=(--url "$target"); else args+=(--command "$target"); fi
  args+=(--scenario "$sc" --spec-version "$rev" --timeout "$TIMEOUT_MS" -o "$dir/json")
  [ -n "${EXPECTED_FAILURES:-}" ] && args+=(--expected-failures "$EXPECTED_FAILURES")

  suite "${args[@]}" > "$log" 2>&1 || rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' "$log" # drop colours
  summary="$(grep -E '^Passed: [0-9]+/[0-9]+' "$log" | tail -n 1 || true)"

  if grep -q '^SKIPPED: scenario' "$log"; then
    status=SKIP
  elif [ "$rc" -ne 0 ] || grep -qE '^Passed: 0/0,' "$log"; then
    status=FAIL
  elif [ "${STRICT_WARNINGS:-0}" = 1 ] && grep -qE '\] WARNING ' "$log"; then
    status=FAIL
  else
    status=PASS
  fi
  if [ "$status" = PASS ]; then
    PASSED=$((PASSED + 1))
  else
    FAILED=$((FAILED + 1))
    FAILED_LIST+=("$rev/$side/$sc")
  fi
  printf '%-4s %s %-6s %-46s %s\n' "$status" "$rev" "$side" "$sc" "${summary:-exit $rc}"

  if [ "${VERBOSE:-0}" = 1 ]; then
    sed 's/^/     | /' "$log"
  elif [ "$status" != PASS ]; then
    grep -qE '^Passed: 0/0,' "$log" && echo "     | no check ran (counted as a failure)"
    grep -E '\] (FAILURE|WARNING) |^SKIPPED|TIMED OUT|EXITED WITH ERROR|Error:|Unexpected|Stale' "$log" |
      head -n 25 | cut -c1-220 | sed 's/^/     | /' || true
    echo "     | log: $log"
  else
    # A pass can still carry warnings (SHOULD-level checks): show them.
    grep -E '\] WARNING ' "$log" | cut -c1-220 | sed 's/^/     | /' || true
  fi
}

run_side() { # <side> <target> <revision|both>
  local rev sc
  for rev in $(revisions "$3"); do
    for sc in $(scenarios "$1" "$rev"); do
      run_scenario "$1" "$2" "$rev" "$sc"
    done
  done
  [ "$FAILED" -eq 0 ] || say "failed: ${FAILED_LIST[*]}"
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

run_server_requirements() { # <url> <revision|both>
  local rev dir log rc total unscored failed=()
  for rev in $(revisions "$2"); do
    dir="$RESULTS/requirements/$rev"
    log="$dir.log"
    rm -rf "$dir"
    mkdir -p "$dir"
    rc=0
    local args=(server --url "$1" --requirements "$rev" --timeout "$TIMEOUT_MS" -o "$dir")
    [ -n "${EXPECTED_FAILURES:-}" ] && args+=(--expected-failures "$EXPECTED_FAILURES")
    suite "${args[@]}" > "$log" 2>&1 || rc=$?
    sed -i 's/\x1b\[[0-9;]*m//g' "$log"
    echo "== $rev (log: $log)"
    if [ "${VERBOSE:-0}" = 1 ]; then
      sed 's/^/   | /' "$log"
    else
      sed -n '/^=== SUMMARY ===/,$p' "$log" | sed 's/^/   | /'
    fi
    total="$(grep -E '^Total: ' "$log" | tail -n 1 || true)"
    unscored="$(grep -E '^Not scored for ' "$log" | tail -n 1 || true)"
    if [ "${STRICT_UNSCORED:-0}" = 1 ] && [ -n "$unscored" ] &&
      ! grep -qE ', 0 failing\.' <<< "$unscored"; then
      echo "   | STRICT_UNSCORED: $unscored"
      rc=1
    fi
    if [ "$rc" -eq 0 ] && [ -n "$total" ]; then
      echo "REQUIREMENTS $rev PASS ${total}"
    else
      echo "REQUIREMENTS $rev FAIL ${total:-exit $rc}"
      grep -E '^(Error|Validation error)' "$log" | head -n 5 | sed 's/^/   | /' || true
      failed+=("$rev")
    fi
  done
  [ "${#failed[@]}" -eq 0 ] || say "scored scenarios failed at: ${failed[*]}"
  [ "${#failed[@]}" -eq 0 ]
}

run_client_requirements() { # <command> <revision|both>
  local rev log dir total_pass=0 total_fail=0 pass fail
  for rev in $(revisions "$2"); do
    dir="$RESULTS/client-requirements/$rev"
    log="$dir.log"
    rm -rf "$dir"
    mkdir -p "$dir"
    say "client requirements $rev: '$1'"
    suite client --command "$1" --requirements "$rev" --timeout "$TIMEOUT_MS" -o "$dir" > "$log" 2>&1 || true
    sed -i 's/\x1b\[[0-9;]*m//g' "$log"
    # The summary's scenario lines, minus the ones listed as not scored.
    local unscored
    unscored="$(sed -n '/^Not scored/,$p' "$log" | grep -oE '^  [✓✗] [^ ]+' | awk '{print $2}' || true)"
    pass=0
    fail=0
    while read -r mark name _; do
      [ -n "$name" ] || continue
      name="${name%:}"
      if printf '%s\n' "$unscored" | grep -qxF "$name"; then continue; fi
      if [ "$mark" = "✓" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1))
        FAILED_LIST+=("$rev/$name")
      fi
    done < <(sed -n '/=== SUITE SUMMARY ===/,/^Total:/p' "$log" | grep -E '^[✓✗] ')
    sed -n '/=== SUITE SUMMARY ===/,$p' "$log" | grep -v '^$' | sed 's/^/     | /'
    if [ $((pass + fail)) -eq 0 ]; then
      say "no scored scenario ran for $rev (log: $log)"
      fail=1
    fi
    echo "$rev: $pass passed, $fail failed"
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
  done
  [ "$total_fail" -eq 0 ] || say "failed: ${FAILED_LIST[*]}"
  echo "$total_pass passed, $total_fail failed"
  [ "$total_fail" -eq 0 ]
}

usage() {
  sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  local mode="${1:-}"
  [ $# -gt 0 ] && shift
  case "$mode" in
    install)
      install
      say "node $("$NODE" --version < /dev/null), $(suite --version) at $SUITE" ;;
    plan)
      local rev side
      revisions "${1:-both}" > /dev/null
      for rev in $(revisions "${1:-both}"); do
        for side in server client; do echo "$rev $side: $(scenarios "$side" "$rev" | tr '\n' ' ')"; done
      done ;;
    suite)
      install
      suite "$@" ;;
    server)
      local rev="${1:-both}" url
      revisions "$rev" > /dev/null
      install
      if [ -n "${FRONTDESK_SERVER_URL:-}" ]; then
        url="$FRONTDESK_SERVER_URL"
      else
        start_server
        url="http://127.0.0.1:$PORT/mcp"
      fi
      say "testing $url with $SUITE_PKG@$SUITE_VERSION; results in $RESULTS"
      run_side server "$url" "$rev" ;;
    server-requirements)
      local rev="${1:-both}" url
      revisions "$rev" > /dev/null
      install
      if [ -n "${FRONTDESK_SERVER_URL:-}" ]; then
        url="$FRONTDESK_SERVER_URL"
      else
        start_server
        url="http://127.0.0.1:$PORT/mcp"
      fi
      say "testing $url against the --requirements sets with $SUITE_PKG@$SUITE_VERSION; results in $RESULTS/requirements"
      run_server_requirements "$url" "$rev" ;;
    client)
      [ $# -ge 1 ] || die "client mode needs the client command"
      local cmd="$1" rev="${2:-both}"
      revisions "$rev" > /dev/null
      install
      say "testing client '$cmd' with $SUITE_PKG@$SUITE_VERSION; results in $RESULTS"
      run_side client "$cmd" "$rev" ;;
    client-requirements)
      [ $# -ge 1 ] || die "client-requirements mode needs the client command"
      local cmd="$1" rev="${2:-both}"
      revisions "$rev" > /dev/null
      install
      run_client_requirements "$cmd" "$rev" ;;
    -h | --help | help | "") usage ;;
    *) die "unknown mode '$mode' (install, server, server-requirements, client, client-requirements, plan, suite)" ;;
  esac
}

main "$@"
