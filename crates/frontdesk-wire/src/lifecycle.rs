//! Lifecycle: `initialize` / `notifications/initialized` (2025-11-25) and
//! `server/discover` (2026-07-28).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::{ClientCapabilities, Implementation, ServerCapabilities};
use crate::meta::Meta;
use crate::result::{CacheScope, ResultType};

/// Parameters of `initialize` (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeRequestParams {
    /// The client's (latest) supported version.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// The client's capabilities for the whole session.
    pub capabilities: ClientCapabilities,
    /// The client's identity.
    #[serde(rename = "clientInfo")]
    pub client_info: Implementation,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeRequestParams {
    /// `initialize` parameters.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Parameters of `initialize` as a lenient server reads them: only
/// `protocolVersion` is required; missing `capabilities` mean none and a
/// missing `clientInfo` is tolerated (clients in the wild omit it).
///
/// Clients build the strict [`InitializeRequestParams`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeRequestParamsLenient {
    /// The client's (latest) supported version.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// The client's capabilities for the whole session (`{}` when absent).
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// The client's identity, if it sent one.
    #[serde(
        default,
        rename = "clientInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `initialize` (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeResult {
    /// The negotiated version.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server's identity.
    #[serde(rename = "serverInfo")]
    pub server_info: Implementation,
    /// Usage hints for the client/model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeResult {
    /// `initialize` result.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Result of `server/discover` (2026-07-28). Its parameters are
/// [`MetaParams`](crate::MetaParams).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoverResult {
    /// `"complete"`.
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// Versions the server supports.
    #[serde(rename = "supportedVersions")]
    pub supported_versions: Vec<String>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Cache lifetime in ms (required).
    #[serde(default, rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (required).
    #[serde(
        default,
        rename = "cacheScope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta` (`serverInfo` recommended).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl DiscoverResult {
    /// A complete discover result with every required field.
    pub fn new(
        supported_versions: Vec<String>,
        capabilities: ServerCapabilities,
        ttl_ms: u64,
        cache_scope: CacheScope,
    ) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            supported_versions,
            capabilities,
            instructions: None,
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            meta: None,
            extra: Map::new(),
        }
    }
}
