//! The MCP server: tools, prompts and resources whose handlers ask the
//! person for input once and work against every client, 2025-11-25 and
//! 2026-07-28; completion of prompt arguments and template variables;
//! logging, progress, sampling and roots from any handler; change
//! notifications and subscriptions; tools that continue as tasks.
//!
//! The main way to ask is a typed form: a struct with `#[derive(Form)]`
//! (re-exported here and at the crate root) asked with
//! [`ToolContext::ask`] and [`Question::form`]. The answer comes back
//! validated and typed.
//!
//! ```no_run
//! use frontdesk::form::Email;
//! use frontdesk::server::{
//!     Answer, Form, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
//! };
//!
//! #[derive(Form)]
//! struct Signup {
//!     #[form(title = "Your name", min_length = 1)]
//!     name: String,
//!     #[form(title = "Email")]
//!     email: Email,
//!     #[form(title = "Send me the newsletter", default = false)]
//!     newsletter: bool,
//! }
//!
//! async fn greet(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
//!     Ok(match cx.ask(Question::form::<Signup>("Who are you?")).await? {
//!         Answer::Accepted(s) => ToolOutput::text(format!("Hello, {} <{}>!", s.name, s.email)),
//!         Answer::Declined => ToolOutput::text("Maybe next time."),
//!         Answer::Cancelled => ToolOutput::text("Cancelled."),
//!     })
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = Server::builder("greeter", "1.0.0")
//!     .tool(ToolDef::new("greet", "Greet the person", greet))
//!     .build();
//! frontdesk::server::stdio::serve_stdio(server).await
//! # }
//! ```
//!
//! # The rest of the surface
//!
//! - **Resources**: [`ResourceDef`] (a fixed URI) and [`ResourceTemplateDef`]
//!   (an RFC 6570 template), registered with [`ServerBuilder::resource`] and
//!   [`ServerBuilder::resource_template`]. Their handlers get the same
//!   [`ToolContext`], so a read can ask; 2026-07-28 reads carry `ttlMs` and
//!   `cacheScope` ([`ResourceOutput::cache`]).
//! - **Completion**: [`PromptDef::completion`] and
//!   [`ResourceTemplateDef::completion`] answer `completion/complete`
//!   ([`completions_matching`] filters a list by what was typed).
//! - **Content**: [`ToolOutput::new`] and [`PromptOutput::message`] take any
//!   [`ContentBlock`]: text, image, audio, resource link, embedded resource.
//! - **Logging and progress**: [`ToolContext::log`],
//!   [`ToolContext::progress`], [`ToolContext::report_progress`].
//! - **Sampling and roots**: [`ToolContext::sample`], [`ToolContext::roots`]
//!   (live requests on 2025-11-25, input requests on 2026-07-28).
//! - **Changes**: [`Server::notify_resource_updated`] and, with
//!   [`ServerBuilder::list_changed_notifications`], the list-changed
//!   notifications; 2025-11-25 sessions hear them on their GET stream (and
//!   updates of what they `resources/subscribe`d to), 2026-07-28 clients on
//!   `subscriptions/listen`.
//! - **Header parameters**: [`ToolDef::header_param`] (or `x-mcp-header` in
//!   a raw schema): the argument travels in `Mcp-Param-*` on 2026-07-28
//!   HTTP, checked against the body.
//! - **Tasks** (2026-07-28, SEP-2663): [`ToolDef::task_support`] and
//!   [`ToolContext::continue_as_task`]; the task's questions surface through
//!   `tasks/get` and are answered with `tasks/update`.
//!
//! A form only known at run time is built with [`FormSchema::builder`] (or
//! read from JSON with [`schema_from_value`]) and asked with
//! [`Question::schema`]; its answer is the validated content as a JSON map.
//! [`Question::url`] sends the person to a page (sign-in, payment). Every
//! handler also gets [`ToolContext::once`] for side effects that must not
//! repeat when a 2026-07-28 call re-runs it, [`ToolContext::state`] for the
//! application state registered with [`ServerBuilder::state`], and
//! [`ToolContext::server`] to reach its server.
//! Either way, the content is re-validated on the server (whole numbers sent
//! as `3.0` to integer fields are accepted as `3`, missing optional fields
//! take their defaults, undeclared keys are dropped).
//!
//! # Transport-facing API
//!
//! Transports only move bytes; everything else happens in [`Server::handle`]:
//!
//! 1. Make one [`Session`] per connection that can carry 2025-11-25 traffic
//!    ([`Server::session`]): one per stdio process, one per HTTP
//!    `Mcp-Session-Id` (mint it on the response to `initialize`; its
//!    [`Session::id`] is suitable). 2026-07-28 requests need no session
//!    (pass `None` on HTTP; stdio passes its one session so
//!    `notifications/cancelled` can stop them).
//! 2. Turn the bytes of one message into JSON with [`Server::parse_message`]
//!    (size bound, `-32700` on bad JSON).
//! 3. Call [`Server::handle`] with an [`OutboundSink`] for messages related
//!    to this request (progress, log messages and, on 2025-11-25, the
//!    server's `elicitation/create` requests): on HTTP, the POST's SSE stream;
//!    on stdio, the single writer. Everything pushed to the sink is sent
//!    before the final response, which `handle` returns in [`Handled`] as
//!    JSON text ready to write (`None` for notifications, client responses
//!    and cancelled requests).
//! 4. A JSON-RPC *response* from the client (the answer to our
//!    `elicitation/create`) also goes through `handle`; the session routes it
//!    to the waiting question (HTTP: answer `202`).
//! 5. [`Handled::failure`] says what kind of error a response carries (an
//!    unreadable message, a 2026-07-28 request without `_meta`, or an error
//!    code), so a transport can choose its own status; the HTTP transport
//!    does.
//! 6. Messages unrelated to any request (2025-11-25
//!    `notifications/elicitation/complete` after a `-32042`) arrive on
//!    [`Session::unsolicited`]; drain it into the GET stream.
//! 7. When the connection goes away, call [`Session::close`]: waiting
//!    questions end and in-flight calls are dropped. On 2026-07-28 HTTP,
//!    dropping the `handle` future is the cancellation.
//! 8. URL flows are completed by the server's own page calling
//!    [`Server::complete_flow`] with the connect token.
//!
//! Header checks of 2026-07-28 HTTP (`-32020`) are the HTTP transport's and
//! run before `handle`. [`Server::revision_of`] tells which revision a parsed
//! message is for, and [`RequestInfo::revision`] lets the transport force it
//! (e.g. from `MCP-Protocol-Version`).
//!
//! # Behaviour worth knowing
//!
//! - **Invalid accepted content, 2025-11-25**: the question is sent again
//!   with the problems appended to its message and the values the person got
//!   right as the fields' defaults, up to [`ServerConfig::reask_limit`]
//!   times (default once); then `ask` returns [`AskError::InvalidAnswer`],
//!   which becomes an `isError` result.
//! - **Invalid accepted content, 2026-07-28**: the same question is asked
//!   again under the same key (`input_required`), never an error. A result
//!   that is not a well-formed `ElicitResult` (e.g. `user_name: 12345`) or an
//!   `inputResponses` that is not an object is `-32602`. Answers for keys the
//!   sealed state did not ask (or for a question that changed since) are
//!   ignored; a first call that already carries valid answers and no state
//!   completes.
//! - **Sealed `requestState`**: bound to the principal and to the request
//!   (method, name, arguments), expiring after [`ServerConfig::state_ttl`],
//!   single-use through a nonce store by default. Every failure is the same
//!   `-32602` ("requestState is invalid or expired"). It carries the answers
//!   so far (each pinned to a digest of its exact question), the digests of
//!   the questions just asked, and the URL flows in progress.
//! - **Capabilities**: a question is never sent in a mode the client did not
//!   declare (`elicitation: {}` means form only); `ask` returns
//!   [`AskError::MissingCapability`] ([`AskError::is_unsupported`]), which a
//!   handler may answer itself (e.g. with the link as text). Propagated,
//!   2026-07-28 answers `-32021` with `data.requiredCapabilities`;
//!   2025-11-25 ends the call with an `isError` result.
//! - **Initialized first**: a 2025-11-25 question is not sent before the
//!   client's `notifications/initialized` has arrived (the spec asks servers
//!   to send no requests but pings and logging before it); until then the
//!   call waits within the same human-wait budget, and stays cancellable.
//! - **Human time**: 2025-11-25 questions wait [`ServerConfig::human_wait`]
//!   (10 minutes by default), sending `notifications/progress` every
//!   [`ServerConfig::keepalive_interval`] when the call carried a
//!   `progressToken`; on timeout or when the call is cancelled, the client is
//!   sent `notifications/cancelled` for the open question.
//! - **URL mode**: 2025-11-25 sends `elicitationId` = flow id and, once the
//!   flow completes, `notifications/elicitation/complete`; 2026-07-28 keeps
//!   the flow id in the sealed state, holds an `accept` retry up to
//!   [`ServerConfig::url_hold`], then asks the same URL again. `-32042` is
//!   only ever produced on 2025-11-25.

