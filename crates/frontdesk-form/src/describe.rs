//! A render-neutral description of each field, and parsing of what a person typed.
//!
//! Terminal and browser renderers are built on [`Field`] alone: its key, label, description,
//! required flag, [`Widget`], options, default, [`Constraints`], [`Field::parse_input`] and
//! [`Field::display_value`].

use serde_json::{Number, Value};

use crate::model::{Field, FieldKind, StringFormat};
use crate::validate::{ErrorCode, ValidationError};

/// How a field should be presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Widget {
    /// Free text.
    Text,
    /// An email address.
    Email,
    /// A URL.
    Url,
    /// A calendar date.
    Date,
    /// A date and time with offset.
    DateTime,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// Yes or no.
    Checkbox,
    /// One of several options.
    Select,
    /// Any number of several options.
    MultiSelect,
    /// Cannot be shown; the host should offer to decline.
    Unsupported,
}

/// The constraints of a field, flattened for display.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Constraints {
    /// Least number of characters.
    pub min_length: Option<u64>,
    /// Greatest number of characters.
    pub max_length: Option<u64>,
    /// The ECMA-262 pattern the text must match.
    pub pattern: Option<String>,
    /// Least value.
    pub minimum: Option<f64>,
    /// Greatest value.
    pub maximum: Option<f64>,
    /// Least number of choices.
    pub min_items: Option<u64>,
    /// Greatest number of choices.
    pub max_items: Option<u64>,
}

impl Field {
    /// How to present this field.
    pub fn widget(&self) -> Widget {
        match &self.kind {
            FieldKind::Text(t) => match t.format {
                None => Widget::Text,
                Some(StringFormat::Email) => Widget::Email,
                Some(StringFormat::Uri) => Widget::Url,
                Some(StringFormat::Date) => Widget::Date,
                Some(StringFormat::DateTime) => Widget::DateTime,
            },
            FieldKind::Number(n) if n.integer => Widget::Integer,
            FieldKind::Number(_) => Widget::Number,
            FieldKind::Boolean => Widget::Checkbox,
            FieldKind::Select(_) => Widget::Select,
            FieldKind::MultiSelect(_) => Widget::MultiSelect,
            FieldKind::Unsupported(_) => Widget::Unsupported,
        }
    }

    /// The field's constraints.
    pub fn constraints(&self) -> Constraints {
        match &self.kind {
            FieldKind::Text(t) => Constraints {
                min_length: t.min_length,
                max_length: t.max_length,
                pattern: t.pattern.as_ref().map(|p| p.as_str().to_owned()),
                ..Constraints::default()
            },
            FieldKind::Number(n) => Constraints {
                minimum: n.minimum,
                maximum: n.maximum,
                ..Constraints::default()
            },
            FieldKind::MultiSelect(m) => Constraints {
                min_items: m.min_items,
                max_items: m.max_items,
                ..Constraints::default()
            },
            _ => Constraints::default(),
        }
    }

    /// The default as text a person could have typed (for pre-filling a text input).
    pub fn default_input(&self) -> Option<String> {
        self.default.as_ref().map(|v| self.input_text(v))
    }

    /// A value as a person would type it back into this field: the raw string, `yes`/`no`
    /// for a checkbox, `a, b` for a multi-select, nothing for `null`. [`Field::parse_input`]
    /// reads it back to the same value.
    pub fn input_text(&self, value: &Value) -> String {
        match value {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            Value::Bool(true) => "yes".to_owned(),
            Value::Bool(false) => "no".to_owned(),
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        }
    }

