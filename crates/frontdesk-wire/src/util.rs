//! Private helpers shared by the message modules.

use serde::Serialize;
use serde::de::{DeserializeOwned, Error as _};
use serde_json::{Map, Value};

/// Defines a zero-sized type that serializes as one fixed string and only
/// deserializes from exactly that string (a `const` in the schema).
macro_rules! wire_tag {
    ($(#[$doc:meta])* $name:ident = $lit:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;

        impl $name {
            /// The literal this tag stands for on the wire.
            pub const VALUE: &'static str = $lit;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($lit)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                if s == $lit {
                    Ok($name)
                } else {
                    Err(<D::Error as ::serde::de::Error>::invalid_value(
                        ::serde::de::Unexpected::Str(&s),
                        &concat!("\"", $lit, "\""),
                    ))
                }
            }
        }
    };
}
pub(crate) use wire_tag;

/// Deserializes a typed value out of an owned JSON object, mapping the error
/// into the caller's deserializer error type.
pub(crate) fn from_map<T: DeserializeOwned, E: serde::de::Error>(
    map: Map<String, Value>,
) -> Result<T, E> {
    serde_json::from_value(Value::Object(map)).map_err(E::custom)
}

/// Serializes one of this crate's own types into a JSON value.
///
/// Only used with types whose `Serialize` cannot fail (string-keyed maps,
/// plain fields); a failure would be a bug in this crate, reported as `null`.
pub(crate) fn to_value_infallible<T: Serialize>(value: &T) -> Value {
    match serde_json::to_value(value) {
        Ok(v) => v,
        Err(err) => {
            debug_assert!(false, "serialization of a wire type failed: {err}");
            Value::Null
        }
    }
}

/// Serializes any value into a JSON object, failing when it is not one.
pub(crate) fn to_object<T: Serialize>(value: &T) -> Result<Map<String, Value>, serde_json::Error> {
    match serde_json::to_value(value)? {
        Value::Object(map) => Ok(map),
        other => Err(serde_json::Error::custom(format!(
            "expected a JSON object, got {}",
            kind_of(&other)
        ))),
    }
}

/// A short name for the JSON kind of a value, for error messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
