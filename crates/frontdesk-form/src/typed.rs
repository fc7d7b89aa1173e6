//! Typed forms: a Rust type that knows its schema and reads its own answers.
//!
//! [`Form`] is what `#[derive(Form)]` (crate `frontdesk-derive`) implements for a struct,
//! and [`FormEnum`] what `#[derive(FormEnum)]` implements for a field-less enum used as a
//! single- or multi-select field. The value types [`Email`], [`Url`], [`Date`] and
//! [`DateTime`] give a field its `format` and can only hold a value of that format.
//!
//! ```
//! use frontdesk_form::{Date, Form, FormError, FormSchema};
//! use serde_json::{Map, Value, json};
//!
//! struct Pickup {
//!     day: Date,
//!     boxes: u8,
//! }
//!
//! impl Form for Pickup {
//!     fn schema() -> FormSchema {
//!         FormSchema::builder()
//!             .string("day", |f| f.date().required())
//!             .integer("boxes", |f| f.range(1, 3).default(1))
//!             .build()
//!             .expect("a fixed, valid form")
//!     }
//!
//!     fn from_content(content: Map<String, Value>) -> Result<Self, FormError> {
//!         let day = content.get("day").and_then(Value::as_str).and_then(Date::parse);
//!         let boxes = content.get("boxes").and_then(Value::as_u64).unwrap_or(1);
//!         Ok(Pickup {
//!             day: day.ok_or_else(|| FormError::field("day", "expected a date"))?,
//!             boxes: u8::try_from(boxes).map_err(|_| FormError::field("boxes", "too large"))?,
//!         })
//!     }
//! }
//!
//! let answer = json!({ "day": "2026-03-01" });
//! let pickup = Pickup::from_answer(answer.as_object().cloned().unwrap_or_default())?;
//! assert_eq!((pickup.day.year(), pickup.day.month(), pickup.day.day()), (2026, 3, 1));
//! assert_eq!(pickup.boxes, 1);
//! # Ok::<(), FormError>(())
//! ```

use std::fmt;

use serde_json::{Map, Value};

use crate::formats;
use crate::model::FormSchema;
use crate::validate::ValidationErrors;

/// A Rust type that is a form: it describes its `requestedSchema` and reads an answer.
///
/// Derive it with `#[derive(Form)]` from `frontdesk-derive` (re-exported by the `frontdesk`
/// runtime), or implement it by hand.
pub trait Form: Sized {
    /// The `requestedSchema` of this form (the same value every call).
    fn schema() -> FormSchema;

    /// Read an answer's `content` that has already been validated against
    /// [`schema`](Form::schema), normalized ([`FormSchema::normalize`]) and completed with
    /// defaults ([`FormSchema::apply_defaults`]).
    ///
    /// A derived implementation never fails on such content; on any other content it
    /// reports what does not fit instead of panicking.
    fn from_content(content: Map<String, Value>) -> Result<Self, FormError>;

    /// Read raw `content` from a client: normalize, validate (every problem is reported),
    /// apply defaults, then [`from_content`](Form::from_content).
    fn from_answer(mut content: Map<String, Value>) -> Result<Self, FormError> {
        let schema = Self::schema();
        schema.normalize(&mut content);
        schema.validate(&content)?;
        schema.apply_defaults(&mut content);
        Self::from_content(content)
    }
}

/// An answer that does not fit a form: one readable sentence per problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.problems.join("; "))]
pub struct FormError {
    /// The problems, each a sentence (naming its field when there is one).
    pub problems: Vec<String>,
}

impl FormError {
    /// An error with one message.
    pub fn message(msg: impl Into<String>) -> FormError {
        FormError {
            problems: vec![msg.into()],
        }
    }

    /// An error about one field: `field "key": msg`.
    pub fn field(key: &str, msg: impl fmt::Display) -> FormError {
        FormError::message(format!("field \"{key}\": {msg}"))
    }
}

impl From<ValidationErrors> for FormError {
    fn from(errors: ValidationErrors) -> FormError {
        FormError {
            problems: errors.into_vec().into_iter().map(|e| e.message).collect(),
        }
    }
}

/// One option of a [`FormEnum`]: the wire value and, for a titled select, its title.
pub type FormOption = (&'static str, Option<&'static str>);

