//! The field builders used by [`FormBuilder`](crate::FormBuilder): one per field kind.

use serde_json::{Map, Number, Value};

use crate::build::JsonNumber;
use crate::model::StringFormat;

/// Title, description and requiredness, shared by every field builder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Common {
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) bad_number: Option<&'static str>,
}

macro_rules! common_methods {
    () => {
        /// The field's display label.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.common.title = Some(title.into());
            self
        }

        /// Help text shown with the field.
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.common.description = Some(description.into());
            self
        }

        /// Make the field required (fields are optional unless marked).
        pub fn required(mut self) -> Self {
            self.common.required = true;
            self
        }
    };
}

fn head(ty: &str, c: &Common) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), Value::from(ty));
    if let Some(t) = &c.title {
        m.insert("title".into(), Value::from(t.as_str()));
    }
    if let Some(d) = &c.description {
        m.insert("description".into(), Value::from(d.as_str()));
    }
    m
}

/// Builder of a text field (`type: "string"`).
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct TextBuilder {
    pub(crate) common: Common,
    min_length: Option<u64>,
    max_length: Option<u64>,
    format: Option<StringFormat>,
    pattern: Option<String>,
    default: Option<String>,
}

impl TextBuilder {
    common_methods!();

    /// Least number of characters (Unicode code points).
    pub fn min_length(mut self, n: u64) -> Self {
        self.min_length = Some(n);
        self
    }

    /// Greatest number of characters (Unicode code points).
    pub fn max_length(mut self, n: u64) -> Self {
        self.max_length = Some(n);
        self
    }

    /// A format the value must have.
    pub fn format(mut self, format: StringFormat) -> Self {
        self.format = Some(format);
        self
    }

    /// Shorthand for `format(StringFormat::Email)`.
    pub fn email(self) -> Self {
        self.format(StringFormat::Email)
    }

    /// Shorthand for `format(StringFormat::Uri)`.
    pub fn uri(self) -> Self {
        self.format(StringFormat::Uri)
    }

    /// Shorthand for `format(StringFormat::Date)`.
    pub fn date(self) -> Self {
        self.format(StringFormat::Date)
    }

    /// Shorthand for `format(StringFormat::DateTime)`.
    pub fn date_time(self) -> Self {
        self.format(StringFormat::DateTime)
    }

    /// An ECMA-262 pattern. Not part of the official schema: clients may ignore it, so the
    /// server must validate answers itself (this crate's validation does).
    pub fn pattern(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }

    /// The pre-filled value; it must satisfy the field's own constraints.
    pub fn default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }

    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut m = head("string", &self.common);
        if let Some(n) = self.min_length {
            m.insert("minLength".into(), n.into());
        }
        if let Some(n) = self.max_length {
            m.insert("maxLength".into(), n.into());
        }
        if let Some(f) = self.format {
            m.insert("format".into(), f.as_str().into());
        }
        if let Some(p) = &self.pattern {
            m.insert("pattern".into(), p.as_str().into());
        }
        if let Some(d) = &self.default {
            m.insert("default".into(), d.as_str().into());
        }
        m
    }
}

/// Builder of a number or integer field.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct NumberBuilder {
    pub(crate) common: Common,
    pub(crate) integer: bool,
    minimum: Option<Number>,
    maximum: Option<Number>,
    default: Option<Number>,
}

impl NumberBuilder {
    common_methods!();

    fn num(&mut self, n: impl JsonNumber, what: &'static str) -> Option<Number> {
        let n = n.to_json_number();
        if n.is_none() {
            self.common.bad_number = Some(what);
        }
        n
    }

    /// Least allowed value (inclusive).
    pub fn minimum(mut self, n: impl JsonNumber) -> Self {
        self.minimum = self.num(n, "minimum");
        self
    }

    /// Greatest allowed value (inclusive).
    pub fn maximum(mut self, n: impl JsonNumber) -> Self {
        self.maximum = self.num(n, "maximum");
        self
    }

    /// Both bounds at once (inclusive).
    pub fn range(self, min: impl JsonNumber, max: impl JsonNumber) -> Self {
        self.minimum(min).maximum(max)
    }

    /// The pre-filled value; it must satisfy the field's own constraints.
    pub fn default(mut self, n: impl JsonNumber) -> Self {
        self.default = self.num(n, "default");
        self
    }

    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut m = head(
            if self.integer { "integer" } else { "number" },
            &self.common,
        );
        if let Some(n) = &self.minimum {
            m.insert("minimum".into(), Value::Number(n.clone()));
        }
        if let Some(n) = &self.maximum {
            m.insert("maximum".into(), Value::Number(n.clone()));
        }
        if let Some(n) = &self.default {
            m.insert("default".into(), Value::Number(n.clone()));
        }
        m
    }
}

/// Builder of a boolean (checkbox) field.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct BooleanBuilder {
    pub(crate) common: Common,
    default: Option<bool>,
}

