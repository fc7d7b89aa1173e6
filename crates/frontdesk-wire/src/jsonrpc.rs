//! The JSON-RPC 2.0 envelope: requests, notifications, responses, and a
//! classifier that turns arbitrary bytes into one of them or a typed error.
//!
//! `params` and `result` stay untyped JSON objects at this level; each method's
//! typed parameters parse out of them with [`JsonRpcRequest::parse_params`] and
//! friends, so the runtime decides per method.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ErrorObject};
use crate::id::RequestId;
use crate::util::{kind_of, to_object, to_value_infallible, wire_tag};

wire_tag!(
    /// The `"jsonrpc": "2.0"` member every message carries.
    JsonRpcVersion = "2.0"
);

/// A request: has an `id` and a `method`, expects a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The parameters (an object in MCP), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl JsonRpcRequest {
    /// A request with untyped parameters.
    pub fn new(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: Option<Map<String, Value>>,
    ) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params,
            extra: Map::new(),
        }
    }

    /// A request whose parameters are serialized from a typed value, which must
    /// serialize to a JSON object.
    pub fn with_params<P: Serialize>(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: &P,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::new(id, method, Some(to_object(params)?)))
    }

    /// Parses the parameters as `P` (absent parameters parse as `{}`).
    ///
    /// The error converts into a `-32602` naming the method and the problem.
    pub fn parse_params<P: DeserializeOwned>(&self) -> Result<P, ParamsError> {
        parse_params(&self.method, self.params.as_ref())
    }

    /// A success response to this request.
    pub fn respond(&self, result: Map<String, Value>) -> JsonRpcResponse {
        JsonRpcResponse::new(self.id.clone(), result)
    }

    /// An error response to this request.
    pub fn respond_error(&self, error: ErrorObject) -> JsonRpcErrorResponse {
        JsonRpcErrorResponse::new(Some(self.id.clone()), error)
    }
}

/// A notification: a `method` without an `id`; never answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name.
    pub method: String,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl JsonRpcNotification {
    /// A notification with untyped parameters.
    pub fn new(method: impl Into<String>, params: Option<Map<String, Value>>) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
            extra: Map::new(),
        }
    }

    /// A notification whose parameters are serialized from a typed value.
    pub fn with_params<P: Serialize>(
        method: impl Into<String>,
        params: &P,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::new(method, Some(to_object(params)?)))
    }

    /// Parses the parameters as `P` (absent parameters parse as `{}`).
    pub fn parse_params<P: DeserializeOwned>(&self) -> Result<P, ParamsError> {
        parse_params(&self.method, self.params.as_ref())
    }
}

/// A success response (`JSONRPCResultResponse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result object.
    pub result: Map<String, Value>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl JsonRpcResponse {
    /// A response with an untyped result.
    pub fn new(id: impl Into<RequestId>, result: Map<String, Value>) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            result,
            extra: Map::new(),
        }
    }

    /// A response whose result is serialized from a typed value (must be an object).
    pub fn with_result<R: Serialize>(
        id: impl Into<RequestId>,
        result: &R,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::new(id, to_object(result)?))
    }

    /// The response as a JSON value, the result moved in rather than copied:
    /// the same members in the same order as serializing it (`jsonrpc`, `id`,
    /// `result`, then any unknown members that do not repeat those).
    ///
    /// ```
    /// use frontdesk_wire::{JsonRpcResponse, RequestId};
    /// let mut result = serde_json::Map::new();
    /// result.insert("ok".into(), true.into());
    /// let r = JsonRpcResponse::new(RequestId::Integer(7_i64.into()), result);
    /// assert_eq!(r.clone().into_value(), serde_json::to_value(&r).unwrap());
    /// assert_eq!(r.into_value().to_string(), r#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#);
    /// ```
    pub fn into_value(self) -> Value {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), Value::from(JsonRpcVersion::VALUE));
        obj.insert("id".into(), to_value_infallible(&self.id));
        obj.insert("result".into(), Value::Object(self.result));
        for (k, v) in self.extra {
            obj.entry(k).or_insert(v);
        }
        Value::Object(obj)
    }

    /// Parses the result as `R`.
    pub fn parse_result<R: DeserializeOwned>(&self) -> Result<R, serde_json::Error> {
        R::deserialize(&Value::Object(self.result.clone()))
    }
}