/// A field-less enum offered as a choice: a single-select field, or a multi-select field
/// when used in a `Vec`, `BTreeSet` or `HashSet`.
///
/// Derive it with `#[derive(FormEnum)]`: each variant's wire value is its name or
/// `#[form(rename = "...")]` (or the enum's `#[form(rename_all = "...")]`), and its title
/// is `#[form(title = "...")]` (a variant's doc comment documents the code and is never a
/// title). Either every variant has a title (the field is written as `oneOf` /
/// `items.anyOf`) or none has (`enum`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a form field",
    label = "not a supported form field type",
    note = "a form field is a String, bool, integer, f32/f64, Date, DateTime, Email, Url, \
            a field-less enum that derives `FormEnum`, or an Option / Vec / set of those \
            (nested structs, tuples and maps are outside the elicitation schema)"
)]
pub trait FormEnum: Sized + 'static {
    /// The options, in declaration order. Values are unique; titles are all present or
    /// all absent.
    const OPTIONS: &'static [FormOption];

    /// The options (same as [`OPTIONS`](FormEnum::OPTIONS)).
    fn options() -> &'static [FormOption] {
        Self::OPTIONS
    }

    /// The variant whose wire value is `value`.
    fn from_value(value: &str) -> Option<Self>;

    /// This variant's wire value.
    fn value(&self) -> &'static str;

    /// This variant's title, if the enum is titled.
    fn title(&self) -> Option<&'static str> {
        let v = self.value();
        Self::OPTIONS
            .iter()
            .find(|(value, _)| *value == v)
            .and_then(|(_, t)| *t)
    }
}

/// A text field's Rust type: a [`String`] or one of the format types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a text field",
    note = "text fields are String, Date, DateTime, Email or Url"
)]
pub trait TextValue: Sized {
    /// Read the (already validated) text; `None` when it is not of the type's format.
    fn from_text(text: String) -> Option<Self>;
}

impl TextValue for String {
    fn from_text(text: String) -> Option<Self> {
        Some(text)
    }
}

