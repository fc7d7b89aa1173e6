//! One message as the server serves it, read once from the transport's
//! bytes ([`Incoming`]): what kind of message it is, its id and method, the
//! revision it is served in (decided here, once), the tool it calls (looked
//! up here, once), and its params: typed for `tools/call`, JSON text for
//! every other method, read by the step that serves it.

#[cfg(feature = "http-server")]
use std::borrow::Cow;
use std::sync::Arc;

use frontdesk_wire::{
    ErrorObject, MessageError, ProgressToken, RequestId, Revision, meta_key, method,
};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::server::api::tool::ToolDef;

/// One message a transport read, parsed once (by
/// [`Server::parse_message`](crate::server::Server::parse_message)) into
/// what [`Server::handle`](crate::server::Server::handle) serves.
///
/// It knows the revision it is served in (judged from the body, or given by
/// the transport), so a transport that routes by revision and the server
/// that serves it decide the same.
///
/// ```
/// use frontdesk::server::Server;
/// use frontdesk::wire::Revision;
///
/// let server = Server::builder("demo", "1.0.0").build();
/// let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
/// let message = server.parse_message(line).unwrap();
/// assert_eq!(message.revision(), Revision::V2026_07_28);
/// assert_eq!(message.method(), Some("tools/list"));
/// assert!(message.is_request());
/// ```
#[derive(Debug, Clone)]
pub struct Incoming {
    pub(crate) message: Message,
    pub(crate) revision: Revision,
    /// The tool a `tools/call` names (valid or not), found when it was read.
    pub(crate) tool: Option<Arc<ToolDef>>,
}

/// What kind of message, with what the server reads of each.
#[derive(Debug, Clone)]
pub(crate) enum Message {
    Request(Request),
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    /// The client's answer to one of our requests; its result is read when
    /// it reaches the question waiting for it.
    Response {
        id: RequestId,
        result: Box<RawValue>,
    },
    Error {
        id: Option<RequestId>,
        /// Whether the message had an `id` member (`null` counts).
        id_member: bool,
        error: ErrorObject,
    },
    /// Not a JSON-RPC message; `body` is the JSON it is (the transport's
    /// checks read it as they would a valid message).
    Invalid {
        error: MessageError,
        body: Option<Value>,
    },
}

/// A request: its id, method and params.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Params,
}

/// A request's params.
#[derive(Debug, Clone)]
pub(crate) enum Params {
    /// `tools/call` in its usual shape, read into its typed form.
    ToolCall(Box<ToolCall>),
    /// Any other method, or a `tools/call` of another shape: the params
    /// object as JSON text (`None` when absent or `null`), read by the step
    /// that serves the method, with its own wording for each mistake.
    Raw(Option<Box<RawValue>>),
}

/// A `tools/call`'s params, typed: the tool's name, its arguments, the
/// request's `_meta` and the retry fields of a 2026-07-28 retry.
#[derive(Debug, Clone)]
pub(crate) struct ToolCall {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) meta: Option<MetaFields>,
    pub(crate) retry: Retry,
}

/// The members of a request's `_meta` the server reads; the rest (the
/// client's name and version, extensions' keys) is skipped. Each keeps its
/// value as sent (a key present with `null` is present): the step that
/// serves the request judges them.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct MetaFields {
    #[serde(
        default,
        rename = "io.modelcontextprotocol/protocolVersion",
        deserialize_with = "present"
    )]
    pub(crate) protocol_version: Option<Value>,
    /// As JSON text: the checks read it without a value tree
    /// ([`ClientCaps`](super::caps::ClientCaps)).
    #[serde(
        default,
        rename = "io.modelcontextprotocol/clientCapabilities",
        deserialize_with = "present"
    )]
    pub(crate) client_capabilities: Option<Box<RawValue>>,
    #[serde(default, rename = "progressToken")]
    pub(crate) progress_token: Option<Value>,
    #[serde(default, rename = "io.modelcontextprotocol/logLevel")]
    pub(crate) log_level: Option<Value>,
}