/// A response whose result is JSON text already: what a server writes when
/// it serialized the result once, from its typed value, and will not build a
/// [`Value`] tree of it only to serialize that again.
///
/// ```
/// use frontdesk_wire::{JsonRpcResponseText, RequestId};
/// let result = serde_json::value::to_raw_value(&serde_json::json!({"ok": true})).unwrap();
/// let id = RequestId::Integer(7_i64.into());
/// let text = JsonRpcResponseText::new(&id, &result).to_text().unwrap();
/// assert_eq!(text.get(), r#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#);
/// ```
#[derive(Debug, Clone, Copy, Serialize)]
pub struct JsonRpcResponseText<'a> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: &'a RequestId,
    /// The result object, as JSON text.
    pub result: &'a RawValue,
}

impl<'a> JsonRpcResponseText<'a> {
    /// The response to `id` carrying `result`.
    pub fn new(id: &'a RequestId, result: &'a RawValue) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }

    /// The whole response as JSON text: the members in the order of
    /// [`JsonRpcResponse`], the result copied as it is.
    pub fn to_text(&self) -> Result<Box<RawValue>, serde_json::Error> {
        serde_json::value::to_raw_value(self)
    }
}

/// An error response (`JSONRPCErrorResponse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the failed request; absent when it could not be read.
    ///
    /// An incoming `"id": null` (plain JSON-RPC 2.0 style) reads as absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl JsonRpcErrorResponse {
    /// An error response.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            error,
            extra: Map::new(),
        }
    }
}

/// Any single JSON-RPC message (MCP forbids batches in both revisions).
/// Exhaustive: JSON-RPC 2.0 has these four kinds and no others.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    /// A request (`id` + `method`).
    Request(JsonRpcRequest),
    /// A notification (`method`, no `id`).
    Notification(JsonRpcNotification),
    /// A success response (`id` + `result`).
    Response(JsonRpcResponse),
    /// An error response (`error`, `id` unless unreadable).
    Error(JsonRpcErrorResponse),
}

