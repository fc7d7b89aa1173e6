//! Lenient parsing: what real servers send, kept verbatim, with typed diagnostics.

use frontdesk_form::{
    DiagnosticCode as D, ErrorCode, FieldKind, FormSchema, Limits, MultiSelectStyle, ParseError,
    SelectStyle, StringFormat,
};
use serde_json::{Value, json};

fn codes(schema: &Value) -> Vec<(Option<String>, D)> {
    FormSchema::parse(schema)
        .expect("parses")
        .diagnostics
        .into_iter()
        .map(|d| (d.field, d.code))
        .collect()
}

fn f(key: &str, code: D) -> (Option<String>, D) {
    (Some(key.to_owned()), code)
}

#[test]
fn unknown_keys_and_order_are_kept_exactly() {
    let text = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Ship it","type":"object","x-vendor":{"a":[1,2]},"properties":{"zeta":{"x-widget":"slider","type":"integer","maximum":9,"minimum":1},"alpha":{"pattern":"^[A-Z]+$","type":"string","description":"d"},"mid":{"type":"boolean"}},"additionalProperties":false,"required":["alpha"]}"#;
    let value: Value = serde_json::from_str(text).unwrap();
    let parsed = FormSchema::parse(&value).unwrap();
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    assert_eq!(serde_json::to_string(&parsed.schema).unwrap(), text);
    let s = &parsed.schema;
    assert_eq!(s.title(), Some("Ship it"));
    let keys: Vec<&str> = s.fields().iter().map(|f| f.key()).collect();
    assert_eq!(keys, ["zeta", "alpha", "mid"]);
    let extra: Vec<&String> = s.extra().keys().collect();
    assert_eq!(extra, ["$schema", "x-vendor", "additionalProperties"]);
    let zeta = s.field("zeta").unwrap();
    assert_eq!(zeta.extra().get("x-widget"), Some(&json!("slider")));
    let alpha = s.field("alpha").unwrap();
    assert!(alpha.is_required());
    assert!(alpha.extra().is_empty(), "pattern is understood, not extra");
    match alpha.kind() {
        FieldKind::Text(t) => assert_eq!(t.pattern.as_ref().unwrap().as_str(), "^[A-Z]+$"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn each_kind_is_recognised() {
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {
            "t": {"type": "string", "format": "date-time", "minLength": 1},
            "n": {"type": "number", "minimum": 0.5},
            "i": {"type": "integer"},
            "b": {"type": "boolean", "default": true},
            "u": {"type": "string", "enum": ["x", "y"]},
            "o": {"type": "string", "oneOf": [{"const": "x", "title": "Ex"}]},
            "l": {"type": "string", "enum": ["x"], "enumNames": ["Ex"]},
            "mu": {"type": "array", "items": {"type": "string", "enum": ["x"]}},
            "mt": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}]}, "maxItems": 1}
        }
    }))
    .unwrap();
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    let s = parsed.schema;
    assert!(
        matches!(s.field("t").unwrap().kind(), FieldKind::Text(t) if t.format == Some(StringFormat::DateTime) && t.min_length == Some(1))
    );
    assert!(
        matches!(s.field("n").unwrap().kind(), FieldKind::Number(n) if !n.integer && n.minimum == Some(0.5))
    );
    assert!(matches!(s.field("i").unwrap().kind(), FieldKind::Number(n) if n.integer));
    assert_eq!(s.field("b").unwrap().default_value(), Some(&json!(true)));
    assert!(
        matches!(s.field("u").unwrap().kind(), FieldKind::Select(x) if x.style == SelectStyle::Untitled)
    );
    assert!(
        matches!(s.field("o").unwrap().kind(), FieldKind::Select(x) if x.style == SelectStyle::Titled)
    );
    assert!(
        matches!(s.field("l").unwrap().kind(), FieldKind::Select(x) if x.style == SelectStyle::Legacy)
    );
    assert_eq!(s.field("l").unwrap().options()[0].label(), "Ex");
    assert!(
        matches!(s.field("mu").unwrap().kind(), FieldKind::MultiSelect(m) if m.style == MultiSelectStyle::Untitled)
    );
    assert!(
        matches!(s.field("mt").unwrap().kind(), FieldKind::MultiSelect(m) if m.style == MultiSelectStyle::Titled && m.max_items == Some(1))
    );
}

