//! `_meta` objects, with typed access to the keys the protocol defines.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::{ClientCapabilities, Implementation};
use crate::constants::meta_key;
use crate::error::ErrorObject;
use crate::id::{ProgressToken, RequestId};
use crate::notifications::LoggingLevel;
use crate::util::to_value_infallible;

/// A `_meta` object: any JSON object, with accessors for the known keys.
///
/// Typed getters return `None` when the key is absent and `Some(Err(..))` when
/// it is present but malformed, so a lenient reader can tell the two apart.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meta(pub Map<String, Value>);

impl Meta {
    /// An empty `_meta`.
    pub fn new() -> Self {
        Self::default()
    }

    /// A borrowed view of it, with the same typed getters.
    pub fn view(&self) -> MetaRef<'_> {
        MetaRef(&self.0)
    }

    /// The raw value of a key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.view().get(key)
    }

    /// Parses a key as `T`.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, serde_json::Error>> {
        self.view().get_as(key)
    }

    /// `io.modelcontextprotocol/protocolVersion`, if it is a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.view().protocol_version()
    }

    /// `io.modelcontextprotocol/clientCapabilities`.
    pub fn client_capabilities(&self) -> Option<Result<ClientCapabilities, serde_json::Error>> {
        self.view().client_capabilities()
    }

    /// `io.modelcontextprotocol/clientInfo`.
    pub fn client_info(&self) -> Option<Result<Implementation, serde_json::Error>> {
        self.view().client_info()
    }

    /// `io.modelcontextprotocol/serverInfo` (on results).
    pub fn server_info(&self) -> Option<Result<Implementation, serde_json::Error>> {
        self.view().server_info()
    }

    /// `io.modelcontextprotocol/logLevel` (deprecated).
    pub fn log_level(&self) -> Option<Result<LoggingLevel, serde_json::Error>> {
        self.view().log_level()
    }

    /// `progressToken`.
    pub fn progress_token(&self) -> Option<Result<ProgressToken, serde_json::Error>> {
        self.view().progress_token()
    }

    /// `io.modelcontextprotocol/subscriptionId`.
    pub fn subscription_id(&self) -> Option<Result<RequestId, serde_json::Error>> {
        self.view().subscription_id()
    }

    /// Sets a key to a raw value (builder style).
    pub fn with(mut self, key: impl Into<String>, value: Value) -> Self {
        self.0.insert(key.into(), value);
        self
    }

    /// Sets `io.modelcontextprotocol/protocolVersion`.
    pub fn with_protocol_version(self, version: impl Into<String>) -> Self {
        self.with(meta_key::PROTOCOL_VERSION, Value::String(version.into()))
    }

    /// Sets `io.modelcontextprotocol/clientCapabilities`.
    pub fn with_client_capabilities(self, caps: &ClientCapabilities) -> Self {
        self.with(meta_key::CLIENT_CAPABILITIES, to_value_infallible(caps))
    }

    /// Sets `io.modelcontextprotocol/clientInfo`.
    pub fn with_client_info(self, info: &Implementation) -> Self {
        self.with(meta_key::CLIENT_INFO, to_value_infallible(info))
    }

    /// Sets `io.modelcontextprotocol/serverInfo`.
    pub fn with_server_info(self, info: &Implementation) -> Self {
        self.with(meta_key::SERVER_INFO, to_value_infallible(info))
    }

    /// Sets `io.modelcontextprotocol/logLevel`.
    pub fn with_log_level(self, level: LoggingLevel) -> Self {
        self.with(meta_key::LOG_LEVEL, to_value_infallible(&level))
    }

    /// Sets `io.modelcontextprotocol/subscriptionId` (2026-07-28 listen streams).
    pub fn with_subscription_id(self, id: &RequestId) -> Self {
        self.with(meta_key::SUBSCRIPTION_ID, to_value_infallible(id))
    }

    /// Sets `progressToken`.
    pub fn with_progress_token(self, token: impl Into<ProgressToken>) -> Self {
        self.with(meta_key::PROGRESS_TOKEN, to_value_infallible(&token.into()))
    }

    /// The `_meta` every 2026-07-28 request must carry: protocol version,
    /// client capabilities and (recommended) client info.
    pub fn modern_request(
        version: impl Into<String>,
        caps: &ClientCapabilities,
        info: Option<&Implementation>,
    ) -> Self {
        let meta = Self::new().with_protocol_version(version);
        let meta = match info {
            Some(info) => meta.with_client_info(info),
            None => meta,
        };
        meta.with_client_capabilities(caps)
    }

    /// Reads the request fields 2026-07-28 defines, checking the required ones.
    ///
    /// A missing or malformed required field gives an error that converts into
    /// the `-32602` the spec requires ([`MetaError::to_error_object`]).
    pub fn request_fields(&self) -> Result<RequestMetaFields, MetaError> {
        let protocol_version = match self.0.get(meta_key::PROTOCOL_VERSION) {
            None => return Err(MetaError::Missing(meta_key::PROTOCOL_VERSION)),
            Some(Value::String(v)) => v.clone(),
            Some(_) => {
                return Err(MetaError::Invalid {
                    key: meta_key::PROTOCOL_VERSION,
                    reason: "must be a string".into(),
                });
            }
        };
        let client_capabilities = match self.client_capabilities() {
            None => return Err(MetaError::Missing(meta_key::CLIENT_CAPABILITIES)),
            Some(r) => r.map_err(|e| MetaError::Invalid {
                key: meta_key::CLIENT_CAPABILITIES,
                reason: e.to_string(),
            })?,
        };
        let invalid = |key: &'static str| {
            move |e: serde_json::Error| MetaError::Invalid {
                key,
                reason: e.to_string(),
            }
        };
        Ok(RequestMetaFields {
            protocol_version,
            client_capabilities,
            client_info: self
                .client_info()
                .transpose()
                .map_err(invalid(meta_key::CLIENT_INFO))?,
            log_level: self
                .log_level()
                .transpose()
                .map_err(invalid(meta_key::LOG_LEVEL))?,
            progress_token: self
                .progress_token()
                .transpose()
                .map_err(invalid(meta_key::PROGRESS_TOKEN))?,
        })
    }
}