impl JsonRpcMessage {
    /// Classifies raw bytes (one stdio line or one HTTP body).
    ///
    /// Never panics. Invalid JSON (or JSON nested deeper than serde_json's
    /// recursion limit) is a [`MessageErrorKind::Parse`]; valid JSON that is no
    /// JSON-RPC message is another kind (see [`MessageError::code`]).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, MessageError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| MessageError::new(MessageErrorKind::Parse, e.to_string(), None))?;
        Self::from_value(value)
    }

    /// Classifies an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Self, MessageError> {
        use MessageErrorKind as K;
        let mut obj = match value {
            Value::Object(obj) => obj,
            Value::Array(_) => {
                return Err(MessageError::new(
                    K::Batch,
                    "JSON-RPC batches are not supported".into(),
                    None,
                ));
            }
            other => {
                return Err(MessageError::new(
                    K::NotAnObject,
                    format!("expected a JSON object, got {}", kind_of(&other)),
                    None,
                ));
            }
        };

        // Read the id first so that later errors can carry it.
        let id = match obj.get("id") {
            None => IdField::Absent,
            Some(Value::Null) => IdField::Null,
            Some(v) => match RequestId::deserialize(v) {
                Ok(id) => IdField::Valid(id),
                Err(_) => {
                    return Err(MessageError::new(
                        K::InvalidId,
                        format!("\"id\" must be a string or an integer, got {}", kind_of(v)),
                        None,
                    ));
                }
            },
        };
        let known_id = match &id {
            IdField::Valid(id) => Some(id.clone()),
            _ => None,
        };
        let fail = |kind, message: String| MessageError::new(kind, message, known_id.clone());

        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            Some(other) => {
                return Err(fail(
                    K::InvalidVersion,
                    format!("\"jsonrpc\" must be \"2.0\", got {other}"),
                ));
            }
            None => {
                return Err(fail(
                    K::InvalidVersion,
                    "missing \"jsonrpc\": \"2.0\"".into(),
                ));
            }
        }

        let has_method = obj.contains_key("method");
        let has_result = obj.contains_key("result");
        let has_error = obj.contains_key("error");

        if has_method {
            if has_result || has_error {
                return Err(fail(
                    K::Ambiguous,
                    "a message cannot have both \"method\" and \"result\"/\"error\"".into(),
                ));
            }
            let method = match obj.remove("method") {
                Some(Value::String(m)) => m,
                Some(other) => {
                    return Err(fail(
                        K::InvalidMethod,
                        format!("\"method\" must be a string, got {}", kind_of(&other)),
                    ));
                }
                None => return Err(fail(K::NoKind, "missing \"method\"".into())),
            };
            let params = match obj.remove("params") {
                None | Some(Value::Null) => None,
                Some(Value::Object(p)) => Some(p),
                Some(other) => {
                    return Err(fail(
                        K::InvalidParams,
                        format!("\"params\" must be an object, got {}", kind_of(&other)),
                    ));
                }
            };
            obj.remove("jsonrpc");
            match id {
                IdField::Valid(id) => {
                    obj.remove("id");
                    Ok(Self::Request(JsonRpcRequest {
                        jsonrpc: JsonRpcVersion,
                        id,
                        method,
                        params,
                        extra: obj,
                    }))
                }
                IdField::Null => Err(fail(K::InvalidId, "request \"id\" must not be null".into())),
                IdField::Absent => Ok(Self::Notification(JsonRpcNotification {
                    jsonrpc: JsonRpcVersion,
                    method,
                    params,
                    extra: obj,
                })),
            }
        } else if has_result {
            if has_error {
                return Err(fail(
                    K::Ambiguous,
                    "a response cannot have both \"result\" and \"error\"".into(),
                ));
            }
            let IdField::Valid(id) = id else {
                return Err(fail(
                    K::InvalidId,
                    "a result response needs an \"id\"".into(),
                ));
            };
            let result = match obj.remove("result") {
                Some(Value::Object(r)) => r,
                Some(other) => {
                    return Err(fail(
                        K::InvalidResult,
                        format!("\"result\" must be an object, got {}", kind_of(&other)),
                    ));
                }
                None => return Err(fail(K::NoKind, "missing \"result\"".into())),
            };
            obj.remove("jsonrpc");
            obj.remove("id");
            Ok(Self::Response(JsonRpcResponse {
                jsonrpc: JsonRpcVersion,
                id,
                result,
                extra: obj,
            }))
        } else if has_error {
            let raw = obj.remove("error").unwrap_or(Value::Null);
            let error = match ErrorObject::deserialize(&raw) {
                Ok(e) => e,
                Err(e) => return Err(fail(K::InvalidError, format!("invalid \"error\": {e}"))),
            };
            obj.remove("jsonrpc");
            obj.remove("id");
            Ok(Self::Error(JsonRpcErrorResponse {
                jsonrpc: JsonRpcVersion,
                id: known_id,
                error,
                extra: obj,
            }))
        } else {
            Err(fail(
                K::NoKind,
                "a message needs \"method\", \"result\" or \"error\"".into(),
            ))
        }
    }

    /// The id, for requests and responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request(r) => Some(&r.id),
            Self::Response(r) => Some(&r.id),
            Self::Error(e) => e.id.as_ref(),
            Self::Notification(_) => None,
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(r) => Some(&r.method),
            Self::Notification(n) => Some(&n.method),
            Self::Response(_) | Self::Error(_) => None,
        }
    }

    /// Serializes to a single line of JSON (no embedded newlines), as stdio framing needs.
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// The message as a JSON value, members in schema order.
    ///
    /// An error response whose id could not be read is written with
    /// `"id": null`, as JSON-RPC 2.0 requires and every MCP revision accepts;
    /// plain `Serialize` omits the member instead, as the MCP schema allows.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Error(e) if e.id.is_none() => {
                let mut obj = Map::new();
                obj.insert("jsonrpc".into(), Value::from(JsonRpcVersion::VALUE));
                obj.insert("id".into(), Value::Null);
                obj.insert("error".into(), to_value_infallible(&e.error));
                for (k, v) in &e.extra {
                    obj.entry(k.clone()).or_insert_with(|| v.clone());
                }
                Value::Object(obj)
            }
            other => to_value_infallible(other),
        }
    }
}

impl std::str::FromStr for JsonRpcMessage {
    type Err = MessageError;

    /// Classifies a string; see [`JsonRpcMessage::from_slice`].
    fn from_str(text: &str) -> Result<Self, MessageError> {
        Self::from_slice(text.as_bytes())
    }
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(value).map_err(serde::de::Error::custom)
    }
}

