//! `frontdesk gateway` as a library: one MCP server side (a frontdesk
//! [`Server`], over stdio or Streamable HTTP) in front of one upstream MCP
//! server (reached with a frontdesk [`Client`], a stdio child or a URL),
//! every elicitation of the upstream's passing through frontdesk's checks on
//! the way to the person.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use frontdesk::client::ClientConfig;
//! use frontdesk_gateway::{Gateway, GatewayOptions};
//!
//! let gateway = Gateway::new(GatewayOptions::default());
//! let mut command = tokio::process::Command::new("frontdesk");
//! command.args(["serve", "--stdio"]);
//! let upstream = frontdesk::client::Client::connect_stdio(
//!     command,
//!     gateway.upstream_config(ClientConfig::default()),
//!     gateway.upstream_handler(),
//! )
//! .await?;
//! let server = gateway.attach(upstream).await?.build();
//! frontdesk::server::stdio::serve_stdio(server).await?;
//! # Ok(()) }
//! ```
//!
//! # What it does now
//!
//! - `tools/list` answers the upstream's tools as the upstream lists them
//!   (read when attached, and again when the upstream says they changed);
//!   `tools/call` runs the upstream's tool and
//!   answers its result as it is ([`ToolOutput::from_result`]), through the
//!   server core's [`ToolForward`] extension point.
//! - A form elicitation the upstream sends during a call (a live
//!   `elicitation/create` on 2025-11-25, an `input_required` round on
//!   2026-07-28: the client runtime hands both to the gateway alike) is
//!   held to the elicitation schema subset (outside it, the upstream is
//!   refused with `-32602` and the person sees nothing), then asked of the
//!   downstream client with the server's own [`Question::schema`]: a live
//!   request to a 2025-11-25 client, an `input_required` round to a
//!   2026-07-28 one. The answer is validated against the schema by the
//!   server side before it goes upstream; `decline` and `cancel` pass as
//!   they are.
//! - For a 2026-07-28 client the upstream call is kept in the gateway
//!   across rounds: its id is recorded with
//!   [`ToolContext::once`](frontdesk::server::ToolContext::once) in the
//!   sealed `requestState`, and each retry's answer goes to the upstream
//!   request that waits for it. Held calls are bounded in number
//!   ([`GatewayOptions::max_held_calls`]) and time
//!   ([`GatewayOptions::hold_for`]).
//! - Each question the upstream asks is one line of the log on target
//!   `frontdesk_gateway::audit` (server, tool, mode, the question, outcome,
//!   time taken; never the answer's content).
//! - A URL-mode question of the upstream (a live one with its
//!   `elicitationId`, an `input_required` entry, or a 2025-11-25 `-32042`
//!   the client runtime turns into URL questions) passes
//!   `frontdesk_url::review` (refused: `-32602` to the upstream, the person
//!   sees nothing), then is asked of the downstream client with
//!   [`Question::relayed_url`] (what the review found short of a refusal in
//!   a 2025-11-25 client's `_meta`, under `meta_key::URL_REVIEW`); the
//!   person's action goes back at once, and
//!   the page's completion (the upstream's
//!   `notifications/elicitation/complete`, or a 2026-07-28 upstream's call
//!   moving on) is told to a 2025-11-25 client under the id it was given.
//! - `sampling/createMessage` and `roots/list` of the upstream reach the
//!   downstream client the same way ([`Gateway::upstream_config`]).
//! - What the downstream client declared is what a 2026-07-28 upstream is
//!   told with each request; a 2025-11-25 upstream is told at `initialize`
//!   of each connection the capabilities of the clients whose calls that
//!   connection carries (see [`Gateway::connect_more`]; the attached one,
//!   told everything the gateway can pass on, refuses per call what the
//!   client in front did not declare).
//! - The upstream's messages, titles, descriptions, name and instructions
//!   lose control and bidirectional formatting characters on the way.
//!
//! - The upstream's prompts, resources, resource templates and completions
//!   are offered as the gateway's own, each request forwarded (a question
//!   asked during `prompts/get` or `resources/read` reaches the client in
//!   front as during a call), the lists kept current through the server
//!   core's `PromptForward` and `ResourceForward`; resource subscriptions
//!   are made upstream and the updates passed to the subscribed clients.
//! - A 2026-07-28 upstream's tasks (the Tasks extension): declared in front
//!   when the upstream declares it; a call the upstream answers with a task
//!   continues as a task of the gateway's own for a client that declared
//!   the extension ([`ToolContext::continue_as_task`]), while the gateway's
//!   client follows the upstream's task; a client that did not declare it
//!   is not declared upstream either.
//! - The upstream's progress notifications and log messages about a call
//!   reach the client in front of that call (progress under its own token,
//!   logs at the level it asked for, scrubbed), and its list changes
//!   (`notifications/*/list_changed`; a 2026-07-28 upstream's on the listen
//!   stream the gateway keeps open) make the gateway read the lists again
//!   and tell its clients when they differ ([`Gateway::notify_through`]).
//!
//! Calls of a 2026-07-28 upstream run side by side: the client runtime
//! answers a call's rounds on the task that awaits the call, where the
//! gateway finds which call asks. Calls of a 2025-11-25 upstream run one at a
//! time on each connection: a live `elicitation/create` (on stdio above all)
//! does not say which call it belongs to, so the one call in flight is the
//! one that asks; with [`Gateway::connect_more`] a call that finds every
//! connection busy opens another.
//!
//! [`Question::schema`]: frontdesk::server::Question::schema
//! [`Question::relayed_url`]: frontdesk::server::Question::relayed_url
//! [`ToolOutput::from_result`]: frontdesk::server::ToolOutput::from_result
//! [`ToolForward`]: frontdesk::server::tool::ToolForward
//! [`ToolContext::continue_as_task`]: frontdesk::server::ToolContext::continue_as_task