mod call;
mod completion;
mod config;
mod context;
mod dispatch;
mod error;
mod flow_port;
pub mod form;
mod invoke;
mod legacy;
mod load;
mod modern;
mod notify;
mod peer;
mod prompt;
mod question;
mod requests;
mod resource;
mod states;
#[cfg(feature = "stdio")]
pub mod stdio;
mod subscribed;
mod task;
mod tool;
pub(crate) mod uri_template;

use std::sync::Arc;

use frontdesk_wire::{Implementation, JsonRpcMessage, JsonRpcNotification, Meta};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

pub use completion::{CompletionRequest, completions_matching};
pub use config::ServerConfig;
pub use context::ToolContext;
pub use error::{AskError, Failure, RpcError, ToolError};
pub use flow_port::FlowTicket;
pub use form::{Form, FormError, FormSchema, SchemaError, schema_from_value};
pub use frontdesk_derive::{Form, FormEnum};
pub use frontdesk_form::FormEnum;
/// Wire types handlers build results from (content blocks, resource
/// contents, roles, log levels, sampling, completions, cache scopes), so a
/// server needs no direct dependency on `frontdesk-wire` (all of it is
/// [`crate::wire`]).
pub use frontdesk_wire::{
    CacheScope, Completion, ContentBlock, CreateMessageRequestParams, CreateMessageResult,
    LoggingLevel, Resource, ResourceContents, Revision, Role, Root, SamplingMessage,
};
pub use legacy::Session;
pub(crate) use load::Held;
pub(crate) use peer::ClientNet;
pub use prompt::{PromptArgument, PromptDef, PromptOutput};
pub use question::{
    Answer, Ask, FormQuestion, InputRequest, Question, SchemaQuestion, UrlQuestion,
};
pub use resource::{ResourceDef, ResourceOutput, ResourceRequest, ResourceTemplateDef};
pub use tool::{
    HeaderParam, HeaderParamError, NoArgs, TaskSupport, ToolDef, ToolOutput, UrlElicitation,
    input_schema_for,
};
pub use uri_template::UriTemplateError;

