//! Tools: definitions with typed arguments (input schema derived with
//! `schemars`), arguments mirrored in HTTP headers (`x-mcp-header`), task
//! support, the handler adapter, and what a handler returns.

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{CallToolResult, ContentBlock, Tool};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::BoxFuture;
use crate::server::api::context::ToolContext;
use crate::server::api::error::ToolError;

/// What a tool returns: `content` blocks, optional `structuredContent`, and
/// whether it is a tool-execution error (`isError`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    content: Vec<ContentBlock>,
    structured: Option<Value>,
    is_error: bool,
    /// A whole result made elsewhere, sent as it is ([`ToolOutput::from_result`]).
    verbatim: Option<Box<CallToolResult>>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::default().with_text(text)
    }

    /// These content blocks, in order (text, image, audio, resource links,
    /// embedded resources, mixed).
    ///
    /// ```
    /// use frontdesk::server::ToolOutput;
    /// use frontdesk::wire::{ContentBlock, ResourceContents};
    ///
    /// let out = ToolOutput::new(vec![
    ///     ContentBlock::text("Your chart and its data:"),
    ///     ContentBlock::image("iVBORw0KGgo=", "image/png"),
    ///     ContentBlock::embedded(
    ///         ResourceContents::text("shop://chart/7.json", "{}").with_mime_type("application/json"),
    ///     ),
    /// ]);
    /// assert_eq!(out.content().len(), 3);
    /// ```
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A tool-execution error the model can read and react to (`isError: true`).
    pub fn error(text: impl Into<String>) -> Self {
        let mut out = Self::text(text);
        out.is_error = true;
        out
    }

    /// Structured content, also serialized into a text block for clients that
    /// read only `content`.
    pub fn structured(value: Value) -> Self {
        Self::text(value.to_string()).with_structured(value)
    }

    /// Append a text block.
    pub fn with_text(self, text: impl Into<String>) -> Self {
        self.with_block(ContentBlock::text(text))
    }

    /// A result made elsewhere (another server's, relayed by a gateway),
    /// sent as it is: every member, `isError`, unknown members and its
    /// `_meta` members included. The client's revision decorates it: on
    /// 2026-07-28 `resultType` and `_meta`'s `serverInfo` (naming this
    /// server); on 2025-11-25 a 2026-07-28 server's `resultType` and
    /// `serverInfo` are left out.
    pub fn from_result(result: CallToolResult) -> Self {
        Self {
            verbatim: Some(Box::new(result)),
            ..Self::default()
        }
    }

    /// Append any content block (image, audio, resource link, embedded
    /// resource…).
    pub fn with_block(mut self, block: ContentBlock) -> Self {
        match &mut self.verbatim {
            Some(result) => result.content.push(block),
            None => self.content.push(block),
        }
        self
    }

    /// Set `structuredContent`.
    pub fn with_structured(mut self, value: Value) -> Self {
        match &mut self.verbatim {
            Some(result) => result.structured_content = Some(value),
            None => self.structured = Some(value),
        }
        self
    }

    /// Whether this is a tool-execution error.
    pub fn is_error(&self) -> bool {
        match &self.verbatim {
            Some(result) => result.is_error == Some(true),
            None => self.is_error,
        }
    }

    /// The content blocks.
    pub fn content(&self) -> &[ContentBlock] {
        match &self.verbatim {
            Some(result) => &result.content,
            None => &self.content,
        }
    }

    /// The `CallToolResult` (without the revision's decorations).
    pub(crate) fn into_result(self) -> CallToolResult {
        if let Some(result) = self.verbatim {
            return *result;
        }
        CallToolResult {
            structured_content: self.structured,
            is_error: Some(self.is_error),
            ..CallToolResult::new(self.content)
        }
    }
}

pub(crate) type ToolFn = Arc<
    dyn Fn(ToolContext, Value) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync,
>;

/// Arguments of a tool that takes none.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, schemars::JsonSchema)]
pub struct NoArgs {}

