//! The table-driven validation test: every case in `tests/data/validation_cases.json`.
//!
//! Each case has a `name`, a `schema` (parsed leniently, as a host would), an `answer`
//! (the `content` of an `accept`), and `expected`: `"ok"` or the exact list of
//! `{field, code}` problems in the order they are reported. An optional `message` is the
//! exact text of the first problem. An optional `diagnostics` is the exact list of
//! `{field, code}` diagnostics of the lenient parse (`[]`: the schema parses clean).

use frontdesk_form::FormSchema;
use serde_json::Value;

const TABLE: &str = include_str!("../data/validation_cases.json");

#[test]
fn validation_table() {
    let table: Value = serde_json::from_str(TABLE).expect("the table is JSON");
    let cases = table["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 150, "the table must keep at least 150 cases");
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for case in cases {
        let name = case["name"].as_str().expect("every case has a name");
        assert!(names.insert(name), "duplicate case name {name}");
        let parsed = FormSchema::parse(&case["schema"])
            .unwrap_or_else(|e| panic!("{name}: schema does not parse: {e}"));
        if let Some(Value::Array(list)) = case.get("diagnostics") {
            let want = pairs(list);
            let got: Vec<(Option<String>, String)> = parsed
                .diagnostics
                .iter()
                .map(|d| (d.field.clone(), code_name(&d.code)))
                .collect();
            if got != want {
                failures.push(format!(
                    "{name}: expected diagnostics {want:?}, got {got:?}"
                ));
                continue;
            }
        }
        let got: Vec<(Option<String>, String)> = match parsed.schema.validate_value(&case["answer"])
        {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .errors()
                .iter()
                .map(|e| (e.field.clone(), e.code.as_str().to_owned()))
                .collect(),
        };
        let want: Vec<(Option<String>, String)> = match &case["expected"] {
            Value::String(s) if s == "ok" => Vec::new(),
            Value::Array(list) => pairs(list),
            other => panic!("{name}: bad expected value {other}"),
        };
        if got != want {
            failures.push(format!("{name}: expected {want:?}, got {got:?}"));
            continue;
        }
        if let Some(message) = case.get("message").and_then(Value::as_str) {
            let first = parsed
                .schema
                .validate_value(&case["answer"])
                .err()
                .and_then(|e| e.errors().first().map(|e| e.message.clone()));
            if first.as_deref() != Some(message) {
                failures.push(format!(
                    "{name}: expected message {message:?}, got {first:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `[{field, code}, ..]` as pairs.
fn pairs(list: &[Value]) -> Vec<(Option<String>, String)> {
    list.iter()
        .map(|e| {
            (
                e["field"].as_str().map(str::to_owned),
                e["code"].as_str().expect("code").to_owned(),
            )
        })
        .collect()
}

/// A diagnostic code's stable wire name (`"non_string_enum"`).
fn code_name(code: &frontdesk_form::DiagnosticCode) -> String {
    match serde_json::to_value(code) {
        Ok(Value::String(s)) => s,
        other => panic!("a diagnostic code serializes as a string, not {other:?}"),
    }
}
