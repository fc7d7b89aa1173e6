//! What renderers use: field descriptions, typed-input parsing, defaults, the lint, and
//! the bounds applied while validating.

use frontdesk_form::{
    Constraints, ErrorCode, FormSchema, Limits, SensitiveKind, ValidationError, Widget,
};
use serde_json::{Value, json};

fn spec_form() -> FormSchema {
    FormSchema::parse(&json!({
        "type": "object",
        "properties": {
            "displayName": {"type": "string", "title": "Display name", "description": "Shown to others", "minLength": 3, "maxLength": 50, "default": "octocat"},
            "email": {"type": "string", "title": "Email", "format": "email"},
            "birthday": {"type": "string", "format": "date"},
            "meeting_time": {"type": "string", "format": "date-time"},
            "homepage": {"type": "string", "format": "uri"},
            "seats": {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 100, "default": 5},
            "budget": {"type": "number", "minimum": 0, "default": 12.5},
            "newsletter": {"type": "boolean", "title": "Subscribe", "default": false},
            "region": {"type": "string", "title": "Region", "enum": ["eu", "us", "apac"], "default": "eu"},
            "color": {"type": "string", "title": "Color", "oneOf": [{"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}]},
            "tags": {"type": "array", "title": "Tags", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["alpha", "beta", "gamma"]}, "default": ["alpha"]},
            "palette": {"type": "array", "items": {"anyOf": [{"const": "#FF0000", "title": "Red"}, {"const": "#0000FF", "title": "Blue"}]}},
            "address": {"type": "object"}
        },
        "required": ["displayName", "email", "seats"]
    }))
    .expect("parses")
    .schema
}

fn input(form: &FormSchema, key: &str, typed: &str) -> Result<Option<Value>, ValidationError> {
    form.field(key).expect("field exists").parse_input(typed)
}

#[test]
fn fields_describe_themselves_in_order() {
    let form = spec_form();
    let rows: Vec<(&str, &str, bool, Widget)> = form
        .fields()
        .iter()
        .map(|f| (f.key(), f.label(), f.is_required(), f.widget()))
        .collect();
    assert_eq!(
        rows,
        [
            ("displayName", "Display name", true, Widget::Text),
            ("email", "Email", true, Widget::Email),
            ("birthday", "Birthday", false, Widget::Date),
            ("meeting_time", "Meeting time", false, Widget::DateTime),
            ("homepage", "Homepage", false, Widget::Url),
            ("seats", "Seats", true, Widget::Integer),
            ("budget", "Budget", false, Widget::Number),
            ("newsletter", "Subscribe", false, Widget::Checkbox),
            ("region", "Region", false, Widget::Select),
            ("color", "Color", false, Widget::Select),
            ("tags", "Tags", false, Widget::MultiSelect),
            ("palette", "Palette", false, Widget::MultiSelect),
            ("address", "Address", false, Widget::Unsupported),
        ]
    );
    let name = form.field("displayName").unwrap();
    assert_eq!(name.description(), Some("Shown to others"));
    assert_eq!(name.title(), Some("Display name"));
    let mut expected = Constraints::default();
    expected.min_length = Some(3);
    expected.max_length = Some(50);
    assert_eq!(name.constraints(), expected);
    let seats = form.field("seats").unwrap().constraints();
    assert_eq!((seats.minimum, seats.maximum), (Some(1.0), Some(100.0)));
    let tags = form.field("tags").unwrap().constraints();
    assert_eq!((tags.min_items, tags.max_items), (Some(1), Some(2)));
    let color: Vec<(&str, &str)> = form
        .field("color")
        .unwrap()
        .options()
        .iter()
        .map(|o| (o.value.as_str(), o.label()))
        .collect();
    assert_eq!(color, [("#FF0000", "Red"), ("#00FF00", "Green")]);
    assert!(form.field("email").unwrap().options().is_empty());
}

#[test]
fn defaults_prefill_and_apply() {
    let form = spec_form();
    assert_eq!(
        Value::Object(form.prefill()),
        json!({"displayName": "octocat", "seats": 5, "budget": 12.5, "newsletter": false, "region": "eu", "tags": ["alpha"]})
    );
    let mut content = json!({"email": "a@b.c", "seats": 2})
        .as_object()
        .unwrap()
        .clone();
    let added = form.apply_defaults(&mut content);
    assert_eq!(added, 4, "optional fields only");
    assert_eq!(
        content["seats"],
        json!(2),
        "present values are never replaced"
    );
    assert_eq!(content["budget"], json!(12.5));
    assert_eq!(content["tags"], json!(["alpha"]));
    assert!(
        !content.contains_key("displayName"),
        "a required field is asked, not assumed"
    );
    let e = form.validate(&content).unwrap_err();
    assert_eq!(e.errors()[0].message, "Display name is required");
    content.insert("displayName".into(), json!("Ada"));
    assert!(form.validate(&content).is_ok());
    assert_eq!(form.apply_defaults(&mut content), 0);
    assert_eq!(
        form.field("tags").unwrap().default_input().as_deref(),
        Some("alpha")
    );
    assert_eq!(
        form.field("newsletter").unwrap().default_input().as_deref(),
        Some("no")
    );
    assert_eq!(form.field("email").unwrap().default_input(), None);
}

#[test]
fn normalize_turns_whole_floats_into_integers() {
    let form = spec_form();
    let mut content = json!({"seats": 3.0, "budget": 2.0, "displayName": "x"})
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(form.normalize(&mut content), 1);
    assert_eq!(
        serde_json::to_string(&content).unwrap(),
        r#"{"seats":3,"budget":2.0,"displayName":"x"}"#
    );
    let seats: i64 = serde_json::from_value(content["seats"].clone()).unwrap();
    assert_eq!(seats, 3);
}

#[test]
fn typed_input_is_parsed_with_readable_errors() {
    let form = spec_form();
    assert_eq!(input(&form, "seats", "3").unwrap(), Some(json!(3)));
    assert_eq!(input(&form, "seats", " 3.0 ").unwrap(), Some(json!(3)));
    let e = input(&form, "seats", "abc").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::InvalidType, "Seats must be a whole number")
    );
    let e = input(&form, "seats", "2.5").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::NotInteger, "Seats must be a whole number")
    );
    let e = input(&form, "seats", "101").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::AboveMaximum, "Seats must be between 1 and 100")
    );
    let e = input(&form, "seats", "").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::Required, "Seats is required")
    );
    for bad in ["inf", "NaN", "1,000", "0x10", "--1", "e5"] {
        assert_eq!(
            input(&form, "budget", bad).unwrap_err().code,
            ErrorCode::InvalidType,
            "{bad}"
        );
    }
    assert_eq!(input(&form, "budget", "12.5").unwrap(), Some(json!(12.5)));
    assert_eq!(input(&form, "budget", "1e3").unwrap(), Some(json!(1000)));
    assert_eq!(
        input(&form, "budget", "-1").unwrap_err().code,
        ErrorCode::BelowMinimum
    );
    assert_eq!(
        input(&form, "budget", "   ").unwrap(),
        None,
        "blank optional is no answer"
    );

    for yes in ["y", "Yes", "TRUE", "1", "on"] {
        assert_eq!(
            input(&form, "newsletter", yes).unwrap(),
            Some(json!(true)),
            "{yes}"
        );
    }
    for no in ["n", "NO", "false", "0", "off"] {
        assert_eq!(
            input(&form, "newsletter", no).unwrap(),
            Some(json!(false)),
            "{no}"
        );
    }
    let e = input(&form, "newsletter", "maybe").unwrap_err();
    assert_eq!(e.message, "Subscribe must be yes or no");

    assert_eq!(input(&form, "region", "us").unwrap(), Some(json!("us")));
    assert_eq!(input(&form, "region", "US").unwrap(), Some(json!("us")));
    assert_eq!(
        input(&form, "color", "green").unwrap(),
        Some(json!("#00FF00"))
    );
    assert_eq!(
        input(&form, "color", "#FF0000").unwrap(),
        Some(json!("#FF0000"))
    );
    let e = input(&form, "color", "blue").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::NotAnOption, "Color must be one of: Red, Green")
    );

    assert_eq!(
        input(&form, "tags", "alpha, beta").unwrap(),
        Some(json!(["alpha", "beta"]))
    );
    assert_eq!(
        input(&form, "palette", "Red,blue").unwrap(),
        Some(json!(["#FF0000", "#0000FF"]))
    );
    let e = input(&form, "tags", "alpha, beta, gamma").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            ErrorCode::TooManyItems,
            "Tags must have between 1 and 2 choices"
        )
    );
    assert_eq!(
        input(&form, "tags", "alpha, alpha").unwrap_err().code,
        ErrorCode::DuplicateItem
    );

    assert_eq!(
        input(&form, "email", " ada@example.com ").unwrap(),
        Some(json!("ada@example.com"))
    );
    let e = input(&form, "email", "ada").unwrap_err();
    assert_eq!(
        e.message,
        "Email must be an email address like name@example.com"
    );
    assert_eq!(
        input(&form, "displayName", "  Ada  ").unwrap(),
        Some(json!("  Ada  ")),
        "plain text kept as typed"
    );
    assert_eq!(
        input(&form, "displayName", "Al").unwrap_err().code,
        ErrorCode::TooShort
    );
    assert_eq!(
        input(&form, "birthday", "2023-02-29").unwrap_err().code,
        ErrorCode::InvalidDate
    );
    assert_eq!(
        input(&form, "address", "x").unwrap_err().code,
        ErrorCode::UnsupportedField
    );
}

