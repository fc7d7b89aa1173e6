//! JSON-RPC 2.0 plumbing shared by both eras: error values with their HTTP status,
//! the envelope classifier and response builders.

use serde_json::{Map, Value, json};

use frontdesk_wire::ErrorCode;

/// `-32700`: the bytes are not valid JSON.
pub const PARSE_ERROR: i64 = ErrorCode::PARSE_ERROR.0 as i64;
/// `-32600`: the JSON is not a valid JSON-RPC message.
pub const INVALID_REQUEST: i64 = ErrorCode::INVALID_REQUEST.0 as i64;
/// `-32601`: unknown method.
pub const METHOD_NOT_FOUND: i64 = ErrorCode::METHOD_NOT_FOUND.0 as i64;
/// `-32602`: invalid params.
pub const INVALID_PARAMS: i64 = ErrorCode::INVALID_PARAMS.0 as i64;
/// `-32603`: internal error.
pub const INTERNAL_ERROR: i64 = ErrorCode::INTERNAL_ERROR.0 as i64;
/// `-32042`: URL elicitation required (2025-11-25 only).
pub const URL_ELICITATION_REQUIRED: i64 = ErrorCode::URL_ELICITATION_REQUIRED.0 as i64;
/// `-32020`: HTTP headers disagree with the body (2026-07-28).
pub const HEADER_MISMATCH: i64 = ErrorCode::HEADER_MISMATCH.0 as i64;
/// `-32021`: a client capability the request needs was not declared (2026-07-28).
pub const MISSING_CAPABILITY: i64 = ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0 as i64;
/// `-32022`: unsupported protocol version (2026-07-28).
pub const UNSUPPORTED_VERSION: i64 = ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0 as i64;

/// A JSON-RPC error the server answers with, plus the HTTP status a
/// Streamable HTTP transport should use for it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// One concise sentence.
    pub message: String,
    /// Optional structured `data`.
    pub data: Option<Value>,
    /// HTTP status for Streamable HTTP (200 when the spec assigns none).
    pub http_status: u16,
}

impl RpcError {
    /// An error with `code` and `message`, HTTP status 200.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            http_status: 200,
        }
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Set the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.http_status = status;
        self
    }

    /// `-32700` parse error.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(PARSE_ERROR, format!("Parse error: {detail}")).with_status(400)
    }

    /// `-32600` invalid request.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, detail).with_status(400)
    }

    /// `-32601` method not found (HTTP 404, as 2026-07-28 asks).
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}")).with_status(404)
    }

    /// `-32602` invalid params (HTTP 200).
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, detail)
    }

    /// `-32603` internal error.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(INTERNAL_ERROR, detail).with_status(500)
    }

    /// The `error` object of a response.
    pub fn to_value(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), Value::from(self.code));
        e.insert("message".into(), Value::from(self.message.clone()));
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// A successful response `{jsonrpc, id, result}`.
pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response `{jsonrpc, id, error}`; `id` is `null` when unreadable.
pub fn error_response(id: &Value, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error.to_value()})
}

/// A notification `{jsonrpc, method, params}`.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A request `{jsonrpc, id, method, params}` (2025-11-25 server-to-client).
pub fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// What one incoming JSON value is.
#[derive(Debug)]
pub(crate) enum Envelope {
    /// A request: id, method, params (an object; `{}` when absent).
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification.
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response to one of our requests: id and either result or error.
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
}

/// Classify `msg`, or the error to answer (with the id when it could be read).
pub(crate) fn classify(msg: Value) -> Result<Envelope, Box<(Value, RpcError)>> {
    let Value::Object(mut obj) = msg else {
        let what = if msg.is_array() {
            "batches are not supported"
        } else {
            "a message must be a JSON object"
        };
        return Err(Box::new((
            Value::Null,
            RpcError::invalid_request(format!("Invalid request: {what}")),
        )));
    };
    let id = obj.remove("id");
    let readable_id = match &id {
        Some(v @ Value::String(_)) => v.clone(),
        Some(v @ Value::Number(n)) if n.is_i64() || n.is_u64() => v.clone(),
        _ => Value::Null,
    };
    let bad = |detail: &str| {
        Box::new((
            readable_id.clone(),
            RpcError::invalid_request(format!("Invalid request: {detail}")),
        ))
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(bad("\"jsonrpc\" must be \"2.0\""));
    }
    if let Some(method) = obj.remove("method") {
        let Value::String(method) = method else {
            return Err(bad("\"method\" must be a string"));
        };
        let params = match obj.remove("params") {
            None => Map::new(),
            Some(Value::Object(p)) => p,
            Some(_) => return Err(bad("\"params\" must be an object")),
        };
        return match id {
            None => Ok(Envelope::Notification { method, params }),
            Some(Value::Number(n)) if !(n.is_i64() || n.is_u64()) => {
                Err(bad("\"id\" must be a string or an integer"))
            }
            Some(Value::String(_) | Value::Number(_)) => Ok(Envelope::Request {
                id: readable_id,
                method,
                params,
            }),
            Some(_) => Err(bad("\"id\" must be a string or an integer")),
        };
    }
    let Some(id) = id else {
        return Err(bad("neither a request, a notification nor a response"));
    };
    match (obj.remove("result"), obj.remove("error")) {
        (Some(r), None) => Ok(Envelope::Response { id, outcome: Ok(r) }),
        (None, Some(e)) => Ok(Envelope::Response {
            id,
            outcome: Err(e),
        }),
        _ => Err(bad(
            "a response needs exactly one of \"result\" and \"error\"",
        )),
    }
}

/// A stable map key for a JSON-RPC id (strings and numbers never collide).
pub(crate) fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => format!("s:{s}"),
        other => format!("n:{other}"),
    }
}
