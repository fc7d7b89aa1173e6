//! JSON-RPC errors as the server answers them: a wire [`ErrorObject`] plus the
//! HTTP status a Streamable HTTP transport should use, and the server's
//! wording for messages the wire classifier rejects.
//!
//! The envelope itself (classification, ids, responses) is
//! [`frontdesk_wire`]'s.

use serde_json::{Map, Value};

use frontdesk_wire::{
    ErrorCode, ErrorObject, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification,
    MessageError, MessageErrorKind, RequestId,
};

/// A JSON-RPC error the server answers with, plus the HTTP status a
/// Streamable HTTP transport should use for it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The `error` member of the response (boxed: it is large, and errors
    /// travel in `Result`s on every path).
    pub error: Box<ErrorObject>,
    /// HTTP status for Streamable HTTP (200 when the spec assigns none).
    pub http_status: u16,
}

impl RpcError {
    /// An error with `code` and `message`, HTTP status 200.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject::new(code, message).into()
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.error.data = Some(data);
        self
    }

    /// Set the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.http_status = status;
        self
    }

    /// The error code.
    pub fn code(&self) -> ErrorCode {
        self.error.code
    }

    /// The error message.
    pub fn message(&self) -> &str {
        &self.error.message
    }

    /// `-32700` parse error (HTTP 400).
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::from(ErrorObject::parse_error(format!("Parse error: {detail}"))).with_status(400)
    }

    /// `-32600` invalid request (HTTP 400).
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::from(ErrorObject::invalid_request(detail)).with_status(400)
    }

    /// `-32601` method not found (HTTP 404, as 2026-07-28 asks).
    pub fn method_not_found(method: &str) -> Self {
        Self::from(ErrorObject::method_not_found(method)).with_status(404)
    }

    /// `-32602` invalid params (HTTP 200).
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        ErrorObject::invalid_params(detail).into()
    }

    /// `-32603` internal error (HTTP 500).
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::from(ErrorObject::internal_error(detail)).with_status(500)
    }

    /// A message the wire classifier rejected: `-32700` for bad JSON,
    /// `-32600` for every shape problem (non-object `params` included), in
    /// the server's own words.
    pub(crate) fn rejected(e: &MessageError) -> Self {
        use MessageErrorKind as K;
        let detail = match e.kind() {
            K::Parse => return Self::parse_error(e),
            K::Batch => "batches are not supported",
            K::NotAnObject => "a message must be a JSON object",
            K::InvalidVersion => "\"jsonrpc\" must be \"2.0\"",
            K::InvalidMethod => "\"method\" must be a string",
            K::InvalidParams => "\"params\" must be an object",
            K::NoKind if e.id().is_none() => "neither a request, a notification nor a response",
            K::InvalidId => "\"id\" must be a string or an integer",
            _ => "a response needs exactly one of \"result\" and \"error\"",
        };
        Self::invalid_request(format!("Invalid request: {detail}"))
    }

    /// The error response to send for request `id` (`None`: unreadable,
    /// written as `"id": null`).
    pub fn to_response(&self, id: Option<&RequestId>) -> Value {
        JsonRpcMessage::from(JsonRpcErrorResponse::new(
            id.cloned(),
            (*self.error).clone(),
        ))
        .to_value()
    }
}

impl From<ErrorObject> for RpcError {
    fn from(error: ErrorObject) -> Self {
        Self {
            error: Box::new(error),
            http_status: 200,
        }
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.error.message, self.error.code.0)
    }
}

impl std::error::Error for RpcError {}

/// A notification `{jsonrpc, method, params}` as JSON.
pub(crate) fn notification(method: &str, params: Map<String, Value>) -> Value {
    JsonRpcMessage::from(JsonRpcNotification::new(method, Some(params))).to_value()
}

/// A notification whose params serialize from a wire type (`None`, logged,
/// if they do not serialize to an object, which the wire types always do).
pub(crate) fn typed_notification<P: serde::Serialize>(method: &str, params: &P) -> Option<Value> {
    match JsonRpcNotification::with_params(method, params) {
        Ok(n) => Some(JsonRpcMessage::from(n).to_value()),
        Err(e) => {
            tracing::error!(method, error = %e, "could not serialize a notification");
            None
        }
    }
}