    /// A value as a person should read it on a review screen: option labels instead of
    /// values, "Yes"/"No" for booleans.
    pub fn display_value(&self, value: &Value) -> String {
        let label_of = |v: &str| {
            self.options()
                .iter()
                .find(|o| o.value == v)
                .map_or_else(|| v.to_owned(), |o| o.label().to_owned())
        };
        match value {
            Value::Bool(true) => "Yes".to_owned(),
            Value::Bool(false) => "No".to_owned(),
            Value::String(s) => label_of(s),
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), label_of))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        }
    }

    /// Turn what a person typed into a value for this field, checked against the field.
    ///
    /// Blank input means "no answer": `Ok(None)` for an optional field, a
    /// [`ErrorCode::Required`] error for a required one. Checkboxes accept
    /// y/yes/true/1/on and n/no/false/0/off; selects accept a value or a label
    /// (case-insensitive); multi-selects accept a comma-separated list of values or labels.
    pub fn parse_input(&self, input: &str) -> Result<Option<Value>, ValidationError> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return if self.required {
                Err(self.error(ErrorCode::Required, format!("{} is required", self.label)))
            } else {
                Ok(None)
            };
        }
        if input.len() > self.max_answer_bytes {
            return Err(self.error(
                ErrorCode::TooLarge,
                format!(
                    "{} is too long (more than {} bytes)",
                    self.label, self.max_answer_bytes
                ),
            ));
        }
        let value = match &self.kind {
            FieldKind::Text(t) => Value::String(if t.format.is_some() {
                trimmed.to_owned()
            } else {
                input.to_owned()
            }),
            FieldKind::Number(n) => self.parse_number(trimmed, n.integer)?,
            FieldKind::Boolean => match trimmed.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" | "1" | "on" => Value::Bool(true),
                "n" | "no" | "false" | "0" | "off" => Value::Bool(false),
                _ => {
                    return Err(self.error(
                        ErrorCode::InvalidType,
                        format!("{} must be yes or no", self.label),
                    ));
                }
            },
            FieldKind::Select(_) => Value::String(self.match_option(trimmed)?),
            FieldKind::MultiSelect(_) => {
                let mut values = Vec::new();
                for part in trimmed.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    values.push(Value::String(self.match_option(part)?));
                }
                Value::Array(values)
            }
            FieldKind::Unsupported(_) => {
                return Err(self.error(
                    ErrorCode::UnsupportedField,
                    format!(
                        "{} cannot be answered: its definition is not supported",
                        self.label
                    ),
                ));
            }
        };
        match self.validate(&value) {
            Ok(()) => Ok(Some(value)),
            Err(errors) => match errors.into_vec().into_iter().next() {
                Some(e) => Err(e),
                None => Ok(Some(value)),
            },
        }
    }

    fn error(&self, code: ErrorCode, message: String) -> ValidationError {
        ValidationError {
            field: Some(self.key.clone()),
            code,
            message,
        }
    }

    fn parse_number(&self, s: &str, integer: bool) -> Result<Value, ValidationError> {
        let what = if integer {
            "a whole number"
        } else {
            "a number"
        };
        let bad = || {
            self.error(
                ErrorCode::InvalidType,
                format!("{} must be {what}", self.label),
            )
        };
        let plain = s
            .strip_prefix(['-', '+'])
            .unwrap_or(s)
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
        if !plain || !s.chars().any(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Value::Number(Number::from(i)));
        }
        let f: f64 = s.parse().map_err(|_| bad())?;
        if !f.is_finite() {
            return Err(bad());
        }
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            return Ok(Value::Number(Number::from(f as i64)));
        }
        Number::from_f64(f).map(Value::Number).ok_or_else(bad)
    }

    fn match_option(&self, typed: &str) -> Result<String, ValidationError> {
        let opts = self.options();
        let found = opts
            .iter()
            .find(|o| o.value == typed)
            .or_else(|| opts.iter().find(|o| o.label().eq_ignore_ascii_case(typed)))
            .or_else(|| opts.iter().find(|o| o.value.eq_ignore_ascii_case(typed)))
            .or_else(|| {
                let lower = typed.to_lowercase();
                opts.iter().find(|o| o.label().to_lowercase() == lower)
            });
        match found {
            Some(o) => Ok(o.value.clone()),
            None => {
                let labels: Vec<&str> = opts.iter().take(10).map(|o| o.label()).collect();
                let more = if opts.len() > 10 { ", …" } else { "" };
                Err(self.error(
                    ErrorCode::NotAnOption,
                    format!("{} must be one of: {}{more}", self.label, labels.join(", ")),
                ))
            }
        }
    }
}
