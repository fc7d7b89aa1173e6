//! The MCP client: connects to a server over stdio or Streamable HTTP, speaks
//! 2025-11-25 and 2026-07-28, and hands every elicitation to an
//! [`ElicitationHandler`].
//!
//! ```no_run
//! # async fn run(handler: std::sync::Arc<dyn frontdesk::client::ElicitationHandler>) -> Result<(), frontdesk::client::ClientError> {
//! use frontdesk::client::{Client, ClientConfig};
//! let client = Client::connect_http("http://127.0.0.1:3917/mcp", ClientConfig::default(), handler).await?;
//! println!("{} speaks {}", client.server_info().name, client.revision());
//! let result = client
//!     .call_tool("book_return", serde_json::json!({"order_id": "A-1001"}))
//!     .await?;
//! # let _ = result; client.close().await; Ok(()) }
//! ```
//!
//! - Revision: [`ProtocolChoice::Auto`] probes with `server/discover` and falls
//!   back to `initialize` (MRTR C.3); or configure one.
//! - Capabilities: `elicitation` lists exactly the modes
//!   [`ElicitationHandler::modes`] returns (none ⇒ no `elicitation` at all).
//! - Both eras hand the person the same [`Elicitation`]; answers are checked
//!   against the form before they are sent (see the `elicit` module rules:
//!   invalid answers go back to the person, refusals the person did not make
//!   are `cancel`, logged).
//! - 2026-07-28 calls run their `input_required` rounds inside
//!   [`Client::call_tool`]; [`Client::call_tool_round`] runs one round for
//!   callers who persist state themselves.
//! - 2025-11-25: live `elicitation/create` (also on the GET stream), URL flows
//!   tracked by `elicitationId`, `-32042` turned into URL flows and a retry,
//!   `notifications/cancelled` closing the open form.
//! - Time: request timeouts pause while a person answers; each question has
//!   its own human-wait budget; a per-server rate limit caps questions.

#[cfg(feature = "http-client")]
pub mod auth;
mod call_tasks;
mod config;
mod connection;
mod elicit;
mod error;
mod handler;
mod headless;
mod legacy;
mod listen;
mod modern;
mod mrtr;
mod observe;
mod policy;
mod sampling;
#[cfg(feature = "http-client")]
pub(crate) mod sse;
mod tasks;
mod tool_headers;
mod transport;
#[cfg(feature = "http-client")]
mod transport_http;
mod transport_stdio;
mod url_flows;

use std::sync::Arc;

use frontdesk_wire::{
    CallToolResult, ClientCapabilities, ElicitationCapability, ElicitationModes, GetPromptResult,
    Implementation, InputRequests, InputResponses, ListChangedCapability, ListToolsResult,
    LoggingLevel, ReadResourceResult, RetryFields, Revision, ServerCapabilities, Tool, meta_key,
    method,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "http-client")]
pub use crate::tls_default::install_default_tls_provider;
pub use call_tasks::TaskHook;
pub use config::{
    ClientConfig, Direction, Notice, NoticeHook, NotificationHook, ProtocolChoice,
    UncheckedAnswers, WireTap,
};
pub use elicit::check_form_answer;
pub use error::ClientError;
pub use handler::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationOrigin, ElicitationResponse,
    HandlerModes,
};
pub use headless::HeadlessHandler;
pub use mrtr::Round;
pub use observe::{CallOptions, LogHook, ProgressHook};
pub use sampling::{RootsHandler, SamplingHandler, SamplingRequest, SamplingResponse, StaticRoots};
pub use transport_stdio::ServerStderr;

use connection::Core;
use elicit::Elicitor;
use transport::{Tap, Transport};

/// A connection to one MCP server. Cheap to clone; all clones share it.
#[derive(Clone)]
pub struct Client {
    core: Arc<Core>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.server_info().name)
            .field("revision", &self.revision())
            .finish()
    }
}

