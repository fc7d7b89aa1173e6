//! Compile-fail tests: each shape outside the subset, with its expected message, pointing at
//! the field or attribute concerned. `TRYBUILD=overwrite` regenerates the `.stderr` files.

#[test]
fn rejected_shapes() {
    let t = trybuild::TestCases::new();
    t.compile_fail(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ui/*.rs"));
}