use crate::flows::{FlowError, FlowStore, InMemoryFlowStore};
use crate::state::{InMemoryNonceStore, NonceStore, StateSealer};

/// Where messages related to one request go before its response (progress,
/// log messages, 2025-11-25 server requests). Cheap to clone.
#[derive(Debug, Clone)]
pub struct OutboundSink {
    tx: Option<SinkSender>,
}

#[derive(Debug, Clone)]
enum SinkSender {
    Values(mpsc::UnboundedSender<Value>),
    /// A transport's one queue of lines (stdio), where responses go too.
    #[cfg(feature = "stdio")]
    Lines(mpsc::UnboundedSender<Outgoing>),
}

/// One message a transport writes in order with the others: a message the
/// server built as a value, or a response already serialized.
#[cfg(feature = "stdio")]
#[derive(Debug)]
pub(crate) enum Outgoing {
    Message(Value),
    Text(Box<RawValue>),
}

impl OutboundSink {
    /// A sink and the receiver the transport drains.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Value>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self::from_sender(tx), rx)
    }

    /// A sink feeding an existing sender.
    pub fn from_sender(tx: mpsc::UnboundedSender<Value>) -> Self {
        Self {
            tx: Some(SinkSender::Values(tx)),
        }
    }

    /// A sink feeding a transport's queue of lines.
    #[cfg(feature = "stdio")]
    pub(crate) fn into_lines(tx: mpsc::UnboundedSender<Outgoing>) -> Self {
        Self {
            tx: Some(SinkSender::Lines(tx)),
        }
    }

    /// A sink that drops everything (for transports that cannot stream).
    pub fn discard() -> Self {
        Self { tx: None }
    }

    /// Queue one message; `false` when the transport is gone.
    pub fn send(&self, message: Value) -> bool {
        match &self.tx {
            None => false,
            Some(SinkSender::Values(tx)) => tx.send(message).is_ok(),
            #[cfg(feature = "stdio")]
            Some(SinkSender::Lines(tx)) => tx.send(Outgoing::Message(message)).is_ok(),
        }
    }
}