mod audit;
mod checks;
mod held;
mod lanes;
mod listing;
mod notes;
mod prompts;
mod relay;
mod resources;
mod scrub;
mod subscriptions;
mod surface;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::client::{Client, ClientConfig, ClientError, ElicitationHandler};
use frontdesk::server::tool::{TaskSupport, ToolForward};
use frontdesk::server::{RpcError, Server, ServerBuilder, ToolDef, ToolError};
use frontdesk::wire::Tool;
use serde_json::Value;

use held::Held;
use relay::Relay;

pub use audit::AuditLog;
pub use checks::Checks;
pub use lanes::{Connect, ConnectError, Lane};

/// How the gateway holds upstream calls.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GatewayOptions {
    /// Most upstream calls held at once: every forwarded tool call, from
    /// its start to its result (across a 2026-07-28 client's rounds, and
    /// while a 2025-11-25 client's person answers); past it a new call is
    /// refused as busy. `frontdesk gateway --max-calls`.
    pub max_held_calls: usize,
    /// How long an upstream call is held for a client's next round; then it
    /// is stopped and a retry is refused.
    pub hold_for: Duration,
    /// When every connection to a 2025-11-25 upstream is busy (at the most
    /// [`connect_more`](Gateway::connect_more) allows) and a call waits for
    /// one: a call whose 2026-07-28 client has not come back for its round
    /// for this long gives its connection up (stopped as past its time), the
    /// one that waited longest first. So clients that abandon rounds hold
    /// connections only while nobody else needs them.
    pub yield_after: Duration,
    /// The checks on the upstream's questions that may be switched off.
    pub checks: Checks,
    /// Where each question is recorded as a JSON line (none: the log's
    /// `frontdesk_gateway::audit` lines only).
    pub audit: Option<Arc<AuditLog>>,
}

impl Default for GatewayOptions {
    /// 256 calls, 11 minutes (the server's human-wait budget, 10 minutes,
    /// and one more), a round's connection yielded after 2 minutes, every
    /// check on, no audit file.
    fn default() -> Self {
        Self {
            max_held_calls: 256,
            hold_for: Duration::from_secs(11 * 60),
            yield_after: Duration::from_secs(120),
            checks: Checks::default(),
            audit: None,
        }
    }
}

/// One gateway: make it, connect the upstream [`Client`] with its
/// [`upstream_handler`](Self::upstream_handler), [`attach`](Self::attach)
/// the client, serve the [`Server`] it builds. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").finish_non_exhaustive()
    }
}