/// A `_meta` object borrowed where it lies (a request's `params._meta`,
/// say), with the typed getters of [`Meta`] and no copy of the object.
///
/// ```
/// use frontdesk_wire::MetaRef;
/// let params = serde_json::json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
/// let meta = params["_meta"].as_object().map(MetaRef).unwrap();
/// assert_eq!(meta.protocol_version(), Some("2026-07-28"));
/// assert!(meta.client_capabilities().is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetaRef<'a>(pub &'a Map<String, Value>);

impl<'a> MetaRef<'a> {
    /// The raw value of a key.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    /// Parses a key as `T`.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, serde_json::Error>> {
        self.0.get(key).map(T::deserialize)
    }

    /// `io.modelcontextprotocol/protocolVersion`, if it is a string.
    pub fn protocol_version(&self) -> Option<&'a str> {
        self.0
            .get(meta_key::PROTOCOL_VERSION)
            .and_then(Value::as_str)
    }

    /// `io.modelcontextprotocol/clientCapabilities`.
    pub fn client_capabilities(&self) -> Option<Result<ClientCapabilities, serde_json::Error>> {
        self.get_as(meta_key::CLIENT_CAPABILITIES)
    }

    /// `io.modelcontextprotocol/clientInfo`.
    pub fn client_info(&self) -> Option<Result<Implementation, serde_json::Error>> {
        self.get_as(meta_key::CLIENT_INFO)
    }

    /// `io.modelcontextprotocol/serverInfo` (on results).
    pub fn server_info(&self) -> Option<Result<Implementation, serde_json::Error>> {
        self.get_as(meta_key::SERVER_INFO)
    }

    /// `io.modelcontextprotocol/logLevel` (deprecated).
    pub fn log_level(&self) -> Option<Result<LoggingLevel, serde_json::Error>> {
        self.get_as(meta_key::LOG_LEVEL)
    }

    /// `progressToken`.
    pub fn progress_token(&self) -> Option<Result<ProgressToken, serde_json::Error>> {
        self.get_as(meta_key::PROGRESS_TOKEN)
    }

    /// `io.modelcontextprotocol/subscriptionId`.
    pub fn subscription_id(&self) -> Option<Result<RequestId, serde_json::Error>> {
        self.get_as(meta_key::SUBSCRIPTION_ID)
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Self(map)
    }
}

/// The typed request `_meta` of 2026-07-28.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMetaFields {
    /// `io.modelcontextprotocol/protocolVersion` (required).
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities` (required; `{}` = none).
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo` (recommended).
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel` (deprecated).
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`.
    pub progress_token: Option<ProgressToken>,
}

/// A problem with a request's `_meta`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetaError {
    /// The request has no `_meta` at all.
    #[error("missing params._meta")]
    Absent,
    /// A required key is missing.
    #[error("missing required _meta field {0:?}")]
    Missing(&'static str),
    /// A key is present but malformed.
    #[error("invalid _meta field {key:?}: {reason}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
}

impl MetaError {
    /// The `-32602` Invalid params error 2026-07-28 requires (HTTP 400).
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::invalid_params(format!("Invalid params: {self}"))
    }
}

/// Reads the 2026-07-28 request `_meta` of some params' optional `_meta`.
pub fn request_fields(meta: Option<&Meta>) -> Result<RequestMetaFields, MetaError> {
    meta.ok_or(MetaError::Absent)?.request_fields()
}