#[test]
fn display_values_use_labels() {
    let form = spec_form();
    let color = form.field("color").unwrap();
    assert_eq!(color.display_value(&json!("#00FF00")), "Green");
    assert_eq!(color.display_value(&json!("other")), "other");
    assert_eq!(
        form.field("palette")
            .unwrap()
            .display_value(&json!(["#FF0000", "#0000FF"])),
        "Red, Blue"
    );
    assert_eq!(
        form.field("newsletter")
            .unwrap()
            .display_value(&json!(true)),
        "Yes"
    );
    assert_eq!(form.field("seats").unwrap().display_value(&json!(3)), "3");
}

#[test]
fn sensitive_fields_are_linted() {
    let form = FormSchema::builder()
        .string("name", |f| f)
        .string("apiKey", |f| f)
        .string("x", |f| f.title("Your GitHub password"))
        .string("card_number", |f| f)
        .string("spinach", |f| f)
        .string("tokenizer", |f| f)
        .build()
        .unwrap();
    let warnings = form.lint();
    let got: Vec<(&str, SensitiveKind)> = warnings
        .iter()
        .map(|w| (w.field.as_str(), w.kind))
        .collect();
    assert_eq!(
        got,
        [
            ("apiKey", SensitiveKind::ApiKey),
            ("x", SensitiveKind::Password),
            ("card_number", SensitiveKind::CardNumber)
        ]
    );
    assert_eq!(
        warnings[0].message,
        "Api key looks like it asks for an API key; form mode must not be used for secrets, use URL mode instead"
    );
    let keys: Vec<&str> = form.sensitive_fields().map(|f| f.key()).collect();
    assert_eq!(keys, ["apiKey", "x", "card_number"]);
}