/// What every request of the gateway shares.
pub(crate) struct Shared {
    pub(crate) held: Held,
    pub(crate) relay: Arc<Relay>,
    upstream: RwLock<Option<Client>>,
    /// The upstream's tools, by name, with the tool that forwards each.
    tools: RwLock<Tools>,
    /// One 2025-11-25 upstream call at a time on the attached connection
    /// (see `lanes`).
    pub(crate) lane: tokio::sync::Mutex<()>,
    /// More connections, for 2025-11-25 calls side by side.
    pub(crate) extras: lanes::Extras,
    /// The server that tells the clients in front when the tools change.
    pub(crate) announce: RwLock<Option<Server>>,
    /// One reread of the upstream's tools at a time (see `listing`).
    reread: tokio::sync::Mutex<()>,
    /// A reread waits for its turn.
    reread_pending: AtomicBool,
    /// The resources subscribed to upstream.
    pub(crate) subscribed: subscriptions::Subscribed,
    /// The upstream's prompts (see `prompts`).
    pub(crate) prompts: RwLock<prompts::Prompts>,
    /// The upstream's resources and templates (see `resources`).
    pub(crate) resources: RwLock<resources::Resources>,
    /// The listen stream kept open on a 2026-07-28 upstream (see
    /// `subscriptions`).
    pub(crate) listener: std::sync::Mutex<Option<tokio::task::AbortHandle>>,
}

#[derive(Default)]
pub(crate) struct Tools {
    listing: Vec<Tool>,
    defs: HashMap<String, Arc<ToolDef>>,
}

impl Gateway {
    /// A gateway with nothing attached yet.
    pub fn new(options: GatewayOptions) -> Self {
        Self {
            shared: Arc::new(Shared {
                held: Held::new(
                    options.max_held_calls,
                    options.hold_for,
                    options.yield_after,
                ),
                relay: Arc::new(Relay::new(options.checks, options.audit)),
                upstream: RwLock::new(None),
                tools: RwLock::new(Tools::default()),
                lane: tokio::sync::Mutex::new(()),
                extras: lanes::Extras::default(),
                announce: RwLock::new(None),
                reread: tokio::sync::Mutex::new(()),
                reread_pending: AtomicBool::new(false),
                subscribed: subscriptions::Subscribed::default(),
                prompts: RwLock::default(),
                resources: RwLock::default(),
                listener: std::sync::Mutex::new(None),
            }),
        }
    }

    /// The elicitation handler to connect the upstream [`Client`] with:
    /// it passes the upstream's questions to the downstream client of the
    /// call that asks, and refuses those outside the elicitation schema
    /// subset ([`ElicitationHandler::refusal`]).
    pub fn upstream_handler(&self) -> Arc<dyn ElicitationHandler> {
        self.shared.relay.clone()
    }

    /// `config` with the gateway's relays of `sampling/createMessage` and
    /// `roots/list` set: connect the upstream [`Client`] with it so that
    /// the upstream's sampling and roots requests reach the client in front
    /// of the call that makes them (declared to a 2026-07-28 upstream per
    /// request, only when that client declared them; to a 2025-11-25
    /// upstream at `initialize`, then refused per call, `-32601`, when the
    /// client in front did not declare them).
    ///
    /// The client runtime's own limit of questions per minute (which answers
    /// `cancel` on the person's behalf) is lifted: the gateway's
    /// [`Checks::questions_per_minute`] refuses the excess with an error the
    /// server can read, and records it in the audit file.
    ///
    /// The upstream's `notifications/tools/list_changed` makes the gateway
    /// read its tools again (see [`notify_through`](Self::notify_through)).
    pub fn upstream_config(&self, config: ClientConfig) -> ClientConfig {
        listing::hooked(
            Arc::downgrade(&self.shared),
            relayed_config(&self.shared.relay, config),
        )
    }

    /// Tell the clients of `server` (the one built from
    /// [`attach`](Self::attach)'s builder) when the upstream's tools change:
    /// after the upstream's `notifications/tools/list_changed`, or a new
    /// upstream attached, the listing is read again and, when it differs,
    /// `server` sends `notifications/tools/list_changed` (it declares
    /// `listChanged` when the upstream did).
    pub fn notify_through(&self, server: &Server) {
        if let Ok(mut slot) = self.shared.announce.write() {
            *slot = Some(server.clone());
        }
    }