/// Whether a tool may continue as a task (the Tasks extension, 2026-07-28;
/// see [`ToolContext::continue_as_task`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// It may: with a client that declared the extension the handler's
    /// `continue_as_task` makes it a task; with any other client it runs
    /// within the call.
    Optional,
    /// It must: a 2026-07-28 client that did not declare the extension is
    /// refused with `-32021` before the handler runs. (A 2025-11-25 session,
    /// which can hold the call open, runs it within the call.)
    Required,
}

/// A tool argument mirrored in an HTTP header on 2026-07-28 (`x-mcp-header`
/// in its input schema): clients send `Mcp-Param-{header}` with the
/// argument's value, and the HTTP transport rejects a request whose header
/// and body disagree (`-32020`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    argument: String,
    header: String,
}

impl HeaderParam {
    /// The argument's name in the body.
    pub fn argument(&self) -> &str {
        &self.argument
    }

    /// The header name after `Mcp-Param-`.
    pub fn header(&self) -> &str {
        &self.header
    }
}

/// An `x-mcp-header` that clients would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool argument {argument:?}: x-mcp-header {header:?} {problem}")]
pub struct HeaderParamError {
    argument: String,
    header: String,
    problem: &'static str,
}

/// A tool: name, description, input schema and handler.
#[derive(Clone)]
pub struct ToolDef {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) input_schema: Map<String, Value>,
    pub(crate) handler: ToolFn,
    pub(crate) task_support: Option<TaskSupport>,
    pub(crate) header_params: Vec<HeaderParam>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ToolDef {
    /// A tool whose arguments deserialize into `A`; the input schema is derived
    /// from `A` with `schemars`. Arguments that do not fit become an `isError`
    /// result (2025-11-25 treats input validation as a tool-execution error).
    ///
    /// The handler is `async fn(ToolContext, A) -> Result<ToolOutput, ToolError>`.
    /// On 2026-07-28 it may run several times for one logical call (once per
    /// round): everything before its last question must be idempotent.
    pub fn new<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + schemars::JsonSchema + Send + 'static,
        F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let schema = input_schema_for::<A>();
        let handler = Arc::new(handler);
        let erased: ToolFn = Arc::new(move |cx, args| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let args = match serde_json::from_value::<A>(args) {
                    Ok(a) => a,
                    Err(e) => {
                        return Ok(ToolOutput::error(format!("Invalid arguments: {e}")));
                    }
                };
                handler(cx, args).await
            })
        });
        Self::from_parts(name.into(), description.into(), schema, erased)
    }

    /// A tool with a hand-written input schema (root `type: "object"` is
    /// enforced; any JSON Schema 2020-12 keyword is kept as written) whose
    /// handler receives the raw arguments object. Properties marked
    /// `x-mcp-header` become [`HeaderParam`]s; an invalid mark (empty, not a
    /// header token, repeated, on a non-primitive) is logged and ignored by
    /// the header check, and clients will refuse the tool.
    pub fn raw<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(ToolContext, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let erased: ToolFn = Arc::new(move |cx, args| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let Value::Object(args) = args else {
                    return Ok(ToolOutput::error("Invalid arguments: expected an object"));
                };
                handler(cx, args).await
            })
        });
        Self::from_parts(
            name.into(),
            description.into(),
            object_root(input_schema),
            erased,
        )
    }

    fn from_parts(
        name: String,
        description: String,
        input_schema: Map<String, Value>,
        handler: ToolFn,
    ) -> Self {
        let header_params = header_params_of(&input_schema).unwrap_or_else(|e| {
            tracing::warn!(tool = %name, error = %e, "invalid x-mcp-header; clients will refuse this tool");
            Vec::new()
        });
        Self {
            name,
            title: None,
            description,
            input_schema,
            handler,
            task_support: None,
            header_params,
        }
    }

    /// Let the tool continue as a task (see [`TaskSupport`]).
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = Some(support);
        self
    }

    /// Mirror `argument` (a string, number or boolean property of the input
    /// schema) in the HTTP header `Mcp-Param-{header}` on 2026-07-28, so
    /// gateways can route on it without reading the body.
    ///
    /// ```
    /// # use frontdesk::server::{ToolContext, ToolDef, ToolError, ToolOutput};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Args { region: String }
    ///
    /// let tool = ToolDef::new("deploy", "Deploy to a region", |_: ToolContext, a: Args| async move {
    ///     Ok::<_, ToolError>(ToolOutput::text(format!("Deployed to {}", a.region)))
    /// })
    /// .header_param("region", "Region")?;
    /// assert_eq!(tool.header_params()[0].header(), "Region");
    /// # Ok::<(), frontdesk::server::tool::HeaderParamError>(())
    /// ```
    pub fn header_param(mut self, argument: &str, header: &str) -> Result<Self, HeaderParamError> {
        let mut schema = self.input_schema.clone();
        let property = schema
            .get_mut("properties")
            .and_then(Value::as_object_mut)
            .and_then(|p| p.get_mut(argument))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| HeaderParamError {
                argument: argument.to_string(),
                header: header.to_string(),
                problem: "names no property of the input schema",
            })?;
        property.insert("x-mcp-header".into(), Value::from(header));
        self.header_params = header_params_of(&schema)?;
        self.input_schema = schema;
        Ok(self)
    }

    /// The arguments mirrored in headers.
    pub fn header_params(&self) -> &[HeaderParam] {
        &self.header_params
    }

    /// Set a display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `Tool` object of `tools/list`.
    pub(crate) fn to_listing(&self) -> Tool {
        let mut tool = Tool::new(self.name.clone(), self.input_schema.clone())
            .with_description(self.description.clone());
        tool.title.clone_from(&self.title);
        tool
    }
}

