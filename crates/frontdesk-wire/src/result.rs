//! Fields common to results (`resultType`, caching hints) and the classifier
//! that tells a final result from an `input_required` one.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::mrtr::InputRequiredResult;
use crate::util::from_map;

/// `resultType` (2026-07-28; absent from 2025-11-25 results).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultType {
    /// `"complete"`: a final result.
    Complete,
    /// `"input_required"`: an [`InputRequiredResult`].
    InputRequired,
    /// A value defined by an extension (e.g. `"task"`), or an invalid one.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Other(s) => s,
        }
    }

    /// Reads the `resultType` of a result object; absent means
    /// [`ResultType::Complete`] (results from older servers).
    pub fn of(result: &Map<String, Value>) -> Result<Self, ResultTypeError> {
        match result.get("resultType") {
            None => Ok(Self::Complete),
            Some(Value::String(s)) => Ok(Self::from(s.as_str())),
            Some(_) => Err(ResultTypeError::NotAString),
        }
    }
}

impl From<&str> for ResultType {
    fn from(s: &str) -> Self {
        match s {
            "complete" => Self::Complete,
            "input_required" => Self::InputRequired,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Self::from(s.as_str()))
    }
}

/// A `resultType` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResultTypeError {
    /// `resultType` is present but not a string.
    #[error("\"resultType\" must be a string")]
    NotAString,
    /// A value the reader does not support (the client must treat the result as invalid).
    #[error("unsupported resultType {result_type:?}")]
    Unsupported {
        /// The value read.
        result_type: String,
    },
}

/// Caching scope of cacheable 2026-07-28 results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// May be shared across users.
    Public,
    /// Only for the requesting principal.
    Private,
}

/// A result that is either final (`T`) or asks for input (2026-07-28 `tools/call`,
/// `prompts/get`, `resources/read`).
///
/// Reading: `resultType` `"input_required"` ⇒ [`MaybeInputRequired::InputRequired`];
/// `"complete"` or absent ⇒ [`MaybeInputRequired::Complete`]; anything else is
/// an error (extension values must be handled before this type).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MaybeInputRequired<T> {
    /// The final result.
    Complete(T),
    /// The server needs input; retry with `inputResponses`/`requestState`.
    InputRequired(Box<InputRequiredResult>),
}

impl<T> MaybeInputRequired<T> {
    /// The final result, if this is one.
    pub fn complete(self) -> Option<T> {
        match self {
            Self::Complete(t) => Some(t),
            Self::InputRequired(_) => None,
        }
    }
}

impl<T: Serialize> Serialize for MaybeInputRequired<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Complete(t) => t.serialize(s),
            Self::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for MaybeInputRequired<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        match ResultType::of(&map).map_err(D::Error::custom)? {
            ResultType::Complete => from_map(map).map(Self::Complete),
            ResultType::InputRequired => from_map(map).map(|r| Self::InputRequired(Box::new(r))),
            ResultType::Other(s) => Err(D::Error::custom(ResultTypeError::Unsupported {
                result_type: s,
            })),
        }
    }
}

/// A result with nothing but `_meta` (and `resultType` in 2026-07-28), e.g. the
/// answer to `ping`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EmptyResult {
    /// `resultType` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters with nothing but `_meta`: `server/discover`, list-changed
/// notifications, `notifications/initialized`, `ping`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MetaParams {
    /// `_meta` (required on 2026-07-28 requests).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl MetaParams {
    /// Parameters carrying the given `_meta`.
    pub fn new(meta: Meta) -> Self {
        Self {
            meta: Some(meta),
            extra: Map::new(),
        }
    }
}