    /// Let calls to a 2025-11-25 upstream run side by side: when every
    /// connection has a call in flight (each connection carries one at a
    /// time, since a live `elicitation/create` does not say which call it is
    /// for), `connect` makes another (a new child process, a new session),
    /// up to `most` besides the attached one. Without it, such calls wait
    /// their turn, and one person taking their time holds the others.
    ///
    /// ```no_run
    /// # use frontdesk::client::{Client, ClientConfig};
    /// # use frontdesk_gateway::{Gateway, GatewayOptions};
    /// let gateway = Gateway::new(GatewayOptions::default());
    /// gateway.connect_more(7, |lane| {
    ///     Box::pin(async move {
    ///         let mut command = tokio::process::Command::new("python");
    ///         command.arg("server.py");
    ///         let config = lane.config(ClientConfig::default());
    ///         Ok(Client::connect_stdio(command, config, lane.handler()).await?)
    ///     })
    /// });
    /// ```
    pub fn connect_more<F>(&self, most: usize, connect: F)
    where
        F: Fn(Lane) -> BoxFuture<'static, Result<Client, ConnectError>> + Send + Sync + 'static,
    {
        if let Ok(mut slot) = self.shared.extras.connect.write() {
            *slot = Some((Arc::new(connect), most));
        }
    }

    /// Close the connections [`connect_more`](Self::connect_more) opened.
    pub async fn close_extra_connections(&self) {
        lanes::close(&self.shared).await;
    }

    /// Attach the connected upstream: its tools are read (every page), and
    /// the [`ServerBuilder`] returned serves them (named and described as
    /// the upstream, with its instructions). Add more to it, then build.
    ///
    /// Titles and descriptions of the tools (and of their schemas), the
    /// server's name and its instructions are kept free of control and
    /// bidirectional formatting characters on the way (see `scrub`).
    pub async fn attach(&self, upstream: Client) -> Result<ServerBuilder, ClientError> {
        let scrubbing = self.shared.relay.checks.scrub;
        let clean = |text: &str| scrub::clean(text, scrubbing);
        let listing = listing::read(&self.shared, &upstream).await?;
        let info = upstream.server_info();
        let instructions = upstream.instructions().map(|t| clean(&t));
        let surface = surface::Surface::read(&upstream).await?;
        notes::ask_for_logs(&upstream).await;
        let (prompts, resources, templates) = surface.counts();
        self.shared.relay.set_server(&clean(&info.name));
        let caps = upstream.server_capabilities().unwrap_or_default();
        let resources_announce = caps.resources.as_ref().and_then(|r| r.list_changed);
        let announces = [caps.tools, caps.prompts]
            .into_iter()
            .map(|list| list.and_then(|l| l.list_changed))
            .chain([resources_announce])
            .any(|announced| announced == Some(true));
        tracing::info!(
            server = %info.name,
            revision = %upstream.revision(),
            tools = listing.len(),
            prompts,
            resources,
            templates,
            "upstream attached"
        );
        if let Ok(mut slot) = self.shared.upstream.write() {
            *slot = Some(upstream);
        }
        listing::set(&self.shared, listing);
        // A restarted upstream knows none of the subscriptions made before.
        subscriptions::renew(&Arc::downgrade(&self.shared));
        let subscriber = Arc::downgrade(&self.shared);
        let mut builder = Server::builder(clean(&info.name), info.version)
            .forward_tools(Arc::new(Forward(Arc::clone(&self.shared))))
            .list_changed_notifications(announces)
            .on_resource_subscribe(move |uri| subscriptions::subscribed(&subscriber, uri));
        if let Some(text) = instructions {
            builder = builder.instructions(text);
        }
        Ok(surface.offer(builder, &self.shared))
    }

    /// Let the upstream go (it ended; a new one will be attached): calls
    /// fail at once with an internal error until then, rather than wait on a
    /// connection nobody answers. The tool list is kept.
    pub fn detach(&self) -> Option<Client> {
        self.shared.upstream.write().ok().and_then(|mut u| u.take())
    }

    /// The upstream client, once attached.
    pub fn upstream(&self) -> Option<Client> {
        self.shared.upstream()
    }

    /// How many upstream calls are held right now (waiting for a
    /// downstream client's next round, or running).
    pub fn held_calls(&self) -> usize {
        self.shared.held.len()
    }
}

