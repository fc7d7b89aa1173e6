//! The carried data is what its READMEs say it is.

use std::collections::BTreeSet;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::*;

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Each `schema.json` has the sha256 recorded in `data/spec/README.md`: it was copied
/// unchanged and has not been edited since.
#[test]
fn schema_files_match_the_recorded_sha256() {
    let readme = read_text(&spec_dir().join("README.md"));
    let mut checked = 0;
    for line in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(file), Some(hash)) = (cells.get(1), cells.get(4)) else {
            continue;
        };
        let hash = hash.trim_matches('`');
        if hash.len() != 64 {
            continue;
        }
        let file = file.trim_matches('`');
        let bytes = std::fs::read(spec_dir().join(file)).expect("listed file exists");
        assert_eq!(
            sha256_hex(&bytes),
            hash,
            "{file} differs from its recorded sha256"
        );
        checked += 1;
    }
    assert_eq!(checked, REVISIONS.len());
}

#[test]
fn the_examples_tree_is_complete() {
    let folders = example_folders();
    assert_eq!(folders.len(), 88);
    let files: usize = folders.iter().map(|f| example_files(f).len()).sum();
    assert_eq!(files, 129);
    for folder in &folders {
        assert!(!example_files(folder).is_empty(), "{folder} is empty");
    }
    let v = example("ListRootsRequest/list-roots-request.json");
    assert_eq!(v["method"], "roots/list");
}

#[test]
fn digest_examples_are_named_after_their_label() {
    let all = digest_examples();
    assert_eq!(all.len(), 36);
    let digests: BTreeSet<&str> = all.iter().map(|e| e.digest.as_str()).collect();
    assert_eq!(
        digests,
        BTreeSet::from(["ELICITATION.md", "JSONRPC-BASICS.md", "MRTR.md"])
    );
    let docs = REVISIONS.map(schema_json);
    for e in &all {
        let i = REVISIONS.iter().position(|r| *r == e.revision);
        let doc = &docs[i.unwrap_or_else(|| panic!("unknown revision: {e:?}"))];
        assert!(doc["$defs"].get(&e.def).is_some(), "{e:?}");
    }
    let form = elicitation_form_example();
    assert_eq!(form["mode"], "form");
    assert!(all.iter().any(|e| e.digest == "ELICITATION.md"
        && e.line == 305
        && e.def == "ElicitRequestFormParams"
        && e.value == form));
}

#[test]
fn the_validator_asserts_formats() {
    let schema = Schema::load("2025-11-25");
    assert_eq!(schema.revision(), "2025-11-25");
    let url = |u: &str| json!({"mode": "url", "message": "m", "url": u, "elicitationId": "e"});
    assert!(schema.is_valid("ElicitRequestURLParams", &url("https://example.com/x")));
    assert!(!schema.is_valid("ElicitRequestURLParams", &url("not a uri")));
    assert!(!schema.has("NoSuchDefinition"));
}

#[test]
#[should_panic(expected = "2026-07-28 schema has no $defs/NoSuchDefinition")]
fn an_unknown_def_is_a_failure_not_a_pass() {
    let _ = Schema::load("2026-07-28").errors("NoSuchDefinition", &json!({}));
}

#[test]
fn arb_json_uses_the_vocabulary_and_nests() {
    let strategy = arb_json(&["type"], &["string"]);
    let mut runner = TestRunner::deterministic();
    let (mut keyed, mut worded, mut nested) = (false, false, false);
    for _ in 0..500 {
        let v = strategy.new_tree(&mut runner).expect("a value").current();
        let text = v.to_string();
        keyed |= text.contains("\"type\":");
        worded |= text.contains(":\"string\"") || text.contains("[\"string\"");
        nested |=
            matches!(&v, Value::Object(m) if m.values().any(|c| c.is_object() || c.is_array()));
    }
    assert!(keyed && worded && nested, "{keyed} {worded} {nested}");
}