#[test]
fn unsupported_shapes_become_field_diagnostics() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "address": {"type": "object", "properties": {"city": {"type": "string"}}},
            "people": {"type": "array", "items": {"type": "object"}},
            "matrix": {"type": "array", "items": {"type": "array"}},
            "noItems": {"type": "array"},
            "phone": {"type": "string", "format": "phone"},
            "level": {"type": "string", "enum": [1, 2, 3]},
            "numbers": {"type": "array", "items": {"type": "number", "enum": [1, 2]}},
            "weird": {"type": "null"},
            "untyped": {"enum": ["a"]},
            "typeList": {"type": ["string", "null"]},
            "notAnObject": "string",
            "emptyEnum": {"type": "string", "enum": []},
            "badOneOf": {"type": "string", "oneOf": [{"title": "no const"}]},
            "oneOfNotArray": {"type": "string", "oneOf": {"const": "a"}},
            "nonStringConst": {"type": "string", "oneOf": [{"const": 1, "title": "One"}]},
            "age": {"type": "integer"}
        },
        "required": ["name", "address"]
    });
    let parsed = FormSchema::parse(&schema).unwrap();
    let got: Vec<(Option<String>, D)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.field.clone(), d.code))
        .collect();
    assert_eq!(
        got,
        [
            f("address", D::NestedObject),
            f("people", D::ArrayOfObjects),
            f("matrix", D::UnsupportedArray),
            f("noItems", D::UnsupportedArray),
            f("phone", D::UnknownFormat),
            f("level", D::NonStringOption),
            f("numbers", D::NonStringOption),
            f("weird", D::UnsupportedType),
            f("untyped", D::UnsupportedType),
            f("typeList", D::UnsupportedType),
            f("notAnObject", D::InvalidField),
            f("emptyEnum", D::EmptyOptions),
            f("badOneOf", D::InvalidOptions),
            f("oneOfNotArray", D::InvalidOptions),
            f("nonStringConst", D::NonStringOption),
        ]
    );
    let s = &parsed.schema;
    // The rest can still be shown: supported fields are intact, others kept raw.
    assert!(s.field("name").unwrap().is_supported());
    assert!(s.field("age").unwrap().is_supported());
    assert!(
        s.field("phone").unwrap().is_supported(),
        "unknown format degrades to text"
    );
    assert!(!s.field("address").unwrap().is_supported());
    assert_eq!(
        s.property_json("address"),
        Some(&schema["properties"]["address"])
    );
    assert!(!s.is_fully_supported());
    assert_eq!(
        s.to_json(),
        schema,
        "the whole schema re-serializes as sent"
    );
    let msg = &parsed.diagnostics[0].message;
    assert_eq!(msg, "nested objects are not supported in a form");
}

#[test]
fn constraint_problems_are_diagnosed_and_field_kept() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "string", "minLength": 5, "maxLength": 2},
            "b": {"type": "integer", "minimum": 10, "maximum": 1},
            "c": {"type": "array", "minItems": 3, "maxItems": 1, "items": {"type": "string", "enum": ["x", "y"]}},
            "d": {"type": "string", "minLength": "3", "maxLength": -1},
            "e": {"type": "number", "minimum": "0"},
            "f": {"type": "string", "enum": ["x", "y", "x"]},
            "g": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex"]},
            "h": {"type": "string", "oneOf": [{"const": "x"}]},
            "i": {"type": "string", "pattern": "(unclosed"},
            "j": {"type": "string", "pattern": 5},
            "k": {"type": "string", "title": 7},
            "l": {"type": "array", "minItems": 3, "items": {"type": "string", "enum": ["x", "y"]}}
        }
    });
    assert_eq!(
        codes(&schema),
        [
            f("a", D::MinGreaterThanMax),
            f("b", D::MinGreaterThanMax),
            f("c", D::MinGreaterThanMax),
            f("c", D::UnsatisfiableMinItems),
            f("d", D::InvalidKeyword),
            f("d", D::InvalidKeyword),
            f("e", D::InvalidKeyword),
            f("f", D::DuplicateOption),
            f("g", D::EnumNamesMismatch),
            f("h", D::MissingOptionTitle),
            f("i", D::InvalidPattern),
            f("j", D::InvalidPattern),
            f("k", D::InvalidKeyword),
            f("l", D::UnsatisfiableMinItems),
        ]
    );
    let parsed = FormSchema::parse(&schema).unwrap();
    assert!(parsed.schema.is_fully_supported());
    assert_eq!(parsed.schema.field("f").unwrap().options().len(), 2);
    assert_eq!(parsed.schema.field("g").unwrap().options()[1].label(), "y");
    assert_eq!(parsed.schema.field("k").unwrap().label(), "K");
}

