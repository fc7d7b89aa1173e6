//! Properties the fuzz target `schema` relies on (`frontdesk::fuzzing`), on
//! schemas from the wire rather than the generated forms of `props.rs`: any
//! leniently parsed schema writes itself back as the same schema, and
//! `accept` on it is a fixed point whatever the content.

use frontdesk_form::{Defaults, FormSchema};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Property schemas that mix the subset's keywords with anything else.
fn arb_property() -> impl Strategy<Value = Value> {
    frontdesk_testkit::arb_json(
        &[
            "type",
            "enum",
            "oneOf",
            "anyOf",
            "items",
            "const",
            "title",
            "default",
            "minLength",
            "maxLength",
            "minimum",
            "maximum",
            "minItems",
            "maxItems",
            "format",
            "pattern",
            "enumNames",
        ],
        &[
            "string",
            "number",
            "integer",
            "boolean",
            "array",
            "email",
            "uri",
            "date",
            "date-time",
            "a",
            "b",
            "^[a-z]+$",
        ],
    )
}

fn arb_schema() -> impl Strategy<Value = Value> {
    let props = prop::collection::vec(("[a-c]{1,2}", arb_property()), 0..5);
    let required = prop::collection::vec("[a-d]{1,2}", 0..3);
    (props, required).prop_map(|(props, required)| {
        let props: Map<String, Value> = props.into_iter().collect();
        json!({"type": "object", "properties": props, "required": required})
    })
}

fn arb_content() -> impl Strategy<Value = Map<String, Value>> {
    let value = frontdesk_testkit::arb_json(&[], &["a", "b", "2026-01-01", "x@example.com"]);
    prop::collection::vec(("[a-d]{1,2}", value), 0..5).prop_map(|kv| kv.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn parsed_schemas_write_back_to_themselves(schema in arb_schema()) {
        if let Ok(parsed) = FormSchema::parse(&schema) {
            let written = parsed.schema.to_json();
            let again = FormSchema::parse(&written).unwrap();
            prop_assert_eq!(again.schema.to_json(), written);
        }
    }

    #[test]
    fn accept_is_a_fixed_point(schema in arb_schema(), content in arb_content(), apply in any::<bool>()) {
        let Ok(parsed) = FormSchema::parse(&schema) else { return Ok(()); };
        let form = parsed.schema;
        let defaults = if apply { Defaults::Apply } else { Defaults::Leave };
        let _ = form.validate(&content);
        if let Ok(accepted) = form.accept(content, defaults) {
            prop_assert!(form.validate(accepted.content()).is_ok());
            let again = form.accept(accepted.content().clone(), defaults).unwrap();
            prop_assert_eq!(again.content(), accepted.content());
            prop_assert!(again.dropped().is_empty());
        }
    }

    #[test]
    fn typed_input_never_panics(schema in arb_schema(), typed in "\\PC{0,12}") {
        let Ok(parsed) = FormSchema::parse(&schema) else { return Ok(()); };
        for field in parsed.schema.fields() {
            let _ = field.widget();
            let _ = field.constraints();
            let _ = field.default_input();
            if let Ok(Some(v)) = field.parse_input(&typed) {
                let _ = field.display_value(&v);
                let _ = field.input_text(&v);
            }
        }
    }
}
