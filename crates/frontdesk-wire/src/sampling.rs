//! The other two embedded input requests (both deprecated in 2026-07-28):
//! `sampling/createMessage` and `roots/list`, with their results.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::content::{ContentBlock, Role};
use crate::meta::Meta;
use crate::tools::Tool;
use crate::util::wire_tag;

wire_tag!(
    /// `"method": "sampling/createMessage"`.
    CreateMessageMethod = "sampling/createMessage"
);
wire_tag!(
    /// `"method": "roots/list"`.
    ListRootsMethod = "roots/list"
);

/// `{ "method": "sampling/createMessage", "params": … }` (an `inputRequests` value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageRequest {
    /// Always `"sampling/createMessage"`.
    pub method: CreateMessageMethod,
    /// The parameters.
    pub params: CreateMessageRequestParams,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences, kept raw.
    #[serde(
        default,
        rename = "modelPreferences",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_preferences: Option<Map<String, Value>>,
    /// System prompt.
    #[serde(
        default,
        rename = "systemPrompt",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_prompt: Option<String>,
    /// `"none"`, `"thisServer"`, `"allServers"`.
    #[serde(
        default,
        rename = "includeContext",
        skip_serializing_if = "Option::is_none"
    )]
    pub include_context: Option<String>,
    /// Sampling temperature (exact JSON number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// Token limit.
    #[serde(rename = "maxTokens")]
    pub max_tokens: u64,
    /// Tools the model may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Tool choice, kept raw.
    #[serde(
        default,
        rename = "toolChoice",
        skip_serializing_if = "Option::is_none"
    )]
    pub tool_choice: Option<Map<String, Value>>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know (`stopSequences`, `metadata`, `task` …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateMessageRequestParams {
    /// A request for at most `max_tokens` tokens continuing `messages`.
    ///
    /// ```
    /// use frontdesk_wire::{CreateMessageRequestParams, SamplingMessage};
    ///
    /// let p = CreateMessageRequestParams::new(vec![SamplingMessage::user("Hi")], 50);
    /// assert_eq!(
    ///     serde_json::to_value(&p)?,
    ///     serde_json::json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 50})
    /// );
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            tools: None,
            tool_choice: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the system prompt (builder style).
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Speaker.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SamplingMessage {
    /// A message of `role` with one text block.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            content: SamplingContent::Single(Box::new(ContentBlock::text(text))),
            meta: None,
            extra: Map::new(),
        }
    }

    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Self::text(Role::User, text)
    }
}

/// Sampling content: a single block or an array of blocks.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SamplingContent {
    /// A single block.
    Single(Box<ContentBlock>),
    /// Several blocks.
    Multiple(Vec<ContentBlock>),
}

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Single(b) => b.serialize(s),
            Self::Multiple(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let out = if value.is_array() {
            Vec::<ContentBlock>::deserialize(value).map(Self::Multiple)
        } else {
            ContentBlock::deserialize(value).map(|b| Self::Single(Box::new(b)))
        };
        out.map_err(serde::de::Error::custom)
    }
}

/// The client's answer to `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageResult {
    /// Speaker (the assistant).
    pub role: Role,
    /// Generated content.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped.
    #[serde(
        default,
        rename = "stopReason",
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_reason: Option<String>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SamplingContent {
    /// The text of the first text block, if any.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Single(b) => b.as_text(),
            Self::Multiple(v) => v.iter().find_map(ContentBlock::as_text),
        }
    }
}

/// `{ "method": "roots/list", "params"?: … }` (an `inputRequests` value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequest {
    /// Always `"roots/list"`.
    pub method: ListRootsMethod,
    /// Optional parameters (`_meta` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The client's roots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A root directory or file the client exposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