/// A notification whose params serialize from a wire type (`None`, logged,
/// if they do not serialize to an object, which the wire types always do).
pub(crate) fn typed_notification<P: serde::Serialize>(method: &str, params: &P) -> Option<Value> {
    match JsonRpcNotification::with_params(method, params) {
        Ok(n) => Some(JsonRpcMessage::from(n).to_value()),
        Err(e) => {
            tracing::error!(method, error = %e, "could not serialize a notification");
            None
        }
    }
}

/// What the transport knows about a message besides its body.
///
/// ```
/// use frontdesk::server::{RequestInfo, Revision};
///
/// let info = RequestInfo::new()
///     .principal("user-42")
///     .revision(Revision::V2026_07_28);
/// assert_eq!(info.principal.as_deref(), Some("user-42"));
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestInfo {
    /// The authenticated principal (e.g. the `sub` of an access token);
    /// `None` is anonymous. Sealed state and URL flows are bound to it.
    pub principal: Option<String>,
    /// Force the revision (e.g. HTTP with `MCP-Protocol-Version:
    /// 2026-07-28`); `None` lets [`Server::revision_of`] decide from the body.
    pub revision: Option<Revision>,
    /// Who the client is when it is anonymous (HTTP: its address, an IPv6
    /// address's /64; see [`RequestInfo::peer`]), so one anonymous client's
    /// quotas (URL flows, redeemed states, tasks) are not every anonymous
    /// client's. An authenticated client is its principal.
    pub client: Option<String>,
}

impl RequestInfo {
    /// Nothing known: anonymous, revision judged from the body.
    pub fn new() -> Self {
        Self::default()
    }

    /// The authenticated principal.
    pub fn principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Serve the message in this revision.
    pub fn revision(mut self, revision: Revision) -> Self {
        self.revision = Some(revision);
        self
    }

    /// Who an anonymous client is (e.g. its address).
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// An anonymous client known by the address it connects from, keyed as
    /// the HTTP transport keys it: an IPv4 address as itself, an IPv6
    /// address as its /64 (one host usually has the whole /64), an
    /// IPv4-mapped IPv6 address as its IPv4 address.
    ///
    /// ```
    /// use frontdesk::server::RequestInfo;
    ///
    /// let a = RequestInfo::new().peer("2001:db8:1:2::1".parse().unwrap());
    /// let b = RequestInfo::new().peer("2001:db8:1:2::beef".parse().unwrap());
    /// assert_eq!(a.client, b.client);
    /// assert_eq!(a.client.as_deref(), Some("2001:db8:1:2::/64"));
    /// ```
    pub fn peer(mut self, ip: std::net::IpAddr) -> Self {
        self.client = Some(ClientNet::of(ip).to_string());
        self
    }

    /// The key quotas count against: the principal, else the transport's
    /// client, else `"anonymous"`.
    pub(crate) fn quota_key(&self) -> String {
        quota_key(self.principal.as_deref(), self.client.as_deref())
    }
}

/// The key quotas count against: `principal:…` for an authenticated caller,
/// else `client:…` for the transport's client, else `"anonymous"`.
pub(crate) fn quota_key(principal: Option<&str>, client: Option<&str>) -> String {
    match (principal, client) {
        (Some(p), _) if !p.is_empty() => format!("principal:{p}"),
        (_, Some(c)) => format!("client:{c}"),
        _ => "anonymous".to_string(),
    }
}

