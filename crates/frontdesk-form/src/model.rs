//! The typed form model: a schema, its fields, and each field's kind.

use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::limits::Limits;
use crate::parse::DiagnosticCode;
use crate::pattern::Pattern;

/// A parsed or built `requestedSchema`: a flat, ordered list of fields.
///
/// Obtain one with [`FormSchema::parse`] (lenient, for hosts) or [`FormSchema::builder`]
/// (strict, for servers). It serializes to the wire JSON: for a parsed schema that is
/// exactly the JSON that was parsed (same keys, same order, unknown keys kept).
#[derive(Debug, Clone)]
pub struct FormSchema {
    /// The wire JSON, shared with every request that sends this form.
    pub(crate) raw: Arc<Map<String, Value>>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) fields: Vec<Field>,
    pub(crate) required: Vec<String>,
    pub(crate) extra: Map<String, Value>,
    pub(crate) limits: Limits,
    /// [`canonical_json`](Self::canonical_json), written on first use.
    pub(crate) canonical: CanonicalCache,
}

/// A schema's canonical JSON, once written (the schema never changes after
/// it is built, so neither does this; clones share it). Behind a pointer so
/// a schema, which hosts keep in their own types, grows by one word.
#[derive(Clone, Default)]
pub(crate) struct CanonicalCache(Arc<OnceLock<Box<[u8]>>>);

impl std::fmt::Debug for CanonicalCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "written"
        } else {
            "not yet written"
        })
    }
}

impl FormSchema {
    /// The wire JSON as [canonical JSON](crate::canonical) (compact, keys
    /// sorted), written on the first call and kept: a server that digests
    /// the same shared schema on every call walks it once.
    ///
    /// ```
    /// use frontdesk_form::FormSchema;
    /// use serde_json::json;
    ///
    /// let schema = FormSchema::parse_strict(&json!({
    ///     "type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}
    /// })).unwrap();
    /// assert_eq!(
    ///     schema.canonical_json(),
    ///     br#"{"properties":{"ok":{"type":"boolean"}},"required":["ok"],"type":"object"}"#
    /// );
    /// ```
    pub fn canonical_json(&self) -> &[u8] {
        self.canonical.0.get_or_init(|| {
            let mut out = Vec::with_capacity(64);
            crate::canonical::write_object(&self.raw, &mut out);
            out.into_boxed_slice()
        })
    }

    /// The fields, in the order the schema lists them.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field with this key, if any.
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// The top-level `title` (not part of the official subset, but commonly sent).
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The top-level `description`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The `required` list as sent (it may name keys that are not fields).
    pub fn required(&self) -> &[String] {
        &self.required
    }

    /// Top-level keys this crate does not interpret (`$schema`, `additionalProperties`,
    /// vendor keys …), kept verbatim.
    pub fn extra(&self) -> &Map<String, Value> {
        &self.extra
    }

    /// The limits this schema was parsed or built with; validation uses them too.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Does every field have a supported shape?
    pub fn is_fully_supported(&self) -> bool {
        self.fields.iter().all(Field::is_supported)
    }

    /// The wire JSON object (`{"type":"object","properties":…}`).
    pub fn as_json_object(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// The wire JSON object, shared: what a request carrying this form holds
    /// as its `requestedSchema` (`frontdesk_wire::ElicitRequestFormParams`),
    /// without a copy.
    pub fn shared_json_object(&self) -> Arc<Map<String, Value>> {
        Arc::clone(&self.raw)
    }

    /// The wire JSON as a [`Value`].
    pub fn to_json(&self) -> Value {
        Value::Object(Map::clone(&self.raw))
    }

    /// One property's JSON exactly as sent (or as built), by its key: a
    /// field's whole definition, its unknown keywords and an unsupported
    /// shape included. (A field does not keep a copy of its own: a schema
    /// from the wire would hold its JSON twice.)
    pub fn property_json(&self, key: &str) -> Option<&Value> {
        self.raw.get("properties")?.as_object()?.get(key)
    }
}

impl Serialize for FormSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Map::serialize(&self.raw, serializer)
    }
}

