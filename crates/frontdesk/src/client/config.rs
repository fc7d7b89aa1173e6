//! What a [`Client`](super::Client) is told before it connects: which
//! revision to speak, who it is, its budgets and policies, and the hooks a
//! host uses to watch the wire.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use frontdesk_url::UrlPolicy;
use frontdesk_wire::{ClientCapabilities, ElicitRequestParams, Implementation, Revision};
use serde_json::{Map, Value};

/// Which protocol revision to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProtocolChoice {
    /// Probe with a 2026-07-28 request (`server/discover`) and fall back to a
    /// 2025-11-25 `initialize` when the server does not answer like a modern
    /// one (MRTR C.3).
    #[default]
    Auto,
    /// Speak exactly this revision.
    Only(Revision),
}

impl From<Revision> for ProtocolChoice {
    fn from(revision: Revision) -> Self {
        Self::Only(revision)
    }
}

/// Which way a message travelled, for [`ClientConfig::on_wire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Client → server.
    Outgoing,
    /// Server → client.
    Incoming,
}

/// Something the runtime decided on the person's behalf (a cancel it had to
/// send, a round it is retrying), for hosts that explain what happens.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Notice {
    /// An elicitation was answered `cancel` without the person choosing:
    /// the reason says why (headless, rate limit, refused URL, budget spent…).
    AutoCancelled {
        /// The request's key / id.
        key: String,
        /// Why.
        reason: String,
    },
    /// A form was refused without being shown: its `requestedSchema` is not
    /// a form that can be shown honestly (its root is not an object). On
    /// 2025-11-25 the server got `-32602`; on 2026-07-28 the call ended.
    FormRefused {
        /// The request's key / id.
        key: String,
        /// Why, as the server was (or would have been) told.
        reason: String,
    },
    /// A 2026-07-28 round finished and the call is retried.
    Retrying {
        /// The method (`tools/call`, …).
        method: String,
        /// The round just answered (1-based).
        round: u32,
        /// Whether it was a state-only round (backed off before the retry).
        state_only: bool,
    },
    /// A 2025-11-25 `-32042` was turned into URL flows; the call is retried
    /// once they complete.
    UrlRequired {
        /// How many URL elicitations the error listed.
        count: usize,
    },
    /// The revision chosen at connect time, and how.
    Negotiated {
        /// The revision.
        revision: Revision,
        /// How it was chosen (`"configured"`, `"server/discover"`, `"fallback"`…).
        how: String,
    },
}

/// A hook called with every JSON-RPC message the client sends or receives.
pub type WireTap = Arc<dyn Fn(Direction, &Value) + Send + Sync>;

/// A hook called with every [`Notice`].
pub type NoticeHook = Arc<dyn Fn(&Notice) + Send + Sync>;

/// A hook called with every notification the server sends (see
/// [`ClientConfig::on_notification`]).
pub type NotificationHook = Arc<dyn Fn(&frontdesk_wire::JsonRpcNotification) + Send + Sync>;

/// For tools that test servers (`frontdesk audit`), never for a host: the
/// result to send for a live 2025-11-25 `elicitation/create`, exactly as
/// returned, or `None` for the normal path. See
/// [`ClientConfig::unchecked_answers`].
pub type UncheckedAnswers =
    Arc<dyn Fn(&ElicitRequestParams) -> Option<Map<String, Value>> + Send + Sync>;

