//! [`Server`], the handle transports call, and [`ServerBuilder`], which
//! registers what a server author wrote.

use std::sync::Arc;

use frontdesk_wire::{Implementation, Meta, Revision};
use serde_json::Value;

use crate::flows::{FlowError, FlowStore, InMemoryFlowStore};
use crate::server::api::config::ServerConfig;
use crate::server::api::context::Change;
use crate::server::api::error::RpcError;
use crate::server::api::prompt::{PromptDef, PromptRegistry};
use crate::server::api::resource::{ResourceDef, ResourceTemplateDef};
use crate::server::api::resource_registry::ResourceRegistry;
use crate::server::api::tool::{ToolDef, ToolRegistry};
use crate::server::contract::incoming::Incoming;
use crate::server::contract::{Handled, OutboundSink, RequestInfo, read};
use crate::server::dispatch;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::session::{Session, SessionLimits};
use crate::server::engine::{drain, flow_port, invoke, load, notify, replies, states, tasks};
use crate::state::{InMemoryNonceStore, NonceStore, StateSealer};
use crate::tasks::TaskStore;

/// An MCP server. Cheap to clone; share one between transports.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Start building a server that reports `name` and `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: ToolRegistry::default(),
            prompts: PromptRegistry::default(),
            resources: ResourceRegistry::default(),
            list_changed: false,
            states: states::States::default(),
            config: ServerConfig::default(),
            sealer: None,
            nonces: Some(Arc::new(InMemoryNonceStore::new())),
            flows: None,
            only: None,
            tasks: None,
        }
    }

    /// A new 2025-11-25-capable connection.
    pub fn session(&self) -> Arc<Session> {
        let config = &self.inner.config;
        Arc::new(Session::new(SessionLimits {
            requests: config.max_requests_per_session,
            questions: config.max_questions_per_session,
        }))
    }

    /// The configuration in force.
    pub fn config(&self) -> &ServerConfig {
        &self.inner.config
    }

    /// The name and version this server reports.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Read one message (one stdio line, one HTTP body), enforcing the size
    /// bound, into what [`handle`](Self::handle) serves: its kind, its
    /// revision judged from the body (`server/discover`, and any message
    /// whose `params._meta` carries a 2026-07-28 key, are 2026-07-28), and,
    /// for a `tools/call`, its tool and typed params. On failure, the error
    /// response to send (`-32700`, or `-32600` over the size bound; id
    /// `null`). A message that is JSON but no JSON-RPC message is read too:
    /// `handle` answers it.
    pub fn parse_message(&self, bytes: &[u8]) -> Result<Incoming, Value> {
        self.read(bytes, None)
    }

    /// [`parse_message`](Self::parse_message) for a message the transport
    /// knows the revision of (e.g. HTTP with `MCP-Protocol-Version:
    /// 2026-07-28`): it is served in `revision`, whatever its body says.
    pub fn parse_message_as(&self, bytes: &[u8], revision: Revision) -> Result<Incoming, Value> {
        self.read(bytes, Some(revision))
    }

    fn read(&self, bytes: &[u8], revision: Option<Revision>) -> Result<Incoming, Value> {
        if bytes.len() > self.inner.config.max_message_bytes {
            tracing::warn!(bytes = bytes.len(), "message over the size limit");
            return Err(self.oversize_error());
        }
        read::read(bytes, revision, &self.inner.tools).map_err(|e| {
            tracing::warn!(error = %e.message(), "malformed JSON");
            e.to_response(None)
        })
    }

    /// The `-32600` error (id `null`) for a message over
    /// [`ServerConfig::max_message_bytes`].
    pub fn oversize_error(&self) -> Value {
        RpcError::invalid_request(format!(
            "Invalid request: message larger than {} bytes",
            self.inner.config.max_message_bytes
        ))
        .to_response(None)
    }

    /// Handle one message. See the module docs for the contract.
    pub async fn handle(
        &self,
        session: Option<&Arc<Session>>,
        message: Incoming,
        sink: &OutboundSink,
        info: &RequestInfo,
    ) -> Handled {
        dispatch::handle(
            &self.inner,
            session,
            message,
            sink,
            info,
            load::Held::default(),
        )
        .await
    }

    /// [`handle`](Self::handle) for the Streamable HTTP transport: the
    /// request's work owns `held` (the transport's place in its own count
    /// of requests in flight: a retry's round that outlives its request
    /// keeps it until the round ends). The future itself, without an
    /// `async fn` around it that would keep a copy of `message` for as long
    /// as the request runs (a 2025-11-25 request may wait a long time for a
    /// person; issue 27).
    #[cfg(feature = "http-server")]
    pub(crate) fn handle_holding<'a>(
        &'a self,
        session: Option<&'a Arc<Session>>,
        message: Incoming,
        sink: &'a OutboundSink,
        info: &'a RequestInfo,
        held: load::Held,
    ) -> impl Future<Output = Handled> + 'a {
        dispatch::handle(&self.inner, session, message, sink, info, held)
    }

    /// Complete the URL flow whose connect token is `token`: the call the
    /// server's own page (or OAuth callback) makes when the person is done.
    /// `principal` is who the page identified (e.g. from its session cookie);
    /// it must be the flow's principal. `None` trusts the token alone (only
    /// for pages that cannot identify the person, such as a loopback demo).
    /// The token is single-use. 2025-11-25 waiters then send
    /// `notifications/elicitation/complete`; 2026-07-28 retries see it done.
    pub async fn complete_flow(
        &self,
        token: &str,
        principal: Option<&str>,
    ) -> Result<(), FlowError> {
        self.inner.flows.complete_and_log(token, principal).await
    }

    /// Tell subscribers that the resource at `uri` changed: 2025-11-25
    /// sessions that `resources/subscribe`d to it, 2026-07-28 listen streams
    /// whose `resourceSubscriptions` name it (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: &str) {
        self.publish(Change::ResourceUpdated(uri.to_string()));
    }

    /// Tell clients the tool list changed (needs
    /// [`ServerBuilder::list_changed_notifications`]; otherwise nothing is
    /// sent, as the server did not declare `listChanged`).
    pub fn notify_tools_changed(&self) {
        self.publish(Change::ToolsListChanged);
    }

    /// Tell clients the prompt list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_prompts_changed(&self) {
        self.publish(Change::PromptsListChanged);
    }

    /// Tell clients the resource list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_resources_changed(&self) {
        self.publish(Change::ResourcesListChanged);
    }

    /// Start shutting down: every 2025-11-25 question waiting for a person
    /// is withdrawn (`notifications/cancelled`, reason "The server is
    /// shutting down.") and its call ends with an `isError` result telling
    /// the caller to call again; questions asked from now on end the same way
    /// unasked ([`AskError::ShuttingDown`](crate::server::AskError::ShuttingDown)).
    /// 2026-07-28 calls finish on their own. The Streamable HTTP listener
    /// calls it when its shutdown signal arrives, before it ends the streams;
    /// a transport of your own calls it, then waits with
    /// [`settled`](Self::settled).
    ///
    /// A task still running cannot outlive the process: it ends `failed`,
    /// telling the client to call the tool again, and with a task store
    /// that is written through, so every instance reports it at once.
    pub fn drain(&self) {
        self.inner.drain.begin();
        self.inner.tasks.abandon();
    }

    /// Whether [`drain`](Self::drain) was called (a readiness check answers
    /// "not ready" from then on).
    pub fn is_draining(&self) -> bool {
        self.inner.drain.is_draining()
    }

    /// Wait until no request is being handled (and no task's end is still
    /// being written to the task store), for at most `within`; `true` when
    /// none is left. Used after [`drain`](Self::drain) so the answers of
    /// the calls it ended reach their clients before the streams close.
    pub async fn settled(&self, within: std::time::Duration) -> bool {
        let inner = Arc::clone(&self.inner);
        drain::settled(
            move || inner.load.requests() + inner.tasks.keepers(),
            within,
        )
        .await
    }

    /// Whether the state store answers (its [`NonceStore::ready`]); `Ok`
    /// when the server has none.
    pub async fn store_ready(&self) -> Result<(), crate::store::StoreError> {
        match &self.inner.nonces {
            Some(store) => store.ready().await,
            None => Ok(()),
        }
    }

    fn publish(&self, change: Change) {
        notify::publish(&self.inner, &change);
    }
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: ToolRegistry,
    prompts: PromptRegistry,
    resources: ResourceRegistry,
    list_changed: bool,
    states: states::States,
    config: ServerConfig,
    sealer: Option<StateSealer>,
    nonces: Option<Arc<dyn NonceStore>>,
    flows: Option<Arc<dyn FlowStore>>,
    only: Option<Revision>,
    tasks: Option<Arc<dyn TaskStore>>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Instructions for the client (`initialize`, `server/discover`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Register a tool (a later tool with the same name replaces it).
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.add(tool);
        self
    }

    /// Serve the tools this server does not define through `forward` (a
    /// gateway's upstream): `tools/list` lists them after the server's own,
    /// and a `tools/call` of a name the server does not define runs the
    /// [`ToolDef`] the forwarder returns. See [`ToolForward`](crate::server::tool::ToolForward).
    pub fn forward_tools(mut self, forward: Arc<dyn crate::server::tool::ToolForward>) -> Self {
        self.tools.forward(forward);
        self
    }

    /// Serve the prompts this server does not define through `forward` (a
    /// gateway's upstream): `prompts/list` lists them after the server's
    /// own, and a `prompts/get` of a name the server does not define gets
    /// the [`PromptDef`] the forwarder returns. See
    /// [`PromptForward`](crate::server::prompt::PromptForward).
    pub fn forward_prompts(
        mut self,
        forward: Arc<dyn crate::server::prompt::PromptForward>,
    ) -> Self {
        self.prompts.forward(forward);
        self
    }

    /// Register a prompt (a later one with the same name replaces it).
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.add(prompt);
        self
    }

    /// Call `hook` with the URI of each resource subscription a client
    /// makes and the server accepts (a 2025-11-25 `resources/subscribe`,
    /// each URI of a 2026-07-28 `subscriptions/listen` stream's
    /// `resourceSubscriptions`), on the task serving that request: it
    /// must not block. A gateway subscribes upstream there. Updates are
    /// still told with [`Server::notify_resource_updated`].
    pub fn on_resource_subscribe(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.resources.on_subscribe(Arc::new(hook));
        self
    }

    /// Serve the resources and templates this server does not define
    /// through `forward` (a gateway's upstream): the listings list them
    /// after the server's own, and a `resources/read` no resource or
    /// template of the server serves goes to the forwarder. See
    /// [`ResourceForward`](crate::server::resource::ResourceForward).
    pub fn forward_resources(
        mut self,
        forward: Arc<dyn crate::server::resource::ResourceForward>,
    ) -> Self {
        self.resources.forward(forward);
        self
    }

    /// Register a resource (a later one with the same URI replaces it).
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources.add(resource);
        self
    }

    /// Register a resource template (a later one with the same template
    /// replaces it).
    pub fn resource_template(mut self, template: ResourceTemplateDef) -> Self {
        self.resources.add_template(template);
        self
    }

    /// Declare `listChanged` for tools, prompts and resources, so
    /// [`Server::notify_tools_changed`] and its siblings reach clients.
    pub fn list_changed_notifications(mut self, announce: bool) -> Self {
        self.list_changed = announce;
        self
    }

    /// Give handlers `state` (one value per type; read it with
    /// [`ToolContext::state`](crate::server::ToolContext::state)). Share mutable state through the value itself
    /// (a pool, an `Arc<Mutex<…>>`): handlers get `&S`.
    pub fn state<S: Send + Sync + 'static>(mut self, state: S) -> Self {
        self.states.insert(state);
        self
    }

    /// Replace the configuration.
    pub fn config(mut self, config: ServerConfig) -> Self {
        self.config = config;
        self
    }

    /// Set the human-wait budget of 2025-11-25 questions.
    pub fn human_wait(mut self, budget: std::time::Duration) -> Self {
        self.config.human_wait = budget;
        self
    }

    /// Seal `requestState` with this sealer (default: a development key,
    /// fine for one process, logged as such).
    pub fn state_sealer(mut self, sealer: StateSealer) -> Self {
        self.sealer = Some(sealer);
        self
    }

    /// Redeem each `requestState` at most once through `store` (default: an
    /// in-memory store); `None` allows a state to be presented again until it
    /// expires.
    pub fn nonce_store(mut self, store: Option<Arc<dyn NonceStore>>) -> Self {
        self.nonces = store;
        self
    }

    /// Keep URL flows in `store` (default: in memory).
    pub fn flow_store(mut self, store: Arc<dyn FlowStore>) -> Self {
        self.flows = Some(store);
        self
    }

    /// Serve `revision` only, as a server written for one revision would: a
    /// request of the other is answered with the unsupported-version error
    /// listing the one served, and `server/discover` lists it alone. For
    /// testing clients and gateways against single-revision servers
    /// (`frontdesk serve --revision`); a real server serves both.
    ///
    /// ```
    /// use frontdesk::server::Server;
    /// use frontdesk::wire::Revision;
    ///
    /// let server = Server::builder("old-style", "1.0.0")
    ///     .only_revision(Revision::V2025_11_25)
    ///     .build();
    /// # drop(server);
    /// ```
    pub fn only_revision(mut self, revision: Revision) -> Self {
        self.only = Some(revision);
        self
    }

    /// Write tasks through to `store` (default: none; tasks live only in
    /// the memory of the process running them), so that `tasks/get`,
    /// `tasks/update` and `tasks/cancel` work on every instance sharing it
    /// and a finished task stays readable after a restart (see
    /// [`crate::tasks`]).
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Some(store);
        self
    }

    /// Finish.
    pub fn build(self) -> Server {
        Server {
            inner: Arc::new(ServerInner {
                info_meta: invoke::InfoMeta::new(Meta::new().with_server_info(&self.info)),
                info: self.info,
                instructions: self.instructions,
                tools: self.tools,
                prompts: self.prompts,
                resources: self.resources,
                list_changed: self.list_changed,
                subscribers: Arc::new(notify::Subscribers::new(&self.config)),
                tasks: tasks::Tasks::new(self.tasks),
                states: self.states,
                sealer: self.sealer.unwrap_or_else(StateSealer::development),
                nonces: self.nonces,
                flows: flow_port::Flows::new(
                    self.flows
                        .unwrap_or_else(|| Arc::new(InMemoryFlowStore::new())),
                    self.config.max_flows_per_client,
                ),
                load: load::Load::new(self.config.max_requests, self.config.max_questions),
                retries: replies::RetryReplies::new(
                    self.config.retry_reply_ttl,
                    self.config.max_retry_replies,
                ),
                config: self.config,
                drain: drain::Drain::default(),
                only: self.only,
            }),
        }
    }
}