#[test]
fn invalid_defaults_are_dropped_with_a_reason() {
    let schema = json!({
        "type": "object",
        "properties": {
            "seats": {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 3, "default": 7},
            "name": {"type": "string", "default": 5},
            "mail": {"type": "string", "format": "email", "default": "nope"},
            "region": {"type": "string", "enum": ["eu"], "default": "us"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["a", "a"]},
            "ok": {"type": "boolean", "default": false}
        }
    });
    let parsed = FormSchema::parse(&schema).unwrap();
    let got: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.field.clone(), d.code))
        .collect();
    assert_eq!(
        got,
        [
            f("seats", D::InvalidDefault),
            f("name", D::InvalidDefault),
            f("mail", D::InvalidDefault),
            f("region", D::InvalidDefault),
            f("tags", D::InvalidDefault),
        ]
    );
    assert_eq!(
        parsed.diagnostics[0].message,
        "the default is invalid: Seats must be between 1 and 3"
    );
    assert_eq!(parsed.schema.field("seats").unwrap().default_value(), None);
    assert_eq!(
        parsed.schema.field("ok").unwrap().default_value(),
        Some(&json!(false))
    );
    assert_eq!(
        parsed.schema.prefill(),
        json!({"ok": false}).as_object().unwrap().clone()
    );
}

#[test]
fn top_level_problems() {
    assert_eq!(
        codes(&json!({"properties": {}})),
        [(None, D::NotObjectType)]
    );
    assert_eq!(
        codes(&json!({"type": "object"})),
        [(None, D::MissingProperties)]
    );
    assert_eq!(
        codes(&json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"})),
        [(None, D::InvalidRequired)]
    );
    assert_eq!(
        codes(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", 3, "ghost"]})
        ),
        [(None, D::InvalidRequired), f("ghost", D::UnknownRequired)]
    );
    assert_eq!(
        FormSchema::parse(&json!([])).unwrap_err(),
        ParseError::NotAnObject
    );
    assert_eq!(
        FormSchema::parse(&json!("x")).unwrap_err(),
        ParseError::NotAnObject
    );
    assert_eq!(
        FormSchema::parse(&json!({"type": "object", "properties": []})).unwrap_err(),
        ParseError::PropertiesNotAnObject
    );
}

/// Only a root that is not an object form makes a whole form unusable;
/// every other problem leaves a form a host can show honestly.
#[test]
fn only_a_root_that_is_not_an_object_makes_a_form_unusable() {
    let unusable = |schema: Value| {
        FormSchema::parse(&schema)
            .unwrap()
            .unusable()
            .map(|d| (d.field.clone(), d.code))
    };
    for schema in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "string"}),
        json!({"type": ["object"], "properties": {}}),
        json!({"properties": {"name": {"type": "string"}}}),
    ] {
        assert_eq!(
            unusable(schema.clone()),
            Some((None, D::NotObjectType)),
            "{schema}"
        );
    }
    for schema in [
        json!({"type": "object", "properties": {}}),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {"a": {"type": "object"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}),
        json!({"type": "object", "properties": {}, "required": ["ghost"]}),
        json!({"type": "object", "properties": {}, "title": 3}),
    ] {
        assert_eq!(unusable(schema.clone()), None, "{schema}");
    }
}

#[test]
fn limits_bound_the_parse() {
    let mut props = serde_json::Map::new();
    for i in 0..101 {
        props.insert(format!("f{i}"), json!({"type": "boolean"}));
    }
    let schema = json!({"type": "object", "properties": props});
    assert_eq!(
        FormSchema::parse(&schema).unwrap_err(),
        ParseError::TooManyFields {
            count: 101,
            max: 100
        }
    );
    assert_eq!(
        FormSchema::parse(&schema).unwrap_err().to_string(),
        "requestedSchema has 101 fields; the limit is 100"
    );

    let options: Vec<String> = (0..501).map(|i| format!("o{i}")).collect();
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"big": {"type": "string", "enum": options}, "ok": {"type": "string"}}
    }))
    .unwrap();
    assert_eq!(parsed.diagnostics[0].code, D::TooManyOptions);
    assert!(!parsed.schema.field("big").unwrap().is_supported());
    assert!(parsed.schema.field("ok").unwrap().is_supported());

    let long_pattern = "a".repeat(1001);
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": long_pattern}}
    }))
    .unwrap();
    assert_eq!(parsed.diagnostics[0].code, D::InvalidPattern);
    assert_eq!(
        parsed.diagnostics[0].message,
        "pattern is 1001 characters long; the limit is 1000; it is not checked"
    );

    let long_key = "k".repeat(300);
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {long_key.clone(): {"type": "string"}}
    }))
    .unwrap();
    assert_eq!(parsed.diagnostics[0].code, D::InvalidKey);
    assert!(!parsed.schema.field(&long_key).unwrap().is_supported());

    let mut deep = json!("leaf");
    for _ in 0..40 {
        deep = json!({ "x": deep });
    }
    let schema = json!({"type": "object", "properties": {"a": {"type": "string", "x-deep": deep}}});
    assert_eq!(
        FormSchema::parse(&schema).unwrap_err(),
        ParseError::TooDeep { max: 32 }
    );
    let mut tight = Limits::default();
    tight.max_fields = 1;
    assert!(FormSchema::parse_with(&json!({"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}}), &tight).is_err());
}

#[test]
fn titled_enum_keeps_labels_and_accepts_missing_titles_leniently() {
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"c": {"type": "string", "oneOf": [
            {"const": "r", "title": "Red"}, {"const": "g"}
        ]}}
    }))
    .unwrap();
    let opts = parsed.schema.field("c").unwrap().options();
    assert_eq!(opts[0].label(), "Red");
    assert_eq!(opts[1].label(), "g");
    assert_eq!(parsed.diagnostics[0].code, D::MissingOptionTitle);
}