/// An HTTP header token (RFC 9110 `tchar`s).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` marks of an input schema's properties, checked as
/// clients check them.
fn header_params_of(schema: &Map<String, Value>) -> Result<Vec<HeaderParam>, HeaderParamError> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<HeaderParam> = Vec::new();
    for (argument, property) in properties {
        let Some(mark) = property.get("x-mcp-header") else {
            continue;
        };
        let header = mark.as_str().unwrap_or_default();
        let fail = |problem| HeaderParamError {
            argument: argument.clone(),
            header: header.to_string(),
            problem,
        };
        if !is_token(header) {
            return Err(fail("must be a non-empty HTTP header token"));
        }
        let primitive = matches!(
            property.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "number" | "boolean")
        );
        if !primitive {
            return Err(fail("may only mark a string, number, integer or boolean"));
        }
        if out.iter().any(|p| p.header.eq_ignore_ascii_case(header)) {
            return Err(fail("is used twice (header names ignore case)"));
        }
        out.push(HeaderParam {
            argument: argument.clone(),
            header: header.to_string(),
        });
    }
    Ok(out)
}

/// The JSON Schema of `A` as a tool `inputSchema` (root `type: "object"`).
///
/// An argument type without fields (such as [`NoArgs`]) gives exactly
/// `{"type": "object"}`; otherwise the schema `schemars` derives, without the
/// Rust type's name as its `title`.
pub fn input_schema_for<A: schemars::JsonSchema>() -> Map<String, Value> {
    let schema = schemars::schema_for!(A);
    let mut v = serde_json::to_value(&schema).unwrap_or_else(|_| json!({}));
    let no_fields = v
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
        && v.get("required").is_none();
    if no_fields {
        return object_root(json!({}));
    }
    if let Some(obj) = v.as_object_mut() {
        // Tool schemas are named by the tool, not by the Rust type.
        obj.remove("title");
    }
    object_root(v)
}

