#!/usr/bin/env bash
# Checks the `rust-version` the crates state (the MSRV; the rule is in docs/dependencies.md).
#
#   scripts/msrv.sh
#
# 1. Every workspace crate states the same rust-version, and every dependency in
#    Cargo.lock (normal, build and dev, all features, every platform) states one no newer
#    than ours: a dependency update that needs a newer compiler fails here, by name.
# 2. The workspace builds with exactly that toolchain. When the default toolchain is that
#    version, CI's own steps (clippy, the tests, the docs, the feature sets) are that build
#    and this script only says so; otherwise it runs `cargo check --workspace --all-targets
#    --all-features --locked` with `rustup run <rust-version>`. These machines cannot
#    download another toolchain, so a missing one is an error that says so, not a skipped
#    check. (Clippy's `incompatible_msrv` lint, on by default, also reads rust-version: it
#    flags a std API newer than the MSRV even when the compiler is newer.)
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -d '' judge << 'PY' || true
import json, sys

meta = json.load(sys.stdin)
members = set(meta["workspace_members"])

def version(text):
    parts = [int(p) for p in text.split("-")[0].split(".")]
    return tuple(parts + [0] * (3 - len(parts)))

stated = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
if len(stated) != 1 or None in stated:
    sys.exit(f"the workspace crates state different rust-versions: {sorted(map(str, stated))}")
ours = stated.pop()
newer = sorted(
    f'{p["name"]} {p["version"]} needs rust {p["rust_version"]}'
    for p in meta["packages"]
    if p["id"] not in members
    and p.get("rust_version")
    and version(p["rust_version"]) > version(ours)
)
if newer:
    sys.exit(f"dependencies newer than rust-version {ours}:\n  " + "\n  ".join(newer))
print(ours)
PY
msrv="$(cargo metadata --format-version 1 --locked --all-features | python3 -c "$judge")"
echo "rust-version $msrv: every dependency in Cargo.lock states $msrv or older"

# The toolchain that is exactly the stated version.
if rustc --version | grep -qE "^rustc $msrv(\.0)? "; then
  echo "the default toolchain is $(rustc --version): every build of CI is a rust-version build"
  exit 0
fi
if ! rustup run "$msrv" rustc --version > /dev/null 2>&1; then
  echo "no $msrv toolchain here (the default is $(rustc --version)); install it with" >&2
  echo "  rustup toolchain install $msrv --profile minimal" >&2
  exit 1
fi
echo "building with $(rustup run "$msrv" rustc --version)"
rustup run "$msrv" cargo check --workspace --all-targets --all-features --locked --quiet
echo "rust-version $msrv: the workspace builds with it"
