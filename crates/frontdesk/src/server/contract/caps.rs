//! A client's capabilities as the server keeps them for one call:
//! [`ClientCaps`], the object as the client sent it (JSON text) with
//! [`Declared`], what the server's checks read of it, summed up once.
//!
//! A 2026-07-28 client sends its capabilities in every request's `_meta`.
//! A [`Value`] tree of them was built for each request (three objects, their
//! keys and hash tables, for `{"elicitation":{"form":{}}}`; issue 27), while
//! the checks (may this question be asked? did the client negotiate tasks?)
//! read only which members are present. [`Declared`] answers that from the
//! text without building anything; the tree is built only when a handler
//! asks for the capabilities themselves.

use std::fmt;

use frontdesk_wire::extension;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::read::{Key, not_an_object};

/// One call's client capabilities: the JSON text as sent, and what the
/// server's checks read of it.
#[derive(Debug, Clone)]
pub(crate) struct ClientCaps {
    text: Box<RawValue>,
    declared: Declared,
}

impl ClientCaps {
    /// The capabilities whose JSON text is `text`.
    pub(crate) fn from_text(text: Box<RawValue>) -> Self {
        let declared = Declared::of_text(text.get());
        Self { text, declared }
    }

    /// What the checks read.
    pub(crate) fn declared(&self) -> Declared {
        self.declared
    }

    /// The capabilities as a JSON value, as the client sent them.
    pub(crate) fn to_value(&self) -> Value {
        serde_json::from_str(self.text.get()).unwrap_or(Value::Null)
    }
}

/// Which members of a client's capabilities are present, as far as the
/// server's checks read them: each is present whatever its value (`null`
/// included), as `Value::get` finds it; for a member given twice, the last.
///
/// ```text
/// {"elicitation":{"form":{}},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    /// `elicitation`, when present.
    pub(crate) elicitation: Option<Elicitation>,
    /// `sampling` is present.
    pub(crate) sampling: bool,
    /// `roots` is present.
    pub(crate) roots: bool,
    /// `extensions` is an object with the tasks extension's key.
    pub(crate) tasks: bool,
}

/// What an `elicitation` member is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elicitation {
    /// An object, with or without a `form` and a `url` member.
    Object { form: bool, url: bool },
    /// Any other JSON value.
    Other,
}

impl Declared {
    /// What the JSON text `caps` declares, read without building it
    /// (nothing when it is not an object, or not JSON).
    pub(crate) fn of_text(caps: &str) -> Self {
        serde_json::from_str(caps).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for Declared {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Top).map(Option::unwrap_or_default)
    }
}

/// Reads the capabilities object's members the checks look for.
struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = Option<Declared>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut declared = Declared::default();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "elicitation" => {
                    let members = map.next_value::<Members>()?;
                    declared.elicitation = Some(match members.0 {
                        Some(m) => Elicitation::Object {
                            form: m.form,
                            url: m.url,
                        },
                        None => Elicitation::Other,
                    });
                }
                "extensions" => {
                    let members = map.next_value::<Members>()?;
                    declared.tasks = members.0.is_some_and(|m| m.tasks);
                }
                "sampling" => {
                    map.next_value::<IgnoredAny>()?;
                    declared.sampling = true;
                }
                "roots" => {
                    map.next_value::<IgnoredAny>()?;
                    declared.roots = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(declared))
    }
    not_an_object!(None);
}

/// Of an object, whether it has the member names the checks look for
/// (`form`, `url`, the tasks extension's); `None` for any other value.
struct Members(Option<Names>);

#[derive(Default)]
struct Names {
    form: bool,
    url: bool,
    tasks: bool,
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Inner).map(Members)
    }
}

/// Reads the member names of an `elicitation` or `extensions` object.
struct Inner;

