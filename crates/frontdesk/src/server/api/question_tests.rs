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
