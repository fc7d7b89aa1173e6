//! The MCP server: tools, prompts and resources whose handlers ask the
//! person for input once and work against every client, 2025-11-25 and
//! 2026-07-28; completion of prompt arguments and template variables;
//! logging, progress, sampling and roots from any handler; change
//! notifications and subscriptions; tools that continue as tasks.
//!
//! The main way to ask is a typed form: a struct with `#[derive(Form)]`
//! ([`Form`](crate::Form), at the crate root with its trait) asked with
//! [`ToolContext::ask`] and [`Question::form`]. The answer comes back
//! validated and typed.
//!
//! ```no_run
//! use frontdesk::Form;
//! use frontdesk::form::Email;
//! use frontdesk::server::{
//!     Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
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
//! The names above are what a server author writes at the top; the rest is
//! grouped by what it is about: [`prompt`], [`resource`], [`completion`],
//! [`tool`] (header parameters, task support, forwarding), [`question`]
//! (the typed questions, [`FlowTicket`](question::FlowTicket)) and
//! [`error`] (what the errors carry).
//!
//! - **Resources**: [`ResourceDef`](resource::ResourceDef) (a fixed URI) and
//!   [`ResourceTemplateDef`](resource::ResourceTemplateDef) (an RFC 6570
//!   template), registered with [`ServerBuilder::resource`] and
//!   [`ServerBuilder::resource_template`]. Their handlers get the same
//!   [`ToolContext`], so a read can ask; 2026-07-28 reads carry `ttlMs` and
//!   `cacheScope` ([`ResourceOutput::cache`](resource::ResourceOutput::cache)).
//! - **Completion**: [`PromptDef::completion`](prompt::PromptDef::completion)
//!   and [`ResourceTemplateDef::completion`](resource::ResourceTemplateDef::completion)
//!   answer `completion/complete`
//!   ([`completions_matching`](completion::completions_matching) filters a
//!   list by what was typed).
//! - **Content**: [`ToolOutput::new`] and
//!   [`PromptOutput::message`](prompt::PromptOutput::message) take any
//!   [`ContentBlock`](crate::wire::ContentBlock): text, image, audio,
//!   resource link, embedded resource.
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
//! A form only known at run time is built with
//! [`FormSchema::builder`](crate::form::FormSchema::builder) (or read from
//! JSON with [`FormSchema::parse_strict`](crate::form::FormSchema::parse_strict))
//! and asked with [`Question::schema`]; its answer is the validated content
//! as a JSON map. Accepted content is judged by
//! [`FormSchema::accept`](crate::form::FormSchema::accept), the same
//! function the client runtime uses before it sends an answer.
//! [`Question::url`] sends the person to a page (sign-in, payment). Every
//! handler also gets [`ToolContext::once`] for side effects that must not
//! repeat when a 2026-07-28 call re-runs it, [`ToolContext::state`] for the
//! application state registered with [`ServerBuilder::state`], and
//! [`ToolContext::notify_resource_updated`] (and the list-changed siblings)
//! to announce a change.
//! Either way, the content is re-validated on the server (whole numbers sent
//! as `3.0` to integer fields are accepted as `3`, missing optional fields
//! take their defaults, undeclared keys are dropped).
//!
//! # Transport-facing API
//!
//! Transports only move bytes; everything else happens in [`Server::handle`]:
//!
//! 1. Make one [`Session`](transport::Session) per connection that can carry 2025-11-25 traffic
//!    ([`Server::session`]): one per stdio process, one per HTTP
//!    `Mcp-Session-Id` (mint it on the response to `initialize`; its
//!    [`Session::id`](transport::Session::id) is suitable). 2026-07-28 requests need no session
//!    (pass `None` on HTTP; stdio passes its one session so
//!    `notifications/cancelled` can stop them).
//! 2. Read the bytes of one message with [`Server::parse_message`] (size
//!    bound, `-32700` on bad JSON) into an [`Incoming`](transport::Incoming):
//!    the message read once, with the revision it is served in and, for a
//!    `tools/call`, its tool found. A transport that knows the revision
//!    (HTTP's `MCP-Protocol-Version`) says so with
//!    [`Server::parse_message_as`].
//! 3. Call [`Server::handle`] with an [`OutboundSink`](transport::OutboundSink) for messages related
//!    to this request (progress, log messages and, on 2025-11-25, the
//!    server's `elicitation/create` requests): on HTTP, the POST's SSE stream;
//!    on stdio, the single writer. Everything pushed to the sink is sent
//!    before the final response, which `handle` returns in [`Handled`](transport::Handled) as
//!    JSON text ready to write (`None` for notifications, client responses
//!    and cancelled requests).
//! 4. A JSON-RPC *response* from the client (the answer to our
//!    `elicitation/create`) also goes through `handle`; the session routes it
//!    to the waiting question (HTTP: answer `202`).
//! 5. [`Handled::failure`](transport::Handled::failure) says what kind of error a response carries (an
//!    unreadable message, a 2026-07-28 request without `_meta`, or an error
//!    code), so a transport can choose its own status; the HTTP transport
//!    does.
//! 6. Messages unrelated to any request (2025-11-25
//!    `notifications/elicitation/complete` after a `-32042`) arrive on
//!    [`Session::unsolicited`](transport::Session::unsolicited); drain it into the GET stream.
//! 7. When the connection goes away, call [`Session::close`](transport::Session::close): waiting
//!    questions end and in-flight calls are dropped. On 2026-07-28 HTTP,
//!    dropping the `handle` future is the cancellation.
//! 8. URL flows are completed by the server's own page calling
//!    [`Server::complete_flow`] with the connect token.
//!
//! Header checks of 2026-07-28 HTTP (`-32020`) are the HTTP transport's and
//! run before `handle`, on the same [`Incoming`](transport::Incoming);
//! [`Incoming::revision`](transport::Incoming::revision) tells which
//! revision it is served in.
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