impl MetaFields {
    /// The fields of a `_meta` read as an object; the client capabilities
    /// are taken out of it (nothing reads them from there again).
    pub(crate) fn take_from(meta: &mut Map<String, Value>) -> Self {
        Self {
            protocol_version: meta.get(meta_key::PROTOCOL_VERSION).cloned(),
            client_capabilities: meta
                .shift_remove(meta_key::CLIENT_CAPABILITIES)
                .and_then(|caps| serde_json::value::to_raw_value(&caps).ok()),
            progress_token: meta.get(meta_key::PROGRESS_TOKEN).cloned(),
            log_level: meta.get(meta_key::LOG_LEVEL).cloned(),
        }
    }

    /// Whether it carries a 2026-07-28 key.
    pub(crate) fn is_modern(&self) -> bool {
        self.protocol_version.is_some() || self.client_capabilities.is_some()
    }

    /// The protocol version, when a string.
    pub(crate) fn version(&self) -> Option<&str> {
        self.protocol_version.as_ref().and_then(Value::as_str)
    }

    /// `progressToken`, when a string or an integer.
    pub(crate) fn progress_token(&self) -> Option<ProgressToken> {
        self.progress_token
            .as_ref()
            .and_then(|t| ProgressToken::deserialize(t).ok())
    }
}

/// A member that, when present, is a `T` (`null` included when `T` takes it).
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The two MRTR fields of a retry as the server reads them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Retry {
    /// `inputResponses`, kept raw: each answer is read when its question is
    /// asked, because answers to questions not asked are ignored whatever
    /// their shape.
    pub(crate) responses: Map<String, Value>,
    pub(crate) state: Option<String>,
}

impl Retry {
    /// Whether the request carried either field.
    pub(crate) fn is_retry(&self) -> bool {
        self.state.is_some() || !self.responses.is_empty()
    }
}

impl Incoming {
    /// The revision the message is served in.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The id, when the message has one that could be read (also for a
    /// message that is otherwise invalid, so its error can carry it).
    pub fn id(&self) -> Option<&RequestId> {
        match &self.message {
            Message::Request(r) => Some(&r.id),
            Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            Message::Invalid { error, .. } => error.id(),
            Message::Notification { .. } => None,
        }
    }

    /// The method, when the message names one as a string (also for a
    /// message that is otherwise invalid).
    pub fn method(&self) -> Option<&str> {
        match &self.message {
            Message::Request(r) => Some(&r.method),
            Message::Notification { method, .. } => Some(method),
            Message::Invalid { body, .. } => body
                .as_ref()
                .and_then(|b| b.get("method"))
                .and_then(Value::as_str),
            Message::Response { .. } | Message::Error { .. } => None,
        }
    }

    /// Whether the message has both a `method` and an `id` member (a
    /// request, or what was meant as one): it is answered.
    pub fn is_request(&self) -> bool {
        match &self.message {
            Message::Request(_) => true,
            Message::Invalid { body, .. } => has(body, "method") && has(body, "id"),
            _ => false,
        }
    }

    /// Whether the message has an `id` member but no `method` (a response,
    /// or what was meant as one).
    pub fn is_response(&self) -> bool {
        match &self.message {
            Message::Response { .. } => true,
            Message::Error { id_member, .. } => *id_member,
            Message::Invalid { body, .. } => !has(body, "method") && has(body, "id"),
            _ => false,
        }
    }

