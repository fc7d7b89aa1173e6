//! What can go wrong, for whom: [`AskError`] (a question got no answer),
//! [`ToolError`] (a handler stopped without a result) and [`RpcError`] (the
//! JSON-RPC error a request is answered with).
//!
//! None of them knows HTTP: a transport reads the [`Failure`] of a
//! [`Handled`](crate::server::contract::Handled) to choose its own status.

use frontdesk_wire::{ErrorCode, ErrorObject, MessageError, MessageErrorKind, RequestId};
use serde_json::Value;

use frontdesk_form::FormError;

use crate::errors::party_predicates;
use crate::{Party, Reason};

/// Why a question produced no [`Answer`](crate::server::api::question::Answer).
///
/// Handlers normally propagate it with `?`: the runtime turns each case into
/// the right result or JSON-RPC error for the client's revision. A 2026-07-28
/// question whose answer has not arrived yet is not an error at all: the
/// handler is simply not continued (see [`ToolContext::ask`](crate::server::api::context::ToolContext::ask)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not declare the capability the question needs (a
    /// client that shows forms but not URLs, or no elicitation at all).
    /// Propagated, it becomes `-32021` with `data.requiredCapabilities` on
    /// 2026-07-28 and an `isError` result on 2025-11-25; a handler that can
    /// do without (e.g. return the link as text) matches
    /// [`is_unsupported`](Self::is_unsupported) first.
    #[error("the client does not support this kind of question")]
    MissingCapability {
        /// The missing capability, e.g. `{"elicitation": {"url": {}}}`.
        required: Value,
    },
    /// No answer arrived within the human-wait budget.
    #[error("no answer within the time allowed")]
    TimedOut,
    /// The request was cancelled or the client went away.
    #[error("the request was cancelled or the client disconnected")]
    Disconnected,
    /// The server is shutting down ([`Server::drain`](crate::server::Server::drain)):
    /// the question was withdrawn (`notifications/cancelled` with a reason)
    /// or never asked. Propagated, the call ends with an `isError` result
    /// that tells the caller to call again (another instance will answer).
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The client's reply is not a well-formed result (bad input from the wire).
    #[error("invalid response for {key:?}: {reason}")]
    InvalidResponse {
        /// The question key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Accepted content kept failing the question's schema.
    #[error("the answer did not fit the form: {0}")]
    InvalidAnswer(FormError),
    /// The client answered our request with a JSON-RPC error (2025-11-25).
    #[error("the client refused the request: {message} ({code})")]
    ClientError {
        /// Its error code.
        code: i64,
        /// Its error message.
        message: String,
    },
    /// The question could not be asked now: too many questions or URL flows
    /// are waiting (on this session, for this client, or on the whole
    /// server). Propagated, it becomes an `isError` result saying so.
    #[error("too busy to ask: {0}")]
    Busy(Busy),
    /// A server-side failure (sealing state, flow store…).
    #[error("internal error: {0}")]
    Internal(Reason),
}

/// What there were too many of when a question was refused
/// ([`AskError::Busy`]), each against its bound in [`ServerConfig`](crate::server::ServerConfig).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Busy {
    /// Questions waiting on the whole server (`max_questions`).
    ServerQuestions,
    /// Questions waiting on this session (`max_questions_per_session`).
    SessionQuestions,
    /// Sign-ins (URL flows) of this client in progress (`max_flows_per_client`).
    ClientFlows,
    /// Sign-ins in progress on the whole server (the flow store is full).
    ServerFlows,
}

impl Busy {
    /// Who must act: the client, when it is over its own share (it can
    /// finish or cancel one); the operator, when the server is at a bound.
    pub fn party(self) -> Party {
        match self {
            Self::SessionQuestions | Self::ClientFlows => Party::Caller,
            Self::ServerQuestions | Self::ServerFlows => Party::Operator,
        }
    }
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ServerQuestions => "the server has too many questions waiting for answers",
            Self::SessionQuestions => "this session has too many questions waiting for answers",
            Self::ClientFlows => {
                "too many sign-ins of this client are in progress; finish or cancel one first"
            }
            Self::ServerFlows => "the server has too many sign-ins in progress",
        })
    }
}

