//! The strict builder: every rule, with the field and the rule named in the error.

use frontdesk_form::{BuildError, DiagnosticCode as D, FormBuilder, FormSchema, Limits};
use serde_json::json;

fn fails(b: FormBuilder) -> BuildError {
    b.build().expect_err("the builder must reject this form")
}

fn check(b: FormBuilder, field: Option<&str>, code: D) -> String {
    let e = fails(b);
    assert_eq!(e.field.as_deref(), field, "{e}");
    assert_eq!(e.code, code, "{e}");
    e.to_string()
}

#[test]
fn min_greater_than_max() {
    let msg = check(
        FormSchema::builder().string("name", |f| f.min_length(5).max_length(2)),
        Some("name"),
        D::MinGreaterThanMax,
    );
    assert_eq!(
        msg,
        "field \"name\": \"minLength\" (5) is greater than \"maxLength\" (2)"
    );
    check(
        FormSchema::builder().integer("n", |f| f.range(10, 1)),
        Some("n"),
        D::MinGreaterThanMax,
    );
    check(
        FormSchema::builder().number("x", |f| f.minimum(1.5).maximum(1.25)),
        Some("x"),
        D::MinGreaterThanMax,
    );
    check(
        FormSchema::builder()
            .multi_select("t", |f| f.options(["a", "b"]).min_items(2).max_items(1)),
        Some("t"),
        D::MinGreaterThanMax,
    );
}

#[test]
fn default_must_pass_its_own_field() {
    let msg = check(
        FormSchema::builder().integer("seats", |f| f.title("Seats").range(1, 3).default(7)),
        Some("seats"),
        D::InvalidDefault,
    );
    assert_eq!(
        msg,
        "field \"seats\": the default is invalid: Seats must be between 1 and 3"
    );
    check(
        FormSchema::builder().integer("n", |f| f.default(2.5)),
        Some("n"),
        D::InvalidDefault,
    );
    check(
        FormSchema::builder().string("e", |f| f.email().default("nope")),
        Some("e"),
        D::InvalidDefault,
    );
    check(
        FormSchema::builder().string("z", |f| f.pattern(r"^\d+$").default("abc")),
        Some("z"),
        D::InvalidDefault,
    );
    check(
        FormSchema::builder().string("s", |f| f.max_length(2).default("abc")),
        Some("s"),
        D::InvalidDefault,
    );
    check(
        FormSchema::builder().select("r", |f| f.options(["eu"]).default("us")),
        Some("r"),
        D::InvalidDefault,
    );
    check(
        FormSchema::builder().multi_select("t", |f| {
            f.options(["a", "b"]).max_items(1).default(["a", "b"])
        }),
        Some("t"),
        D::InvalidDefault,
    );
    // A valid default is kept.
    let form = FormSchema::builder()
        .string("d", |f| f.date().default("2024-02-29"))
        .build()
        .unwrap();
    assert_eq!(
        form.field("d").unwrap().default_value(),
        Some(&json!("2024-02-29"))
    );
}

#[test]
fn options_rules() {
    check(
        FormSchema::builder().select("r", |f| f.options(Vec::<String>::new())),
        Some("r"),
        D::EmptyOptions,
    );
    check(
        FormSchema::builder().multi_select("m", |f| f),
        Some("m"),
        D::EmptyOptions,
    );
    let msg = check(
        FormSchema::builder().select("r", |f| f.options(["eu", "us", "eu"])),
        Some("r"),
        D::DuplicateOption,
    );
    assert_eq!(msg, "field \"r\": option \"eu\" is listed more than once");
    check(
        FormSchema::builder().multi_select("m", |f| f.option("a", "A").option("a", "B")),
        Some("m"),
        D::DuplicateOption,
    );
    check(
        FormSchema::builder().select("c", |f| f.option("r", "Red").option("g", "Red")),
        Some("c"),
        D::DuplicateLabel,
    );
    check(
        FormSchema::builder().select("c", |f| f.option("r", "Red").options(["g"])),
        Some("c"),
        D::MissingOptionTitle,
    );
    check(
        FormSchema::builder().select("c", |f| f.option("r", " ")),
        Some("c"),
        D::InvalidTitle,
    );
    check(
        FormSchema::builder().multi_select("m", |f| f.options(["a"]).min_items(2)),
        Some("m"),
        D::UnsatisfiableMinItems,
    );
    let mut limits = Limits::default();
    limits.max_options = 2;
    check(
        FormSchema::builder()
            .limits(limits)
            .select("s", |f| f.options(["a", "b", "c"])),
        Some("s"),
        D::TooManyOptions,
    );
}

#[test]
fn key_and_title_rules() {
    check(
        FormSchema::builder()
            .boolean("a", |f| f)
            .boolean("a", |f| f),
        Some("a"),
        D::DuplicateKey,
    );
    check(
        FormSchema::builder().boolean("", |f| f),
        Some(""),
        D::InvalidKey,
    );
    check(
        FormSchema::builder().boolean("has space", |f| f),
        Some("has space"),
        D::InvalidKey,
    );
    check(
        FormSchema::builder().boolean("tab\there", |f| f),
        Some("tab\there"),
        D::InvalidKey,
    );
    check(
        FormSchema::builder().boolean("b", |f| f.title("")),
        Some("b"),
        D::InvalidTitle,
    );
    check(
        FormSchema::builder().boolean("b", |f| f.title("line\nbreak")),
        Some("b"),
        D::InvalidTitle,
    );
    check(
        FormSchema::builder().title("  ").boolean("b", |f| f),
        None,
        D::InvalidTitle,
    );
    let mut limits = Limits::default();
    limits.max_key_len = 3;
    check(
        FormSchema::builder().limits(limits).boolean("long", |f| f),
        Some("long"),
        D::InvalidKey,
    );
}

