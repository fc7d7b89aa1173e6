#!/usr/bin/env bash
# browser-tests.sh: what the browser host's tests need, and a way to run them.
#
# Usage:
#   scripts/browser-tests.sh install     Debian's Chromium (apt, when missing), the pinned
#                                        playwright-core and axe-core (npm) into target/browser-tests
#   scripts/browser-tests.sh check       say whether both are there (exit 0 when they are)
#   scripts/browser-tests.sh run         the browser tests, through cargo, required to run
#
# playwright-core only drives a browser; it never downloads one (no
# `playwright install`): the tests use /usr/bin/chromium. Nothing is vendored:
# the package lives in target/browser-tests/node_modules, which git ignores.
# The tests themselves are crates/frontdesk-web/tests/browser/*.mjs, run by the
# Rust test crates/frontdesk-web/tests/it/browser.rs.
#
# Environment (optional): BROWSER_TESTS_DIR (default <repo>/target/browser-tests; the
# Rust test looks in <its target dir>/browser-tests unless it is set), CHROMIUM
# (default /usr/bin/chromium).
set -euo pipefail

PLAYWRIGHT_VERSION="1.64.1"
# The accessibility checker run on every page state (injected into the page).
AXE_VERSION="4.11.1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${BROWSER_TESTS_DIR:-$ROOT/target/browser-tests}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

have_playwright() {
  [ -f "$DIR/node_modules/playwright-core/package.json" ] &&
    grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$DIR/node_modules/playwright-core/package.json" &&
    [ -f "$DIR/node_modules/axe-core/package.json" ] &&
    grep -q "\"version\": \"$AXE_VERSION\"" "$DIR/node_modules/axe-core/package.json"
}

case "${1:-}" in
  install)
    if [ ! -x "$CHROMIUM" ]; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
    fi
    "$CHROMIUM" --version 2> /dev/null
    if ! have_playwright; then
      mkdir -p "$DIR"
      npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
        "playwright-core@$PLAYWRIGHT_VERSION" "axe-core@$AXE_VERSION" > /dev/null
    fi
    echo "playwright-core $PLAYWRIGHT_VERSION and axe-core $AXE_VERSION in $DIR/node_modules"
    ;;
  check)
    ok=0
    [ -x "$CHROMIUM" ] || { echo "no Chromium at $CHROMIUM"; ok=1; }
    have_playwright || { echo "no playwright-core $PLAYWRIGHT_VERSION / axe-core $AXE_VERSION in $DIR"; ok=1; }
    command -v node > /dev/null || { echo "no node"; ok=1; }
    [ "$ok" = 0 ] && echo "Chromium, node, playwright-core $PLAYWRIGHT_VERSION and axe-core $AXE_VERSION are there"
    exit "$ok"
    ;;
  run)
    cd "$ROOT"
    FRONTDESK_REQUIRE_BROWSER=1 cargo test -p frontdesk-web --test it browser -- --nocapture
    ;;
  *)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
