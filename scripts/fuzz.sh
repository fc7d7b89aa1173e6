#!/usr/bin/env bash
# Run one cargo-fuzz target (or all of them) for a while, on nightly.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]
#   scripts/fuzz.sh all SECONDS          # every target, one after the other
#   FUZZ_JOBS=2 scripts/fuzz.sh all SECONDS   # every target, two at a time
#   scripts/fuzz.sh list                 # the targets
#
# The seeds in fuzz/corpus/TARGET/ are read, never written: what the fuzzer
# adds goes to target/fuzz-corpus/TARGET/ (kept between runs). A crash is
# written to fuzz/artifacts/TARGET/ (not committed); once fixed, copy the input
# to fuzz/artifacts-found/TARGET/ so the stable suite replays it
# (crates/frontdesk/tests/it/fuzz_props.rs). Each target is one libFuzzer
# process (no -jobs/-fork); `all` builds every target first (one cargo
# build, its binaries compiled side by side), then runs them one at a time,
# or FUZZ_JOBS at a time (CI gives it the machine's CPUs; a shared machine
# keeps the default 1). Each target still fuzzes for SECONDS on a CPU.
# Needs `rustup toolchain install nightly` and `cargo install cargo-fuzz`.
# The summary line per target: runs, seconds, corpus size, coverage, crashes.
# FUZZ_TOOLCHAIN picks another toolchain than `nightly`.
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain="+${FUZZ_TOOLCHAIN:-nightly}"

targets() { sed -n 's/^name = "\([a-z_]*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^frontdesk-fuzz$'; }

if [[ "${1:-}" == "list" ]]; then
  targets
  exit 0
fi
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer flags…]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2

if ! cargo "$toolchain" fuzz --version > /dev/null 2>&1; then
  echo "scripts/fuzz.sh: needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz)" >&2
  exit 2
fi

run_one() {
  local t=$1
  shift
  local work="target/fuzz-corpus/$t"
  local log="target/fuzz-logs/$t.log"
  mkdir -p "$work" "target/fuzz-logs"
  local status=0
  cargo "$toolchain" fuzz run --sanitizer none "$t" "$work" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@" > "$log" 2>&1 || status=$?
  local runs cov corpus crashes
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  corpus=$(find "$work" -type f | wc -l)
  crashes=$(find "fuzz/artifacts/$t" -type f 2> /dev/null | wc -l)
  printf '%-16s runs %-10s seconds %-5s corpus %-6s %-22s crashes %s%s\n' \
    "$t" "${runs:-?}" "$seconds" "$corpus" "${cov:-cov: ?}" "$crashes" \
    "$([[ $status -ne 0 ]] && echo "  FAILED (exit $status, see $log)")"
  return "$status"
}

if [[ "$target" == "all" ]]; then
  at_once="${FUZZ_JOBS:-1}"
  [[ "$at_once" =~ ^[1-9][0-9]*$ ]] ||
    { echo "FUZZ_JOBS must be a number of processes (1 or more), not '$at_once'" >&2; exit 2; }
  every=$(targets)
  mkdir -p target/fuzz-logs
  echo "building $(wc -w <<< "$every") targets"
  cargo "$toolchain" fuzz build --sanitizer none > target/fuzz-logs/build.log 2>&1 ||
    { tail -n 30 target/fuzz-logs/build.log; echo "building the fuzz targets failed" >&2; exit 1; }
  echo "running each for $seconds s, $at_once at a time"
  # Each target's summary line and exit status, printed in the targets' order.
  summary="target/fuzz-logs/summary"
  rm -rf "$summary"
  mkdir -p "$summary"
  for t in $every; do
    while [[ $(jobs -rp | wc -l) -ge $at_once ]]; do wait -n || true; done
    (
      status=0
      run_one "$t" "$@" > "$summary/$t" 2>&1 || status=$?
      echo "$status" > "$summary/$t.status"
    ) &
  done
  wait
  failed=0
  for t in $every; do
    cat "$summary/$t"
    [[ "$(cat "$summary/$t.status" 2> /dev/null)" == 0 ]] || failed=1
  done
  exit "$failed"
fi
targets | grep -qx "$target" || { echo "no such target: $target (scripts/fuzz.sh list)" >&2; exit 2; }
run_one "$target" "$@"