/// Who made a request: the principal state is bound to, and the key its
/// quotas count against.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub(crate) principal: String,
    pub(crate) quota_key: String,
}

/// The outcome of [`Server::handle`].
#[derive(Debug, Clone)]
pub struct Handled {
    /// The response to send, if any (`None` for notifications, the client's
    /// answers to our requests, and cancelled requests), as the JSON text a
    /// transport writes: the result is serialized once, from its typed
    /// value. [`Handled::response_value`] parses it, for a look inside.
    pub response: Option<Box<RawValue>>,
    /// The revision the message was served in (`None` when it could not be
    /// read).
    pub revision: Option<Revision>,
    /// When the response is an error, what kind (for the transport's status).
    pub failure: Option<Failure>,
}

impl Handled {
    /// No response to send.
    fn nothing(revision: Option<Revision>) -> Self {
        Self {
            response: None,
            revision,
            failure: None,
        }
    }

    /// The response parsed as a JSON value (`None` without a response).
    ///
    /// ```
    /// # async fn run() {
    /// use frontdesk::server::{OutboundSink, RequestInfo, Server};
    /// let server = Server::builder("demo", "1.0.0").build();
    /// let ping = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    /// let handled = server.handle(None, ping, &OutboundSink::discard(), &RequestInfo::new()).await;
    /// assert_eq!(handled.response_value().unwrap()["result"], serde_json::json!({}));
    /// # }
    /// ```
    pub fn response_value(&self) -> Option<Value> {
        let text = self.response.as_ref()?;
        match serde_json::from_str(text.get()) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "a response that is not JSON");
                None
            }
        }
    }
}

impl PartialEq for Handled {
    fn eq(&self, other: &Self) -> bool {
        self.response.as_ref().map(|r| r.get()) == other.response.as_ref().map(|r| r.get())
            && self.revision == other.revision
            && self.failure == other.failure
    }
}

/// A serialized message's text, taken rather than copied (a transport's
/// body or line).
#[cfg(any(feature = "stdio", feature = "http-server"))]
pub(crate) fn into_text(message: Box<RawValue>) -> String {
    String::from(Box::<str>::from(message))
}

