//! Resources: fixed resources ([`ResourceDef`]) and resource templates
//! ([`ResourceTemplateDef`]) whose handlers get the same [`ToolContext`] as
//! tools, so a read can ask the person (on 2026-07-28 it then answers
//! `input_required`), and what a read returns ([`ResourceOutput`]).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use frontdesk_wire::{
    CacheScope, Completion, Meta, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::server::api::completion::{CompletionFn, CompletionRequest, completer};
use crate::server::api::context::ToolContext;
use crate::server::api::error::ToolError;
use crate::server::api::uri_template::{UriTemplate, UriTemplateError};

/// The resource a handler is reading: its URI and, for a template, the
/// variables read out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRequest {
    pub(crate) uri: String,
    pub(crate) variables: Map<String, Value>,
}

impl ResourceRequest {
    /// The URI being read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// A template variable (`{id}` in `test://items/{id}`), percent-decoded.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name).and_then(Value::as_str)
    }
}

/// What a read returns: the contents, and how long a 2026-07-28 client may
/// cache them.
///
/// `text` and `blob` are contents of the URI being read; more contents
/// (sub-resources) can be added with [`with_contents`](Self::with_contents).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResourceOutput {
    contents: Vec<ResourceContents>,
    cache: Option<(u64, CacheScope)>,
    meta: Option<Meta>,
    /// Members of a result made elsewhere that this crate does not know
    /// ([`ResourceOutput::from_result`]).
    extra: Map<String, Value>,
}

impl ResourceOutput {
    /// Text contents of the URI being read.
    pub fn text(text: impl Into<String>) -> Self {
        Self::default().with_contents(ResourceContents::text(String::new(), text))
    }

    /// Binary contents of the URI being read (base64-encoded on the wire).
    pub fn blob(bytes: &[u8]) -> Self {
        Self::default().with_contents(ResourceContents::blob(String::new(), bytes))
    }

    /// A whole result made elsewhere (a relay's upstream), sent as it is:
    /// its contents, its `_meta` members and its unknown members, and its
    /// caching hints when it gave both (a 2025-11-25 server gives none:
    /// this server's defaults then, as for [`cache`](Self::cache) not
    /// called). The client's revision decorates it as it does any read's:
    /// `resultType` and the hints for a 2026-07-28 client, neither for a
    /// 2025-11-25 one; `_meta`'s `serverInfo` names this server (or is
    /// left out on 2025-11-25).
    ///
    /// ```
    /// use frontdesk::server::resource::ResourceOutput;
    /// use frontdesk::wire::ReadResourceResult;
    ///
    /// let relayed: ReadResourceResult = serde_json::from_value(serde_json::json!({
    ///     "contents": [{"uri": "shop://menu", "text": "Soup"}],
    ///     "ttlMs": 60000,
    ///     "cacheScope": "private",
    ///     "x-origin": "upstream",
    /// })).unwrap();
    /// let out = ResourceOutput::from_result(relayed);
    /// assert_eq!(out.contents().len(), 1);
    /// ```
    pub fn from_result(result: ReadResourceResult) -> Self {
        Self {
            contents: result.contents,
            cache: result.ttl_ms.zip(result.cache_scope),
            meta: result.meta,
            extra: result.extra,
        }
    }

    /// The contents so far.
    pub fn contents(&self) -> &[ResourceContents] {
        &self.contents
    }

    /// Set the MIME type of the contents added so far that have none.
    pub fn mime_type(mut self, mime_type: &str) -> Self {
        self.contents = self
            .contents
            .into_iter()
            .map(|c| {
                if mime_of(&c).is_none() {
                    c.with_mime_type(mime_type)
                } else {
                    c
                }
            })
            .collect();
        self
    }

    /// Add contents (an empty URI stands for the URI being read).
    pub fn with_contents(mut self, contents: ResourceContents) -> Self {
        self.contents.push(contents);
        self
    }

    /// How long a 2026-07-28 client may cache this read, and for whom
    /// (default: the server's list TTL; `public` for anonymous callers,
    /// `private` for authenticated ones). A read answered through
    /// `input_required` rounds is never cacheable, whatever this says.
    pub fn cache(mut self, ttl: Duration, scope: CacheScope) -> Self {
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self.cache = Some((ms, scope));
        self
    }

    /// Set the result's `_meta` (members of the resource's own; a relay
    /// passes on another server's). The client's revision decorates it: on
    /// 2026-07-28 `serverInfo`, naming this server, is set over these
    /// members; on 2025-11-25 another server's `serverInfo` is left out.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The caching the handler chose, if any.
    pub(crate) fn caching(&self) -> Option<(u64, CacheScope)> {
        self.cache
    }

    /// The wire result for `uri`, contents without a MIME type taking
    /// `default_mime`.
    pub(crate) fn into_result(self, uri: &str, default_mime: Option<&str>) -> ReadResourceResult {
        let contents = self
            .contents
            .into_iter()
            .map(|c| {
                let c = if c.uri().is_empty() {
                    with_uri(c, uri)
                } else {
                    c
                };
                match default_mime {
                    Some(m) if mime_of(&c).is_none() => c.with_mime_type(m),
                    _ => c,
                }
            })
            .collect();
        ReadResourceResult {
            meta: self.meta,
            extra: self.extra,
            ..ReadResourceResult::new(contents)
        }
    }
}

