//! JSON-RPC error objects, the error codes MCP uses, and their typed `data`.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::ClientCapabilities;
use crate::elicitation::ElicitRequestUrlParams;
use crate::util::to_value_infallible;

/// A JSON-RPC error code.
///
/// Any integer is accepted on the wire; the named constants are the ones MCP
/// gives a meaning to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: the bytes are not valid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// `-32600`: the JSON is not a valid JSON-RPC request.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// `-32601`: unknown method (2026-07-28: also a method gated on a capability
    /// the server did not advertise; HTTP 404).
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// `-32602`: invalid params (unknown tool, bad arguments, bad cursor; 2025-11-25:
    /// undeclared elicitation mode; 2026-07-28: missing required `_meta`).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// `-32603`: internal error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// `-32002`: resource not found (2025-11-25 only; 2026-07-28 clients should
    /// still accept it from old servers).
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// `-32042`: `URLElicitationRequiredError` (2025-11-25 only; reserved and
    /// never emitted in 2026-07-28). `data`: [`UrlElicitationRequiredData`].
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// `-32020`: `HeaderMismatch`: HTTP headers disagree with the body (2026-07-28, HTTP 400).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// `-32021`: `MissingRequiredClientCapability` (2026-07-28, HTTP 400).
    /// `data`: [`MissingRequiredClientCapabilityData`].
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// `-32022`: `UnsupportedProtocolVersion` (2026-07-28, HTTP 400).
    /// `data`: [`UnsupportedProtocolVersionData`].
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// `-32000`: the server is too busy for this request right now (an
    /// implementation-defined server error, outside the range 2026-07-28
    /// reserves; frontdesk answers it over a bound: requests in flight,
    /// questions pending, URL flows of one client). Try again later.
    pub const SERVER_BUSY: Self = Self(-32000);

    /// The name of a known code (the schema's type name without `Error`), or `None`.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "ParseError",
            Self::INVALID_REQUEST => "InvalidRequest",
            Self::METHOD_NOT_FOUND => "MethodNotFound",
            Self::INVALID_PARAMS => "InvalidParams",
            Self::INTERNAL_ERROR => "InternalError",
            Self::RESOURCE_NOT_FOUND => "ResourceNotFound",
            Self::URL_ELICITATION_REQUIRED => "URLElicitationRequired",
            Self::HEADER_MISMATCH => "HeaderMismatch",
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY => "MissingRequiredClientCapability",
            Self::UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
            _ => return None,
        })
    }

    /// Whether the code lies in the range 2026-07-28 reserves for the MCP
    /// specification (`-32020 ..= -32099`); implementations must not emit
    /// undefined codes from it.
    pub fn is_mcp_reserved(self) -> bool {
        (-32099..=-32020).contains(&self.0)
    }

    /// The HTTP status 2026-07-28 Streamable HTTP assigns to this code, if any.
    pub fn http_status_2026(self) -> Option<u16> {
        match self {
            Self::HEADER_MISMATCH
            | Self::MISSING_REQUIRED_CLIENT_CAPABILITY
            | Self::UNSUPPORTED_PROTOCOL_VERSION => Some(400),
            Self::METHOD_NOT_FOUND => Some(404),
            _ => None,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl From<i32> for ErrorCode {
    fn from(code: i32) -> Self {
        Self(code)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// One concise sentence.
    pub message: String,
    /// Extra information; its shape depends on the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorObject {
    /// An error with a code and a message and no `data`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            extra: Map::new(),
        }
    }

    /// Sets `data` (builder style).
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` Parse error.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// `-32600` Invalid request.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// `-32601` Method not found, naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32603` Internal error.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// `-32042` URL elicitation required (2025-11-25 only), listing the URL
    /// elicitations to complete before retrying. Each should carry an
    /// `elicitationId`.
    pub fn url_elicitation_required(
        message: impl Into<String>,
        elicitations: Vec<ElicitRequestUrlParams>,
    ) -> Self {
        let data = UrlElicitationRequiredData {
            elicitations,
            extra: Map::new(),
        };
        Self::new(ErrorCode::URL_ELICITATION_REQUIRED, message)
            .with_data(to_value_infallible(&data))
    }

    /// `-32020` Header mismatch (2026-07-28).
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, message)
    }

    /// `-32021` Missing required client capability (2026-07-28); `required`
    /// lists what the request did not declare, e.g. `{"elicitation":{"url":{}}}`.
    pub fn missing_required_client_capability(
        message: impl Into<String>,
        required: ClientCapabilities,
    ) -> Self {
        let data = MissingRequiredClientCapabilityData {
            required_capabilities: required,
            extra: Map::new(),
        };
        Self::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(to_value_infallible(&data))
    }

    /// `-32022` Unsupported protocol version (2026-07-28), with the standard message.
    pub fn unsupported_protocol_version(
        requested: impl Into<String>,
        supported: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let data = UnsupportedProtocolVersionData {
            supported: supported.into_iter().map(Into::into).collect(),
            requested: requested.into(),
            extra: Map::new(),
        };
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(to_value_infallible(&data))
    }

    /// Parses `data` as `T`: `None` when there is no `data`.
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        self.data.as_ref().map(T::deserialize)
    }

    /// The typed `data` of a `-32042` error; `None` for other codes or no data.
    pub fn url_elicitation_required_data(
        &self,
    ) -> Option<Result<UrlElicitationRequiredData, serde_json::Error>> {
        (self.code == ErrorCode::URL_ELICITATION_REQUIRED)
            .then(|| self.data_as())
            .flatten()
    }

    /// The typed `data` of a `-32021` error; `None` for other codes or no data.
    pub fn missing_required_client_capability_data(
        &self,
    ) -> Option<Result<MissingRequiredClientCapabilityData, serde_json::Error>> {
        (self.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
            .then(|| self.data_as())
            .flatten()
    }

    /// The typed `data` of a `-32022` error; `None` for other codes or no data.
    pub fn unsupported_protocol_version_data(
        &self,
    ) -> Option<Result<UnsupportedProtocolVersionData, serde_json::Error>> {
        (self.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
            .then(|| self.data_as())
            .flatten()
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorObject {}

/// `data` of `-32042` (`URLElicitationRequiredError`, 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete before retrying (each with an `elicitationId`).
    pub elicitations: Vec<ElicitRequestUrlParams>,
    /// Other members (the schema allows them).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `data` of `-32021` (`MissingRequiredClientCapabilityError`, 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needed but did not declare.
    #[serde(rename = "requiredCapabilities")]
    pub required_capabilities: ClientCapabilities,
    /// Other members.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `data` of `-32022` (`UnsupportedProtocolVersionError`, 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// Versions the server supports.
    pub supported: Vec<String>,
    /// The version the request named.
    pub requested: String,
    /// Other members.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