/// The tool that forwards calls of the upstream's `tool`.
pub(crate) fn forwarding_tool(shared: &Arc<Shared>, tool: &Tool) -> ToolDef {
    let shared = Arc::clone(shared);
    let name = tool.name.clone();
    // The listing shows the upstream's own tool, and the upstream checks
    // the arguments; the schema is kept here for its `x-mcp-header`
    // arguments, whose `Mcp-Param-*` headers a 2026-07-28 client's request
    // is checked against as `frontdesk serve` checks them.
    // Any call may continue as a task: it does when the upstream answers
    // it with one and the client in front declared the extension (see
    // `Forward::tasks`).
    ToolDef::raw(
        tool.name.clone(),
        "",
        Value::Object(tool.input_schema.clone()),
        move |cx, args| held::forward(Arc::clone(&shared), name.clone(), cx, args),
    )
    .task_support(TaskSupport::Optional)
}

impl Shared {
    pub(crate) fn upstream(&self) -> Option<Client> {
        self.upstream.read().ok().and_then(|u| u.clone())
    }
}

/// `tool` with its titles and descriptions scrubbed (at any depth: its own,
/// its annotations', its schemas'); as it was if it does not read back.
pub(crate) fn scrub_tool(tool: Tool) -> Tool {
    scrub_listed(tool, "tool")
}

/// A listed item (a tool, a prompt) with its titles and descriptions, at
/// any depth, free of control and bidirectional formatting characters
/// (`what` names the kind in the warning when some were removed).
pub(crate) fn scrub_listed<T: serde::Serialize + serde::de::DeserializeOwned>(
    item: T,
    what: &str,
) -> T {
    let Ok(mut value) = serde_json::to_value(&item) else {
        return item;
    };
    if scrub::scrub_labels(&mut value) == 0 {
        return item;
    }
    tracing::warn!(
        kind = what,
        "control characters removed from the upstream's listing"
    );
    serde_json::from_value(value).unwrap_or(item)
}

/// The server core's view of the upstream's tools.
struct Forward(Arc<Shared>);

impl ToolForward for Forward {
    fn listing(&self) -> Vec<Tool> {
        self.0
            .tools
            .read()
            .map(|t| t.listing.clone())
            .unwrap_or_default()
    }

    fn tool(&self, name: &str) -> Option<Arc<ToolDef>> {
        self.0
            .tools
            .read()
            .ok()
            .and_then(|t| t.defs.get(name).cloned())
    }

    /// A 2026-07-28 upstream that declares the Tasks extension: its tasks
    /// reach a client in front that declared it as the gateway's own.
    fn tasks(&self) -> bool {
        self.0.upstream().is_some_and(|u| {
            u.revision() == frontdesk::wire::Revision::V2026_07_28
                && u.server_capabilities()
                    .and_then(|c| c.extensions)
                    .is_some_and(|e| e.contains_key(frontdesk::wire::extension::TASKS))
        })
    }
}

/// `config` with `relay` as its sampling and roots handlers, and the client
/// runtime's own question limit lifted (the gateway's applies).
pub(crate) fn relayed_config(relay: &Arc<Relay>, mut config: ClientConfig) -> ClientConfig {
    config.sampling = Some(relay.clone());
    config.roots = Some(relay.clone());
    config.rate_limit_per_minute = u32::MAX;
    config
}

/// An upstream failure as the downstream client's error: the upstream's
/// JSON-RPC error as it is; a refused question a tool error; anything else
/// an internal error, logged.
pub(crate) fn upstream_error(e: ClientError) -> ToolError {
    match e {
        ClientError::Rpc(error) => {
            let mut rpc = RpcError::new(error.code, error.message.clone());
            if let Some(data) = error.data.clone() {
                rpc = rpc.with_data(data);
            }
            ToolError::Rpc(rpc)
        }
        // A 2026-07-28 upstream's round held a question the gateway
        // refused: the call ended there, as a tool error the model can read.
        ClientError::Refused { reason, .. } => ToolError::execution(format!(
            "The server asked a question this gateway does not pass on: {reason}"
        )),
        other => {
            tracing::warn!(error = %other, "the upstream call failed");
            ToolError::internal(format!("the upstream server failed: {other}"))
        }
    }
}
