//! The server's view of a form: the [`Form`] trait typed answers implement
//! (usually through `#[derive(Form)]`), the [`FormSchema`] a question
//! carries, and re-validation of accepted content. `Form`, `FormError` and
//! `FormSchema` are the form model's (`frontdesk-form`), re-exported.

use serde_json::{Map, Value};

pub use frontdesk_form::{Form, FormError, FormSchema};

/// A schema that is not a valid elicitation `requestedSchema`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid requestedSchema: {0}")]
pub struct SchemaError(pub String);

/// Read a `requestedSchema` given as JSON (e.g. one written with `json!`),
/// refusing anything outside the elicitation subset.
pub fn schema_from_value(schema: &Value) -> Result<FormSchema, SchemaError> {
    let parsed = FormSchema::parse(schema).map_err(|e| SchemaError(e.to_string()))?;
    if !parsed.is_clean() || !parsed.schema.is_fully_supported() {
        let why: Vec<String> = parsed
            .diagnostics
            .iter()
            .map(|d| format!("{d:?}"))
            .collect();
        return Err(SchemaError(why.join("; ")));
    }
    Ok(parsed.schema)
}

/// Validate accepted `content` against `schema`. Keys the form does not
/// declare are dropped (and logged); whole numbers sent as floats (`3.0`) to
/// integer fields are normalized; missing optional fields get their default.
/// Returns the cleaned content.
pub(crate) fn validate(
    schema: &FormSchema,
    content: &Map<String, Value>,
) -> Result<Map<String, Value>, FormError> {
    let mut clean: Map<String, Value> = Map::new();
    for (k, v) in content {
        if schema.field(k).is_some() {
            clean.insert(k.clone(), v.clone());
        } else {
            tracing::debug!(field = %k, "answer has a field the form does not declare; dropped");
        }
    }
    schema.normalize(&mut clean);
    schema.validate(&clean).map_err(FormError::from)?;
    schema.apply_defaults(&mut clean);
    Ok(clean)
}
