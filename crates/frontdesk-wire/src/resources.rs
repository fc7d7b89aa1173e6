//! `resources/*`: listing, templates, `resources/read` (which may return
//! `input_required`), and the 2025-11-25 `resources/subscribe` /
//! `resources/unsubscribe`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::Icon;
use crate::content::{Annotations, Resource, ResourceContents};
use crate::meta::Meta;
use crate::mrtr::{RetryFields, retry_params};
use crate::result::{CacheScope, ResultType};

/// Parameters of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceRequestParams {
    /// The URI.
    pub uri: String,
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

retry_params!(ReadResourceRequestParams);

/// The final result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The contents.
    pub contents: Vec<ResourceContents>,
    /// Cache lifetime in ms (optional here; never cache an MRTR outcome).
    #[serde(default, rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope.
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

/// Result of `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListResourcesResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The resources.
    pub resources: Vec<Resource>,
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

/// A resource template listed by `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplate {
    /// RFC 6570 URI template.
    #[serde(rename = "uriTemplate")]
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListResourceTemplatesResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The templates.
    #[serde(rename = "resourceTemplates")]
    pub resource_templates: Vec<ResourceTemplate>,
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

impl ReadResourceRequestParams {
    /// A read of `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            retry: RetryFields::default(),
            meta: None,
            extra: Map::new(),
        }
    }
}

impl ReadResourceResult {
    /// The 2025-11-25 shape: just the contents.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            result_type: None,
            contents,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The 2026-07-28 shape: `resultType: "complete"` and the caching hints
    /// (required there; a read answered through `input_required` rounds must
    /// not be cached, so give it `ttl_ms` 0).
    pub fn modern(contents: Vec<ResourceContents>, ttl_ms: u64, cache_scope: CacheScope) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            ..Self::new(contents)
        }
    }
}

impl ListResourcesResult {
    /// The 2025-11-25 shape: just the resources.
    pub fn new(resources: Vec<Resource>) -> Self {
        Self {
            result_type: None,
            resources,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The 2026-07-28 shape: `resultType: "complete"` and the caching hints.
    pub fn modern(resources: Vec<Resource>, ttl_ms: u64, cache_scope: CacheScope) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            ..Self::new(resources)
        }
    }
}

impl ResourceTemplate {
    /// A template with an RFC 6570 URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

impl ListResourceTemplatesResult {
    /// The 2025-11-25 shape: just the templates.
    pub fn new(resource_templates: Vec<ResourceTemplate>) -> Self {
        Self {
            result_type: None,
            resource_templates,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The 2026-07-28 shape: `resultType: "complete"` and the caching hints.
    pub fn modern(
        resource_templates: Vec<ResourceTemplate>,
        ttl_ms: u64,
        cache_scope: CacheScope,
    ) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            ..Self::new(resource_templates)
        }
    }
}

/// Parameters of the 2025-11-25 `resources/subscribe` and
/// `resources/unsubscribe` (2026-07-28 subscribes through
/// `subscriptions/listen` instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscribeRequestParams {
    /// The resource to watch (or stop watching).
    pub uri: String,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscribeRequestParams {
    /// Watch `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Map::new(),
        }
    }
}
