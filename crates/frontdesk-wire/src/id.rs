//! Identifiers that are "a string or an integer": request ids and progress tokens.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Generates an id type that is exactly a JSON string or a JSON integer.
///
/// Integers keep their exact value across the whole `i64` and `u64` range;
/// fractional numbers, `null` and other JSON kinds are rejected.
macro_rules! string_or_integer {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            /// A JSON string.
            String(String),
            /// A JSON integer.
            Integer(Integer),
        }

        impl $name {
            /// The string form, when this is a string.
            pub fn as_str(&self) -> Option<&str> {
                match self {
                    Self::String(s) => Some(s),
                    Self::Integer(_) => None,
                }
            }

            /// The integer form, when this is an integer that fits an `i64`.
            pub fn as_i64(&self) -> Option<i64> {
                match self {
                    Self::String(_) => None,
                    Self::Integer(n) => n.as_i64(),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Self::String(s) => write!(f, "{s:?}"),
                    Self::Integer(n) => write!(f, "{n}"),
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self::String(s)
            }
        }
        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self::String(s.to_owned())
            }
        }
        impl From<i32> for $name {
            fn from(n: i32) -> Self {
                Self::Integer(Integer::from(i64::from(n)))
            }
        }
        impl From<u32> for $name {
            fn from(n: u32) -> Self {
                Self::Integer(Integer::from(u64::from(n)))
            }
        }
        impl From<i64> for $name {
            fn from(n: i64) -> Self {
                Self::Integer(Integer::from(n))
            }
        }
        impl From<u64> for $name {
            fn from(n: u64) -> Self {
                Self::Integer(Integer::from(n))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    Self::String(v) => s.serialize_str(v),
                    Self::Integer(n) => n.serialize(s),
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::String(v.to_owned()))
                    }
                    fn visit_string<E: de::Error>(self, v: String) -> Result<$name, E> {
                        Ok($name::String(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Ok($name::from(v))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Ok($name::from(v))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// An exact JSON integer in the range `i64::MIN ..= u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Integer(i128);

impl Integer {
    /// The value as an `i64`, if it fits.
    pub fn as_i64(self) -> Option<i64> {
        i64::try_from(self.0).ok()
    }

    /// The value as a `u64`, if it fits.
    pub fn as_u64(self) -> Option<u64> {
        u64::try_from(self.0).ok()
    }

    /// The value as an `i128` (always exact).
    pub fn as_i128(self) -> i128 {
        self.0
    }
}

impl From<i64> for Integer {
    fn from(n: i64) -> Self {
        Self(i128::from(n))
    }
}

impl From<u64> for Integer {
    fn from(n: u64) -> Self {
        Self(i128::from(n))
    }
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Integer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The field is private and only built from i64/u64, so one of these fits.
        match (i64::try_from(self.0), u64::try_from(self.0)) {
            (Ok(n), _) => s.serialize_i64(n),
            (_, Ok(n)) => s.serialize_u64(n),
            _ => Err(serde::ser::Error::custom(
                "integer out of the JSON id range",
            )),
        }
    }
}

string_or_integer!(
    /// A JSON-RPC request id: a string or an integer, never `null`.
    ///
    /// ```
    /// use frontdesk_wire::RequestId;
    /// let id: RequestId = serde_json::from_str("18446744073709551615").unwrap();
    /// assert_eq!(serde_json::to_string(&id).unwrap(), "18446744073709551615");
    /// assert!(serde_json::from_str::<RequestId>("1.5").is_err());
    /// assert!(serde_json::from_str::<RequestId>("null").is_err());
    /// ```
    RequestId,
    "a request id (a string or an integer)"
);

string_or_integer!(
    /// A progress token (`_meta.progressToken`): a string or an integer.
    ProgressToken,
    "a progress token (a string or an integer)"
);

impl From<RequestId> for ProgressToken {
    fn from(id: RequestId) -> Self {
        match id {
            RequestId::String(s) => Self::String(s),
            RequestId::Integer(n) => Self::Integer(n),
        }
    }
}