fn mime_of(c: &ResourceContents) -> Option<&str> {
    match c {
        ResourceContents::Text(t) => t.mime_type.as_deref(),
        ResourceContents::Blob(b) => b.mime_type.as_deref(),
        _ => None,
    }
}

fn with_uri(mut c: ResourceContents, uri: &str) -> ResourceContents {
    match &mut c {
        ResourceContents::Text(t) => t.uri = uri.to_string(),
        ResourceContents::Blob(b) => b.uri = uri.to_string(),
        _ => {}
    }
    c
}

pub(crate) type ResourceFn = Arc<
    dyn Fn(ToolContext, ResourceRequest) -> BoxFuture<'static, Result<ResourceOutput, ToolError>>
        + Send
        + Sync,
>;

fn erase<F, Fut>(handler: F) -> ResourceFn
where
    F: Fn(ToolContext, ResourceRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ResourceOutput, ToolError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |cx, request| {
        let handler = Arc::clone(&handler);
        Box::pin(async move { handler(cx, request).await })
    })
}

/// A resource at a fixed URI, listed by `resources/list`.
///
/// ```
/// use frontdesk::server::Server;
/// use frontdesk::server::resource::{ResourceDef, ResourceOutput};
///
/// let server = Server::builder("docs", "1.0.0")
///     .resource(ResourceDef::text("docs://readme", "readme", "text/markdown", "# Hello"))
///     .resource(
///         ResourceDef::new("docs://today", "today", |_cx, _req| async {
///             Ok(ResourceOutput::text("Nothing planned.").mime_type("text/plain"))
///         })
///         .description("Today's agenda"),
///     )
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) handler: ResourceFn,
}

impl std::fmt::Debug for ResourceDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceDef")
            .field("uri", &self.resource.uri)
            .finish_non_exhaustive()
    }
}

impl ResourceDef {
    /// A resource whose contents `handler` produces on each read. The
    /// handler gets a [`ToolContext`]: it may ask the person, sample, log.
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(ToolContext, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ResourceOutput, ToolError>> + Send + 'static,
    {
        Self {
            resource: Resource::new(uri, name),
            handler: erase(handler),
        }
    }

    /// A resource with fixed text.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        text: impl Into<String>,
    ) -> Self {
        let text = text.into();
        Self::new(uri, name, move |_, _| {
            let out = ResourceOutput::text(text.clone());
            async move { Ok(out) }
        })
        .mime_type(mime_type)
    }

    /// A resource with fixed bytes (base64 on the wire).
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        let bytes = Arc::new(bytes.into());
        Self::new(uri, name, move |_, _| {
            let out = ResourceOutput::blob(&bytes);
            async move { Ok(out) }
        })
        .mime_type(mime_type)
    }

    /// Set a display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// Set the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.resource.description = Some(text.into());
        self
    }

    /// Set the MIME type (listed, and given to contents that have none).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.resource.uri
    }
}

/// Resources described by an RFC 6570 URI template, listed by
/// `resources/templates/list`; reading a matching URI runs the handler with
/// the variables. Supported: `{name}` (a value without `/`, `?`, `#`) and
/// `{+name}` (any value, slashes included).
///
/// ```
/// use frontdesk::server::Server;
/// use frontdesk::server::resource::{ResourceOutput, ResourceTemplateDef};
/// use frontdesk::server::completion::completions_matching;
///
/// let orders = ResourceTemplateDef::new("shop://orders/{id}", "order", |_cx, req| async move {
///     let id = req.variable("id").unwrap_or_default().to_string();
///     Ok(ResourceOutput::text(format!("Order {id}: shipped")))
/// })?
/// .completion(|req| async move { Ok(completions_matching(req.value(), ["A-1001", "A-1002"])) });
/// let server = Server::builder("shop", "1.0.0").resource_template(orders).build();
/// # let _ = server;
/// # Ok::<(), frontdesk::server::resource::UriTemplateError>(())
/// ```
#[derive(Clone)]
pub struct ResourceTemplateDef {
    pub(crate) listing: ResourceTemplate,
    pub(crate) template: UriTemplate,
    pub(crate) handler: ResourceFn,
    pub(crate) completion: Option<CompletionFn>,
}

impl std::fmt::Debug for ResourceTemplateDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplateDef")
            .field("uri_template", &self.listing.uri_template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplateDef {
    /// A template; an unsupported or malformed `uri_template` is an error.
    pub fn new<F, Fut>(
        uri_template: &str,
        name: impl Into<String>,
        handler: F,
    ) -> Result<Self, UriTemplateError>
    where
        F: Fn(ToolContext, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ResourceOutput, ToolError>> + Send + 'static,
    {
        Ok(Self {
            template: UriTemplate::parse(uri_template)?,
            listing: ResourceTemplate::new(uri_template, name),
            handler: erase(handler),
            completion: None,
        })
    }

    /// Set a display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.listing.title = Some(title.into());
        self
    }

    /// Set the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.listing.description = Some(text.into());
        self
    }

    /// Set the MIME type of the resources it describes.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.listing.mime_type = Some(mime_type.into());
        self
    }

    /// Suggest values for the template's variables (`completion/complete`
    /// with `ref/resource`).
    pub fn completion<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion, ToolError>> + Send + 'static,
    {
        self.completion = Some(completer(handler));
        self
    }
}
