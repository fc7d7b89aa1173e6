//! Lenient parsing of a `requestedSchema`, with diagnostics instead of failures.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::limits::{Limits, object_depth};
use crate::model::{
    Field, FieldKind, FormSchema, NumberField, StringFormat, TextField, UnsupportedField,
    humanize_key,
};
use crate::options::{parse_enum_select, parse_multi, parse_titled_select};
use crate::pattern::Pattern;

/// The result of a lenient parse: the schema, and what was wrong with it.
#[derive(Debug, Clone)]
pub struct ParsedForm {
    /// The schema. Fields with an unsupported shape are kept as
    /// [`FieldKind::Unsupported`].
    pub schema: FormSchema,
    /// Every problem found, in field order.
    pub diagnostics: Vec<Diagnostic>,
}

impl ParsedForm {
    /// No diagnostics at all?
    pub fn is_clean(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// The diagnostic that makes the whole form unusable, if there is one:
    /// a root whose `type` is missing or not `"object"`. Such a schema is
    /// not an object form, so no form shown for it is the question it asks,
    /// and no answer to it can be an honest `accept`: a host refuses it
    /// without showing it. Every other diagnostic leaves something a host
    /// can show honestly: an unsupported field is shown as such (with decline
    /// offered), a missing `properties` is a form without fields, a malformed
    /// or unknown `required` entry loses only what the server's own
    /// validation will hold the answer to.
    pub fn unusable(&self) -> Option<&Diagnostic> {
        self.diagnostics
            .iter()
            .find(|d| d.field.is_none() && d.code == DiagnosticCode::NotObjectType)
    }

    /// The diagnostics about one field.
    pub fn diagnostics_for<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Diagnostic> {
        self.diagnostics
            .iter()
            .filter(move |d| d.field.as_deref() == Some(key))
    }
}

/// One problem found in a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The field concerned, or `None` for the schema as a whole.
    pub field: Option<String>,
    /// What kind of problem.
    pub code: DiagnosticCode,
    /// A sentence describing it.
    pub message: String,
}

/// Stable codes for schema problems (shared by parse diagnostics and build errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// Top-level `type` is missing or not `"object"`.
    NotObjectType,
    /// Top-level `properties` is missing.
    MissingProperties,
    /// `required` is not an array of strings.
    InvalidRequired,
    /// `required` names a key that is not a field.
    UnknownRequired,
    /// A property's definition is not a JSON object.
    InvalidField,
    /// `type` is missing or not one of string/number/integer/boolean/array.
    UnsupportedType,
    /// `type: "object"`: forms are flat.
    NestedObject,
    /// An array whose items are objects.
    ArrayOfObjects,
    /// An array that is not a multi-select of strings.
    UnsupportedArray,
    /// A `format` other than email, uri, date, date-time.
    UnknownFormat,
    /// An option value that is not a string (`"type": "string", "enum": [1, 2]`), or
    /// multi-select options whose `items` declare a type other than `"string"`.
    NonStringOption,
    /// An `enum` or `oneOf` on a field whose `type` is not `"string"` (`number`, `integer`,
    /// `boolean`, `array`): the subset's options are strings only, so such a field is
    /// outside it and is kept as unsupported (its options would not be enforced).
    NonStringEnum,
    /// A malformed option list (not an array, entries without `const`, …).
    InvalidOptions,
    /// An option list with no options.
    EmptyOptions,
    /// The same option value twice.
    DuplicateOption,
    /// A titled option without a `title`.
    MissingOptionTitle,
    /// `enumNames` does not have one string per `enum` value.
    EnumNamesMismatch,
    /// More options than [`Limits::max_options`].
    TooManyOptions,
    /// A known keyword with a value of the wrong type (e.g. `minLength: "3"`).
    InvalidKeyword,
    /// A minimum above its maximum (`minLength`/`maxLength`, `minimum`/`maximum`,
    /// `minItems`/`maxItems`).
    MinGreaterThanMax,
    /// A multi-select whose `minItems` exceeds its number of options.
    UnsatisfiableMinItems,
    /// A `default` that fails its own field.
    InvalidDefault,
    /// A `pattern` that is invalid, untranslatable or too large.
    InvalidPattern,
    /// A key that is empty, too long, or contains spaces or control characters.
    InvalidKey,
    /// A title that is empty or contains control characters (strict build only).
    InvalidTitle,
    /// Two options with the same label (strict build only).
    DuplicateLabel,
    /// Two fields with the same key (builder only).
    DuplicateKey,
    /// A number that is not finite or not representable (builder only).
    InvalidNumber,
    /// More fields than [`Limits::max_fields`] (builder only; parsing fails instead).
    TooManyFields,
}

