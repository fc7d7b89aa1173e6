//! The server's view of a form: the [`Form`] trait typed answers implement
//! (usually through `#[derive(Form)]`), the [`FormSchema`] a question
//! carries, and reading a schema written as JSON. `Form`, `FormError` and
//! `FormSchema` are the form model's (`frontdesk-form`), re-exported.
//!
//! Accepted content is judged by [`FormSchema::accept`], the same function
//! the client runtime uses before it sends an answer: keys the form does not
//! declare are dropped, whole numbers sent as floats (`3.0`) to integer
//! fields become integers, missing optional fields take their defaults, and
//! the rest is validated.

use serde_json::Value;

pub use frontdesk_form::{Form, FormError, FormSchema};

/// A schema that is not a valid elicitation `requestedSchema`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid requestedSchema: {0}")]
pub struct SchemaError(pub String);

/// Read a `requestedSchema` given as JSON (e.g. one written with `json!`),
/// refusing anything outside the elicitation subset with the strict
/// builder's rules (the field, and what is wrong with it).
///
/// ```
/// use frontdesk::server::schema_from_value;
/// use serde_json::json;
///
/// let ok = schema_from_value(&json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
/// assert!(ok.is_ok());
/// let nested = json!({"type": "object", "properties": {"a": {"type": "object"}}});
/// assert!(schema_from_value(&nested).is_err());
/// ```
pub fn schema_from_value(schema: &Value) -> Result<FormSchema, SchemaError> {
    FormSchema::parse_strict(schema).map_err(|e| SchemaError(e.to_string()))
}