impl AskError {
    /// Whether the client cannot be asked this kind of question at all.
    ///
    /// ```
    /// # use frontdesk::server::{Answer, AskError, Question, ToolContext, ToolError, ToolOutput};
    /// # async fn sign_in(cx: ToolContext) -> Result<ToolOutput, ToolError> {
    /// match cx.ask(Question::url("Sign in to connect your account.", |t| {
    ///     format!("https://shop.example/connect?token={}", t.connect_token)
    /// })).await {
    ///     Ok(Answer::Accepted(())) => Ok(ToolOutput::text("Connected.")),
    ///     Ok(_) => Ok(ToolOutput::text("Not connected.")),
    ///     // A form-only client: say what to do instead of failing opaquely.
    ///     Err(e) if e.is_unsupported() => Ok(ToolOutput::error(
    ///         "This client cannot open sign-in pages. Connect your account at \
    ///          https://shop.example/account, then call this tool again.",
    ///     )),
    ///     Err(e) => Err(e.into()),
    /// }
    /// # }
    /// ```
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::MissingCapability { .. })
    }

    /// Who must act to get past it: the caller for what its client did
    /// not declare, sent malformed, refused or dropped; the person for no
    /// answer in time or one that does not fit; the caller or operator for
    /// a bound ([`Busy::party`]); the operator for a shutdown; the server's author for an internal
    /// failure.
    pub fn party(&self) -> Party {
        match self {
            Self::MissingCapability { .. }
            | Self::Disconnected
            | Self::InvalidResponse { .. }
            | Self::ClientError { .. } => Party::Caller,
            Self::TimedOut | Self::InvalidAnswer(_) => Party::Person,
            Self::Busy(busy) => busy.party(),
            Self::ShuttingDown => Party::Operator,
            Self::Internal(_) => Party::Author,
        }
    }
}

/// Why a tool or prompt handler stopped without a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// A question could not be answered (propagated with `?` from `ask`).
    #[error(transparent)]
    Ask(#[from] AskError),
    /// The tool failed in a way the model should see (`isError: true`
    /// result, with these words).
    #[error("{0}")]
    Execution(Reason),
    /// A protocol-level failure, answered as this JSON-RPC error.
    #[error("{0}")]
    Rpc(RpcError),
    /// URL interactions must finish first: `-32042` on 2025-11-25. Only
    /// [`ToolContext::url_elicitation_required`](crate::server::ToolContext::url_elicitation_required)
    /// builds it (on 2026-07-28, which has no `-32042`, that asks the URL as
    /// a question instead); [`UrlElicitations`] has no public constructor.
    #[error("URL elicitation required")]
    UrlElicitationRequired(UrlElicitations),
}

/// The URL interactions of a [`ToolError::UrlElicitationRequired`] (the
/// entries of a 2025-11-25 `-32042` error), each with its flow.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlElicitations(Vec<UrlElicitation>);

impl UrlElicitations {
    /// The interactions, in order.
    pub fn iter(&self) -> impl Iterator<Item = &UrlElicitation> {
        self.0.iter()
    }

    pub(crate) fn one(elicitation: UrlElicitation) -> Self {
        Self(vec![elicitation])
    }

    pub(crate) fn into_vec(self) -> Vec<UrlElicitation> {
        self.0
    }
}

/// One URL interaction a request needs before it can proceed.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlElicitation {
    pub(crate) elicitation_id: String,
    pub(crate) message: String,
    pub(crate) url: String,
}

impl UrlElicitation {
    /// The flow id, sent as `elicitationId`.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// Why the interaction is needed.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The page to open.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl ToolError {
    /// A tool-execution error with this message.
    pub fn execution(message: impl Into<String>) -> Self {
        Self::Execution(Reason::from(message.into()))
    }

    /// Who must act to get past it: the caller (the model) for an
    /// execution error it reads; the person for a page to visit; otherwise
    /// who the question's or the JSON-RPC error's party is.
    pub fn party(&self) -> Party {
        match self {
            Self::Ask(e) => e.party(),
            Self::Execution(_) => Party::Caller,
            Self::Rpc(e) => e.party(),
            Self::UrlElicitationRequired(_) => Party::Person,
        }
    }

    /// A `-32602` invalid-params JSON-RPC error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::Rpc(RpcError::invalid_params(message))
    }

    /// A failure inside the server (logged; the client sees `-32603`
    /// without the detail).
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::Ask(AskError::Internal(Reason::from(detail.into())))
    }
}

/// What kind of JSON-RPC error a response carries, so a transport can map it
/// to its own status (HTTP does in `frontdesk::http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The message could not be read as JSON-RPC at all (`-32700`/`-32600`).
    Unreadable,
    /// A 2026-07-28 request without the `_meta` it requires (`-32602`).
    MissingMeta,
    /// One client is over its share (requests in flight on its session or
    /// from its address): `-32000`; HTTP answers `429`.
    Busy,
    /// The server as a whole is at a bound: `-32000`; HTTP answers `503`.
    Overloaded,
    /// Any other JSON-RPC error.
    Error(ErrorCode),
}