/// A schema that cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The schema is not a JSON object.
    #[error("requestedSchema must be a JSON object")]
    NotAnObject,
    /// `properties` is present but not a JSON object.
    #[error("requestedSchema.properties must be a JSON object")]
    PropertiesNotAnObject,
    /// More fields than [`Limits::max_fields`].
    #[error("requestedSchema has {count} fields; the limit is {max}")]
    TooManyFields {
        /// Number of fields sent.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// Nested deeper than [`Limits::max_depth`].
    #[error("requestedSchema is nested deeper than {max} levels")]
    TooDeep {
        /// The limit.
        max: usize,
    },
}

impl FormSchema {
    /// Parse a `requestedSchema` leniently with the default [`Limits`].
    ///
    /// Problems inside fields become [`Diagnostic`]s; only a schema that is not an object,
    /// has a non-object `properties`, or exceeds a size limit is an error.
    pub fn parse(value: &Value) -> Result<ParsedForm, ParseError> {
        parse_schema(value, &Limits::default(), false)
    }

    /// Parse a `requestedSchema` leniently under the given limits.
    pub fn parse_with(value: &Value, limits: &Limits) -> Result<ParsedForm, ParseError> {
        parse_schema(value, limits, false)
    }

    /// Parse a `requestedSchema` held in an `Arc` (as the wire type's
    /// `ElicitRequestFormParams::requested_schema` holds it) leniently with
    /// the default [`Limits`], without a copy of it: the parsed schema
    /// shares the object ([`FormSchema::shared_json_object`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use frontdesk_form::FormSchema;
    /// use serde_json::json;
    ///
    /// let wire = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    /// let schema = Arc::new(wire.as_object().cloned().unwrap_or_default());
    /// let parsed = FormSchema::parse_shared(&schema).unwrap();
    /// assert!(Arc::ptr_eq(&parsed.schema.shared_json_object(), &schema));
    /// assert_eq!(parsed.schema.fields().len(), 1);
    /// ```
    pub fn parse_shared(schema: &Arc<Map<String, Value>>) -> Result<ParsedForm, ParseError> {
        parse_object(schema, &Limits::default(), false, || Arc::clone(schema))
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) strict: bool,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    pub(crate) fn diag(
        &mut self,
        field: Option<&str>,
        code: DiagnosticCode,
        message: impl Into<String>,
    ) {
        self.diags.push(Diagnostic {
            field: field.map(str::to_owned),
            code,
            message: message.into(),
        });
    }
}

pub(crate) fn parse_schema(
    value: &Value,
    limits: &Limits,
    strict: bool,
) -> Result<ParsedForm, ParseError> {
    let Value::Object(root) = value else {
        return Err(ParseError::NotAnObject);
    };
    parse_object(root, limits, strict, || Arc::new(root.clone()))
}

/// [`parse_schema`] of an object; `raw` gives the object the schema keeps.
fn parse_object(
    root: &Map<String, Value>,
    limits: &Limits,
    strict: bool,
    raw: impl FnOnce() -> Arc<Map<String, Value>>,
) -> Result<ParsedForm, ParseError> {
    if object_depth(root, limits.max_depth) > limits.max_depth {
        return Err(ParseError::TooDeep {
            max: limits.max_depth,
        });
    }
    let empty = Map::new();
    let props = match root.get("properties") {
        Some(Value::Object(p)) => p,
        Some(_) => return Err(ParseError::PropertiesNotAnObject),
        None => &empty,
    };
    if props.len() > limits.max_fields {
        return Err(ParseError::TooManyFields {
            count: props.len(),
            max: limits.max_fields,
        });
    }
    let mut cx = Ctx {
        limits,
        strict,
        diags: Vec::new(),
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        cx.diag(
            None,
            DiagnosticCode::NotObjectType,
            "the schema's \"type\" must be \"object\"",
        );
    }
    if !root.contains_key("properties") {
        cx.diag(
            None,
            DiagnosticCode::MissingProperties,
            "the schema has no \"properties\"",
        );
    }
    let title = top_text(&mut cx, root, "title");
    if cx.strict
        && let Some(t) = &title
        && !valid_text(t)
    {
        cx.diag(
            None,
            DiagnosticCode::InvalidTitle,
            "the form's title must be non-empty and contain no control characters",
        );
    }
    let description = top_text(&mut cx, root, "description");
    let mut required: Vec<String> = Vec::new();
    match root.get("required") {
        None => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(s) => required.push(s.clone()),
                    _ => cx.diag(
                        None,
                        DiagnosticCode::InvalidRequired,
                        "\"required\" must list field names as strings",
                    ),
                }
            }
        }
        Some(_) => cx.diag(
            None,
            DiagnosticCode::InvalidRequired,
            "\"required\" must be an array of field names",
        ),
    }
    for r in &required {
        if !props.contains_key(r) {
            cx.diag(
                Some(r),
                DiagnosticCode::UnknownRequired,
                format!("\"required\" names \"{r}\", which is not a field"),
            );
        }
    }
    let mut fields = Vec::with_capacity(props.len());
    for (key, def) in props {
        let is_required = required.iter().any(|r| r == key);
        fields.push(parse_field(&mut cx, key, def, is_required));
    }
    let extra: Map<String, Value> = root
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "type" | "properties" | "required" | "title" | "description"
            )
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(ParsedForm {
        schema: FormSchema {
            raw: raw(),
            title,
            description,
            fields,
            required,
            extra,
            limits: *limits,
            canonical: Default::default(),
        },
        diagnostics: cx.diags,
    })
}

