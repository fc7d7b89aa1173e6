//! Validation of an answer (`content` of an `accept`) against a schema.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{
    Field, FieldKind, FormSchema, MultiSelectField, NumberField, StringFormat, TextField,
};

/// The largest integer a JSON number can carry exactly in every implementation (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Stable machine codes for answer problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// A required field is missing.
    Required,
    /// The value has the wrong JSON type (e.g. the string `"3"` for a number).
    InvalidType,
    /// A number with a fraction for an integer field.
    NotInteger,
    /// An integer beyond ±(2^53 − 1).
    UnsafeInteger,
    /// Fewer characters than `minLength`.
    TooShort,
    /// More characters than `maxLength`.
    TooLong,
    /// Below `minimum`.
    BelowMinimum,
    /// Above `maximum`.
    AboveMaximum,
    /// Not an RFC 5322 email address.
    InvalidEmail,
    /// Not an absolute RFC 3986 URI.
    InvalidUri,
    /// Not an RFC 3339 full-date on the calendar.
    InvalidDate,
    /// Not an RFC 3339 date-time with offset.
    InvalidDateTime,
    /// Does not match the field's `pattern`.
    PatternMismatch,
    /// The `pattern` needed more matching work than allowed; the value could not be checked.
    PatternLimit,
    /// A value that is not one of the options.
    NotAnOption,
    /// Fewer choices than `minItems`.
    TooFewItems,
    /// More choices than `maxItems`.
    TooManyItems,
    /// The same choice twice.
    DuplicateItem,
    /// A key that is not a field of the form.
    UnknownField,
    /// An answer for a field whose shape is not supported.
    UnsupportedField,
    /// A value larger than the limits allow.
    TooLarge,
    /// The answer as a whole is not a JSON object.
    NotAnObject,
}

impl ErrorCode {
    /// The wire-stable snake_case name (`"required"`, `"invalid_type"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Required => "required",
            ErrorCode::InvalidType => "invalid_type",
            ErrorCode::NotInteger => "not_integer",
            ErrorCode::UnsafeInteger => "unsafe_integer",
            ErrorCode::TooShort => "too_short",
            ErrorCode::TooLong => "too_long",
            ErrorCode::BelowMinimum => "below_minimum",
            ErrorCode::AboveMaximum => "above_maximum",
            ErrorCode::InvalidEmail => "invalid_email",
            ErrorCode::InvalidUri => "invalid_uri",
            ErrorCode::InvalidDate => "invalid_date",
            ErrorCode::InvalidDateTime => "invalid_date_time",
            ErrorCode::PatternMismatch => "pattern_mismatch",
            ErrorCode::PatternLimit => "pattern_limit",
            ErrorCode::NotAnOption => "not_an_option",
            ErrorCode::TooFewItems => "too_few_items",
            ErrorCode::TooManyItems => "too_many_items",
            ErrorCode::DuplicateItem => "duplicate_item",
            ErrorCode::UnknownField => "unknown_field",
            ErrorCode::UnsupportedField => "unsupported_field",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::NotAnObject => "not_an_object",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ValidationError {
    /// The field concerned (`None` when the answer as a whole is wrong).
    pub field: Option<String>,
    /// What kind of problem.
    pub code: ErrorCode,
    /// A sentence a person can read, using the field's label.
    pub message: String,
}

impl ValidationError {
    fn new(field: &Field, code: ErrorCode, message: String) -> ValidationError {
        ValidationError {
            field: Some(field.key.clone()),
            code,
            message,
        }
    }
}

/// Every problem found in an answer (never empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// The problems, in field order (unknown keys last).
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// How many problems.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false (a `ValidationErrors` holds at least one problem).
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The problems with one field.
    pub fn for_field<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a ValidationError> {
        self.errors
            .iter()
            .filter(move |e| e.field.as_deref() == Some(key))
    }

    /// Take the list.
    pub fn into_vec(self) -> Vec<ValidationError> {
        self.errors
    }

    fn from_vec(errors: Vec<ValidationError>) -> Result<(), ValidationErrors> {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors { errors })
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(&e.message)?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl FormSchema {
    /// Validate the `content` of an `accept` and report every problem. A key the form does
    /// not declare is an [`ErrorCode::UnknownField`] here; to judge an answer as client and
    /// server do (undeclared keys dropped, then normalize and defaults), use
    /// [`accept`](FormSchema::accept).
    pub fn validate(&self, content: &Map<String, Value>) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();
        let mut seen = 0usize;
        for field in &self.fields {
            match content.get(&field.key) {
                Some(v) => {
                    seen += 1;
                    check_value(field, v, &mut errors);
                }
                None if field.required => errors.push(ValidationError::new(
                    field,
                    ErrorCode::Required,
                    format!("{} is required", field.label),
                )),
                None => {}
            }
        }
        if seen != content.len() {
            let cap = self.limits.max_fields.max(1);
            for key in content.keys().filter(|k| self.field(k).is_none()).take(cap) {
                errors.push(ValidationError {
                    field: Some(key.clone()),
                    code: ErrorCode::UnknownField,
                    message: format!("\"{}\" is not a field of this form", shorten(key)),
                });
            }
        }
        ValidationErrors::from_vec(errors)
    }

