//! `prompts/list` and `prompts/get` (which may return `input_required`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::Icon;
use crate::content::{ContentBlock, Role};
use crate::meta::Meta;
use crate::mrtr::{RetryFields, retry_params};
use crate::result::{CacheScope, ResultType};

/// Parameters of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetPromptRequestParams {
    /// Prompt name.
    pub name: String,
    /// Template arguments (string values per the schema), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// The MRTR retry fields (2026-07-28 retries), flattened.
    #[serde(flatten)]
    pub retry: RetryFields,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

retry_params!(GetPromptRequestParams);

/// The final result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Speaker.
    pub role: Role,
    /// Content.
    pub content: ContentBlock,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A prompt template listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The template's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One argument of a prompt template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListPromptsResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The prompts.
    pub prompts: Vec<Prompt>,
    /// Cursor of the next page.
    #[serde(
        default,
        rename = "nextCursor",
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// Cache lifetime in ms (required in 2026-07-28).
    #[serde(default, rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (required in 2026-07-28).
    #[serde(
        default,
        rename = "cacheScope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ListPromptsResult {
    /// The 2025-11-25 shape: just the prompts.
    pub fn new(prompts: Vec<Prompt>) -> Self {
        Self {
            result_type: None,
            prompts,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The 2026-07-28 shape: `resultType: "complete"` and the caching hints.
    pub fn modern(prompts: Vec<Prompt>, ttl_ms: u64, cache_scope: CacheScope) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            ..Self::new(prompts)
        }
    }
}
