//! `FormSchema::accept`, the one answer pipeline of client and server: undeclared keys
//! dropped and recorded, normalized, defaults on request, then validated.

use frontdesk_form::{Defaults, ErrorCode, FormSchema};
use serde_json::{Map, Value, json};

fn form() -> FormSchema {
    FormSchema::builder()
        .string("email", |f| f.title("Email").email().required())
        .integer("boxes", |f| f.title("Boxes").range(1, 3).default(1))
        .integer("floor", |f| f.title("Floor").default(0).required())
        .boolean("insured", |f| f.default(false))
        .select("reason", |f| f.options(["damaged", "other"]))
        .build()
        .expect("a valid form")
}

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

#[test]
fn undeclared_keys_are_dropped_recorded_and_never_judged() {
    let form = form();
    let answer = map(json!({
        "emial": "typo@example.com", "email": "ann@example.com", "floor": 2, "x-vendor": {}
    }));
    // `validate` alone rejects the extra keys …
    let errors = form.validate(&answer).unwrap_err();
    assert!(
        errors
            .errors()
            .iter()
            .all(|e| e.code == ErrorCode::UnknownField)
    );
    // … `accept` drops them, in the answer's order, and judges the rest.
    let accepted = form.accept(answer, Defaults::Leave).unwrap();
    assert_eq!(accepted.dropped(), ["emial", "x-vendor"]);
    assert_eq!(
        Value::Object(accepted.content().clone()),
        json!({"email": "ann@example.com", "floor": 2})
    );
    assert!(form.validate(accepted.content()).is_ok());
}

#[test]
fn a_typo_for_a_required_field_is_dropped_and_the_field_is_required() {
    let form = form();
    let errors = form
        .accept(
            map(json!({"emial": "ann@example.com", "floor": 1})),
            Defaults::Apply,
        )
        .unwrap_err();
    let got: Vec<(Option<&str>, ErrorCode)> = errors
        .errors()
        .iter()
        .map(|e| (e.field.as_deref(), e.code))
        .collect();
    assert_eq!(got, [(Some("email"), ErrorCode::Required)]);
}

#[test]
fn whole_floats_of_integer_fields_are_normalized_before_validation() {
    let form = form();
    let accepted = form
        .accept(
            map(json!({"email": "a@example.com", "floor": 2.0, "boxes": 3.0})),
            Defaults::Leave,
        )
        .unwrap();
    assert_eq!(accepted.content()["floor"], json!(2));
    assert!(accepted.content()["floor"].is_i64());
    assert!(accepted.content()["boxes"].is_i64());
    let errors = form
        .accept(
            map(json!({"email": "a@example.com", "floor": 2.5})),
            Defaults::Leave,
        )
        .unwrap_err();
    assert_eq!(errors.errors()[0].code, ErrorCode::NotInteger);
}

#[test]
fn defaults_fill_only_omitted_optional_fields_and_only_when_asked() {
    let form = form();
    let answer = map(json!({"email": "a@example.com", "floor": 4, "insured": true}));
    let applied = form.accept(answer.clone(), Defaults::Apply).unwrap();
    assert_eq!(
        Value::Object(applied.content().clone()),
        json!({"email": "a@example.com", "floor": 4, "insured": true, "boxes": 1})
    );
    let left = form.accept(answer.clone(), Defaults::Leave).unwrap();
    assert_eq!(left.into_content(), answer);
    // A required field with a default is never answered for the person.
    let errors = form
        .accept(map(json!({"email": "a@example.com"})), Defaults::Apply)
        .unwrap_err();
    assert_eq!(errors.errors()[0].field.as_deref(), Some("floor"));
    assert_eq!(errors.errors()[0].code, ErrorCode::Required);
}

#[test]
fn every_problem_is_reported_and_none_is_about_an_undeclared_key() {
    let form = form();
    let errors = form
        .accept(
            map(json!({"email": "nope", "floor": 1, "boxes": 9, "reason": "lost", "extra": 1})),
            Defaults::Apply,
        )
        .unwrap_err();
    let got: Vec<(Option<&str>, ErrorCode)> = errors
        .errors()
        .iter()
        .map(|e| (e.field.as_deref(), e.code))
        .collect();
    assert_eq!(
        got,
        [
            (Some("email"), ErrorCode::InvalidEmail),
            (Some("boxes"), ErrorCode::AboveMaximum),
            (Some("reason"), ErrorCode::NotAnOption),
        ]
    );
}

#[test]
fn the_parts_are_the_content_and_the_dropped_keys() {
    let (content, dropped) = form()
        .accept(
            map(json!({"zz": 1, "email": "a@example.com", "floor": 0, "aa": 2})),
            Defaults::Leave,
        )
        .unwrap()
        .into_parts();
    assert_eq!(dropped, ["zz", "aa"]);
    assert_eq!(content.keys().collect::<Vec<_>>(), ["email", "floor"]);
}