/// One field (one entry of `properties`).
#[derive(Debug, Clone)]
pub struct Field {
    pub(crate) key: String,
    pub(crate) title: Option<String>,
    pub(crate) label: String,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) kind: FieldKind,
    pub(crate) default: Option<Value>,
    pub(crate) extra: Map<String, Value>,
    pub(crate) max_answer_bytes: usize,
}

impl Field {
    /// The property name: the key of this field in the answer's `content`.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The `title`, if the schema gave one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What to show a person: the title, or else the key made readable
    /// (`numberOfBoxes` → "Number of boxes").
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The `description` (help text), if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Is the field listed in the schema's `required`?
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The kind of field and its constraints.
    pub fn kind(&self) -> &FieldKind {
        &self.kind
    }

    /// The `default`, if it is valid for this field (an invalid default is dropped with a
    /// diagnostic).
    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref()
    }

    /// Keys of this property this crate does not interpret, kept verbatim.
    pub fn extra(&self) -> &Map<String, Value> {
        &self.extra
    }

    /// Can this field be shown and answered?
    pub fn is_supported(&self) -> bool {
        !matches!(self.kind, FieldKind::Unsupported(_))
    }

    /// The options of a single- or multi-select field (empty for other kinds).
    pub fn options(&self) -> &[Choice] {
        match &self.kind {
            FieldKind::Select(s) => &s.options,
            FieldKind::MultiSelect(m) => &m.options,
            _ => &[],
        }
    }
}

/// The kind of a field, with its constraints.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldKind {
    /// `type: "string"` without options.
    Text(TextField),
    /// `type: "number"` or `type: "integer"`.
    Number(NumberField),
    /// `type: "boolean"`.
    Boolean,
    /// A single choice (`enum`, `oneOf`, or legacy `enum` + `enumNames`).
    Select(SelectField),
    /// Several choices (`type: "array"` with `items.enum` or `items.anyOf`).
    MultiSelect(MultiSelectField),
    /// A shape outside the subset; its JSON is [`FormSchema::property_json`].
    Unsupported(UnsupportedField),
}

/// Constraints of a text field.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct TextField {
    /// `minLength`, in Unicode code points.
    pub min_length: Option<u64>,
    /// `maxLength`, in Unicode code points.
    pub max_length: Option<u64>,
    /// `format`, when it is one of the four known formats.
    pub format: Option<StringFormat>,
    /// `pattern` (non-standard but sent by real servers), compiled.
    pub pattern: Option<Pattern>,
}

/// The string formats of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StringFormat {
    /// `email`: an RFC 5322 addr-spec.
    Email,
    /// `uri`: an absolute RFC 3986 URI.
    Uri,
    /// `date`: an RFC 3339 full-date.
    Date,
    /// `date-time`: an RFC 3339 date-time with offset.
    DateTime,
}

impl StringFormat {
    /// The wire name (`"email"`, `"uri"`, `"date"`, `"date-time"`).
    pub fn as_str(self) -> &'static str {
        match self {
            StringFormat::Email => "email",
            StringFormat::Uri => "uri",
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
        }
    }

    /// Parse a wire name.
    pub fn from_name(name: &str) -> Option<StringFormat> {
        match name {
            "email" => Some(StringFormat::Email),
            "uri" => Some(StringFormat::Uri),
            "date" => Some(StringFormat::Date),
            "date-time" => Some(StringFormat::DateTime),
            _ => None,
        }
    }

    /// Does `s` satisfy this format?
    pub fn check(self, s: &str) -> bool {
        match self {
            StringFormat::Email => crate::formats::is_email(s),
            StringFormat::Uri => crate::formats::is_uri(s),
            StringFormat::Date => crate::formats::is_date(s),
            StringFormat::DateTime => crate::formats::is_date_time(s),
        }
    }
}

