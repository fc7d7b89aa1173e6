//! Reading one message's bytes into an [`Incoming`]: the wire crate
//! classifies the envelope where it lies ([`RawMessage`]); a `tools/call`'s
//! params are read into their typed form, and every other method's are kept
//! as JSON text, with only the members that decide the revision peeked at.
//! A `tools/call` of the usual shape is first tried in one pass
//! ([`one_pass`]), which reads it the same way without the envelope's scan.
//!
//! The typed reading of `tools/call` accepts only the usual shape (a string
//! `name`; `arguments`, `task` and `_meta` objects or absent; an object
//! `inputResponses` and a string `requestState` when present; no member
//! twice). Anything else keeps its params as text, and the step that serves
//! it reads them as before, so each mistake gets the error it always got.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use frontdesk_wire::{
    CallToolRequestParams, MessageErrorKind, RawMessage, Revision, meta_key, method,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::incoming::{
    Incoming, Message, MetaFields, Params, Request, Retry, ToolCall, judge, present,
};
use super::one_pass;
use crate::server::api::error::RpcError;
use crate::server::api::tool::{ToolDef, ToolRegistry};

/// Read one message; `revision` is the transport's, when it knows it (else
/// the body decides). `Err` is the parse error (`-32700`) to answer with.
pub(crate) fn read(
    bytes: &[u8],
    revision: Option<Revision>,
    tools: &ToolRegistry,
) -> Result<Incoming, RpcError> {
    if let Some((id, wire)) = one_pass::tools_call(bytes)
        && !wire.needs_wire_check(revision)
    {
        let (params, judged, tool) = typed(wire, tools);
        return Ok(Incoming {
            message: Message::Request(Request {
                id,
                method: method::TOOLS_CALL.to_owned(),
                params,
            }),
            revision: revision.unwrap_or(judged),
            tool,
        });
    }
    read_classified(bytes, revision, tools)
}

/// [`read`] by the general way: the envelope classified with its params as
/// text, then the params read by method.
pub(super) fn read_classified(
    bytes: &[u8],
    revision: Option<Revision>,
    tools: &ToolRegistry,
) -> Result<Incoming, RpcError> {
    let raw = match RawMessage::from_slice(bytes) {
        Ok(raw) => raw,
        Err(e) if e.kind() == MessageErrorKind::Parse => return Err(RpcError::parse_error(e)),
        Err(e) => {
            let body = serde_json::from_slice::<Value>(bytes).ok();
            let judged = body
                .as_ref()
                .map_or(Revision::V2025_11_25, super::incoming::revision_of_value);
            let tool = body
                .as_ref()
                .filter(|b| b.get("method").and_then(Value::as_str) == Some(method::TOOLS_CALL))
                .and_then(|b| b.pointer("/params/name"))
                .and_then(Value::as_str)
                .and_then(|name| tools.find(name));
            return Ok(Incoming {
                message: Message::Invalid { error: e, body },
                revision: revision.unwrap_or(judged),
                tool,
            });
        }
    };
    Ok(match raw {
        RawMessage::Request { id, method, params } if method == method::TOOLS_CALL => {
            let (params, judged, tool) = tool_call(params, revision, tools);
            Incoming {
                message: Message::Request(Request {
                    id,
                    method: method.into_owned(),
                    params,
                }),
                revision: revision.unwrap_or(judged),
                tool,
            }
        }
        RawMessage::Request { id, method, params } => Incoming {
            revision: revision.unwrap_or_else(|| judged(&method, params)),
            message: Message::Request(Request {
                id,
                method: method.into_owned(),
                params: Params::Raw(params.map(ToOwned::to_owned)),
            }),
            tool: None,
        },
        RawMessage::Notification { method, params } => Incoming {
            revision: revision.unwrap_or_else(|| judged(&method, params)),
            message: Message::Notification {
                method: method.into_owned(),
                params: params.map(ToOwned::to_owned),
            },
            tool: None,
        },
        RawMessage::Response { id, result } => Incoming {
            revision: revision.unwrap_or(Revision::V2025_11_25),
            message: Message::Response {
                id,
                result: result.to_owned(),
            },
            tool: None,
        },
        RawMessage::Error {
            id,
            id_member,
            error,
        } => Incoming {
            revision: revision.unwrap_or(Revision::V2025_11_25),
            message: Message::Error {
                id,
                id_member,
                error,
            },
            tool: None,
        },
    })
}

/// The revision of a message the body decides.
fn judged(method: &str, params: Option<&RawValue>) -> Revision {
    judge(
        method,
        params.is_some_and(|p| ParamsPeek::of(p).meta.is_modern()),
    )
}

/// A `tools/call`'s params, typed when they have the usual shape; the
/// revision they say; the tool they name.
fn tool_call(
    params: Option<&RawValue>,
    revision: Option<Revision>,
    tools: &ToolRegistry,
) -> (Params, Revision, Option<Arc<ToolDef>>) {
    let Some(raw) = params else {
        return (Params::Raw(None), judge(method::TOOLS_CALL, false), None);
    };
    let Ok(wire) = serde_json::from_str::<ToolCallParams>(raw.get()) else {
        let peek = ParamsPeek::of(raw);
        let tool = peek.field("name").and_then(|name| tools.find(&name));
        let judged = judge(method::TOOLS_CALL, peek.meta.is_modern());
        return (Params::Raw(Some(raw.to_owned())), judged, tool);
    };
    // 2025-11-25 reads the params as the wire type does, answers and all:
    // retry fields that type refuses are answered as it words them.
    if wire.needs_wire_check(revision)
        && serde_json::from_str::<CallToolRequestParams>(raw.get()).is_err()
    {
        let judged = wire.judged();
        return (
            Params::Raw(Some(raw.to_owned())),
            judged,
            tools.find(&wire.name),
        );
    }
    typed(wire, tools)
}

