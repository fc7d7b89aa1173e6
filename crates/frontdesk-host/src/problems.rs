//! Problems with an answer, worded for whoever has to fix it: a choice error names
//! every option's value (what to send) next to its title (what a person reads), so a
//! script's author and a person both see what is expected.
//!
//! The form model's own message names only titles ("Reason must be one of: It arrived
//! damaged, …"); an `--answers` file or `frontdesk respond` must send a value, so
//! every place that reports problems words them here.

use frontdesk_form::{ErrorCode, Field, FieldKind, FormSchema, ValidationError, ValidationErrors};
use serde::Serialize;
use serde_json::{Map, Value};

/// One problem with an answer, keyed by the field it is about (`None`: the
/// form as a whole), worded by [`describe`]. Serializes as
/// `{"field": "contact_email", "message": "…"}` (no `field` for the form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The field's key, when the problem is one field's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What is wrong, for whoever fixes it.
    pub message: String,
}

/// The most options listed in one message.
const MAX_LISTED: usize = 10;

/// `"damaged" (It arrived damaged), "wrong_item" (Wrong item)`: the options of a
/// select or multi-select, values first.
pub fn options_text(field: &Field) -> String {
    let options = field.options();
    let mut listed: Vec<String> = options
        .iter()
        .take(MAX_LISTED)
        .map(|o| match o.title.as_deref().filter(|t| *t != o.value) {
            Some(title) => format!("\"{}\" ({title})", o.value),
            None => format!("\"{}\"", o.value),
        })
        .collect();
    if options.len() > MAX_LISTED {
        listed.push(format!("… ({} in all)", options.len()));
    }
    listed.join(", ")
}

/// One problem as a sentence. Choice problems list the values to send with their
/// titles (and, given the `answer`, say which value sent is not one of them);
/// everything else is the form model's message.
///
/// ```
/// use frontdesk_form::FormSchema;
/// use frontdesk_host::problems::describe;
/// use serde_json::json;
///
/// let form = FormSchema::builder()
///     .select("reason", |f| f.title("Reason").option("damaged", "It arrived damaged").required())
///     .build()
///     .expect("valid");
/// let errors = form.validate_value(&json!({"reason": "It arrived damaged"})).unwrap_err();
/// assert_eq!(
///     describe(&form, &errors.errors()[0], json!({"reason": "It arrived damaged"}).as_object()),
///     "Reason must be one of these values: \"damaged\" (It arrived damaged); \
///      \"It arrived damaged\" is not one of them"
/// );
/// ```
pub fn describe(
    schema: &FormSchema,
    error: &ValidationError,
    answer: Option<&Map<String, Value>>,
) -> String {
    let Some(field) = error.field.as_deref().and_then(|k| schema.field(k)) else {
        return error.message.clone();
    };
    let choice = matches!(
        field.kind(),
        FieldKind::Select(_) | FieldKind::MultiSelect(_)
    );
    if !choice || !matches!(error.code, ErrorCode::NotAnOption | ErrorCode::InvalidType) {
        return error.message.clone();
    }
    let multi = matches!(field.kind(), FieldKind::MultiSelect(_));
    let what = if multi {
        "takes a list of these values"
    } else {
        "must be one of these values"
    };
    let mut text = format!("{} {what}: {}", field.label(), options_text(field));
    let known = |v: &str| field.options().iter().any(|o| o.value == v);
    let sent: Vec<String> = match answer.and_then(|a| a.get(field.key())) {
        Some(Value::String(v)) if !known(v) => vec![v.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter(|i| i.as_str().is_none_or(|v| !known(v)))
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
            .collect(),
        Some(other) if !other.is_string() => vec![other.to_string()],
        _ => Vec::new(),
    };
    match sent.as_slice() {
        [] => {}
        [one] => text.push_str(&format!("; \"{one}\" is not one of them")),
        many => text.push_str(&format!(
            "; {} are not among them",
            many.iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    text
}

/// Every problem, in order, as [`describe`] words them.
pub fn describe_all(
    schema: &FormSchema,
    errors: &ValidationErrors,
    answer: Option<&Map<String, Value>>,
) -> Vec<String> {
    describe_keyed(schema, errors, answer)
        .into_iter()
        .map(|p| p.message)
        .collect()
}

/// Every problem, in order, keyed by field (see [`Problem`]).
pub fn describe_keyed(
    schema: &FormSchema,
    errors: &ValidationErrors,
    answer: Option<&Map<String, Value>>,
) -> Vec<Problem> {
    errors
        .errors()
        .iter()
        .map(|e| Problem {
            field: e.field.clone(),
            message: describe(schema, e, answer),
        })
        .collect()
}
