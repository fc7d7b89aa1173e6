#!/usr/bin/env bash
# audit-peers.sh: `frontdesk audit` against servers written on the official SDKs and
# against `frontdesk serve`, each run compared with the findings checked by hand.
#
# Usage: scripts/audit-peers.sh        (installs the interop peers when missing)
#
# The peers:
#   ts2    scripts/interop/ts2-server.mjs (TypeScript SDK v2 2.4.0), stdio, both revisions
#   py     scripts/interop/py-server.py (Python SDK v2, mcp 2.3.0), stdio, both revisions
#   ts1    scripts/interop/ts1-server.mjs (TypeScript SDK 1.32.2), stdio, 2025-11-25
#   rmcp   the load benchmark's rmcp 3.11 server (crates/frontdesk-cli/benches/load/
#          rmcp_server.rs), two instances over HTTP, with --also and --state-age
#   serve  two `frontdesk serve --http` instances sharing FRONTDESK_STATE_KEYS, bearer
#          tokens for two principals, with --also, --second-token-file and --stress
# Each run's failed checks must be exactly the expected ones below (the README's audit
# section says why each is a real finding, with the peer's file and line); anything else
# fails the script. The JSON reports are left in $AUDIT_OUT (default target/audit-peers).
#
# Environment: FRONTDESK (default <repo>/target/debug/frontdesk), INTEROP_DIR, NODE,
# PYTHON (as scripts/interop.sh), AUDIT_OUT.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${INTEROP_DIR:-$ROOT/target/interop}"
FRONTDESK="${FRONTDESK:-$ROOT/target/debug/frontdesk}"
NODE="${NODE:-node}"
OUT="${AUDIT_OUT:-$ROOT/target/audit-peers}"

say() { echo "audit-peers: $*" >&2; }
die() { say "$*"; exit 2; }

[ -x "$FRONTDESK" ] || die "build frontdesk first: cargo build -p frontdesk-cli"
INTEROP_DIR="$DIR" "$ROOT/scripts/interop.sh" install
mkdir -p "$OUT"
PY="$DIR/py/bin/python"

PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT

# Start a server in the background; its endpoint (the first http URL its log prints)
# goes into $URL.
URL=""
start() { # <log> <pattern before the URL> <command…>
  local log="$1" pattern="$2"
  shift 2
  : > "$log"
  "$@" > "$log" 2>&1 < /dev/null &
  PIDS+=($!)
  local i
  for ((i = 0; i < 300; i++)); do
    URL="$(grep -m1 -oE "$pattern http://[^ ]+" "$log" 2> /dev/null | grep -oE 'http://[^ ]+' || true)"
    [ -n "$URL" ] && return 0
    sleep 0.1
  done
  cat "$log" >&2
  die "no endpoint from: $*"
}

PASSED=0
FAILED=0
# Audit with the given arguments; compare the failed checks with the expected ones.
audit() { # <name> <expected failed checks, space-separated> <audit arguments…>
  local name="$1" expected="$2"
  shift 2
  local json="$OUT/$name.json" started got
  started=$(date +%s)
  "$FRONTDESK" audit "$@" --json --fail-on never > "$json" 2> "$OUT/$name.log" || true
  got="$("${PYTHON:-python3}" - "$json" << 'EOF'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except ValueError:
    print("(no report)")
    sys.exit()
print(" ".join(sorted(s["check"] for s in report["summary"] if s["outcome"] == "fail")))
EOF
)"
  expected="$(tr ' ' '\n' <<< "$expected" | sort | tr '\n' ' ' | sed 's/ *$//; s/^ *//')"
  if [ "$got" = "$expected" ]; then
    PASSED=$((PASSED + 1))
    echo "PASS $name ($(($(date +%s) - started)) s): fails ${got:-nothing}, as checked by hand"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name: expected to fail [${expected}], failed [${got}] (report: $json)"
    tail -n 5 "$OUT/$name.log" >&2
  fi
}

audit ts2 "" "$NODE $DIR/node/ts2-server.mjs stdio" --call-all
audit py "mode.form-only mode.none" "$PY $DIR/py/py-server.py stdio" --call-all
audit ts1 "" "$NODE $DIR/node/ts1-server.mjs stdio" --call-all

# rmcp: the load benchmark's binary (built by `cargo bench --no-run`, as CI does).
LOAD="$(cd "$ROOT" && cargo bench --profile dev -p frontdesk-cli --bench load --no-run \
  --message-format=json 2> /dev/null | "${PYTHON:-python3}" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "load" and m.get("executable"):
        print(m["executable"])')"
[ -x "$LOAD" ] || die "cannot find the load benchmark's binary"
start "$OUT/rmcp-1.log" "rmcp server at" "$LOAD" --rmcp-server
RMCP1="$URL"
start "$OUT/rmcp-2.log" "rmcp server at" "$LOAD" --rmcp-server
RMCP2="$URL"
audit rmcp "content.missing-required content.wrong-type instance.retry-elsewhere mode.none state.expiry" \
  "$RMCP1" --call 'bench_confirm={"n":1}' --also "$RMCP2" --state-age 2

# frontdesk serve: two instances with one key, two principals.
SERVE_DIR="$(mktemp -d)"
FRONTDESK_STATE_KEYS="$("$FRONTDESK" keys generate 2> /dev/null | tail -n 1)"
export FRONTDESK_STATE_KEYS
printf 'alice audit-alice-0123456789abcdef\nbob audit-bob-0123456789abcdef0\n' > "$SERVE_DIR/tokens.txt"
start "$OUT/serve-1.log" "MCP endpoint at" "$FRONTDESK" serve --http 127.0.0.1:0 --store memory \
  --auth-tokens "$SERVE_DIR/tokens.txt"
SERVE1="$URL"
start "$OUT/serve-2.log" "MCP endpoint at" "$FRONTDESK" serve --http 127.0.0.1:0 --store memory \
  --auth-tokens "$SERVE_DIR/tokens.txt"
SERVE2="$URL"
token_file() { # <file> <token> <url…>
  local file="$1" token="$2"
  shift 2
  "${PYTHON:-python3}" - "$file" "$token" "$@" << 'EOF'
import json, os, sys
file, token, urls = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    json.dump({u: {"tokens": {"access_token": token}} for u in urls}, f)
EOF
}
token_file "$SERVE_DIR/alice.json" audit-alice-0123456789abcdef "$SERVE1" "$SERVE2"
token_file "$SERVE_DIR/bob.json" audit-bob-0123456789abcdef0 "$SERVE1"
audit serve "url.https" "$SERVE1" --token-file "$SERVE_DIR/alice.json" \
  --second-token-file "$SERVE_DIR/bob.json" --also "$SERVE2" --stress \
  --call 'book_return={"order_id":"A-1001"}' --call connect_store_account --effects book_return
rm -rf "$SERVE_DIR"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