#[test]
fn validation_bounds_and_work_limits() {
    let mut limits = Limits::default();
    limits.max_answer_string_bytes = 8;
    let form = FormSchema::parse_with(
        &json!({"type": "object", "properties": {"s": {"type": "string"}}}),
        &limits,
    )
    .unwrap()
    .schema;
    let e = form.validate_value(&json!({"s": "123456789"})).unwrap_err();
    assert_eq!(e.errors()[0].code, ErrorCode::TooLarge);
    assert_eq!(e.errors()[0].message, "S is too long (more than 8 bytes)");
    assert!(form.validate_value(&json!({"s": "12345678"})).is_ok());

    // A hostile pattern: the answer gets a clear error instead of stalling the host.
    let form = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"p": {"type": "string", "title": "Code", "pattern": "^(?=a)(a|aa)+\\1b$"}}
    }))
    .unwrap()
    .schema;
    let started = std::time::Instant::now();
    let e = form
        .validate_value(&json!({"p": "a".repeat(40)}))
        .unwrap_err();
    assert!(started.elapsed().as_secs() < 5);
    assert_eq!(e.errors()[0].code, ErrorCode::PatternLimit);
    assert_eq!(
        e.errors()[0].message,
        "Code could not be checked: its pattern needs too much work"
    );

    // A flood of unknown keys is capped at max_fields errors.
    let mut flood = serde_json::Map::new();
    for i in 0..1000 {
        flood.insert(format!("k{i}"), json!(1));
    }
    let e = form.validate(&flood).unwrap_err();
    assert_eq!(e.len(), 100);
    // A multi-select answer far larger than the options is one error, not thousands.
    let form = FormSchema::parse(&json!({"type": "object", "properties": {"m": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}}))
        .unwrap()
        .schema;
    let e = form
        .validate_value(&json!({"m": vec!["a"; 5000]}))
        .unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e.errors()[0].code, ErrorCode::TooLarge);
}

#[test]
fn non_object_answer_and_error_display() {
    let form = spec_form();
    let e = form.validate_value(&json!(["x"])).unwrap_err();
    assert_eq!(e.errors()[0].field, None);
    assert_eq!(e.errors()[0].code, ErrorCode::NotAnObject);
    let e = form.validate_value(&json!({})).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Display name is required; Email is required; Seats is required"
    );
    assert_eq!(
        serde_json::to_value(e.errors()[0].clone()).unwrap(),
        json!({"field": "displayName", "code": "required", "message": "Display name is required"})
    );
    assert_eq!(e.for_field("email").count(), 1);
}