/// Constraints of a number or integer field.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct NumberField {
    /// `type: "integer"` (whole numbers only).
    pub integer: bool,
    /// `minimum` (inclusive).
    pub minimum: Option<f64>,
    /// `maximum` (inclusive).
    pub maximum: Option<f64>,
}

/// One option of a select or multi-select field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Choice {
    /// The value sent in the answer.
    pub value: String,
    /// The display title, when the schema gives one.
    pub title: Option<String>,
}

impl Choice {
    /// A choice with a value and an optional title.
    pub fn new(value: impl Into<String>, title: Option<String>) -> Choice {
        Choice {
            value: value.into(),
            title,
        }
    }

    /// What to show a person: the title, or else the value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

/// How a single-select field was (or will be) written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectStyle {
    /// `enum: [..]`.
    Untitled,
    /// `oneOf: [{const, title}, ..]`.
    Titled,
    /// `enum` + `enumNames` (legacy, to be removed from the spec).
    Legacy,
}

/// A single-select field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SelectField {
    /// The options, in order, without duplicates.
    pub options: Vec<Choice>,
    /// The wire style.
    pub style: SelectStyle,
}

/// How a multi-select field was (or will be) written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MultiSelectStyle {
    /// `items: {type: "string", enum: [..]}`.
    Untitled,
    /// `items: {anyOf: [{const, title}, ..]}`.
    Titled,
}

/// A multi-select field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MultiSelectField {
    /// The options, in order, without duplicates.
    pub options: Vec<Choice>,
    /// The wire style.
    pub style: MultiSelectStyle,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
}

/// A field whose shape is outside the subset.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnsupportedField {
    /// Why it is unsupported (the same code as its diagnostic).
    pub code: DiagnosticCode,
}

/// Turn a key into a readable label: `numberOfBoxes`, `number_of_boxes` and
/// `number-of-boxes` all become "Number of boxes"; acronyms stay (`homepageURL` →
/// "Homepage URL").
pub fn humanize_key(key: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = key.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == ' ' || c == '.' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&prev) = current.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
                || (c.is_uppercase()
                    && prev.is_uppercase()
                    && next.is_some_and(char::is_lowercase));
            if boundary {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut out = String::with_capacity(key.len() + 4);
    for (n, w) in words.iter().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        let is_acronym = w.chars().count() > 1 && w.chars().all(|c| !c.is_lowercase());
        if is_acronym {
            out.push_str(w);
        } else if n == 0 {
            let mut cs = w.chars();
            if let Some(first) = cs.next() {
                out.extend(first.to_uppercase());
                out.extend(cs.flat_map(char::to_lowercase));
            }
        } else {
            out.extend(w.chars().flat_map(char::to_lowercase));
        }
    }
    if out.is_empty() { key.to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn humanize() {
        assert_eq!(humanize_key("numberOfBoxes"), "Number of boxes");
        assert_eq!(humanize_key("number_of_boxes"), "Number of boxes");
        assert_eq!(humanize_key("number-of-boxes"), "Number of boxes");
        assert_eq!(humanize_key("email"), "Email");
        assert_eq!(humanize_key("homepageURL"), "Homepage URL");
        assert_eq!(humanize_key("APIKey"), "API key");
        assert_eq!(humanize_key("address2"), "Address2");
        assert_eq!(humanize_key("__"), "__");
        assert_eq!(humanize_key("ÉtéDate"), "Été date");
    }

    #[test]
    fn choice_label_falls_back_to_value() {
        assert_eq!(Choice::new("eu", None).label(), "eu");
        assert_eq!(Choice::new("eu", Some("Europe".into())).label(), "Europe");
    }

    #[test]
    fn format_names_round_trip() {
        for f in [
            StringFormat::Email,
            StringFormat::Uri,
            StringFormat::Date,
            StringFormat::DateTime,
        ] {
            assert_eq!(StringFormat::from_name(f.as_str()), Some(f));
        }
        assert_eq!(StringFormat::from_name("phone"), None);
    }
}
