#!/usr/bin/env bash
# cargo semver-checks: does each published library crate's version say what changed
# since the last release? (docs/dependencies.md, "Versions and releases")
#
#   scripts/semver.sh [BASELINE]
#
# BASELINE is the git revision of the last release (default: $SEMVER_BASELINE, which
# .ci/run sets). There are no release tags: the baseline is a commit. A crate that did
# not exist at the baseline (frontdesk-demo before 0.2.0) has nothing to compare yet;
# frontdesk-cli is a binary, and the unpublished crates make no promise.
#
# Default features on both sides (the baseline's frontdesk had no features; everything
# it offered is in today's defaults), plus each optional feature of `frontdesk` that the
# baseline already had, so an optional API is checked from the first release that
# shipped it. The `fuzzing` feature is test machinery, never checked.
#
# The rustdoc of both sides is built in target/semver-checks (debug, no codegen), so a
# second run only rebuilds what changed.
#
# While the version already says "breaking" against the baseline (0.2.0 against 0.1.0:
# Cargo's reading of 0.x makes the second number the breaking one), every change is
# allowed and cargo semver-checks runs none of its checks ("0 checks: 0 pass, 260 skip"),
# after building both sides' rustdoc (about 5 minutes on a cold 2-core machine). The
# script says so and stops there; once the release is made and SEMVER_BASELINE moves to
# it, the versions agree again and the checks run. SEMVER_ALWAYS=1 runs them anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline="${1:-${SEMVER_BASELINE:?set SEMVER_BASELINE or pass the baseline revision}}"
git rev-parse --verify --quiet "$baseline^{commit}" > /dev/null ||
  { echo "baseline $baseline is not a commit of this repository (a shallow clone?)" >&2; exit 1; }

# The part of a version a breaking change moves: the major, or for 0.x the minor.
breaking_part() {
  python3 -c 'import sys; major, minor, _ = sys.argv[1].split(".", 2); print(major if major != "0" else "0." + minor)' "$1"
}
# `[workspace.package] version` of the Cargo.toml on stdin.
workspace_version() {
  python3 -c 'import sys, tomllib; print(tomllib.loads(sys.stdin.read())["workspace"]["package"]["version"])'
}
current_version="$(workspace_version < Cargo.toml)"
baseline_version="$(git show "$baseline:Cargo.toml" | workspace_version)"
if [ "$(breaking_part "$current_version")" != "$(breaking_part "$baseline_version")" ] &&
  [ "${SEMVER_ALWAYS:-0}" != 1 ]; then
  echo "version $current_version is a breaking release against the baseline's $baseline_version"
  echo "($(git rev-parse --short "$baseline")): every change is allowed, so cargo semver-checks would"
  echo "run none of its checks; not run (SEMVER_ALWAYS=1 runs it anyway). The checks come back"
  echo "when SEMVER_BASELINE moves to the $current_version release."
  exit 0
fi

# A crate the baseline had and published.
published_at_baseline() {
  local manifest
  manifest="$(git show "$baseline:crates/$1/Cargo.toml" 2> /dev/null)" || return 1
  ! grep -q '^publish = false' <<< "$manifest"
}

checked=()
skipped=()
for crate in frontdesk-form frontdesk-url frontdesk-wire frontdesk-derive frontdesk-host \
  frontdesk-web frontdesk-demo; do
  if published_at_baseline "$crate"; then checked+=("$crate"); else skipped+=("$crate"); fi
done
echo "baseline $(git rev-parse --short "$baseline"); not at the baseline: ${skipped[*]:-none}"

args=(--baseline-rev "$baseline" --default-features --color never)
packages=()
for crate in "${checked[@]}"; do packages+=(-p "$crate"); done
cargo semver-checks "${packages[@]}" "${args[@]}"

frontdesk_features=()
for feature in jwt tls sqlite redis; do
  if git show "$baseline:crates/frontdesk/Cargo.toml" | grep -q "^$feature = "; then
    frontdesk_features+=(--features "$feature")
  fi
done
cargo semver-checks -p frontdesk "${args[@]}" "${frontdesk_features[@]}"