/// What the typed params `wire` of a `tools/call` are read as, once
/// [`ToolCallParams::needs_wire_check`] has been answered.
fn typed(wire: ToolCallParams, tools: &ToolRegistry) -> (Params, Revision, Option<Arc<ToolDef>>) {
    let judged = wire.judged();
    let tool = tools.find(&wire.name);
    let call = ToolCall {
        name: wire.name,
        arguments: wire.arguments.unwrap_or_default(),
        meta: wire.meta,
        retry: Retry {
            responses: wire.input_responses.unwrap_or_default(),
            state: wire.request_state,
        },
    };
    (Params::ToolCall(Box::new(call)), judged, tool)
}

impl ToolCallParams {
    /// The revision the params say.
    fn judged(&self) -> Revision {
        judge(
            method::TOOLS_CALL,
            self.meta.as_ref().is_some_and(MetaFields::is_modern),
        )
    }

    /// Whether the params' text must also be read as the wire type's: a
    /// 2025-11-25 call with retry fields.
    fn needs_wire_check(&self, revision: Option<Revision>) -> bool {
        let retried = self.input_responses.is_some() || self.request_state.is_some();
        retried && revision.unwrap_or_else(|| self.judged()) == Revision::V2025_11_25
    }
}

/// `tools/call`'s params in their usual shape (see the module docs); other
/// members are skipped.
#[derive(Deserialize)]
pub(super) struct ToolCallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    /// 2025-11-25 task augmentation: an object, not read.
    #[serde(default, rename = "task")]
    _task: Option<AnyObject>,
    #[serde(default, rename = "inputResponses", deserialize_with = "present")]
    input_responses: Option<Map<String, Value>>,
    #[serde(default, rename = "requestState", deserialize_with = "present")]
    request_state: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<MetaFields>,
}

/// Any JSON object, skipped.
struct AnyObject;

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyObject, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyObject)
            }
        }
        d.deserialize_map(V)
    }
}

/// The members of a params object that decide its revision and that the
/// 2026-07-28 HTTP headers mirror, borrowed from its text where they need
/// no unescaping; everything else is skipped. A member given twice counts
/// by its last value, as in a JSON value.
#[derive(Debug, Default)]
pub(crate) struct ParamsPeek<'a> {
    pub(crate) meta: MetaPeek<'a>,
    name: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
    task_id: Option<Cow<'a, str>>,
}

impl<'a> ParamsPeek<'a> {
    /// Peek into `params` (an object's text; anything unreadable peeks as
    /// empty).
    pub(crate) fn of(params: &'a RawValue) -> Self {
        serde_json::from_str(params.get()).unwrap_or_default()
    }

    /// The string member `key` (`name`, `uri` or `taskId`).
    pub(crate) fn field(&self, key: &str) -> Option<Cow<'a, str>> {
        match key {
            "name" => self.name.clone(),
            "uri" => self.uri.clone(),
            "taskId" => self.task_id.clone(),
            _ => None,
        }
    }
}

/// What `_meta` says of the revision.
#[derive(Debug, Default)]
pub(crate) struct MetaPeek<'a> {
    /// Whether it has a 2026-07-28 key.
    modern_key: bool,
    /// Its protocol version, when a string.
    pub(crate) version: Option<Cow<'a, str>>,
}

impl MetaPeek<'_> {
    pub(crate) fn is_modern(&self) -> bool {
        self.modern_key
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ParamsPeek<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ParamsPeek<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut peek = ParamsPeek::default();
                while let Some(Key(key)) = map.next_key()? {
                    match &*key {
                        "_meta" => peek.meta = map.next_value()?,
                        "name" => peek.name = map.next_value::<MaybeStr<'de>>()?.0,
                        "uri" => peek.uri = map.next_value::<MaybeStr<'de>>()?.0,
                        "taskId" => peek.task_id = map.next_value::<MaybeStr<'de>>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(peek)
            }
        }
        d.deserialize_map(V)
    }
}

/// The visitor methods of every JSON value but an object, each giving
/// `$value` (an array's items skipped); for visitors that read an object and
/// take anything else as "nothing there".
macro_rules! not_an_object {
    ($value:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            IgnoredAny.visit_seq(seq).map(|_| $value)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}
pub(crate) use not_an_object;

impl<'de: 'a, 'a> Deserialize<'de> for MetaPeek<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaPeek<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut peek = MetaPeek::default();
                while let Some(Key(key)) = map.next_key()? {
                    if key == meta_key::PROTOCOL_VERSION {
                        peek.modern_key = true;
                        peek.version = map.next_value::<MaybeStr<'de>>()?.0;
                    } else {
                        peek.modern_key |= key == meta_key::CLIENT_CAPABILITIES;
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(peek)
            }
            not_an_object!(MetaPeek::default());
        }
        d.deserialize_any(V)
    }
}

/// A member name, borrowed unless it has escapes.
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        MaybeStr::deserialize(d)?
            .0
            .map(Key)
            .ok_or_else(|| de::Error::custom("a member name is a string"))
    }
}

/// A string value (borrowed unless it has escapes), or `None` for any other
/// JSON value.
struct MaybeStr<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                IgnoredAny.visit_map(map).map(|_| MaybeStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| MaybeStr(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
        }
        d.deserialize_any(V)
    }
}