/// How the client behaves.
#[derive(Clone)]
pub struct ClientConfig {
    /// Which revision to speak (default: discover, fall back).
    pub protocol: ProtocolChoice,
    /// `clientInfo`.
    pub client_info: Implementation,
    /// How long one elicitation may wait for the person before it is answered
    /// `cancel` (default 10 minutes). Separate from `request_timeout`: while
    /// a person is answering, request timeouts do not run out.
    pub human_wait: Duration,
    /// How long a request may go without an answer while nobody is answering a
    /// question (default 60 s).
    pub request_timeout: Duration,
    /// How long the `server/discover` probe may take before a stdio client falls
    /// back to `initialize` (default 5 s).
    pub probe_timeout: Duration,
    /// Cap on `input_required` rounds per call (default 10).
    pub max_rounds: u32,
    /// First delay before retrying a state-only round; doubles up to 5 s
    /// (default 200 ms).
    pub state_only_backoff: Duration,
    /// Fill omitted optional fields from schema defaults before validating an
    /// accepted answer (default on; declared as `form.applyDefaults`).
    pub apply_defaults: bool,
    /// Elicitations per server per minute before the runtime answers `cancel`
    /// itself (default 20).
    pub rate_limit_per_minute: u32,
    /// How many times an invalid answer goes back to the person before the
    /// runtime gives up and answers `cancel` (default 5).
    pub max_answer_attempts: u32,
    /// Which URLs may be shown/opened.
    pub url_policy: UrlPolicy,
    /// Capabilities declared on top of the elicitation modes the handler serves
    /// (e.g. a host that also answers `roots/list`). Elicitation here is ignored.
    pub extra_capabilities: ClientCapabilities,
    /// Root certificates (DER) trusted for HTTPS on top of the platform's
    /// trust store, e.g. a private CA (HTTP only; default none).
    pub extra_root_certificates: Vec<Vec<u8>>,
    /// What happens to a spawned server's stderr (stdio only).
    pub server_stderr: super::ServerStderr,
    /// Wire tap (e.g. `frontdesk lab --show-wire`).
    pub on_wire: Option<WireTap>,
    /// Notice hook.
    pub on_notice: Option<NoticeHook>,
    /// Called with every notification the server sends, after the runtime
    /// handled it (e.g. `notifications/tools/list_changed`, which the
    /// runtime itself does not act on), on the task that reads the
    /// server's messages: a hook must not block (default none).
    pub on_notification: Option<NotificationHook>,
    /// Declare the tasks extension (SEP-2663) and follow a call that becomes
    /// a task to its end (default on).
    pub tasks: bool,
    /// Answers `sampling/createMessage` (declares `sampling`; default none).
    pub sampling: Option<Arc<dyn super::SamplingHandler>>,
    /// Answers `roots/list` (declares `roots`; default none).
    pub roots: Option<Arc<dyn super::RootsHandler>>,
    /// For tools that test servers (`frontdesk audit`), never for a host
    /// (default none). When it returns a result for a live 2025-11-25
    /// `elicitation/create`, that result is sent as it is: the handler is
    /// not asked and none of the answer's checks runs (not the form's
    /// validation, not the URL review, not the rate limit). It is how a
    /// test sends what a hostile client can send (content of the wrong
    /// type, a missing required field, an option not offered) and watches
    /// whether the server refuses it. `None` from it leaves the request to
    /// the normal path. 2026-07-28 needs no hook: a test builds such a retry
    /// itself and sends it with [`Client::request`](super::Client::request).
    pub unchecked_answers: Option<UncheckedAnswers>,
    /// Authorize with OAuth 2.1 when the server asks for a token (HTTP only;
    /// default none: a `401` is an error).
    #[cfg(feature = "http-client")]
    pub oauth: Option<super::auth::OAuthConfig>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            protocol: ProtocolChoice::Auto,
            client_info: Implementation::new("frontdesk", env!("CARGO_PKG_VERSION")),
            human_wait: Duration::from_secs(600),
            request_timeout: Duration::from_secs(60),
            probe_timeout: Duration::from_secs(5),
            max_rounds: 10,
            state_only_backoff: Duration::from_millis(200),
            apply_defaults: true,
            rate_limit_per_minute: 20,
            max_answer_attempts: 5,
            url_policy: UrlPolicy::default(),
            extra_capabilities: ClientCapabilities::default(),
            extra_root_certificates: Vec::new(),
            server_stderr: super::ServerStderr::default(),
            on_wire: None,
            on_notice: None,
            on_notification: None,
            tasks: true,
            sampling: None,
            roots: None,
            unchecked_answers: None,
            #[cfg(feature = "http-client")]
            oauth: None,
        }
    }
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientConfig")
            .field("protocol", &self.protocol)
            .field("client_info", &self.client_info)
            .field("human_wait", &self.human_wait)
            .field("request_timeout", &self.request_timeout)
            .field("max_rounds", &self.max_rounds)
            .field("apply_defaults", &self.apply_defaults)
            .field("rate_limit_per_minute", &self.rate_limit_per_minute)
            .field(
                "extra_root_certificates",
                &self.extra_root_certificates.len(),
            )
            .field("on_wire", &self.on_wire.is_some())
            .field("on_notice", &self.on_notice.is_some())
            .field("on_notification", &self.on_notification.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("unchecked_answers", &self.unchecked_answers.is_some())
            .finish_non_exhaustive()
    }
}

impl ClientConfig {
    /// Speak this revision, or probe (builder style): takes a
    /// [`ProtocolChoice`] or a [`Revision`].
    pub fn protocol(mut self, protocol: impl Into<ProtocolChoice>) -> Self {
        self.protocol = protocol.into();
        self
    }

    /// Set the wire tap (builder style).
    pub fn on_wire(mut self, tap: impl Fn(Direction, &Value) + Send + Sync + 'static) -> Self {
        self.on_wire = Some(Arc::new(tap));
        self
    }

    /// Answer sampling requests with `handler` (builder style).
    pub fn sampling(mut self, handler: impl super::SamplingHandler + 'static) -> Self {
        self.sampling = Some(Arc::new(handler));
        self
    }

    /// Answer roots requests with `handler` (builder style).
    pub fn roots(mut self, handler: impl super::RootsHandler + 'static) -> Self {
        self.roots = Some(Arc::new(handler));
        self
    }

    /// Set the notice hook (builder style).
    pub fn on_notice(mut self, hook: impl Fn(&Notice) + Send + Sync + 'static) -> Self {
        self.on_notice = Some(Arc::new(hook));
        self
    }

    pub(crate) fn notice(&self, notice: Notice) {
        if let Some(hook) = &self.on_notice {
            hook(&notice);
        }
    }
}
