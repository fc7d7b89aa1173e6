#!/usr/bin/env bash
# Packages every published crate as `cargo publish` would, builds each package from its
# own files (cargo package's verification), then installs the `frontdesk` command from
# those packages into a temporary root and runs it from there.
#
#   scripts/package.sh
#
# The crates are not on crates.io yet, so the install takes its frontdesk-* dependencies
# from the packages just made (extracted into target/package/<crate>-<version>/ by the
# verification), through `[patch.crates-io]` given on the command line; everything else
# comes from crates.io as the packaged Cargo.lock says (--locked). Once the crates are
# published, `cargo install frontdesk-cli` does the same without the patches.
#
# Builds are debug builds in the workspace's target dir with the workspace's debug-info
# setting, so CI's test build and the verification share what they can; the install
# rebuilds only the frontdesk crates (a path source, not the packaging's registry copy).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${CARGO_TARGET_DIR:-target}"
mkdir -p "$TARGET"
TARGET="$(cd "$TARGET" && pwd)"
export CARGO_TARGET_DIR="$TARGET"
# The packaged manifests carry no [profile]; use the workspace's (Cargo.toml) so the
# dependencies built for the tests are reused rather than built again with full debug info.
export CARGO_PROFILE_DEV_DEBUG=line-tables-only

# The crates that are never published (publish = false).
unpublished=(frontdesk-testkit frontdesk-examples)
exclude=()
for crate in "${unpublished[@]}"; do exclude+=(--exclude "$crate"); done

version="$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print({p["version"] for p in json.load(sys.stdin)["packages"]}.pop())')"
published="$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"] if p["publish"] != []))')"

echo "-- cargo package (verified): $published, version $version"
# A package left from an earlier run of another version would be verified again.
rm -rf "$TARGET/package"
# Cargo's verification unpacks the packages into $CARGO_HOME/registry/src/-<hash of the
# overlay registry's path>/ and reuses what it finds there: a run on this machine from
# the same checkout path with the same version left the old sources, which were then
# "verified" instead of these (a new method missing from them). Drop our crates' copies.
for stale in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/frontdesk*-"$version"; do
  if [ -d "$stale" ]; then rm -rf "$stale"; fi
done
# Cargo does not fingerprint a registry package's sources either: the verification of an
# earlier run (same version, same target dir) would be reused as built. Our crates are
# built again (the dependencies' builds stay).
rm -rf "$TARGET"/debug/.fingerprint/frontdesk* "$TARGET"/debug/deps/*frontdesk*
# (Cargo's progress lines and its notes that tests, benchmarks and examples stay out of
# the packages are left out; anything else it says is shown.)
cargo package --workspace --locked "${exclude[@]}" 2>&1 | {
  grep -vE '^ +(Compiling|Packaging|Packaged|Archiving|Verifying|Finished|Updating|Locking|Adding|Downloaded|Downloading|Unpacking|Blocking) |^warning: ignoring (test|benchmark|example) ' || true
}

# Each published crate's package, extracted by the verification.
patches=()
for crate in $published; do
  dir="$TARGET/package/$crate-$version"
  test -f "$dir/Cargo.toml" || { echo "no verified package for $crate at $dir" >&2; exit 1; }
  patches+=(--config "patch.crates-io.$crate.path=\"$dir\"")
done

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
echo "-- cargo install frontdesk-cli from its package into $root"
cargo install --locked --debug --root "$root" --path "$TARGET/package/frontdesk-cli-$version" \
  "${patches[@]}" 2>&1 | { grep -vE '^ +(Compiling|Downloaded|Downloading|Finished|Updating|Blocking) |^warning: be sure to add' || true; }
frontdesk="$root/bin/frontdesk"

echo "-- $frontdesk --version"
"$frontdesk" --version | tee "$root/version.txt"
grep -qx "frontdesk $version" "$root/version.txt" ||
  { echo "expected \`frontdesk $version\`" >&2; exit 1; }

echo "-- $frontdesk call demo book_return --answers (the demo server inside the installed command)"
cat > "$root/answers.json" << 'EOF'
{"tools": {"book_return": [
  {"action": "accept", "content": {"reason": "wrong_item", "boxes": 2,
   "pickup_date": "2026-12-01", "contact_email": "ann@example.com"}},
  {"action": "accept", "content": {"confirm": true}}
]}}
EOF
for protocol in 2025-11-25 2026-07-28; do
  (cd "$root" && RUST_LOG=warn "$frontdesk" call demo book_return --args '{"order_id":"A-1001"}' \
    --answers answers.json --protocol "$protocol" < /dev/null > "result-$protocol.json")
  python3 - "$root/result-$protocol.json" "$protocol" << 'EOF'
import json, sys

result = json.load(open(sys.argv[1]))
booked = result.get("structuredContent", {})
expected = {"status": "booked", "orderId": "A-1001", "reason": "wrong_item", "boxes": 2,
            "pickupDate": "2026-12-01", "contactEmail": "ann@example.com"}
wrong = {k: booked.get(k) for k, v in expected.items() if booked.get(k) != v}
if wrong or result.get("isError"):
    sys.exit(f"{sys.argv[2]}: not the booked return: {json.dumps(result)}")
print(f"{sys.argv[2]}: {result['content'][0]['text']}")
EOF
done
echo "packaged and installed: frontdesk $version works from its packages"