fn top_text(cx: &mut Ctx<'_>, obj: &Map<String, Value>, name: &str) -> Option<String> {
    match obj.get(name) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            cx.diag(
                None,
                DiagnosticCode::InvalidKeyword,
                format!("\"{name}\" must be a string"),
            );
            None
        }
    }
}

fn field_text(cx: &mut Ctx<'_>, key: &str, obj: &Map<String, Value>, name: &str) -> Option<String> {
    match obj.get(name) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidKeyword,
                format!("\"{name}\" must be a string"),
            );
            None
        }
    }
}

pub(crate) fn valid_text(s: &str) -> bool {
    !s.trim().is_empty() && !s.chars().any(char::is_control)
}

fn parse_field(cx: &mut Ctx<'_>, key: &str, def: &Value, required: bool) -> Field {
    let mut field = Field {
        key: key.to_owned(),
        title: None,
        label: humanize_key(key),
        description: None,
        required,
        kind: FieldKind::Boolean,
        default: None,
        extra: Map::new(),
        max_answer_bytes: cx.limits.max_answer_string_bytes,
    };
    let key_len = key.chars().count();
    if key_len > cx.limits.max_key_len {
        let msg = format!(
            "the key is {key_len} characters long; the limit is {}",
            cx.limits.max_key_len
        );
        cx.diag(Some(key), DiagnosticCode::InvalidKey, msg);
        field.kind = unsupported(DiagnosticCode::InvalidKey);
        return field;
    }
    if cx.strict && (key.is_empty() || key.chars().any(|c| c.is_whitespace() || c.is_control())) {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidKey,
            "a key must be non-empty and contain no spaces or control characters",
        );
    }
    let Value::Object(obj) = def else {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidField,
            "the field's definition is not a JSON object",
        );
        field.kind = unsupported(DiagnosticCode::InvalidField);
        return field;
    };
    field.title = field_text(cx, key, obj, "title");
    field.description = field_text(cx, key, obj, "description");
    if let Some(t) = &field.title {
        if cx.strict && !valid_text(t) {
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidTitle,
                "a title must be non-empty and contain no control characters",
            );
        }
        if !t.trim().is_empty() {
            field.label = t.trim().to_owned();
        }
    }
    let ty = obj.get("type").and_then(Value::as_str);
    let known: &[&str] = match ty {
        Some("string") if obj.contains_key("oneOf") => {
            field.kind = parse_titled_select(cx, key, obj);
            &["oneOf"]
        }
        Some("string") if obj.contains_key("enum") => {
            field.kind = parse_enum_select(cx, key, obj);
            &["enum", "enumNames"]
        }
        Some("string") => {
            field.kind = FieldKind::Text(parse_text(cx, key, obj));
            &["minLength", "maxLength", "format", "pattern"]
        }
        Some(t @ ("number" | "integer" | "boolean" | "array"))
            if obj.contains_key("enum") || obj.contains_key("oneOf") =>
        {
            let keyword = if obj.contains_key("enum") {
                "enum"
            } else {
                "oneOf"
            };
            let fix = if t == "array" {
                "a multi-select lists its string options under \"items\""
            } else {
                "options must be strings, in a field of \"type\": \"string\""
            };
            let msg = format!(
                "\"{keyword}\" on a field of type \"{t}\" is outside the elicitation schema: {fix}"
            );
            cx.diag(Some(key), DiagnosticCode::NonStringEnum, msg);
            field.kind = unsupported(DiagnosticCode::NonStringEnum);
            &[]
        }
        Some(t @ ("number" | "integer")) => {
            field.kind = FieldKind::Number(parse_number(cx, key, obj, t == "integer"));
            &["minimum", "maximum"]
        }
        Some("boolean") => &[],
        Some("array") => {
            field.kind = parse_multi(cx, key, obj);
            &["items", "minItems", "maxItems"]
        }
        Some("object") => {
            cx.diag(
                Some(key),
                DiagnosticCode::NestedObject,
                "nested objects are not supported in a form",
            );
            field.kind = unsupported(DiagnosticCode::NestedObject);
            &[]
        }
        Some(other) => {
            let msg = format!("type \"{other}\" is not supported in a form");
            cx.diag(Some(key), DiagnosticCode::UnsupportedType, msg);
            field.kind = unsupported(DiagnosticCode::UnsupportedType);
            &[]
        }
        None => {
            cx.diag(
                Some(key),
                DiagnosticCode::UnsupportedType,
                "the field has no supported \"type\"",
            );
            field.kind = unsupported(DiagnosticCode::UnsupportedType);
            &[]
        }
    };
    field.extra = obj
        .iter()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "type" | "title" | "description" | "default")
                && !known.contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(d) = obj.get("default")
        && field.is_supported()
    {
        let mut errs = Vec::new();
        crate::validate::check_value(&field, d, &mut errs);
        if errs.is_empty() {
            field.default = Some(d.clone());
        } else {
            let reasons: Vec<String> = errs.into_iter().map(|e| e.message).collect();
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidDefault,
                format!("the default is invalid: {}", reasons.join("; ")),
            );
        }
    }
    field
}