    /// The body members the 2026-07-28 HTTP headers mirror.
    #[cfg(feature = "http-server")]
    pub(crate) fn mirrored(&self) -> Mirrored<'_> {
        let method = self.method();
        let name_key = method.and_then(frontdesk_wire::header::name_field);
        let (meta_version, name) = match &self.message {
            Message::Request(Request {
                params: Params::ToolCall(call),
                ..
            }) => (
                call.meta
                    .as_ref()
                    .and_then(MetaFields::version)
                    .map(Cow::Borrowed),
                Some(Cow::Borrowed(call.name.as_str())),
            ),
            Message::Request(Request {
                params: Params::Raw(params),
                ..
            })
            | Message::Notification { params, .. } => {
                let peek = params
                    .as_deref()
                    .map(super::read::ParamsPeek::of)
                    .unwrap_or_default();
                let name = name_key.and_then(|key| peek.field(key));
                (peek.meta.version, name)
            }
            Message::Invalid { body, .. } => {
                let params = body.as_ref().and_then(|b| b.get("params"));
                let meta_version = params
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(meta_key::PROTOCOL_VERSION))
                    .and_then(Value::as_str)
                    .map(Cow::Borrowed);
                let name = name_key
                    .and_then(|key| params.and_then(|p| p.get(key)))
                    .and_then(Value::as_str)
                    .map(Cow::Borrowed);
                (meta_version, name)
            }
            Message::Response { .. } | Message::Error { .. } => (None, None),
        };
        Mirrored {
            method,
            has_id: self.is_request() || self.is_response(),
            meta_version,
            name,
        }
    }

    /// The tool a `tools/call` names, with the arguments its `Mcp-Param-*`
    /// headers mirror: `None` for other methods and unknown tools.
    #[cfg(feature = "http-server")]
    pub(crate) fn called_tool(&self) -> Option<(&ToolDef, Cow<'_, Map<String, Value>>)> {
        let tool = self.tool.as_deref()?;
        if tool.header_params().is_empty() {
            return Some((tool, Cow::Owned(Map::new())));
        }
        let params: Option<Cow<'_, Value>> = match &self.message {
            Message::Request(Request {
                params: Params::ToolCall(call),
                ..
            }) => return Some((tool, Cow::Borrowed(&call.arguments))),
            Message::Request(Request {
                params: Params::Raw(Some(raw)),
                ..
            }) => serde_json::from_str(raw.get()).ok().map(Cow::Owned),
            Message::Invalid { body, .. } => body
                .as_ref()
                .and_then(|b| b.get("params"))
                .map(Cow::Borrowed),
            _ => None,
        };
        let arguments = match params {
            Some(Cow::Owned(Value::Object(mut p))) => match p.shift_remove("arguments") {
                Some(Value::Object(a)) => Cow::Owned(a),
                _ => Cow::Owned(Map::new()),
            },
            Some(Cow::Borrowed(p)) => match p.get("arguments") {
                Some(Value::Object(a)) => Cow::Borrowed(a),
                _ => Cow::Owned(Map::new()),
            },
            _ => Cow::Owned(Map::new()),
        };
        Some((tool, arguments))
    }

    /// Whether the message is a `tools/call`.
    #[cfg(feature = "http-server")]
    pub(crate) fn is_tool_call(&self) -> bool {
        self.method() == Some(method::TOOLS_CALL)
    }
}

fn has(body: &Option<Value>, key: &str) -> bool {
    body.as_ref().is_some_and(|b| b.get(key).is_some())
}

/// The body members the 2026-07-28 HTTP headers mirror, read where they lie.
#[cfg(feature = "http-server")]
#[derive(Debug, Default)]
pub(crate) struct Mirrored<'a> {
    /// The method, when a string.
    pub(crate) method: Option<&'a str>,
    /// Whether the body has an `id` member.
    pub(crate) has_id: bool,
    /// `params._meta`'s protocol version, when a string.
    pub(crate) meta_version: Option<Cow<'a, str>>,
    /// The params member `Mcp-Name` mirrors for the method, when a string.
    pub(crate) name: Option<Cow<'a, str>>,
}

/// Which revision a message read as a value is for (a message the
/// classifier refused).
pub(crate) fn revision_of_value(message: &Value) -> Revision {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let meta = message
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    judge(
        method,
        meta.is_some_and(|m| {
            m.contains_key(meta_key::PROTOCOL_VERSION)
                || m.contains_key(meta_key::CLIENT_CAPABILITIES)
        }),
    )
}

/// `server/discover`, and any message whose `params._meta` carries a
/// 2026-07-28 key, is 2026-07-28; everything else is 2025-11-25.
pub(crate) fn judge(method: &str, modern_meta: bool) -> Revision {
    if method == method::SERVER_DISCOVER || modern_meta {
        Revision::V2026_07_28
    } else {
        Revision::V2025_11_25
    }
}