impl From<JsonRpcRequest> for JsonRpcMessage {
    fn from(m: JsonRpcRequest) -> Self {
        Self::Request(m)
    }
}
impl From<JsonRpcNotification> for JsonRpcMessage {
    fn from(m: JsonRpcNotification) -> Self {
        Self::Notification(m)
    }
}
impl From<JsonRpcResponse> for JsonRpcMessage {
    fn from(m: JsonRpcResponse) -> Self {
        Self::Response(m)
    }
}
impl From<JsonRpcErrorResponse> for JsonRpcMessage {
    fn from(m: JsonRpcErrorResponse) -> Self {
        Self::Error(m)
    }
}

enum IdField {
    Absent,
    Null,
    Valid(RequestId),
}

/// Parses the parameters of a request or notification to `method` as `P`
/// (absent parameters parse as `{}`): what
/// [`JsonRpcRequest::parse_params`] does, for a reader that holds the
/// method and the params apart from the envelope (e.g. one that read it as
/// a [`RawMessage`](crate::RawMessage)).
pub fn parse_params<P: DeserializeOwned>(
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<P, ParamsError> {
    // Read from the borrowed map: no copy of the params is made first.
    let empty = Map::new();
    P::deserialize(params.unwrap_or(&empty)).map_err(|source| ParamsError {
        method: method.to_owned(),
        source,
    })
}

/// Parameters that do not match the method's parameter type.
#[derive(Debug, thiserror::Error)]
#[error("Invalid params for {method}: {source}")]
pub struct ParamsError {
    method: String,
    #[source]
    source: serde_json::Error,
}

impl ParamsError {
    /// The method whose parameters were wrong.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The `-32602` Invalid params error to answer with.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::invalid_params(self.to_string())
    }
}

impl From<ParamsError> for ErrorObject {
    fn from(e: ParamsError) -> Self {
        e.to_error_object()
    }
}

/// What is wrong with a message that could not be classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageErrorKind {
    /// Not valid JSON (or nested too deeply). `-32700`.
    Parse,
    /// A JSON array: batches are not supported. `-32600`.
    Batch,
    /// Valid JSON but not an object. `-32600`.
    NotAnObject,
    /// `jsonrpc` missing or not `"2.0"`. `-32600`.
    InvalidVersion,
    /// `id` is not a string or integer (or `null` on a request / missing on a result). `-32600`.
    InvalidId,
    /// `method` is not a string. `-32600`.
    InvalidMethod,
    /// `params` is not an object. `-32602`.
    InvalidParams,
    /// `result` is not an object. `-32600`.
    InvalidResult,
    /// `error` is not an error object (integer `code`, string `message`). `-32600`.
    InvalidError,
    /// Both `method` and `result`/`error`, or both `result` and `error`. `-32600`.
    Ambiguous,
    /// None of `method`, `result`, `error`. `-32600`.
    NoKind,
}

/// Why bytes could not be read as a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct MessageError {
    kind: MessageErrorKind,
    message: String,
    id: Option<RequestId>,
}

impl MessageError {
    pub(crate) fn new(kind: MessageErrorKind, message: String, id: Option<RequestId>) -> Self {
        Self { kind, message, id }
    }

    /// What is wrong.
    pub fn kind(&self) -> MessageErrorKind {
        self.kind
    }

    /// The id of the message, when it could be read.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The JSON-RPC error code to answer with: `-32700` for unparseable JSON,
    /// `-32602` for non-object params, `-32600` otherwise.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            MessageErrorKind::Parse => ErrorCode::PARSE_ERROR,
            MessageErrorKind::InvalidParams => ErrorCode::INVALID_PARAMS,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }

    /// The error object to send back.
    pub fn to_error_object(&self) -> ErrorObject {
        let prefix = match self.code() {
            ErrorCode::PARSE_ERROR => "Parse error",
            ErrorCode::INVALID_PARAMS => "Invalid params",
            _ => "Invalid request",
        };
        ErrorObject::new(self.code(), format!("{prefix}: {}", self.message))
    }

    /// The error response to send back (with the id when it could be read).
    ///
    /// Note: a peer must not answer a malformed *response* or notification;
    /// the caller decides whether to send this.
    pub fn to_error_response(&self) -> JsonRpcErrorResponse {
        JsonRpcErrorResponse::new(self.id.clone(), self.to_error_object())
    }
}
