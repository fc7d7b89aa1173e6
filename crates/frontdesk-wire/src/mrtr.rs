//! Multi round-trip requests (2026-07-28): `InputRequiredResult`,
//! `inputRequests`, `inputResponses`, `requestState`.

use indexmap::IndexMap;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::capabilities::{ClientCapabilities, ElicitationCapability, ListChangedCapability};
use crate::elicitation::{ElicitRequest, ElicitRequestParams, ElicitResult};
use crate::meta::Meta;
use crate::sampling::{
    CreateMessageRequest, CreateMessageResult, ListRootsRequest, ListRootsResult,
};
use crate::util::{from_map, wire_tag};

wire_tag!(
    /// `"resultType": "input_required"`.
    InputRequiredTag = "input_required"
);

/// An interim result: the server needs input before it can finish.
///
/// At least one of `input_requests` / `request_state` must be present
/// (see [`InputRequiredResult::check`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRequiredResult {
    /// Always `"input_required"`.
    #[serde(rename = "resultType")]
    pub result_type: InputRequiredTag,
    /// What the server asks for, by server-chosen key.
    #[serde(
        default,
        rename = "inputRequests",
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client must echo byte for byte on the retry.
    #[serde(
        default,
        rename = "requestState",
        skip_serializing_if = "Option::is_none"
    )]
    pub request_state: Option<String>,
    /// `_meta` (e.g. `serverInfo`).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InputRequiredResult {
    /// An interim result with the given requests and state.
    pub fn new(input_requests: Option<InputRequests>, request_state: Option<String>) -> Self {
        Self {
            result_type: InputRequiredTag,
            input_requests,
            request_state,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Checks the rule the schema cannot express: at least one of
    /// `inputRequests` / `requestState`.
    pub fn check(&self) -> Result<(), InputRequiredError> {
        if self.input_requests.is_none() && self.request_state.is_none() {
            Err(InputRequiredError::Empty)
        } else {
            Ok(())
        }
    }

    /// The capabilities a client must declare to receive these requests.
    pub fn required_capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        for request in self.input_requests.iter().flat_map(|r| r.0.values()) {
            request.add_required_capability(&mut caps);
        }
        caps
    }
}

/// A broken `InputRequiredResult`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputRequiredError {
    /// Neither `inputRequests` nor `requestState`.
    #[error("an input_required result needs inputRequests or requestState")]
    Empty,
}

/// `inputRequests`: server-chosen key → request (order preserved).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputRequests(pub IndexMap<String, InputRequest>);

impl InputRequests {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a request (builder style).
    pub fn with(mut self, key: impl Into<String>, request: impl Into<InputRequest>) -> Self {
        self.0.insert(key.into(), request.into());
        self
    }
}

/// One `inputRequests` value: an embedded request without `jsonrpc`/`id`,
/// dispatched on `method`; unknown methods are kept raw.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequest),
    /// `sampling/createMessage` (deprecated).
    CreateMessage(CreateMessageRequest),
    /// `roots/list` (deprecated).
    ListRoots(ListRootsRequest),
    /// Any other method (invalid in core 2026-07-28; kept for extensions).
    Unknown(Map<String, Value>),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            Self::Elicit(_) => crate::constants::method::ELICITATION_CREATE,
            Self::CreateMessage(_) => crate::constants::method::SAMPLING_CREATE_MESSAGE,
            Self::ListRoots(_) => crate::constants::method::ROOTS_LIST,
            Self::Unknown(m) => m.get("method").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Whether the client declared what this request needs.
    pub fn is_allowed_by(&self, caps: &ClientCapabilities) -> bool {
        match self {
            Self::Elicit(e) => caps.elicitation_modes().allows(e.params.mode()),
            Self::CreateMessage(_) => caps.sampling.is_some(),
            Self::ListRoots(_) => caps.roots.is_some(),
            Self::Unknown(_) => false,
        }
    }

    fn add_required_capability(&self, caps: &mut ClientCapabilities) {
        match self {
            Self::Elicit(e) => {
                let el = caps
                    .elicitation
                    .get_or_insert_with(ElicitationCapability::default);
                match &e.params {
                    ElicitRequestParams::Form(_) => {
                        el.form.get_or_insert_with(Map::new);
                    }
                    ElicitRequestParams::Url(_) => {
                        el.url.get_or_insert_with(Map::new);
                    }
                }
            }
            Self::CreateMessage(_) => {
                caps.sampling.get_or_insert_with(Map::new);
            }
            Self::ListRoots(_) => {
                caps.roots
                    .get_or_insert_with(ListChangedCapability::default);
            }
            Self::Unknown(_) => {}
        }
    }
}

impl From<ElicitRequest> for InputRequest {
    fn from(r: ElicitRequest) -> Self {
        Self::Elicit(r)
    }
}