/// The capabilities a client declares: `extra`, `sampling` and `roots` when
/// their handlers are set, the tasks extension (unless turned off, for the
/// client or the call being made), and `elicitation` with exactly the modes
/// the handler serves.
pub(crate) fn declared_capabilities(
    config: &ClientConfig,
    modes: HandlerModes,
) -> ClientCapabilities {
    let mut caps = config.extra_capabilities.clone();
    if config.sampling.as_ref().is_some_and(|h| h.declared()) && caps.sampling.is_none() {
        caps.sampling = Some(Map::new());
    }
    if config.roots.as_ref().is_some_and(|h| h.declared()) && caps.roots.is_none() {
        caps.roots = Some(ListChangedCapability::default());
    }
    if call_tasks::declared(config.tasks) {
        caps.extensions
            .get_or_insert_with(Map::new)
            .entry(frontdesk_wire::extension::TASKS)
            .or_insert_with(|| Value::Object(Map::new()));
    }
    caps.elicitation = (modes.form || modes.url).then(|| {
        ElicitationCapability::explicit(ElicitationModes {
            form: modes.form,
            url: modes.url,
        })
    });
    caps
}

pub(crate) fn to_object<T: Serialize>(value: &T) -> Result<Map<String, Value>, ClientError> {
    match serde_json::to_value(value).map_err(ClientError::transport)? {
        Value::Object(m) => Ok(m),
        _ => Err(ClientError::Protocol(crate::Reason::from(
            "parameters must be an object",
        ))),
    }
}

fn parse<T: DeserializeOwned>(what: &str, result: Map<String, Value>) -> Result<T, ClientError> {
    serde_json::from_value(Value::Object(result))
        .map_err(|e| ClientError::Protocol(crate::Reason::from(format!("bad {what} result: {e}"))))
}

fn arguments(args: Value) -> Result<Option<Map<String, Value>>, ClientError> {
    match args {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        _ => Err(ClientError::Protocol(crate::Reason::from(
            "tool arguments must be a JSON object",
        ))),
    }
}

impl Client {
    #[cfg(feature = "stdio")]
    /// Spawn `command` and speak MCP over its stdin/stdout
    /// ([`ClientConfig::server_stderr`] says what happens to its stderr).
    pub async fn connect_stdio(
        command: tokio::process::Command,
        config: ClientConfig,
        handler: Arc<dyn ElicitationHandler>,
    ) -> Result<Self, ClientError> {
        let (tx, queue) = transport::inbound();
        let tap = Tap(config.on_wire.clone());
        let transport =
            transport_stdio::LineTransport::spawn(command, config.server_stderr, tx, tap.clone())
                .map_err(ClientError::transport)?;
        Self::start(
            Arc::new(transport),
            queue,
            tap,
            config,
            handler,
            Arc::default(),
        )
        .await
    }

