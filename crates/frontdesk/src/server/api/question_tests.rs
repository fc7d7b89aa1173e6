//! The form digest's direct path gives the digest the wire value gave.

use super::*;

/// The digest as it was computed before the direct path: through the
/// wire value (states sealed by earlier versions carry these).
fn digest_via_value(request: &InputRequest) -> String {
    let hash = Sha256::digest(canonical_json(
        &serde_json::to_value(request.to_wire(None)).unwrap_or(Value::Null),
    ));
    hash[..12].iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn form_digest_is_unchanged() {
    let schemas = [
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
        json!({"type": "object", "required": ["z", "a"], "properties": {
            "z": {"type": "string", "title": "Zé \"quoted\"\n\u{7}", "enum": ["b", "a"]},
            "a": {"type": "integer", "minimum": -3, "maximum": 1.5e3, "default": 2}
        }}),
        json!({"type": "object", "properties": {}}),
    ];
    for schema in schemas {
        let parsed = FormSchema::parse(&schema).expect("a valid schema").schema;
        // One schema shared by every question, as a tool shares it: its
        // canonical JSON is written by the first digest and read by the rest.
        let shared = std::sync::Arc::new(parsed.clone());
        for message in ["Confirm 7?", "", "tab\there \u{202e} \"q\" é 😀"] {
            let request = InputRequest::form(message, parsed.clone());
            assert_eq!(
                request.digest(),
                digest_via_value(&request),
                "{message:?} {schema}"
            );
            let request = InputRequest::form_shared(message.to_string(), shared.clone());
            assert_eq!(
                request.digest(),
                digest_via_value(&request),
                "shared: {message:?} {schema}"
            );
        }
    }
}

/// A form question goes out holding its schema's own JSON object, not a
/// copy of it, in both revisions' shapes, and writes the same JSON.
#[test]
fn a_form_is_sent_without_a_copy_of_its_schema() {
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let parsed = FormSchema::parse(&schema).expect("a valid schema").schema;
    let shared = std::sync::Arc::new(parsed);
    let request = InputRequest::form_shared("Confirm?".to_string(), shared.clone());
    for id in [None, Some("e-1")] {
        let WireInputRequest::Elicit(wire) = request.to_wire(id) else {
            panic!("a form is an elicitation");
        };
        let ElicitRequestParams::Form(form) = wire.params else {
            panic!("a form is sent in form mode");
        };
        assert!(std::sync::Arc::ptr_eq(
            &form.requested_schema,
            &shared.shared_json_object()
        ));
        assert_eq!(Value::Object((*form.requested_schema).clone()), schema);
    }
}