/// `message` as the JSON text a transport writes (`None`, logged, in the
/// case serialization fails, which a [`Value`] does not).
pub(crate) fn message_text(message: &Value) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(message)
        .map_err(|e| tracing::error!(error = %e, "could not serialize an outgoing message"))
        .ok()
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `_meta` of every 2026-07-28 result (who answered), built once.
    pub(crate) info_meta: invoke::InfoMeta,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: tool::ToolRegistry,
    pub(crate) prompts: Vec<PromptDef>,
    pub(crate) resources: resource::ResourceRegistry,
    /// Whether the server announces list changes (`listChanged`).
    pub(crate) list_changed: bool,
    pub(crate) subscribers: Arc<notify::Subscribers>,
    pub(crate) tasks: task::Tasks,
    pub(crate) states: states::States,
    pub(crate) config: ServerConfig,
    pub(crate) sealer: StateSealer,
    pub(crate) nonces: Option<Arc<dyn NonceStore>>,
    pub(crate) flows: flow_port::Flows,
    pub(crate) load: Arc<load::Load>,
    /// Replies of recent 2026-07-28 retries, by state id.
    pub(crate) retries: modern::RetryReplies,
}

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
            tools: tool::ToolRegistry::default(),
            prompts: Vec::new(),
            resources: resource::ResourceRegistry::default(),
            list_changed: false,
            states: states::States::default(),
            config: ServerConfig::default(),
            sealer: None,
            nonces: Some(Arc::new(InMemoryNonceStore::new())),
            flows: None,
        }
    }

    pub(crate) fn from_inner(inner: Arc<ServerInner>) -> Self {
        Self { inner }
    }

    /// A new 2025-11-25-capable connection.
    pub fn session(&self) -> Arc<Session> {
        let config = &self.inner.config;
        Arc::new(Session::new(legacy::SessionLimits {
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

    /// Parse one message, enforcing the size bound. On failure, the error
    /// response to send (`-32700` or `-32600`, id `null`).
    pub fn parse_message(&self, bytes: &[u8]) -> Result<Value, Value> {
        if bytes.len() > self.inner.config.max_message_bytes {
            tracing::warn!(bytes = bytes.len(), "message over the size limit");
            return Err(self.oversize_error());
        }
        serde_json::from_slice(bytes).map_err(|e| {
            tracing::warn!(error = %e, "malformed JSON");
            RpcError::parse_error(e).to_response(None)
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

    /// Which revision `message` is for, judged from its body:
    /// `server/discover` and any request whose `params._meta` carries a
    /// 2026-07-28 key are 2026-07-28.
    pub fn revision_of(message: &Value) -> Revision {
        dispatch::revision_of_value(message)
    }

    /// Handle one parsed message. See the module docs for the contract.
    pub async fn handle(
        &self,
        session: Option<&Arc<Session>>,
        message: Value,
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

    /// [`handle`](Self::handle), the request's work owning `held` (the
    /// transport's place in its own count of requests in flight): a retry's
    /// round that outlives its request keeps it until the round ends.
    #[cfg(feature = "http-server")]
    pub(crate) async fn handle_holding(
        &self,
        message: Value,
        sink: &OutboundSink,
        info: &RequestInfo,
        held: load::Held,
    ) -> Handled {
        dispatch::handle(&self.inner, None, message, sink, info, held).await
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
        let id = self.inner.flows.complete(token, principal).await?;
        tracing::info!(flow = %id, "URL flow completed");
        Ok(())
    }

    /// Tell subscribers that the resource at `uri` changed: 2025-11-25
    /// sessions that `resources/subscribe`d to it, 2026-07-28 listen streams
    /// whose `resourceSubscriptions` name it (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: &str) {
        self.publish(notify::Change::ResourceUpdated(uri.to_string()));
    }

    /// Tell clients the tool list changed (needs
    /// [`ServerBuilder::list_changed_notifications`]; otherwise nothing is
    /// sent, as the server did not declare `listChanged`).
    pub fn notify_tools_changed(&self) {
        self.publish(notify::Change::ToolsListChanged);
    }

    /// Tell clients the prompt list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_prompts_changed(&self) {
        self.publish(notify::Change::PromptsListChanged);
    }

    /// Tell clients the resource list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_resources_changed(&self) {
        self.publish(notify::Change::ResourcesListChanged);
    }

    fn publish(&self, change: notify::Change) {
        let is_list = !matches!(change, notify::Change::ResourceUpdated(_));
        if is_list && !self.inner.list_changed {
            tracing::debug!(
                ?change,
                "list change not announced (listChanged not declared)"
            );
            return;
        }
        tracing::debug!(?change, "publishing a change");
        self.inner.subscribers.publish(&change);
    }

    /// The arguments of tool `name` mirrored in `Mcp-Param-*` headers.
    #[cfg(feature = "http-server")]
    pub(crate) fn header_params(&self, name: &str) -> &[HeaderParam] {
        self.inner
            .tools
            .get(name)
            .map(ToolDef::header_params)
            .unwrap_or_default()
    }
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: tool::ToolRegistry,
    prompts: Vec<PromptDef>,
    resources: resource::ResourceRegistry,
    list_changed: bool,
    states: states::States,
    config: ServerConfig,
    sealer: Option<StateSealer>,
    nonces: Option<Arc<dyn NonceStore>>,
    flows: Option<Arc<dyn FlowStore>>,
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

    /// Register a prompt.
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.retain(|p| p.name != prompt.name);
        self.prompts.push(prompt);
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
    /// [`ToolContext::state`]). Share mutable state through the value itself
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
                tasks: task::Tasks::default(),
                states: self.states,
                sealer: self.sealer.unwrap_or_else(StateSealer::development),
                nonces: self.nonces,
                flows: flow_port::Flows::new(
                    self.flows
                        .unwrap_or_else(|| Arc::new(InMemoryFlowStore::new())),
                    self.config.max_flows_per_client,
                ),
                load: load::Load::new(self.config.max_requests, self.config.max_questions),
                retries: modern::RetryReplies::new(
                    self.config.retry_reply_ttl,
                    self.config.max_retry_replies,
                ),
                config: self.config,
            }),
        }
    }
}