macro_rules! text_newtype {
    ($(#[$doc:meta])* $name:ident, $check:path, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            #[doc = concat!("The value, if `text` is ", $what, ".")]
            pub fn parse(text: impl Into<String>) -> Option<$name> {
                let text = text.into();
                $check(&text).then_some($name(text))
            }

            /// The text, exactly as answered.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Take the text.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl TextValue for $name {
            fn from_text(text: String) -> Option<Self> {
                $name::parse(text)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = FormatError;
            fn from_str(s: &str) -> Result<Self, FormatError> {
                $name::parse(s).ok_or(FormatError { expected: $what })
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }
    };
}

/// Text that is not of the expected format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}")]
pub struct FormatError {
    /// What was expected, e.g. "an RFC 3339 full-date".
    pub expected: &'static str,
}

text_newtype!(
    /// An email address (RFC 5322 `addr-spec`): a field with `format: "email"`.
    Email,
    formats::is_email,
    "an email address"
);
text_newtype!(
    /// An absolute URI (RFC 3986): a field with `format: "uri"`.
    Url,
    formats::is_uri,
    "an absolute URI"
);
text_newtype!(
    /// A calendar date (RFC 3339 `full-date`, `2026-03-01`): a field with `format: "date"`.
    Date,
    formats::is_date,
    "an RFC 3339 full-date"
);
text_newtype!(
    /// A date and time with offset (RFC 3339 `date-time`, `2026-03-01T09:30:00Z`): a field
    /// with `format: "date-time"`.
    DateTime,
    formats::is_date_time,
    "an RFC 3339 date-time"
);

/// The number in `s[from..to]` (ASCII digits, checked by the format already).
fn digits(s: &str, from: usize, to: usize) -> u32 {
    s.as_bytes()
        .get(from..to)
        .unwrap_or_default()
        .iter()
        .fold(0, |n, b| n * 10 + u32::from(b.wrapping_sub(b'0')))
}

impl Date {
    /// The year (0–9999).
    pub fn year(&self) -> u16 {
        digits(&self.0, 0, 4) as u16
    }

    /// The month (1–12).
    pub fn month(&self) -> u8 {
        digits(&self.0, 5, 7) as u8
    }

    /// The day of the month (1–31).
    pub fn day(&self) -> u8 {
        digits(&self.0, 8, 10) as u8
    }
}

impl DateTime {
    /// The date part.
    pub fn date(&self) -> Date {
        Date(self.0[..10].to_owned())
    }

    /// The hour (0–23), in the value's own offset.
    pub fn hour(&self) -> u8 {
        digits(&self.0, 11, 13) as u8
    }

    /// The minute (0–59).
    pub fn minute(&self) -> u8 {
        digits(&self.0, 14, 16) as u8
    }

    /// The second (0–60; 60 only for a leap second).
    pub fn second(&self) -> u8 {
        digits(&self.0, 17, 19) as u8
    }

    /// The offset from UTC in minutes (`Z` is 0).
    pub fn offset_minutes(&self) -> i16 {
        let s = self.0.as_str();
        if s.ends_with(['Z', 'z']) {
            return 0;
        }
        let n = s.len();
        let minutes = (digits(s, n - 5, n - 3) * 60 + digits(s, n - 2, n)) as i16;
        if s.as_bytes()[n - 6] == b'-' {
            -minutes
        } else {
            minutes
        }
    }
}

/// Support code for `#[derive(Form)]` and `#[derive(FormEnum)]`; not a public API.
#[doc(hidden)]
pub mod __private {
    use serde_json::{Map, Value};

    use super::{FormEnum, FormError, FormOption, TextValue};
    use crate::builders::{MultiSelectBuilder, SelectBuilder};

    pub use serde_json;

    /// Add an enum's options to a single-select field.
    pub fn select_options<E: FormEnum>(mut b: SelectBuilder) -> SelectBuilder {
        for (v, t) in E::OPTIONS {
            b = match t {
                Some(t) => b.option(*v, *t),
                None => b.options([*v]),
            };
        }
        b
    }

    /// Add an enum's options to a multi-select field.
    pub fn multi_options<E: FormEnum>(mut b: MultiSelectBuilder) -> MultiSelectBuilder {
        for (v, t) in E::OPTIONS {
            b = match t {
                Some(t) => b.option(*v, *t),
                None => b.options([*v]),
            };
        }
        b
    }

    /// Is `value` one of `options`? (usable in constants)
    pub const fn has_option(options: &[FormOption], value: &str) -> bool {
        let mut i = 0;
        while i < options.len() {
            if str_eq(options[i].0, value) {
                return true;
            }
            i += 1;
        }
        false
    }

    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    fn wrong(key: &str, what: &str) -> FormError {
        FormError::field(key, format_args!("expected {what}"))
    }

    /// Take a field's value, or its default, or report it missing.
    pub fn take(
        content: &mut Map<String, Value>,
        key: &str,
        default: Option<fn() -> Value>,
    ) -> Option<Value> {
        match content.remove(key) {
            Some(Value::Null) | None => default.map(|d| d()),
            Some(v) => Some(v),
        }
    }

    /// A missing required field.
    pub fn missing(key: &str) -> FormError {
        FormError::field(key, "is required")
    }

    /// Read text (String or a format type).
    pub fn text<T: TextValue>(key: &str, v: Value) -> Result<T, FormError> {
        match v {
            Value::String(s) => T::from_text(s).ok_or_else(|| wrong(key, "text of its format")),
            _ => Err(wrong(key, "text")),
        }
    }

    /// Read a boolean.
    pub fn boolean(key: &str, v: Value) -> Result<bool, FormError> {
        v.as_bool().ok_or_else(|| wrong(key, "true or false"))
    }

    /// Read a whole number into any integer type.
    pub fn integer<T: TryFrom<i128>>(key: &str, v: Value) -> Result<T, FormError> {
        let n = match &v {
            Value::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0)
                        .map(|f| f as i128)
                }),
            _ => None,
        };
        n.and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| wrong(key, "a whole number in range"))
    }

    /// Read a number as `f64`.
    pub fn number(key: &str, v: Value) -> Result<f64, FormError> {
        v.as_f64().ok_or_else(|| wrong(key, "a number"))
    }

    /// Read a number as `f32` (the schema bounds it to `f32`'s range).
    pub fn number32(key: &str, v: Value) -> Result<f32, FormError> {
        let f = number(key, v)?;
        let g = f as f32;
        if g.is_finite() {
            Ok(g)
        } else {
            Err(wrong(key, "a number in the range of f32"))
        }
    }

    /// Read one option.
    pub fn select<E: FormEnum>(key: &str, v: Value) -> Result<E, FormError> {
        v.as_str()
            .and_then(E::from_value)
            .ok_or_else(|| wrong(key, "one of the options"))
    }

    /// Read a list of options into a `Vec` or a set.
    pub fn multi<E: FormEnum, C: FromIterator<E>>(key: &str, v: Value) -> Result<C, FormError> {
        let Value::Array(items) = v else {
            return Err(wrong(key, "a list of choices"));
        };
        items.iter().map(|i| select::<E>(key, i.clone())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_types_check_their_format() {
        assert!(Email::parse("a@example.com").is_some());
        assert!(Email::parse("nope").is_none());
        assert!(Url::parse("https://example.com/x").is_some());
        assert!(Url::parse("/relative").is_none());
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2023-02-29").is_none());
        assert!(DateTime::parse("2024-02-29T10:00:00Z").is_some());
        assert!(DateTime::parse("2024-02-29 10:00:00").is_none());
        assert_eq!(
            "x".parse::<Date>(),
            Err(FormatError {
                expected: "an RFC 3339 full-date"
            })
        );
    }

    #[test]
    fn date_parts() {
        let d = Date::parse("2026-03-09").unwrap();
        assert_eq!((d.year(), d.month(), d.day()), (2026, 3, 9));
        let t = DateTime::parse("2026-03-09T23:05:59.25-05:30").unwrap();
        assert_eq!((t.hour(), t.minute(), t.second()), (23, 5, 59));
        assert_eq!(t.offset_minutes(), -330);
        assert_eq!(t.date().as_str(), "2026-03-09");
        let z = DateTime::parse("2026-03-09T01:02:03z").unwrap();
        assert_eq!(z.offset_minutes(), 0);
        let p = DateTime::parse("2026-03-09T01:02:03+01:00").unwrap();
        assert_eq!(p.offset_minutes(), 60);
    }
}