/// A JSON-RPC error the server answers with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The `error` member of the response (boxed: it is large, and errors
    /// travel in `Result`s on every path).
    error: Box<ErrorObject>,
    failure: Failure,
}

impl RpcError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject::new(code, message).into()
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.error.data = Some(data);
        self
    }

    /// The error code.
    pub fn code(&self) -> ErrorCode {
        self.error.code
    }

    /// The error message.
    pub fn message(&self) -> &str {
        &self.error.message
    }

    /// The wire error object.
    pub fn error_object(&self) -> &ErrorObject {
        &self.error
    }

    /// What kind of failure this is, for transports.
    pub fn failure(&self) -> Failure {
        self.failure
    }

    /// Who must act to get past it: the operator for a server at a bound,
    /// the server's author for an internal error, the caller for anything
    /// else (its message, its share, what it asked for).
    pub fn party(&self) -> Party {
        match self.failure {
            Failure::Overloaded => Party::Operator,
            Failure::Error(ErrorCode::INTERNAL_ERROR) => Party::Author,
            _ => Party::Caller,
        }
    }

    /// `-32700` parse error.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::from(ErrorObject::parse_error(format!("Parse error: {detail}"))).unreadable()
    }

    /// `-32600` invalid request.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        ErrorObject::invalid_request(detail).into()
    }

    /// `-32601` method not found.
    pub fn method_not_found(method: &str) -> Self {
        ErrorObject::method_not_found(method).into()
    }

    /// `-32602` invalid params.
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        ErrorObject::invalid_params(detail).into()
    }

    /// `-32602` for a 2026-07-28 request missing a required `_meta` member.
    pub(crate) fn missing_meta(what: &str) -> Self {
        Self {
            failure: Failure::MissingMeta,
            ..Self::invalid_params(format!("Invalid params: missing required {what}"))
        }
    }

    /// `-32603` internal error.
    pub fn internal(detail: impl Into<String>) -> Self {
        ErrorObject::internal_error(detail).into()
    }

    /// `-32000`: this client is over its share; try again later.
    pub fn busy(detail: impl Into<String>) -> Self {
        Self {
            failure: Failure::Busy,
            ..ErrorObject::new(ErrorCode::SERVER_BUSY, detail).into()
        }
    }

    /// `-32000`: the server is at a bound; try again later.
    pub fn overloaded(detail: impl Into<String>) -> Self {
        Self {
            failure: Failure::Overloaded,
            ..ErrorObject::new(ErrorCode::SERVER_BUSY, detail).into()
        }
    }

    fn unreadable(mut self) -> Self {
        self.failure = Failure::Unreadable;
        self
    }

    /// A message the wire classifier rejected: `-32700` for bad JSON,
    /// `-32600` for every shape problem (non-object `params` included), in
    /// the server's own words.
    pub(crate) fn rejected(e: &MessageError) -> Self {
        use MessageErrorKind as K;
        let detail = match e.kind() {
            K::Parse => return Self::parse_error(e),
            K::Batch => "batches are not supported",
            K::NotAnObject => "a message must be a JSON object",
            K::InvalidVersion => "\"jsonrpc\" must be \"2.0\"",
            K::InvalidMethod => "\"method\" must be a string",
            K::InvalidParams => "\"params\" must be an object",
            K::NoKind if e.id().is_none() => "neither a request, a notification nor a response",
            K::InvalidId => "\"id\" must be a string or an integer",
            _ => "a response needs exactly one of \"result\" and \"error\"",
        };
        Self::invalid_request(format!("Invalid request: {detail}")).unreadable()
    }

    /// The error response to send for request `id` (`None`: unreadable,
    /// written as `"id": null`).
    pub fn to_response(&self, id: Option<&RequestId>) -> Value {
        frontdesk_wire::JsonRpcMessage::from(frontdesk_wire::JsonRpcErrorResponse::new(
            id.cloned(),
            (*self.error).clone(),
        ))
        .to_value()
    }
}

impl From<ErrorObject> for RpcError {
    fn from(error: ErrorObject) -> Self {
        Self {
            failure: Failure::Error(error.code),
            error: Box::new(error),
        }
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.error.message, self.error.code.0)
    }
}

impl std::error::Error for RpcError {}

party_predicates!(AskError, ToolError, RpcError);