pub(crate) fn unsupported(code: DiagnosticCode) -> FieldKind {
    FieldKind::Unsupported(UnsupportedField { code })
}

pub(crate) fn count(
    cx: &mut Ctx<'_>,
    key: &str,
    obj: &Map<String, Value>,
    name: &str,
) -> Option<u64> {
    let v = obj.get(name)?;
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1e15)
            .map(|f| f as u64)
    });
    if n.is_none() {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidKeyword,
            format!("\"{name}\" must be a non-negative whole number"),
        );
    }
    n
}

fn number(cx: &mut Ctx<'_>, key: &str, obj: &Map<String, Value>, name: &str) -> Option<f64> {
    let v = obj.get(name)?;
    let n = v.as_f64();
    if n.is_none() {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidKeyword,
            format!("\"{name}\" must be a number"),
        );
    }
    n
}

pub(crate) fn check_order<T: PartialOrd + std::fmt::Display>(
    cx: &mut Ctx<'_>,
    key: &str,
    names: (&str, &str),
    lo: Option<T>,
    hi: Option<T>,
) {
    if let (Some(lo), Some(hi)) = (lo, hi)
        && lo > hi
    {
        cx.diag(
            Some(key),
            DiagnosticCode::MinGreaterThanMax,
            format!(
                "\"{}\" ({lo}) is greater than \"{}\" ({hi})",
                names.0, names.1
            ),
        );
    }
}

fn parse_text(cx: &mut Ctx<'_>, key: &str, obj: &Map<String, Value>) -> TextField {
    let min_length = count(cx, key, obj, "minLength");
    let max_length = count(cx, key, obj, "maxLength");
    check_order(cx, key, ("minLength", "maxLength"), min_length, max_length);
    let format = match obj.get("format") {
        None => None,
        Some(Value::String(f)) => {
            let parsed = StringFormat::from_name(f);
            if parsed.is_none() {
                cx.diag(
                    Some(key),
                    DiagnosticCode::UnknownFormat,
                    format!("format \"{f}\" is not one of email, uri, date, date-time; it is not checked"),
                );
            }
            parsed
        }
        Some(_) => {
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidKeyword,
                "\"format\" must be a string",
            );
            None
        }
    };
    let pattern = match obj.get("pattern") {
        None => None,
        Some(Value::String(p)) => match Pattern::new(p, cx.limits) {
            Ok(p) => Some(p),
            Err(e) => {
                cx.diag(
                    Some(key),
                    DiagnosticCode::InvalidPattern,
                    format!("{e}; it is not checked"),
                );
                None
            }
        },
        Some(_) => {
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidPattern,
                "\"pattern\" must be a string; it is not checked",
            );
            None
        }
    };
    TextField {
        min_length,
        max_length,
        format,
        pattern,
    }
}

fn parse_number(
    cx: &mut Ctx<'_>,
    key: &str,
    obj: &Map<String, Value>,
    integer: bool,
) -> NumberField {
    let minimum = number(cx, key, obj, "minimum");
    let maximum = number(cx, key, obj, "maximum");
    check_order(cx, key, ("minimum", "maximum"), minimum, maximum);
    NumberField {
        integer,
        minimum,
        maximum,
    }
}
