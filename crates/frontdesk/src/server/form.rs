//! The server's view of a form: the [`Form`] trait typed answers implement,
//! the [`FormSchema`] a question carries (the form model's), and
//! re-validation of accepted content.

use serde_json::{Map, Value};

pub use frontdesk_form::FormSchema;

/// A typed answer to a form question.
///
/// `schema()` is the restricted `requestedSchema` the client renders;
/// `from_content` reads the answer once it has been validated against that
/// schema (so it may rely on required fields being present and well typed,
/// and on defaults being applied). `#[derive(Form)]` will generate both;
/// until then implement it by hand.
pub trait Form: Sized {
    /// The `requestedSchema` for this form.
    fn schema() -> FormSchema;
    /// Build the value from content that already passed validation.
    fn from_content(content: Map<String, Value>) -> Result<Self, FormError>;
}

/// A schema that is not a valid elicitation `requestedSchema`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid requestedSchema: {0}")]
pub struct SchemaError(pub String);

/// Content that does not fit the form: one readable sentence per problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.problems.join("; "))]
pub struct FormError {
    /// The problems, each a sentence naming its field.
    pub problems: Vec<String>,
}

impl FormError {
    /// An error with one message.
    pub fn message(msg: impl Into<String>) -> Self {
        Self {
            problems: vec![msg.into()],
        }
    }
}

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
/// declare are dropped (and logged); missing optional fields get their
/// default. Returns the cleaned content.
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
    schema.validate(&clean).map_err(|errors| FormError {
        problems: errors.errors().iter().map(|e| e.message.clone()).collect(),
    })?;
    schema.apply_defaults(&mut clean);
    Ok(clean)
}
