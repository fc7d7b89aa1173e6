//! `elicitation/create` (form and URL), `ElicitResult`, and the 2025-11-25
//! `notifications/elicitation/complete`.

use std::sync::Arc;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::util::{from_map, wire_tag};

wire_tag!(
    /// `"mode": "form"`.
    FormMode = "form"
);
wire_tag!(
    /// `"mode": "url"`.
    UrlMode = "url"
);
wire_tag!(
    /// `"method": "elicitation/create"` of an embedded (2026-07-28) request.
    ElicitationCreateMethod = "elicitation/create"
);

/// The two elicitation modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitationMode {
    /// In-band form; never for secrets.
    Form,
    /// Out-of-band URL.
    Url,
}

/// Parameters of `elicitation/create`: form or URL.
///
/// Reading: `mode` absent or `"form"` ⇒ form (absent is the legacy spelling);
/// `"url"` ⇒ URL; anything else is an error.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(ElicitRequestUrlParams),
}

impl ElicitRequestParams {
    /// A form request with `mode: "form"` spelled out.
    pub fn form(message: impl Into<String>, requested_schema: Map<String, Value>) -> Self {
        Self::Form(ElicitRequestFormParams::new(message, requested_schema))
    }

    /// A URL request without `elicitationId` (the 2026-07-28 shape).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url(ElicitRequestUrlParams::new(message, url))
    }

    /// The mode.
    pub fn mode(&self) -> ElicitationMode {
        match self {
            Self::Form(_) => ElicitationMode::Form,
            Self::Url(_) => ElicitationMode::Url,
        }
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(p) => &p.message,
            Self::Url(p) => &p.message,
        }
    }

    /// The `_meta`, if any.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            Self::Form(p) => p.meta.as_ref(),
            Self::Url(p) => p.meta.as_ref(),
        }
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Form(p) => p.serialize(s),
            Self::Url(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        match map.get("mode") {
            None => from_map(map).map(Self::Form),
            Some(Value::String(m)) if m == "form" => from_map(map).map(Self::Form),
            Some(Value::String(m)) if m == "url" => from_map(map).map(Self::Url),
            Some(other) => Err(D::Error::custom(format!(
                "unknown elicitation mode {other} (expected \"form\" or \"url\")"
            ))),
        }
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        Self::Form(p)
    }
}

impl From<ElicitRequestUrlParams> for ElicitRequestParams {
    fn from(p: ElicitRequestUrlParams) -> Self {
        Self::Url(p)
    }
}

/// Form-mode parameters (`ElicitRequestFormParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestFormParams {
    /// `"form"`, or absent (legacy spelling; still form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// Why the input is needed.
    pub message: String,
    /// The restricted JSON Schema, kept raw (order preserved); the form crate
    /// parses it. Shared: a server sends the same form in every round and
    /// to every client, and sending one needs no copy of its schema.
    #[serde(rename = "requestedSchema")]
    pub requested_schema: Arc<Map<String, Value>>,
    /// 2025-11-25 task augmentation (`{"ttl"?: …}`), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Map<String, Value>>,
    /// `_meta` (2025-11-25).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequestFormParams {
    /// Form parameters with `mode: "form"`: the schema as a `Map`, or an
    /// `Arc` of one that other requests share.
    pub fn new(
        message: impl Into<String>,
        requested_schema: impl Into<Arc<Map<String, Value>>>,
    ) -> Self {
        Self {
            mode: Some(FormMode),
            message: message.into(),
            requested_schema: requested_schema.into(),
            task: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// URL-mode parameters (`ElicitRequestURLParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// 2025-11-25: required opaque id; 2026-07-28: absent. Never serialized when `None`.
    #[serde(
        default,
        rename = "elicitationId",
        skip_serializing_if = "Option::is_none"
    )]
    pub elicitation_id: Option<String>,
    /// The URL to open (after consent).
    pub url: String,
    /// Why the interaction is needed.
    pub message: String,
    /// 2025-11-25 task augmentation, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Map<String, Value>>,
    /// `_meta` (2025-11-25).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequestUrlParams {
    /// URL parameters without `elicitationId` (the 2026-07-28 shape).
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            mode: UrlMode,
            elicitation_id: None,
            url: url.into(),
            message: message.into(),
            task: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the 2025-11-25 `elicitationId` (builder style). An empty id is
    /// ignored, so `""` is never emitted.
    pub fn with_elicitation_id(mut self, id: impl Into<String>) -> Self {
        let id = id.into();
        self.elicitation_id = (!id.is_empty()).then_some(id);
        self
    }
}

/// `{ "method": "elicitation/create", "params": … }` without `jsonrpc`/`id`:
/// the 2026-07-28 `ElicitRequest`, an `inputRequests` value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequest {
    /// Always `"elicitation/create"`.
    pub method: ElicitationCreateMethod,
    /// The parameters.
    pub params: ElicitRequestParams,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequest {
    /// An embedded elicitation request.
    pub fn new(params: impl Into<ElicitRequestParams>) -> Self {
        Self {
            method: ElicitationCreateMethod,
            params: params.into(),
            extra: Map::new(),
        }
    }
}

/// The user's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// Submitted (form) or consented to open (URL).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The answer to an elicitation (`ElicitResult`).
///
/// 2025-11-25: the `result` of the JSON-RPC response; 2026-07-28: a value of
/// `inputResponses`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// Submitted values (form + accept only), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// `_meta` (2025-11-25 only; the 2026-07-28 type defines none).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitResult {
    fn with_action(action: ElicitAction, content: Option<Map<String, Value>>) -> Self {
        Self {
            action,
            content,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Form accepted with the submitted values.
    pub fn accept(content: Map<String, Value>) -> Self {
        Self::with_action(ElicitAction::Accept, Some(content))
    }

    /// URL accepted (consent to open; no content).
    pub fn accept_url() -> Self {
        Self::with_action(ElicitAction::Accept, None)
    }

    /// Declined.
    pub fn decline() -> Self {
        Self::with_action(ElicitAction::Decline, None)
    }

    /// Cancelled.
    pub fn cancel() -> Self {
        Self::with_action(ElicitAction::Cancel, None)
    }
}

/// Parameters of `notifications/elicitation/complete` (2025-11-25 only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCompleteParams {
    /// The id from the original URL elicitation.
    #[serde(rename = "elicitationId")]
    pub elicitation_id: String,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCompleteParams {
    /// Completion of the given elicitation.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            meta: None,
            extra: Map::new(),
        }
    }
}
