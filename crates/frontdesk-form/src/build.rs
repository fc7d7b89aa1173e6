//! The strict builder: servers describe a form in code and get either a schema inside the
//! subset or a precise error.

use std::fmt;

use serde_json::{Map, Number, Value};

use crate::builders::{
    BooleanBuilder, Common, MultiSelectBuilder, NumberBuilder, SelectBuilder, TextBuilder,
};
use crate::limits::Limits;
use crate::model::FormSchema;
use crate::parse::{DiagnosticCode, ParseError, parse_schema};

/// Why a form could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct BuildError {
    /// The field concerned, or `None` for the form as a whole.
    pub field: Option<String>,
    /// The rule that was broken.
    pub code: DiagnosticCode,
    /// A sentence describing the problem.
    pub message: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(k) => write!(f, "field \"{k}\": {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A Rust number usable as a JSON number in a schema (`minimum`, `maximum`, `default`).
pub trait JsonNumber {
    /// The JSON number, or `None` when it is not finite.
    fn to_json_number(self) -> Option<Number>;
}

macro_rules! int_number {
    ($($t:ty),*) => {$(
        impl JsonNumber for $t {
            fn to_json_number(self) -> Option<Number> {
                Some(Number::from(self))
            }
        }
    )*};
}
int_number!(i8, i16, i32, i64, u8, u16, u32, u64);

impl JsonNumber for f64 {
    fn to_json_number(self) -> Option<Number> {
        Number::from_f64(self)
    }
}

impl JsonNumber for f32 {
    fn to_json_number(self) -> Option<Number> {
        Number::from_f64(f64::from(self))
    }
}

/// Builds a [`FormSchema`]; start with [`FormSchema::builder`].
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct FormBuilder {
    title: Option<String>,
    description: Option<String>,
    fields: Vec<(String, Map<String, Value>, bool)>,
    errors: Vec<BuildError>,
    limits: Limits,
}

impl FormSchema {
    /// Start building a form (strict: anything outside the subset is an error).
    pub fn builder() -> FormBuilder {
        FormBuilder::default()
    }
}

impl FormBuilder {
    /// The form's title (a top-level `title`, outside the official subset but harmless).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The form's description (top-level `description`).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Build under these limits instead of [`Limits::default`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    fn push(
        &mut self,
        key: String,
        common: &Common,
        json: Result<Map<String, Value>, &'static str>,
    ) {
        if let Some(what) = common.bad_number {
            self.errors.push(BuildError {
                field: Some(key.clone()),
                code: DiagnosticCode::InvalidNumber,
                message: format!("\"{what}\" must be a finite number"),
            });
        }
        match json {
            Ok(m) => self.fields.push((key, m, common.required)),
            Err(msg) => self.errors.push(BuildError {
                field: Some(key),
                code: DiagnosticCode::MissingOptionTitle,
                message: msg.to_owned(),
            }),
        }
    }

    /// Add a text field.
    pub fn string(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(TextBuilder) -> TextBuilder,
    ) -> Self {
        let b = f(<TextBuilder as Default>::default());
        self.push(key.into(), &b.common, Ok(b.to_json()));
        self
    }

    /// Add a number field (fractions allowed).
    pub fn number(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(NumberBuilder) -> NumberBuilder,
    ) -> Self {
        let b = f(<NumberBuilder as Default>::default());
        self.push(key.into(), &b.common, Ok(b.to_json()));
        self
    }

    /// Add an integer field (whole numbers only).
    pub fn integer(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(NumberBuilder) -> NumberBuilder,
    ) -> Self {
        let mut start = <NumberBuilder as Default>::default();
        start.integer = true;
        let b = f(start);
        self.push(key.into(), &b.common, Ok(b.to_json()));
        self
    }

    /// Add a boolean (checkbox) field.
    pub fn boolean(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(BooleanBuilder) -> BooleanBuilder,
    ) -> Self {
        let b = f(<BooleanBuilder as Default>::default());
        self.push(key.into(), &b.common, Ok(b.to_json()));
        self
    }

    /// Add a single-select field.
    pub fn select(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(SelectBuilder) -> SelectBuilder,
    ) -> Self {
        let b = f(<SelectBuilder as Default>::default());
        self.push(key.into(), &b.common, b.to_json());
        self
    }

    /// Add a multi-select field.
    pub fn multi_select(
        mut self,
        key: impl Into<String>,
        f: impl FnOnce(MultiSelectBuilder) -> MultiSelectBuilder,
    ) -> Self {
        let b = f(<MultiSelectBuilder as Default>::default());
        self.push(key.into(), &b.common, b.to_json());
        self
    }

    /// Check every rule and produce the schema, or the first broken rule (in field order).
    pub fn build(self) -> Result<FormSchema, BuildError> {
        if let Some(e) = self.errors.into_iter().next() {
            return Err(e);
        }
        for (i, (key, _, _)) in self.fields.iter().enumerate() {
            if self.fields[..i].iter().any(|(k, _, _)| k == key) {
                return Err(BuildError {
                    field: Some(key.clone()),
                    code: DiagnosticCode::DuplicateKey,
                    message: "two fields have this key".to_owned(),
                });
            }
        }
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        if let Some(t) = &self.title {
            root.insert("title".into(), t.as_str().into());
        }
        if let Some(d) = &self.description {
            root.insert("description".into(), d.as_str().into());
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for (key, json, req) in self.fields {
            if req {
                required.push(Value::from(key.as_str()));
            }
            props.insert(key, Value::Object(json));
        }
        root.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            root.insert("required".into(), Value::Array(required));
        }
        strict_parse(&Value::Object(root), &self.limits)
    }
}

impl FormSchema {
    /// Parse a `requestedSchema` written by hand (e.g. with `json!`) under the strict
    /// builder's rules, with the default [`Limits`]: anything outside the subset, and
    /// anything the lenient [`parse`](FormSchema::parse) would report, is the first
    /// [`BuildError`] in field order.
    pub fn parse_strict(value: &Value) -> Result<FormSchema, BuildError> {
        strict_parse(value, &Limits::default())
    }

    /// [`parse_strict`](FormSchema::parse_strict) under the given limits.
    pub fn parse_strict_with(value: &Value, limits: &Limits) -> Result<FormSchema, BuildError> {
        strict_parse(value, limits)
    }
}

/// The strict rules: every diagnostic is an error (an unsupported field always has one).
fn strict_parse(value: &Value, limits: &Limits) -> Result<FormSchema, BuildError> {
    let parsed = parse_schema(value, limits, true).map_err(|e| {
        let code = match e {
            ParseError::TooManyFields { .. } => DiagnosticCode::TooManyFields,
            ParseError::NotAnObject => DiagnosticCode::NotObjectType,
            _ => DiagnosticCode::InvalidField,
        };
        BuildError {
            field: None,
            code,
            message: e.to_string(),
        }
    })?;
    if let Some(d) = parsed.diagnostics.into_iter().next() {
        return Err(BuildError {
            field: d.field,
            code: d.code,
            message: d.message,
        });
    }
    debug_assert!(parsed.schema.is_fully_supported());
    Ok(parsed.schema)
}