#[test]
fn diagnostics_serialize_with_snake_case_codes() {
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"a": {"type": "object"}}
    }))
    .unwrap();
    assert_eq!(
        serde_json::to_value(&parsed.diagnostics).unwrap(),
        json!([{"field": "a", "code": "nested_object", "message": "nested objects are not supported in a form"}])
    );
    assert_eq!(parsed.diagnostics_for("a").count(), 1);
}

/// Issue 9: a non-string `enum` (or `oneOf`) is outside the subset. It used to parse as a
/// plain number/boolean field with the enum ignored, so `5` answered `enum: [1, 2, 3]`.
#[test]
fn non_string_enums_are_reported_and_kept_unsupported() {
    let schema = json!({
        "type": "object",
        "properties": {
            "int": {"type": "integer", "enum": [1, 2, 3]},
            "num": {"type": "number", "enum": [1.5, 2.5]},
            "flag": {"type": "boolean", "enum": [true]},
            "mixed": {"type": "integer", "enum": [1, "two"]},
            "titled": {"type": "integer", "oneOf": [{"const": 1, "title": "One"}]},
            "list": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "enum": [["a"]]},
            "intItems": {"type": "array", "items": {"type": "integer", "enum": [1, 2]}},
            "intAnyOf": {"type": "array", "items": {"type": "integer", "anyOf": [{"const": "a", "title": "A"}]}},
            "ok": {"type": "string", "enum": ["1", "2"]}
        }
    });
    let parsed = FormSchema::parse(&schema).unwrap();
    let got: Vec<(Option<String>, D)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.field.clone(), d.code))
        .collect();
    let f = |k: &str, c| (Some(k.to_owned()), c);
    assert_eq!(
        got,
        [
            f("int", D::NonStringEnum),
            f("num", D::NonStringEnum),
            f("flag", D::NonStringEnum),
            f("mixed", D::NonStringEnum),
            f("titled", D::NonStringEnum),
            f("list", D::NonStringEnum),
            f("intItems", D::NonStringOption),
            f("intAnyOf", D::NonStringOption),
        ]
    );
    let s = &parsed.schema;
    assert!(!s.is_fully_supported());
    for key in [
        "int", "num", "flag", "mixed", "titled", "list", "intItems", "intAnyOf",
    ] {
        let field = s.field(key).unwrap();
        assert!(!field.is_supported(), "{key}");
        assert_eq!(
            s.property_json(key),
            Some(&schema["properties"][key]),
            "{key} kept raw"
        );
    }
    assert!(s.field("ok").unwrap().is_supported());
    assert_eq!(s.to_json(), schema, "re-serializes as sent");

    // The enum is no longer silently dropped: no answer is accepted for the field.
    for answer in [json!({"int": 5}), json!({"int": 1})] {
        let errors = s.validate_value(&answer).unwrap_err();
        assert_eq!(errors.errors()[0].code, ErrorCode::UnsupportedField);
    }

    let d = parsed.diagnostics_for("int").next().unwrap();
    assert_eq!(
        d.message,
        "\"enum\" on a field of type \"integer\" is outside the elicitation schema: \
         options must be strings, in a field of \"type\": \"string\""
    );
    let d = parsed.diagnostics_for("titled").next().unwrap();
    assert!(
        d.message
            .starts_with("\"oneOf\" on a field of type \"integer\""),
        "{}",
        d.message
    );
    let d = parsed.diagnostics_for("list").next().unwrap();
    assert!(
        d.message
            .ends_with("a multi-select lists its string options under \"items\""),
        "{}",
        d.message
    );
    assert_eq!(
        serde_json::to_value(D::NonStringEnum).unwrap(),
        json!("non_string_enum")
    );
}
