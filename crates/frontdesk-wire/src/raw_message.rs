//! One message classified where it lies: [`RawMessage`] reads the envelope
//! (`jsonrpc`, `id`, `method`) and leaves `params` and `result` as JSON text
//! borrowed from the bytes, so a reader turns each into its own typed value
//! once, instead of into a [`Value`](serde_json::Value) tree first.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::ErrorObject;
use crate::id::RequestId;
use crate::jsonrpc::{JsonRpcMessage, MessageError, MessageErrorKind};

/// A JSON-RPC message whose `params` or `result` is still JSON text,
/// borrowed from the bytes it was read from.
///
/// It accepts and refuses what [`JsonRpcMessage::from_slice`] does, by the
/// same rules, with the same [`MessageError`]s, with one difference: the
/// text of `params` and `result` is checked as JSON syntax only, so a number
/// out of `f64` range or nesting deeper than serde_json's recursion limit
/// inside them is left for whoever reads them (serde_json's own `RawValue`
/// rule). Members other than the five of the envelope are skipped.
///
/// ```
/// use frontdesk_wire::{RawMessage, RequestId};
///
/// let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#;
/// let RawMessage::Request { id, method, params } = RawMessage::from_slice(line)? else {
///     panic!("a request")
/// };
/// assert_eq!((id, &*method), (RequestId::from(7), "tools/call"));
/// assert_eq!(params.map(|p| p.get()), Some(r#"{"name":"t"}"#));
/// # Ok::<(), frontdesk_wire::MessageError>(())
/// ```
#[derive(Debug, Clone)]
pub enum RawMessage<'a> {
    /// A request (`id` + `method`).
    Request {
        /// The id the response will carry.
        id: RequestId,
        /// The method name.
        method: Cow<'a, str>,
        /// The parameters, a JSON object (`None` when absent or `null`).
        params: Option<&'a RawValue>,
    },
    /// A notification (`method`, no `id`).
    Notification {
        /// The method name.
        method: Cow<'a, str>,
        /// The parameters, a JSON object (`None` when absent or `null`).
        params: Option<&'a RawValue>,
    },
    /// A success response (`id` + `result`).
    Response {
        /// The id of the request this answers.
        id: RequestId,
        /// The result, a JSON object.
        result: &'a RawValue,
    },
    /// An error response.
    Error {
        /// The id of the failed request; `None` when absent or `null`.
        id: Option<RequestId>,
        /// Whether the message had an `id` member at all (`"id": null`
        /// counts), which JSON-RPC 2.0 requires and the MCP schema does not.
        id_member: bool,
        /// The error.
        error: ErrorObject,
    },
}

impl<'a> RawMessage<'a> {
    /// Classifies one message (one stdio line or one HTTP body).
    ///
    /// Never panics. Errors are exactly [`JsonRpcMessage::from_slice`]'s.
    pub fn from_slice(bytes: &'a [u8]) -> Result<Self, MessageError> {
        let classified = serde_json::from_slice::<Shape<'a>>(bytes)
            .ok()
            .and_then(|shape| match shape {
                Shape::Object(envelope) => envelope.classify(),
                Shape::Other => None,
            });
        match classified {
            Some(message) => Ok(message),
            // Refusals are rare: read the message again as a value, for the
            // classifier's own words and the id it could read.
            None => Err(match JsonRpcMessage::from_slice(bytes) {
                Err(e) => e,
                Ok(_) => MessageError::new(
                    MessageErrorKind::NoKind,
                    "the message could not be classified".into(),
                    None,
                ),
            }),
        }
    }

    /// The id, for requests and responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request { id, .. } | Self::Response { id, .. } => Some(id),
            Self::Error { id, .. } => id.as_ref(),
            Self::Notification { .. } => None,
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request { method, .. } | Self::Notification { method, .. } => Some(method),
            Self::Response { .. } | Self::Error { .. } => None,
        }
    }
}

/// The top level of a message: an object's envelope, or anything else
/// (which the value classifier names).
enum Shape<'a> {
    Object(Envelope<'a>),
    Other,
}

/// The five members of a message object, as JSON text (a later member of
/// the same name replaces an earlier one, as in a [`Value`](serde_json::Value)).
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    /// The message, by the rules of `JsonRpcMessage::from_value`; `None`
    /// when it breaks one (the caller names which).
    fn classify(self) -> Option<RawMessage<'a>> {
        let id = match self.id {
            None => None,
            Some(raw) if raw.get() == "null" => Some(None),
            Some(raw) => Some(Some(serde_json::from_str::<RequestId>(raw.get()).ok()?)),
        };
        let version: BorrowedStr<'_> = serde_json::from_str(self.jsonrpc?.get()).ok()?;
        if version.0 != "2.0" {
            return None;
        }
        if let Some(method) = self.method {
            if self.result.is_some() || self.error.is_some() {
                return None;
            }
            let BorrowedStr(method) = serde_json::from_str(method.get()).ok()?;
            let params = match self.params {
                None => None,
                Some(p) if p.get() == "null" => None,
                Some(p) if p.get().starts_with('{') => Some(p),
                Some(_) => return None,
            };
            return match id {
                Some(Some(id)) => Some(RawMessage::Request { id, method, params }),
                Some(None) => None,
                None => Some(RawMessage::Notification { method, params }),
            };
        }
        if let Some(result) = self.result {
            if self.error.is_some() || !result.get().starts_with('{') {
                return None;
            }
            return Some(RawMessage::Response { id: id??, result });
        }
        // Read as a value first, as `from_value` does: a member given twice
        // (the later one wins there) must not refuse what the full read takes.
        // Error responses are rare; the hot path is requests and results.
        let error = serde_json::from_str::<serde_json::Value>(self.error?.get())
            .ok()
            .and_then(|v| serde_json::from_value::<ErrorObject>(v).ok())?;
        Some(RawMessage::Error {
            id: id.flatten(),
            id_member: self.id.is_some(),
            error,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Shape<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<'de>, A::Error> {
        let mut e = Envelope::default();
        while let Some(BorrowedStr(key)) = map.next_key()? {
            let slot = match &*key {
                "jsonrpc" => &mut e.jsonrpc,
                "id" => &mut e.id,
                "method" => &mut e.method,
                "params" => &mut e.params,
                "result" => &mut e.result,
                "error" => &mut e.error,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Shape::Object(e))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Shape::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }
}

/// A JSON string, borrowed from the input unless it has escapes.
pub(crate) struct BorrowedStr<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for BorrowedStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BorrowedStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(BorrowedStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(BorrowedStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(BorrowedStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}