    /// Speak MCP over any reader/writer pair, one JSON message per line (e.g.
    /// an in-process server on a `tokio::io::duplex` pair).
    pub async fn connect_io<R, W>(
        reader: R,
        writer: W,
        config: ClientConfig,
        handler: Arc<dyn ElicitationHandler>,
    ) -> Result<Self, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, queue) = transport::inbound();
        let tap = Tap(config.on_wire.clone());
        let transport = transport_stdio::LineTransport::new(reader, writer, tx, tap.clone());
        Self::start(
            Arc::new(transport),
            queue,
            tap,
            config,
            handler,
            Arc::default(),
        )
        .await
    }

    #[cfg(feature = "http-client")]
    /// Speak MCP over Streamable HTTP to the endpoint `url` (`http://` or
    /// `https://`; HTTPS servers are checked against the platform's trust
    /// store plus [`ClientConfig::extra_root_certificates`]).
    pub async fn connect_http(
        url: &str,
        config: ClientConfig,
        handler: Arc<dyn ElicitationHandler>,
    ) -> Result<Self, ClientError> {
        let (tx, queue) = transport::inbound();
        let tap = Tap(config.on_wire.clone());
        // Signing in is human time too: request timeouts pause meanwhile.
        let human = Arc::new(policy::HumanClock::default());
        let oauth = config
            .oauth
            .clone()
            .map(|o| (o, config.url_policy.clone(), human.clone()));
        let transport = transport_http::HttpTransport::new(
            url.to_string(),
            &config.extra_root_certificates,
            oauth,
            tx,
            tap.clone(),
        )?;
        let transport = transport_http::SharedHttp(Arc::new(transport));
        Self::start(Arc::new(transport), queue, tap, config, handler, human).await
    }

    async fn start(
        transport: Arc<dyn Transport>,
        (inbound, rx): (transport::WeakInbound, transport::InboundReceiver),
        tap: Tap,
        config: ClientConfig,
        handler: Arc<dyn ElicitationHandler>,
        human: Arc<policy::HumanClock>,
    ) -> Result<Self, ClientError> {
        #[cfg(feature = "http-client")]
        install_default_tls_provider();
        let config = Arc::new(config);
        let elicitor = Elicitor::new(handler, config.clone(), human);
        let core = Arc::new(Core::new(transport, config.clone(), tap, elicitor, inbound));
        tokio::spawn(core.clone().serve_inbound(rx));
        let client = Self { core };
        if let Err(e) = client.negotiate().await {
            client.close().await;
            return Err(e);
        }
        Ok(client)
    }

    async fn negotiate(&self) -> Result<(), ClientError> {
        let core = &self.core;
        let (revision, how) = match core.config.protocol {
            ProtocolChoice::Only(Revision::V2025_11_25) => {
                legacy::initialize(core).await?;
                (Revision::V2025_11_25, "configured".to_string())
            }
            ProtocolChoice::Only(Revision::V2026_07_28) => {
                modern::discover_optional(core).await?;
                (Revision::V2026_07_28, "configured".to_string())
            }
            ProtocolChoice::Auto => match modern::probe(core).await? {
                modern::Probe::Modern(d) => {
                    modern::adopt(core, *d);
                    (Revision::V2026_07_28, "server/discover".to_string())
                }
                modern::Probe::Legacy(why) => {
                    tracing::info!(%why, "falling back to initialize");
                    legacy::initialize(core).await?;
                    (Revision::V2025_11_25, format!("fallback: {why}"))
                }
            },
        };
        core.config.notice(Notice::Negotiated { revision, how });
        Ok(())
    }

    /// The revision this connection speaks.
    pub fn revision(&self) -> Revision {
        self.core.revision()
    }

    /// The server's `serverInfo` (the latest one it reported).
    pub fn server_info(&self) -> Implementation {
        self.core.elicitor.server()
    }

    /// The server's capabilities, from `initialize` or `server/discover`.
    pub fn server_capabilities(&self) -> Option<ServerCapabilities> {
        self.core
            .learnt
            .read()
            .ok()
            .and_then(|l| l.capabilities.clone())
    }

    /// The server's instructions, if it gave any.
    pub fn instructions(&self) -> Option<String> {
        self.core
            .learnt
            .read()
            .ok()
            .and_then(|l| l.instructions.clone())
    }

    /// The capabilities this client declares.
    pub fn capabilities(&self) -> ClientCapabilities {
        declared_capabilities(&self.core.config, self.core.elicitor.handler.modes())
    }

    /// Send any request in the connection's revision (2026-07-28: with a fresh
    /// `_meta`; no `input_required` handling) and return its result object.
    pub async fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        match self.revision() {
            Revision::V2026_07_28 => modern::request(&self.core, method, params).await,
            Revision::V2025_11_25 => self.core.request(method, Some(params)).await,
        }
    }

    /// Every tool, following pagination. On 2026-07-28 a tool whose
    /// `x-mcp-header` annotations are invalid is left out (and logged), and
    /// the others' mirrored parameters are sent as `Mcp-Param-*` headers
    /// when they are called over HTTP.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            let mut params = Map::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), Value::String(c));
            }
            let page: ListToolsResult = parse(
                "tools/list",
                self.request(method::TOOLS_LIST, params).await?,
            )?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(c) if !c.is_empty() => cursor = Some(c),
                _ => break,
            }
        }
        if self.revision() == Revision::V2026_07_28 {
            tools.retain(|tool| match tool_headers::param_headers(&tool.input_schema) {
                Ok(mirrored) => {
                    self.core.transport.mirror_params(&tool.name, mirrored);
                    true
                }
                Err(why) => {
                    tracing::warn!(tool = %tool.name, %why, "leaving out a tool with an invalid x-mcp-header");
                    false
                }
            });
        }
        Ok(tools)
    }

    /// Call a tool and run it to completion, answering every question
    /// through the handler. `arguments` is a JSON object (or null).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, CallOptions::default())
            .await
    }

    /// [`call_tool`](Self::call_tool), hearing the call's progress and logs
    /// through the hooks of `options` (see [`CallOptions`]): every
    /// notification the server sent before its result has reached its hook
    /// when this returns.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_string()));
        if let Some(a) = self::arguments(arguments)? {
            params.insert("arguments".into(), Value::Object(a));
        }
        let watch = self.core.watchers.watch(&options);
        let mut meta = Map::new();
        if let Some(token) = watch.token() {
            meta.insert(meta_key::PROGRESS_TOKEN.into(), Value::String(token.into()));
        }
        if let (Some(level), Revision::V2026_07_28) = (options.log_level, self.revision()) {
            meta.insert(
                meta_key::LOG_LEVEL.into(),
                serde_json::to_value(level).map_err(ClientError::transport)?,
            );
        }
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let label = format!("{} {name}", method::TOOLS_CALL);
        let result = call_tasks::scope(
            options.task_choice(),
            watch.scope(self.run(method::TOOLS_CALL, params, &label)),
        )
        .await;
        if options.progress.is_some() || options.log.is_some() {
            // The notifications sent before the response reach their hooks
            // before the caller sees the result.
            self.core.inbound.barrier().await;
        }
        drop(watch);
        parse("tools/call", result?)
    }

    /// Ask a 2025-11-25 server for log messages at `level` and above for the
    /// rest of the session (`logging/setLevel`). A 2026-07-28 server is
    /// asked per request instead ([`CallOptions::log_level`]): there this
    /// sends nothing.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if self.revision() == Revision::V2026_07_28 {
            return Ok(());
        }
        let mut params = Map::new();
        params.insert(
            "level".into(),
            serde_json::to_value(level).map_err(ClientError::transport)?,
        );
        self.core
            .request(method::LOGGING_SET_LEVEL, Some(params))
            .await
            .map(drop)
    }

    /// One round of a tool call (2026-07-28). Pass `None` first, then a
    /// [`RetryFields`] with the answers and the state of the previous round.
    /// On 2025-11-25 the whole call runs and the result is `Complete`.
    pub async fn call_tool_round(
        &self,
        name: &str,
        arguments: Value,
        state: Option<RetryFields>,
    ) -> Result<Round<CallToolResult>, ClientError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_string()));
        if let Some(a) = self::arguments(arguments)? {
            params.insert("arguments".into(), Value::Object(a));
        }
        if self.revision() == Revision::V2025_11_25 {
            let label = format!("{} {name}", method::TOOLS_CALL);
            let r = legacy::request(&self.core, method::TOOLS_CALL, params, &label).await?;
            return Ok(Round::Complete(parse("tools/call", r)?));
        }
        Ok(
            match mrtr::round(&self.core, method::TOOLS_CALL, &params, state).await? {
                Round::Complete(r) => Round::Complete(parse("tools/call", r)?),
                Round::InputRequired { requests, state } => {
                    Round::InputRequired { requests, state }
                }
            },
        )
    }

    /// Answer one round's requests through the handler (every key), for
    /// callers of [`Client::call_tool_round`].
    pub async fn fulfil(&self, requests: &InputRequests) -> Result<InputResponses, ClientError> {
        let requests = requests.clone();
        mrtr::fulfil(&self.core, None, requests, &self.core.closed.child_token()).await
    }

    /// Get a prompt, answering its questions.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_string()));
        if let Some(a) = arguments {
            params.insert("arguments".into(), Value::Object(a));
        }
        let label = format!("{} {name}", method::PROMPTS_GET);
        parse(
            "prompts/get",
            self.run(method::PROMPTS_GET, params, &label).await?,
        )
    }

    /// Read a resource, answering its questions.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.to_string()));
        let label = format!("{} {uri}", method::RESOURCES_READ);
        parse(
            "resources/read",
            self.run(method::RESOURCES_READ, params, &label).await?,
        )
    }

    async fn run(
        &self,
        method: &str,
        params: Map<String, Value>,
        label: &str,
    ) -> Result<Map<String, Value>, ClientError> {
        match self.revision() {
            Revision::V2025_11_25 => legacy::request(&self.core, method, params, label).await,
            Revision::V2026_07_28 => {
                let cancel: CancellationToken = self.core.closed.child_token();
                mrtr::run(&self.core, method, params, label, &cancel).await
            }
        }
    }

    /// End the connection: open questions are withdrawn, stdio servers get
    /// their stdin closed (then are killed if they linger), HTTP sessions are
    /// deleted.
    pub async fn close(&self) {
        if self.core.closed.is_cancelled() {
            return;
        }
        self.core.transport.close().await;
        self.core.closed.cancel();
    }
}