    /// Validate a `content` value that may not even be an object.
    pub fn validate_value(&self, content: &Value) -> Result<(), ValidationErrors> {
        match content {
            Value::Object(map) => self.validate(map),
            _ => Err(ValidationErrors {
                errors: vec![ValidationError {
                    field: None,
                    code: ErrorCode::NotAnObject,
                    message: "The answer must be an object of field values".to_owned(),
                }],
            }),
        }
    }
}

impl Field {
    /// Validate one value for this field (presence is the caller's concern).
    pub fn validate(&self, value: &Value) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();
        check_value(self, value, &mut errors);
        ValidationErrors::from_vec(errors)
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= 64 {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(61).collect();
        t.push_str("...");
        t
    }
}

/// Format a number for a person: whole numbers without a fraction.
pub(crate) fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

pub(crate) fn check_value(field: &Field, value: &Value, out: &mut Vec<ValidationError>) {
    match &field.kind {
        FieldKind::Text(t) => check_text(field, t, value, out),
        FieldKind::Number(n) => check_number(field, n, value, out),
        FieldKind::Boolean => {
            if !value.is_boolean() {
                out.push(ValidationError::new(
                    field,
                    ErrorCode::InvalidType,
                    format!("{} must be true or false", field.label),
                ));
            }
        }
        FieldKind::Select(s) => match value {
            Value::String(v) => {
                if !s.options.iter().any(|o| &o.value == v) {
                    out.push(not_an_option(field, v, &s.options));
                }
            }
            _ => out.push(ValidationError::new(
                field,
                ErrorCode::InvalidType,
                format!("{} must be one of the options", field.label),
            )),
        },
        FieldKind::MultiSelect(m) => check_multi(field, m, value, out),
        FieldKind::Unsupported(_) => out.push(ValidationError::new(
            field,
            ErrorCode::UnsupportedField,
            format!(
                "{} cannot be answered: its definition is not supported",
                field.label
            ),
        )),
    }
}

fn not_an_option(field: &Field, value: &str, options: &[crate::model::Choice]) -> ValidationError {
    let message = if options.len() <= 10 {
        let labels: Vec<&str> = options.iter().map(|o| o.label()).collect();
        format!("{} must be one of: {}", field.label, labels.join(", "))
    } else {
        format!(
            "{}: \"{}\" is not one of the options",
            field.label,
            shorten(value)
        )
    };
    ValidationError::new(field, ErrorCode::NotAnOption, message)
}

fn check_text(field: &Field, t: &TextField, value: &Value, out: &mut Vec<ValidationError>) {
    let Value::String(s) = value else {
        out.push(ValidationError::new(
            field,
            ErrorCode::InvalidType,
            format!("{} must be text", field.label),
        ));
        return;
    };
    if s.len() > field.max_answer_bytes {
        out.push(ValidationError::new(
            field,
            ErrorCode::TooLarge,
            format!(
                "{} is too long (more than {} bytes)",
                field.label, field.max_answer_bytes
            ),
        ));
        return;
    }
    if t.min_length.is_some() || t.max_length.is_some() {
        let len = s.chars().count() as u64;
        let short = t.min_length.is_some_and(|m| len < m);
        let long = t.max_length.is_some_and(|m| len > m);
        if short || long {
            let code = if short {
                ErrorCode::TooShort
            } else {
                ErrorCode::TooLong
            };
            let message = match (t.min_length, t.max_length) {
                (Some(lo), Some(hi)) if lo == hi => {
                    format!(
                        "{} must be exactly {}",
                        field.label,
                        plural(lo, "character", "characters")
                    )
                }
                (Some(lo), Some(hi)) => format!(
                    "{} must be between {lo} and {}",
                    field.label,
                    plural(hi, "character", "characters")
                ),
                (Some(1), None) => format!("{} must not be empty", field.label),
                (Some(lo), None) => format!(
                    "{} must be at least {}",
                    field.label,
                    plural(lo, "character", "characters")
                ),
                (None, Some(hi)) => format!(
                    "{} must be at most {}",
                    field.label,
                    plural(hi, "character", "characters")
                ),
                (None, None) => String::new(),
            };
            out.push(ValidationError::new(field, code, message));
        }
    }
    if let Some(f) = t.format
        && !f.check(s)
    {
        let (code, what) = match f {
            StringFormat::Email => (
                ErrorCode::InvalidEmail,
                "an email address like name@example.com",
            ),
            StringFormat::Uri => (
                ErrorCode::InvalidUri,
                "a full address like https://example.com",
            ),
            StringFormat::Date => (ErrorCode::InvalidDate, "a date like 2024-12-31"),
            StringFormat::DateTime => (
                ErrorCode::InvalidDateTime,
                "a date and time like 2024-12-31T23:59:00Z",
            ),
        };
        out.push(ValidationError::new(
            field,
            code,
            format!("{} must be {what}", field.label),
        ));
    }
    if let Some(p) = &t.pattern {
        match p.is_match(s) {
            Ok(true) => {}
            Ok(false) => out.push(ValidationError::new(
                field,
                ErrorCode::PatternMismatch,
                format!("{} is not in the expected format", field.label),
            )),
            Err(_) => out.push(ValidationError::new(
                field,
                ErrorCode::PatternLimit,
                format!(
                    "{} could not be checked: its pattern needs too much work",
                    field.label
                ),
            )),
        }
    }
}