impl From<ElicitRequestParams> for InputRequest {
    fn from(p: ElicitRequestParams) -> Self {
        Self::Elicit(ElicitRequest::new(p))
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Elicit(r) => r.serialize(s),
            Self::CreateMessage(r) => r.serialize(s),
            Self::ListRoots(r) => r.serialize(s),
            Self::Unknown(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        let method = match map.get("method") {
            Some(Value::String(m)) => m.clone(),
            Some(_) => {
                return Err(D::Error::custom(
                    "input request \"method\" must be a string",
                ));
            }
            None => return Err(D::Error::missing_field("method")),
        };
        match method.as_str() {
            crate::constants::method::ELICITATION_CREATE => from_map(map).map(Self::Elicit),
            crate::constants::method::SAMPLING_CREATE_MESSAGE => {
                from_map(map).map(Self::CreateMessage)
            }
            crate::constants::method::ROOTS_LIST => from_map(map).map(Self::ListRoots),
            _ => Ok(Self::Unknown(map)),
        }
    }
}

/// `inputResponses`: key (from `inputRequests`) → the client's answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputResponses(pub IndexMap<String, InputResponse>);

impl InputResponses {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an answer (builder style).
    pub fn with(mut self, key: impl Into<String>, response: impl Into<InputResponse>) -> Self {
        self.0.insert(key.into(), response.into());
        self
    }

    /// The elicitation answer under `key`, if that key holds one.
    pub fn elicit_result(&self, key: &str) -> Option<&ElicitResult> {
        match self.0.get(key) {
            Some(InputResponse::Elicit(r)) => Some(r),
            _ => None,
        }
    }
}

/// One `inputResponses` value, recognised by shape: `action` ⇒ `ElicitResult`,
/// `roots` ⇒ `ListRootsResult`, `role` + `model` ⇒ `CreateMessageResult`;
/// other objects are kept raw (servers ignore unknown keys).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// An elicitation answer.
    Elicit(ElicitResult),
    /// A sampling answer.
    CreateMessage(CreateMessageResult),
    /// A roots answer.
    ListRoots(ListRootsResult),
    /// An object of no known shape.
    Unknown(Map<String, Value>),
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        Self::Elicit(r)
    }
}

impl Serialize for InputResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Elicit(r) => r.serialize(s),
            Self::CreateMessage(r) => r.serialize(s),
            Self::ListRoots(r) => r.serialize(s),
            Self::Unknown(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        if map.contains_key("action") {
            from_map(map).map(Self::Elicit)
        } else if map.contains_key("roots") {
            from_map(map).map(Self::ListRoots)
        } else if map.contains_key("role") && map.contains_key("model") {
            from_map(map).map(Self::CreateMessage)
        } else {
            Ok(Self::Unknown(map))
        }
    }
}

/// The two MRTR retry fields (2026-07-28), which sit directly in the
/// params of `tools/call`, `prompts/get` and `resources/read` next to their
/// own members: the schema's `InputResponseRequestParams` without its
/// `_meta`, which every params type carries. Each of the three embeds it
/// with `#[serde(flatten)]` under the name `retry`.
///
/// ```
/// use frontdesk_wire::{CallToolRequestParams, ElicitResult, InputResponses, RetryParams};
///
/// let mut retry = CallToolRequestParams::new("create_issue", None);
/// retry.retry.input_responses = Some(InputResponses::new().with("ok", ElicitResult::decline()));
/// retry.retry.request_state = Some("opaque".into());
/// assert!(retry.is_retry());
/// let json = serde_json::to_value(&retry)?;
/// assert_eq!(json["requestState"], "opaque");
/// assert_eq!(json["inputResponses"]["ok"]["action"], "decline");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RetryFields {
    /// MRTR answers (2026-07-28 retries).
    #[serde(
        default,
        rename = "inputResponses",
        skip_serializing_if = "Option::is_none"
    )]
    pub input_responses: Option<InputResponses>,
    /// MRTR state echo (2026-07-28 retries).
    #[serde(
        default,
        rename = "requestState",
        skip_serializing_if = "Option::is_none"
    )]
    pub request_state: Option<String>,
}

impl RetryFields {
    /// Whether this is a retry (either field present); such results must not be cached.
    pub fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

/// The params types that carry the [`RetryFields`]: `tools/call`,
/// `prompts/get` and `resources/read`.
pub trait RetryParams {
    /// The retry fields.
    fn retry_fields(&self) -> &RetryFields;
    /// `inputResponses`, if any.
    fn input_responses(&self) -> Option<&InputResponses> {
        self.retry_fields().input_responses.as_ref()
    }
    /// `requestState`, if any.
    fn request_state(&self) -> Option<&str> {
        self.retry_fields().request_state.as_deref()
    }
    /// Whether this is a retry (either field present); such results must not be cached.
    fn is_retry(&self) -> bool {
        self.retry_fields().is_retry()
    }
}

/// Implements [`RetryParams`] for params types with a `retry` field.
macro_rules! retry_params {
    ($($t:ty),*) => {$(
        impl $crate::mrtr::RetryParams for $t {
            fn retry_fields(&self) -> &$crate::mrtr::RetryFields {
                &self.retry
            }
        }
    )*};
}
pub(crate) use retry_params;
