//! `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::Icon;
use crate::content::ContentBlock;
use crate::meta::Meta;
use crate::mrtr::{RetryFields, retry_params};
use crate::result::{CacheScope, ResultType};

/// A tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (root `type: "object"`), kept raw.
    #[serde(rename = "inputSchema")]
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent`, kept raw.
    #[serde(
        default,
        rename = "outputSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema: Option<Map<String, Value>>,
    /// Untrusted behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// 2025-11-25 `execution` (`taskSupport`), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Map<String, Value>>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: Map<String, Value>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the description (builder style).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// Untrusted hints about a tool's behaviour.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment.
    #[serde(
        default,
        rename = "readOnlyHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only_hint: Option<bool>,
    /// May perform destructive updates.
    #[serde(
        default,
        rename = "destructiveHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(
        default,
        rename = "idempotentHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent_hint: Option<bool>,
    /// Interacts with an open world.
    #[serde(
        default,
        rename = "openWorldHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world_hint: Option<bool>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of list requests (`tools/list`, `prompts/list`, …).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Opaque cursor from a previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListToolsResult {
    /// `"complete"` (2026-07-28; absent in 2025-11-25).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The tools.
    pub tools: Vec<Tool>,
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

impl ListToolsResult {
    /// The 2025-11-25 shape: just the tools.
    pub fn new(tools: Vec<Tool>) -> Self {
        Self {
            result_type: None,
            tools,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The 2026-07-28 shape: `resultType: "complete"` and the caching hints.
    pub fn modern(tools: Vec<Tool>, ttl_ms: u64, cache_scope: CacheScope) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            ..Self::new(tools)
        }
    }
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallToolRequestParams {
    /// Tool name.
    pub name: String,
    /// Arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// The MRTR retry fields (2026-07-28 retries), flattened.
    #[serde(flatten)]
    pub retry: RetryFields,
    /// 2025-11-25 task augmentation, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Map<String, Value>>,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolRequestParams {
    /// A call with a name and arguments.
    pub fn new(name: impl Into<String>, arguments: Option<Map<String, Value>>) -> Self {
        Self {
            name: name.into(),
            arguments,
            retry: RetryFields::default(),
            task: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

retry_params!(CallToolRequestParams);

/// The final result of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallToolResult {
    /// `"complete"` (2026-07-28; absent in 2025-11-25).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content (2025-11-25: an object; 2026-07-28: any JSON value).
    #[serde(
        default,
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Tool-execution failure (default `false`).
    #[serde(default, rename = "isError", skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// A result with the given content (no `resultType`: add it for 2026-07-28).
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            result_type: None,
            content,
            structured_content: None,
            is_error: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// A tool-execution error with one text block and `isError: true`.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::new(vec![ContentBlock::text(text)])
        }
    }

    /// Sets `resultType: "complete"` (builder style), as 2026-07-28 requires.
    pub fn complete(mut self) -> Self {
        self.result_type = Some(ResultType::Complete);
        self
    }
}