impl<'de> Visitor<'de> for Inner {
    type Value = Option<Names>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut names = Names::default();
        while let Some(Key(key)) = map.next_key()? {
            map.next_value::<IgnoredAny>()?;
            match &*key {
                "form" => names.form = true,
                "url" => names.url = true,
                k if k == extension::TASKS => names.tasks = true,
                _ => {}
            }
        }
        Ok(Some(names))
    }
    not_an_object!(None);
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontdesk_testkit::arb_json;
    use proptest::prelude::*;
    use serde_json::json;

    /// What the checks read when they read a `Value` (before issue 27's
    /// third pass): the reference [`Declared::of_text`] must agree with.
    fn of_value(caps: &Value) -> Declared {
        let elicitation = caps.get("elicitation").map(|e| match e.as_object() {
            Some(o) => Elicitation::Object {
                form: o.contains_key("form"),
                url: o.contains_key("url"),
            },
            None => Elicitation::Other,
        });
        Declared {
            elicitation,
            sampling: caps.get("sampling").is_some(),
            roots: caps.get("roots").is_some(),
            tasks: caps
                .get("extensions")
                .and_then(|e| e.get(extension::TASKS))
                .is_some(),
        }
    }

    /// `text` read as text and as a value.
    fn both(text: &str) -> (Declared, Declared) {
        let value: Value = serde_json::from_str(text).unwrap();
        (Declared::of_text(text), of_value(&value))
    }

    #[test]
    fn what_the_usual_capabilities_declare() {
        let form = r#"{"elicitation":{"form":{}},"roots":{"listChanged":true}}"#;
        let (declared, reference) = both(form);
        assert_eq!(declared, reference);
        assert_eq!(
            declared,
            Declared {
                elicitation: Some(Elicitation::Object {
                    form: true,
                    url: false
                }),
                sampling: false,
                roots: true,
                tasks: false,
            }
        );
        let all = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {},
            "extensions": {extension::TASKS: {}}});
        let declared = Declared::of_text(&all.to_string());
        assert_eq!(declared, of_value(&all));
        assert!(declared.sampling && declared.tasks);
    }

    #[test]
    fn a_member_counts_whatever_its_value_and_the_last_of_two_wins() {
        for text in [
            r#"{"elicitation":null,"sampling":null,"roots":false}"#,
            r#"{"elicitation":[{"form":{}}],"extensions":[]}"#,
            r#"{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":null}}"#,
            r#"{"elicitation":{"url":{}},"elicitation":{"form":{}}}"#,
            r#"{"elicitation":{"form":{}},"elicitation":7}"#,
            r#"{"extensions":{"io.modelcontextprotocol/tasks":{}},"extensions":{}}"#,
            r#"{"elicit\u0061tion":{"f\u006frm":{}},"sampling":{}}"#,
            r#"{"elicitation":{"form":{"nested":{"url":{}}}}}"#,
        ] {
            let (declared, reference) = both(text);
            assert_eq!(declared, reference, "{text}");
        }
        let (declared, _) = both(r#"{"elicitation":{"url":{}},"elicitation":{"form":{}}}"#);
        assert_eq!(
            declared.elicitation,
            Some(Elicitation::Object {
                form: true,
                url: false
            })
        );
    }

    #[test]
    fn anything_but_an_object_declares_nothing() {
        for text in ["null", "[]", "\"elicitation\"", "7", "true", "{", ""] {
            assert_eq!(Declared::of_text(text), Declared::default(), "{text}");
        }
    }

    #[test]
    fn client_caps_keep_the_text_as_sent() {
        let text = r#"{"elicitation":{"form":{}},"x-vendor":{"a":[1,2.5,null]}}"#;
        let caps = ClientCaps::from_text(RawValue::from_string(text.into()).unwrap());
        assert_eq!(
            caps.to_value(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(caps.declared(), Declared::of_text(text));
    }

    proptest! {
        #[test]
        fn text_and_value_readings_agree(caps in arb_json(
            &["elicitation", "form", "url", "sampling", "roots", "extensions",
              extension::TASKS],
            &[],
        )) {
            let text = caps.to_string();
            prop_assert_eq!(Declared::of_text(&text), of_value(&caps));
        }
    }
}
