//! `frontdesk check` as a person runs it: files in, findings and exit status out.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Write `text` to a fresh file under the target dir and return its path.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn frontdesk(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_frontdesk"))
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

const SCHEMA: &str = r#"{"type":"object","properties":{
  "email":{"type":"string","title":"Email","format":"email"},
  "numberOfBoxes":{"type":"integer","minimum":1,"maximum":3},
  "apiKey":{"type":"string"},
  "address":{"type":"object"}},
  "required":["email"]}"#;

#[test]
fn reports_subset_problems_sensitive_fields_and_answer_errors() {
    let schema = file("schema.json", SCHEMA);
    let answer = file(
        "answer.json",
        r#"{"action":"accept","content":{"email":"nope","numberOfBoxes":7,"extra":1}}"#,
    );
    let out = frontdesk(&[schema.as_os_str(), answer.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        "schema: 4 fields\n\
         \x20 problem   address: nested objects are not supported in a form [nested_object]\n\
         \x20 sensitive apiKey: Api key looks like it asks for an API key; form mode must not be used for secrets, use URL mode instead [api_key]\n\
         answer: 3 problems\n\
         \x20 email: Email must be an email address like name@example.com [invalid_email]\n\
         \x20 numberOfBoxes: Number of boxes must be between 1 and 3 [above_maximum]\n\
         \x20 extra: \"extra\" is not a field of this form [unknown_field]\n"
    );
}

#[test]
fn a_clean_schema_and_valid_answer_exit_zero() {
    let schema = file(
        "clean.json",
        r#"{"mode":"form","message":"Hi","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
    );
    let answer = file("ok.json", r#"{"name":"Ada"}"#);
    let out = frontdesk(&[schema.as_os_str(), answer.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "schema: 1 field\n  no problems\nanswer: valid\n"
    );
}

#[test]
fn json_output_is_one_object() {
    let schema = file("schema-json.json", SCHEMA);
    let out = frontdesk(&["--json".as_ref(), schema.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fields"], 4);
    assert_eq!(report["diagnostics"][0]["code"], "nested_object");
    assert_eq!(report["sensitive"][0]["field"], "apiKey");
    assert!(report.get("answer").is_none());
}

#[test]
fn unreadable_input_exits_two_with_a_message() {
    let out = frontdesk(&["/nonexistent/schema.json".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("frontdesk check: cannot read /nonexistent/schema.json"),
        "{stderr}"
    );

    let bad = file("bad.json", "{not json");
    let out = frontdesk(&[bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("is not valid JSON")
    );
}

/// Issue 9: a non-string enum is outside the subset; it used to pass with no
/// finding, and an answer outside the enum validated.
#[test]
fn an_integer_enum_is_reported_and_not_trusted() {
    let schema = file(
        "int-enum.json",
        r#"{"type":"object","properties":{"rating":{"type":"integer","enum":[1,2,3]}}}"#,
    );
    let answer = file("int-enum-answer.json", r#"{"rating":5}"#);
    let out = frontdesk(&[schema.as_os_str(), answer.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("problem   rating: \"enum\" on a field of type \"integer\" is outside the elicitation schema")
            && text.contains("[non_string_enum]"),
        "{text}"
    );
    assert!(text.contains("answer: 1 problem"), "{text}");
}

#[test]
fn a_choice_error_names_the_values_to_send() {
    let schema = file(
        "choice.json",
        r#"{"type":"object","properties":{"reason":{"type":"string","title":"Reason",
            "oneOf":[{"const":"damaged","title":"It arrived damaged"},{"const":"wrong_item","title":"Wrong item"}]}},
            "required":["reason"]}"#,
    );
    let answer = file("choice-answer.json", r#"{"reason":"Wrong item"}"#);
    let out = frontdesk(&[schema.as_os_str(), answer.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(
            "reason: Reason must be one of these values: \"damaged\" (It arrived damaged), \"wrong_item\" (Wrong item); \"Wrong item\" is not one of them [not_an_option]"
        ),
        "{stdout}"
    );
}