fn check_number(field: &Field, n: &NumberField, value: &Value, out: &mut Vec<ValidationError>) {
    let Value::Number(num) = value else {
        let what = if n.integer {
            "a whole number"
        } else {
            "a number"
        };
        out.push(ValidationError::new(
            field,
            ErrorCode::InvalidType,
            format!("{} must be {what}", field.label),
        ));
        return;
    };
    let unsafe_int = match (num.as_u64(), num.as_i64()) {
        (Some(u), _) => u > MAX_SAFE_INTEGER,
        (None, Some(i)) => i.unsigned_abs() > MAX_SAFE_INTEGER,
        _ => false,
    };
    let v = num.as_f64().unwrap_or(f64::NAN);
    if unsafe_int || (n.integer && v.fract() == 0.0 && v.abs() > MAX_SAFE_INTEGER as f64) {
        out.push(ValidationError::new(
            field,
            ErrorCode::UnsafeInteger,
            format!(
                "{} must be between -{MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER}",
                field.label
            ),
        ));
        return;
    }
    if n.integer && v.fract() != 0.0 {
        out.push(ValidationError::new(
            field,
            ErrorCode::NotInteger,
            format!("{} must be a whole number", field.label),
        ));
        return;
    }
    let below = n.minimum.is_some_and(|m| v < m);
    let above = n.maximum.is_some_and(|m| v > m);
    if below || above {
        let code = if below {
            ErrorCode::BelowMinimum
        } else {
            ErrorCode::AboveMaximum
        };
        out.push(ValidationError::new(field, code, range_message(field, n)));
    }
}

pub(crate) fn range_message(field: &Field, n: &NumberField) -> String {
    match (n.minimum, n.maximum) {
        (Some(lo), Some(hi)) => format!(
            "{} must be between {} and {}",
            field.label,
            fmt_num(lo),
            fmt_num(hi)
        ),
        (Some(lo), None) => format!("{} must be at least {}", field.label, fmt_num(lo)),
        (None, Some(hi)) => format!("{} must be at most {}", field.label, fmt_num(hi)),
        (None, None) => format!("{} is out of range", field.label),
    }
}

fn check_multi(field: &Field, m: &MultiSelectField, value: &Value, out: &mut Vec<ValidationError>) {
    let Value::Array(items) = value else {
        out.push(ValidationError::new(
            field,
            ErrorCode::InvalidType,
            format!("{} must be a list of choices", field.label),
        ));
        return;
    };
    if items.len() > m.options.len().max(1) * 4 + 16 {
        out.push(ValidationError::new(
            field,
            ErrorCode::TooLarge,
            format!("{} has far too many choices ({})", field.label, items.len()),
        ));
        return;
    }
    let mut seen = vec![false; m.options.len()];
    let mut bad_type = false;
    for item in items {
        let Value::String(s) = item else {
            bad_type = true;
            continue;
        };
        match m.options.iter().position(|o| &o.value == s) {
            Some(i) if seen[i] => out.push(ValidationError::new(
                field,
                ErrorCode::DuplicateItem,
                format!(
                    "{} lists \"{}\" more than once",
                    field.label,
                    m.options[i].label()
                ),
            )),
            Some(i) => seen[i] = true,
            None => out.push(not_an_option(field, s, &m.options)),
        }
    }
    if bad_type {
        out.push(ValidationError::new(
            field,
            ErrorCode::InvalidType,
            format!("{} must be a list of choices", field.label),
        ));
    }
    let n = items.len() as u64;
    let few = m.min_items.is_some_and(|lo| n < lo);
    let many = m.max_items.is_some_and(|hi| n > hi);
    if few || many {
        let code = if few {
            ErrorCode::TooFewItems
        } else {
            ErrorCode::TooManyItems
        };
        let message = match (m.min_items, m.max_items) {
            (Some(lo), Some(hi)) if lo == hi => format!(
                "{} must have exactly {}",
                field.label,
                plural(lo, "choice", "choices")
            ),
            (Some(lo), Some(hi)) => format!(
                "{} must have between {lo} and {}",
                field.label,
                plural(hi, "choice", "choices")
            ),
            (Some(lo), None) => format!(
                "{} must have at least {}",
                field.label,
                plural(lo, "choice", "choices")
            ),
            (None, Some(hi)) => format!(
                "{} must have at most {}",
                field.label,
                plural(hi, "choice", "choices")
            ),
            (None, None) => String::new(),
        };
        out.push(ValidationError::new(field, code, message));
    }
}