#[test]
fn other_rules() {
    check(
        FormSchema::builder().number("x", |f| f.minimum(f64::NAN)),
        Some("x"),
        D::InvalidNumber,
    );
    check(
        FormSchema::builder().string("p", |f| f.pattern("(")),
        Some("p"),
        D::InvalidPattern,
    );
    let mut limits = Limits::default();
    limits.max_fields = 1;
    let e = fails(
        FormSchema::builder()
            .limits(limits)
            .boolean("a", |f| f)
            .boolean("b", |f| f),
    );
    assert_eq!(e.code, D::TooManyFields);
    assert_eq!(e.field, None);
}

#[test]
fn wire_shape_is_canonical() {
    let form = FormSchema::builder()
        .string("name", |f| {
            f.title("Name")
                .description("Full name")
                .min_length(1)
                .required()
        })
        .integer("n", |f| f.minimum(0))
        .build()
        .unwrap();
    assert_eq!(
        serde_json::to_string(&form).unwrap(),
        r#"{"type":"object","properties":{"name":{"type":"string","title":"Name","description":"Full name","minLength":1},"n":{"type":"integer","minimum":0}},"required":["name"]}"#
    );
    // No `required` key when nothing is required; an empty form is valid.
    let empty = FormSchema::builder().build().unwrap();
    assert_eq!(empty.to_json(), json!({"type": "object", "properties": {}}));
    assert!(empty.validate_value(&json!({})).is_ok());
}

#[test]
fn built_schema_round_trips_through_the_lenient_parser() {
    let form = FormSchema::builder()
        .string("a", |f| f.uri().pattern("^https:"))
        .select("b", |f| f.option("x", "Ex").legacy().default("x"))
        .multi_select("c", |f| f.option("x", "Ex").option("y", "Why"))
        .build()
        .unwrap();
    let parsed = FormSchema::parse(&form.to_json()).unwrap();
    assert!(parsed.is_clean());
    assert_eq!(
        serde_json::to_string(&parsed.schema).unwrap(),
        serde_json::to_string(&form).unwrap()
    );
    assert!(form.lint().is_empty());
}

/// A schema written as JSON is held to the builder's rules by `parse_strict`; a
/// non-string enum (issue 9) is refused with the field, the rule and the reason.
#[test]
fn parse_strict_refuses_a_non_string_enum_precisely() {
    let e = FormSchema::parse_strict(&json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "boxes": {"type": "integer", "enum": [1, 2, 3]}
        }
    }))
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("boxes"));
    assert_eq!(e.code, D::NonStringEnum);
    assert_eq!(
        e.to_string(),
        "field \"boxes\": \"enum\" on a field of type \"integer\" is outside the elicitation \
         schema: options must be strings, in a field of \"type\": \"string\""
    );
    for (def, code) in [
        (
            json!({"type": "boolean", "enum": [true, false]}),
            D::NonStringEnum,
        ),
        (
            json!({"type": "number", "oneOf": [{"const": 1, "title": "One"}]}),
            D::NonStringEnum,
        ),
        (
            json!({"type": "array", "items": {"type": "number", "enum": [1]}}),
            D::NonStringOption,
        ),
    ] {
        let schema = json!({"type": "object", "properties": {"f": def}});
        let e = FormSchema::parse_strict(&schema).unwrap_err();
        assert_eq!((e.field.as_deref(), e.code), (Some("f"), code), "{schema}");
    }
}

#[test]
fn parse_strict_accepts_what_the_builder_builds_and_refuses_what_it_would_refuse() {
    let built = FormSchema::builder()
        .title("Return")
        .select("reason", |f| {
            f.option("damaged", "Damaged").option("other", "Other")
        })
        .integer("boxes", |f| f.range(1, 3).default(1))
        .multi_select("tags", |f| f.options(["a", "b"]))
        .string("email", |f| f.email().required())
        .build()
        .unwrap();
    let parsed = FormSchema::parse_strict(&built.to_json()).unwrap();
    assert_eq!(parsed.to_json(), built.to_json());
    // Lenient parse takes these; the strict rules do not.
    for (schema, field, code) in [
        (
            json!({"type": "object", "title": " ", "properties": {}}),
            None,
            D::InvalidTitle,
        ),
        (json!({"properties": {}}), None, D::NotObjectType),
        (
            json!({"type": "object", "properties": {"a b": {"type": "string"}}}),
            Some("a b"),
            D::InvalidKey,
        ),
        (
            json!({"type": "object", "properties": {"x": {"type": "object"}}}),
            Some("x"),
            D::NestedObject,
        ),
    ] {
        assert!(FormSchema::parse(&schema).is_ok(), "{schema}");
        let e = FormSchema::parse_strict(&schema).unwrap_err();
        assert_eq!((e.field.as_deref(), e.code), (field, code), "{schema}");
    }
    let e = FormSchema::parse_strict(&json!([1])).unwrap_err();
    assert_eq!((e.field, e.code), (None, D::NotObjectType));
}