//!
//! # Layout
//!
//! Three layers, each using only the ones below it:
//!
//! - `api`: what a server author writes and reads: tools, prompts,
//!   resources, questions and answers, errors, [`ToolContext`],
//!   [`ServerConfig`];
//! - `engine`: one call's life (the call, invoking a handler, URL flows,
//!   the shared request steps, load, subscriptions, the task table, kept
//!   retry replies, 2025-11-25 sessions);
//! - on top, one module per way a question reaches a client (`legacy`:
//!   2025-11-25 live requests; `modern`: 2026-07-28 rounds; `task`: the
//!   Tasks extension), `dispatch` (which of them serves a message), the
//!   [`Server`] and [`ServerBuilder`] (`entry`), and the stdio transport.
//!
//! The transport contract is [`transport`].

pub(crate) mod api;
pub(crate) mod contract;
mod dispatch;
pub(crate) mod engine;
mod entry;
mod legacy;
mod modern;
#[cfg(feature = "stdio")]
pub mod stdio;
mod task;
mod trace;

/// The hash of maps whose keys the server's own code chose (tool and prompt
/// names, a handler's question and step keys): fast and keyed per process.
/// A client can look such a key up but never add one, so SipHash's
/// resistance to chosen keys would buy nothing there; maps a client adds keys
/// to (its address or principal) keep the standard library's SipHash.
pub(crate) type OwnKeysHasher = foldhash::fast::RandomState;

pub use api::config::ServerConfig;
pub use api::context::ToolContext;
pub use api::error::{AskError, RpcError, ToolError};
pub use api::question::{Answer, Question};
pub use api::tool::{NoArgs, ToolDef, ToolOutput};
pub use entry::{Server, ServerBuilder};

/// What a question is made of, beyond [`Question`] and [`Answer`]: the
/// typed questions [`Question`]'s constructors return, the [`Ask`](question::Ask)
/// trait [`ToolContext::ask`] takes, the raw [`InputRequest`](question::InputRequest)
/// of [`ToolContext::ask_all`], and the [`FlowTicket`](question::FlowTicket) a
/// URL question's page address is made from.
pub mod question {
    pub use super::api::flow_ticket::FlowTicket;
    pub use super::api::question::{Ask, FormQuestion, InputRequest, SchemaQuestion, UrlQuestion};
    pub use super::api::relayed_url::RelayedUrlQuestion;
}

/// What the errors above carry: the limit an [`AskError::Busy`] names, and
/// the URL interactions of a [`ToolError::UrlElicitationRequired`] (built
/// only by [`ToolContext::url_elicitation_required`]).
pub mod error {
    pub use super::api::error::{Busy, UrlElicitation, UrlElicitations};
}

/// More about tools, beyond [`ToolDef`], [`ToolOutput`] and [`NoArgs`]:
/// header parameters ([`ToolDef::header_param`]), task support
/// ([`ToolDef::task_support`]), the input schema of an arguments type, and
/// tools served for someone else ([`ServerBuilder::forward_tools`]).
pub mod tool {
    pub use super::api::tool::{
        HeaderParam, HeaderParamError, TaskSupport, ToolForward, input_schema_for,
    };
}

/// Prompts: [`PromptDef`](prompt::PromptDef), registered with
/// [`ServerBuilder::prompt`], and what its handler returns.
pub mod prompt {
    pub use super::api::prompt::{PromptArgument, PromptDef, PromptForward, PromptOutput};
}

/// Resources: [`ResourceDef`](resource::ResourceDef) (a fixed URI) and
/// [`ResourceTemplateDef`](resource::ResourceTemplateDef) (an RFC 6570
/// template), registered with [`ServerBuilder::resource`] and
/// [`ServerBuilder::resource_template`], what their handlers get and return.
pub mod resource {
    pub use super::api::resource::{
        ResourceDef, ResourceOutput, ResourceRequest, ResourceTemplateDef,
    };
    pub use super::api::resource_registry::ResourceForward;
    pub use super::api::uri_template::UriTemplateError;
}

/// Completion of prompt arguments and template variables
/// (`completion/complete`): what a completion handler gets, and a filter
/// for a fixed list of values.
pub mod completion {
    pub use super::api::completion::{CompletionRequest, completions_matching};
}

/// The transport contract, for people who write a transport (the stdio and
/// Streamable HTTP ones are in this crate): what a transport hands
/// [`Server::handle`] and gets back. A server author needs none of it; see
/// "Transport-facing API" above for the steps.
pub mod transport {
    pub use super::api::error::Failure;
    pub use super::contract::incoming::Incoming;
    pub use super::contract::{Handled, OutboundSink, RequestInfo};
    pub use super::engine::session::Session;
}