/// `schema` with `type: "object"` at its root (a tool's `inputSchema` must be
/// an object schema); anything but an object becomes `{"type": "object"}`.
fn object_root(schema: Value) -> Map<String, Value> {
    match schema {
        Value::Object(mut obj) => {
            obj.insert("type".into(), Value::from("object"));
            obj
        }
        _ => {
            let mut obj = Map::new();
            obj.insert("type".into(), Value::from("object"));
            obj
        }
    }
}

/// The tools of a server, in registration order, by name: the one place a
/// request's tool is found ([`ToolRegistry::find`]), once per request, and
/// carried from there through the header check, the call and its retries.
#[derive(Clone, Default)]
pub(crate) struct ToolRegistry {
    tools: indexmap::IndexMap<String, Arc<ToolDef>, crate::server::OwnKeysHasher>,
    /// Tools served by someone else, after the server's own.
    forward: Option<Arc<dyn ToolForward>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("forward", &self.forward.is_some())
            .finish()
    }
}

/// Tools a server does not define itself but serves for someone else: the
/// extension point of a gateway ([`ServerBuilder::forward_tools`](crate::server::ServerBuilder::forward_tools)).
///
/// The server's own tools come first: `tools/list` lists them, then
/// [`listing`](Self::listing) without the names the server defines; a
/// `tools/call` of a name the server does not define goes to
/// [`tool`](Self::tool). The [`ToolDef`] it returns runs like any other
/// tool (its handler's [`ToolContext`] asks on both revisions, its result
/// may be [`ToolOutput::from_result`]); a name it does not know
/// (`None`) gets the server's usual `-32602` "Unknown tool".
///
/// Both are called for every request that needs them, on the request's
/// task: answer from memory (a gateway keeps the other side's list and
/// refreshes it itself).
pub trait ToolForward: Send + Sync + 'static {
    /// The `Tool` objects of `tools/list`, as the other side lists them.
    fn listing(&self) -> Vec<Tool>;
    /// The tool that serves a call of `name`, if there is one.
    fn tool(&self, name: &str) -> Option<Arc<ToolDef>>;
    /// Whether forwarded tools may continue as tasks now (each such
    /// [`ToolDef`] has a [`TaskSupport`]): the server then declares the
    /// Tasks extension on 2026-07-28 and serves `tasks/*`, even with no
    /// task tool of its own. Asked for every request that needs it; by
    /// default `false`.
    fn tasks(&self) -> bool {
        false
    }
}

impl ToolRegistry {
    /// Register `tool`; a later tool with the same name replaces it, in
    /// its place.
    pub(crate) fn add(&mut self, tool: ToolDef) {
        self.tools.insert(tool.name.clone(), Arc::new(tool));
    }

    /// Serve the tools the server does not define through `forward`.
    pub(crate) fn forward(&mut self, forward: Arc<dyn ToolForward>) {
        self.forward = Some(forward);
    }

    /// The tool called `name`: the server's own, else the forwarded one.
    pub(crate) fn find(&self, name: &str) -> Option<Arc<ToolDef>> {
        match self.tools.get(name) {
            Some(tool) => Some(Arc::clone(tool)),
            None => self.forward.as_ref().and_then(|f| f.tool(name)),
        }
    }

    pub(crate) fn listing(&self) -> Vec<Tool> {
        let mut listing: Vec<Tool> = self.tools.values().map(|t| t.to_listing()).collect();
        if let Some(forward) = &self.forward {
            listing.extend(
                forward
                    .listing()
                    .into_iter()
                    .filter(|t| !self.tools.contains_key(&t.name)),
            );
        }
        listing
    }

    /// No tools of its own and none forwarded (a forwarder counts as tools:
    /// the server declares `tools` and serves `tools/list`).
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.forward.is_none()
    }

    /// Whether any tool may continue as a task (one of the server's own, or
    /// a forwarded one).
    pub(crate) fn has_tasks(&self) -> bool {
        self.tools.values().any(|t| t.task_support.is_some())
            || self.forward.as_ref().is_some_and(|f| f.tasks())
    }
}