impl BooleanBuilder {
    common_methods!();

    /// The pre-filled value.
    pub fn default(mut self, value: bool) -> Self {
        self.default = Some(value);
        self
    }

    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut m = head("boolean", &self.common);
        if let Some(d) = self.default {
            m.insert("default".into(), d.into());
        }
        m
    }
}

/// Builder of a single-select field.
///
/// With only [`options`](Self::options) it is written as `enum`; with any titled
/// [`option`](Self::option) as `oneOf` of `{const, title}` (every option then needs a
/// title); [`legacy`](Self::legacy) writes `enum` + `enumNames` for old clients.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct SelectBuilder {
    pub(crate) common: Common,
    options: Vec<(String, Option<String>)>,
    legacy: bool,
    default: Option<String>,
}

impl SelectBuilder {
    common_methods!();

    /// Add untitled options (their value is what a person sees).
    pub fn options<I, S>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options
            .extend(values.into_iter().map(|v| (v.into(), None)));
        self
    }

    /// Add one option with a display title.
    pub fn option(mut self, value: impl Into<String>, title: impl Into<String>) -> Self {
        self.options.push((value.into(), Some(title.into())));
        self
    }

    /// Write titles as the legacy `enumNames` instead of `oneOf`.
    pub fn legacy(mut self) -> Self {
        self.legacy = true;
        self
    }

    /// The pre-selected value; it must be one of the options.
    pub fn default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }

    pub(crate) fn to_json(&self) -> Result<Map<String, Value>, &'static str> {
        let mut m = head("string", &self.common);
        let titled = self.options.iter().any(|(_, t)| t.is_some());
        if titled && self.options.iter().any(|(_, t)| t.is_none()) {
            return Err("every option needs a title once one option has a title");
        }
        let values: Vec<Value> = self
            .options
            .iter()
            .map(|(v, _)| v.as_str().into())
            .collect();
        if titled && !self.legacy {
            m.insert("oneOf".into(), Value::Array(titled_list(&self.options)));
        } else {
            m.insert("enum".into(), Value::Array(values));
            if titled {
                let names = self
                    .options
                    .iter()
                    .map(|(_, t)| t.as_deref().unwrap_or_default().into())
                    .collect();
                m.insert("enumNames".into(), Value::Array(names));
            }
        }
        if let Some(d) = &self.default {
            m.insert("default".into(), d.as_str().into());
        }
        Ok(m)
    }
}

fn titled_list(options: &[(String, Option<String>)]) -> Vec<Value> {
    options
        .iter()
        .map(|(v, t)| {
            let mut o = Map::new();
            o.insert("const".into(), v.as_str().into());
            o.insert("title".into(), t.as_deref().unwrap_or_default().into());
            Value::Object(o)
        })
        .collect()
}

/// Builder of a multi-select field (`type: "array"`).
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct MultiSelectBuilder {
    pub(crate) common: Common,
    options: Vec<(String, Option<String>)>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    default: Option<Vec<String>>,
}

impl MultiSelectBuilder {
    common_methods!();

    /// Add untitled options.
    pub fn options<I, S>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options
            .extend(values.into_iter().map(|v| (v.into(), None)));
        self
    }

    /// Add one option with a display title (written as `items.anyOf`).
    pub fn option(mut self, value: impl Into<String>, title: impl Into<String>) -> Self {
        self.options.push((value.into(), Some(title.into())));
        self
    }

    /// Least number of choices.
    pub fn min_items(mut self, n: u64) -> Self {
        self.min_items = Some(n);
        self
    }

    /// Greatest number of choices.
    pub fn max_items(mut self, n: u64) -> Self {
        self.max_items = Some(n);
        self
    }

    /// The pre-selected values; each must be an option.
    pub fn default<I, S>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.default = Some(values.into_iter().map(Into::into).collect());
        self
    }

    pub(crate) fn to_json(&self) -> Result<Map<String, Value>, &'static str> {
        let mut m = head("array", &self.common);
        let titled = self.options.iter().any(|(_, t)| t.is_some());
        if titled && self.options.iter().any(|(_, t)| t.is_none()) {
            return Err("every option needs a title once one option has a title");
        }
        if let Some(n) = self.min_items {
            m.insert("minItems".into(), n.into());
        }
        if let Some(n) = self.max_items {
            m.insert("maxItems".into(), n.into());
        }
        let mut items = Map::new();
        if titled {
            items.insert("anyOf".into(), Value::Array(titled_list(&self.options)));
        } else {
            items.insert("type".into(), "string".into());
            let values = self
                .options
                .iter()
                .map(|(v, _)| v.as_str().into())
                .collect();
            items.insert("enum".into(), Value::Array(values));
        }
        m.insert("items".into(), Value::Object(items));
        if let Some(d) = &self.default {
            m.insert(
                "default".into(),
                Value::Array(d.iter().map(|s| s.as_str().into()).collect()),
            );
        }
        Ok(m)
    }
}
