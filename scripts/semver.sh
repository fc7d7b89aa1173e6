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
set -euo pipefail
cd "$(dirname "$0")/.."
baseline="${1:-${SEMVER_BASELINE:?set SEMVER_BASELINE or pass the baseline revision}}"
git rev-parse --verify --quiet "$baseline^{commit}" > /dev/null ||
  { echo "baseline $baseline is not a commit of this repository (a shallow clone?)" >&2; exit 1; }

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
