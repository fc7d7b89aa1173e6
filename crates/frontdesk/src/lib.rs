//! frontdesk runtime: the MCP server and client built on the pure crates.
//!
//! # Asking the person
//!
//! Describe what you need as a plain struct with `#[derive(Form)]`, then ask
//! for it from a tool with [`ToolContext::ask`](server::ToolContext::ask) and
//! [`Question::form`](server::Question::form).
//! The same handler works on every client: a 2025-11-25 session gets an
//! `elicitation/create` request, a 2026-07-28 client an `input_required`
//! result and a retry. The answer is validated against the form's schema
//! (on 2025-11-25 the person is asked again with the problems when it does
//! not fit) and arrives typed.
//!
//! ```
//! use frontdesk::form::{Date, Email};
//! use frontdesk::server::{
//!     Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
//! };
//! use frontdesk::{Form, FormEnum};
//!
//! /// Why a return is made: a single-select field.
//! #[derive(Debug, Clone, Copy, PartialEq, Eq, FormEnum)]
//! #[form(rename_all = "snake_case")]
//! enum Reason {
//!     #[form(title = "It arrived damaged")]
//!     Damaged,
//!     #[form(title = "Wrong item")]
//!     WrongItem,
//! }
//!
//! #[derive(Debug, Form)]
//! struct Pickup {
//!     #[form(title = "Reason")]
//!     reason: Reason,
//!     #[form(title = "Pickup date")]
//!     pickup_date: Date,
//!     #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
//!     boxes: u8,
//!     /// Where we send the label, if not to your account address.
//!     #[form(title = "Contact email")]
//!     contact_email: Option<Email>,
//! }
//!
//! async fn book_pickup(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
//!     let question = Question::form::<Pickup>("When should we pick up the parcel?");
//!     Ok(match cx.ask(question).await? {
//!         Answer::Accepted(p) => ToolOutput::text(format!(
//!             "{} box(es) on {} ({:?})",
//!             p.boxes, p.pickup_date, p.reason
//!         )),
//!         Answer::Declined => ToolOutput::text("No pickup was booked."),
//!         Answer::Cancelled => ToolOutput::text("Dismissed."),
//!     })
//! }
//!
//! // The `requestedSchema` the client renders, checked at compile time.
//! let schema = Pickup::schema();
//! assert_eq!(schema.required(), ["reason", "pickup_date"]);
//! assert_eq!(
//!     schema.to_json()["properties"]["pickup_date"],
//!     serde_json::json!({"type": "string", "title": "Pickup date", "format": "date"})
//! );
//!
//! let server = Server::builder("pickups", "1.0.0")
//!     .tool(ToolDef::new("book_pickup", "Book a parcel pickup", book_pickup))
//!     .build();
//! # async fn serve(server: Server) -> std::io::Result<()> {
//! frontdesk::server::stdio::serve_stdio(server).await
//! # }
//! # let _ = serve;
//! ```
//!
//! The derive's attributes (titles, bounds, formats, defaults, renames) are
//! documented on [`Form`](macro@Form); forms only known at run time are
//! built with [`FormSchema::builder`](form::FormSchema::builder) and asked
//! with [`Question::schema`](server::Question::schema); a page to open
//! (sign-in, payment) with [`Question::url`](server::Question::url).
//!
//! # Beyond tools
//!
//! Prompts, resources and resource templates get the same
//! [`ToolContext`](server::ToolContext), so they can ask too (a 2026-07-28
//! read that asks answers `input_required`). Next to tools a server offers:
//!
//! - **resources**: [`ResourceDef`](server::resource::ResourceDef) and
//!   [`ResourceTemplateDef`](server::resource::ResourceTemplateDef), read as
//!   [`ResourceOutput`](server::resource::ResourceOutput) (text or binary, with
//!   caching hints);
//! - **completion** of prompt arguments and template variables
//!   ([`PromptDef::completion`](server::prompt::PromptDef::completion));
//! - **logging** ([`ToolContext::log`](server::ToolContext::log)) and
//!   **progress** ([`ToolContext::report_progress`](server::ToolContext::report_progress));
//! - the client's model and roots ([`ToolContext::sample`](server::ToolContext::sample),
//!   [`ToolContext::roots`](server::ToolContext::roots));
//! - change notifications and subscriptions
//!   ([`Server::notify_resource_updated`](server::Server::notify_resource_updated));
//! - tasks ([`ToolContext::continue_as_task`](server::ToolContext::continue_as_task)).
//!
//! ```
//! use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
//! use frontdesk::server::resource::{ResourceDef, ResourceOutput};
//! use frontdesk::wire::LoggingLevel;
//!
//! async fn reindex(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
//!     cx.log(LoggingLevel::Info, "reindexing".into());
//!     cx.report_progress(1.0, Some(1.0), Some("done"));
//!     Ok(ToolOutput::text("Reindexed."))
//! }
//!
//! let server = Server::builder("notes", "1.0.0")
//!     .tool(ToolDef::new("reindex", "Rebuild the index", reindex))
//!     .resource(ResourceDef::text("notes://todo", "todo", "text/plain", "- water the plants"))
//!     .build();
//! # let _ = server;
//! ```
//!
//! # Tool arguments
//!
//! A tool's arguments are a type that deserializes with `serde` and describes
//! itself with `schemars`. Both are re-exported here, so a server needs no
//! version-matched dependency of its own; point the derives at them:
//!
//! ```
//! use frontdesk::schemars::JsonSchema;
//! use frontdesk::serde::Deserialize;
//!
//! /// Which order to return.
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(crate = "frontdesk::serde")]
//! #[schemars(crate = "frontdesk::schemars")]
//! struct ReturnArgs {
//!     /// The order number, e.g. `A-1001`.
//!     order_id: String,
//! }
//! # let _ = frontdesk::server::tool::input_schema_for::<ReturnArgs>();
//! ```
//!
//! A tool without arguments takes [`NoArgs`](server::NoArgs); its input
//! schema is `{"type": "object"}`.
//!
//! # Features
//!
//! | Feature | What it adds |
//! | --- | --- |
//! | `server` | [`server`], [`state`], [`flows`], [`tasks`]: tools, prompts, resources, completion, logging, progress, subscriptions, tasks, `ask`, both revisions, sealed request state, URL flows |
//! | `client` | [`client`]: capabilities, the `input_required` loop, the elicitation handler interface, in-process connections |
//! | `stdio` | newline-delimited JSON on stdin/stdout: `server::stdio::serve_stdio`, `Client::connect_stdio` |
//! | `http-server` | [`http`]: Streamable HTTP for the server (axum), implies `server` |
//! | `http-client` | `Client::connect_http`: Streamable HTTP for the client (reqwest on rustls), implies `client` |
//!
//! All are on by default. A host that only renders questions depends on
//! `frontdesk` with `default-features = false, features = ["client"]` and
//! gets no HTTP server; a server on stdio takes `["server", "stdio"]`.
//!
//! # Modules
//!
//! - [`server`]: the MCP server (tools, prompts and resources that ask,
//!   completion, logging, progress, subscriptions, tasks; both revisions).
//! - [`wire`]: the MCP messages (`frontdesk-wire`), re-exported.
//! - [`form`]: the form model (`frontdesk-form`), re-exported.
//! - [`client`]: the MCP client and the elicitation handler interface.
//! - [`state`]: sealed `requestState` (AEAD, key rotation, expiry, principal and
//!   request binding) and single-use redemption through a nonce store.
//! - [`flows`]: URL-mode elicitations as pending flows, with connect tokens.
//! - [`tasks`]: task records in a store, so tasks outlive an instance.
//! - [`http`]: the Streamable HTTP transport (both revisions on one endpoint).
//! - [`shutdown`]: the signals that stop a `serve` function.
//! - [`store`] and [`clock`]: what the stores share (errors, boxed futures, time).
//! - [`stores`]: durable and shared stores for flows, redeemed states and tasks
//!   (SQLite, Redis), behind features.
//!
//! # Features
//!
//! | Feature | Adds |
//! | --- | --- |
//! | `jwt` | `http::auth::jwt`: OAuth 2.1 bearer JWTs checked against a JWKS |
//! | `tls` | `http::tls`: HTTPS for the HTTP server (rustls on ring), PEM files reloaded on `SIGHUP`, HTTP/2 by ALPN |
//! | `sqlite` | `stores::sqlite`: flows, redeemed states and task records in one SQLite file (bundled SQLite) |
//! | `redis` | `stores::redis`: flows, redeemed states and task records in Redis, completions over pub/sub, and (with `http-server`) the 2025-11-25 session event archive, for several instances |

#[cfg(feature = "client")]
pub mod client;
pub mod clock;
mod errors;
#[cfg(any(feature = "server", feature = "client"))]
mod fingerprint;
#[cfg(feature = "server")]
pub mod flows;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[cfg(feature = "http-server")]
pub mod http;
#[cfg(feature = "server")]
pub mod metrics;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod shutdown;
#[cfg(feature = "server")]
pub mod state;
pub mod store;
pub mod stores;
#[cfg(feature = "server")]
pub mod tasks;
#[cfg(any(feature = "http-client", feature = "jwt"))]
mod tls_default;

pub use errors::{Party, Reason};
pub use frontdesk_form as form;
/// The wire types (`frontdesk-wire`): every MCP message of both revisions.
pub use frontdesk_wire as wire;

/// `schemars`, which describes tool arguments (`#[schemars(crate = "frontdesk::schemars")]`).
#[cfg(feature = "server")]
pub use schemars;
/// `serde`, which reads tool arguments (`#[serde(crate = "frontdesk::serde")]`).
pub use serde;
/// `serde_json`, whose `Value` and `json!` the API takes and returns.
pub use serde_json;

/// `#[derive(Form)]`: a struct as an elicitation form (see the
/// `frontdesk-derive` crate docs for its attributes).
pub use frontdesk_derive::Form;
/// `#[derive(FormEnum)]`: a field-less enum as the options of a select field.
pub use frontdesk_derive::FormEnum;
/// The traits the derives implement, so `use frontdesk::Form;` brings both
/// the derive and the trait (as `use serde::Serialize;` does).
pub use frontdesk_form::{Form, FormEnum};

/// A boxed, `Send` future borrowing from `'a`: what the methods of the
/// traits this crate holds as `Arc<dyn …>` return (stores, elicitation and
/// sampling handlers, authenticators), as native `async fn` in traits is
/// not dyn-compatible. Implementations write `Box::pin(async move { … })`.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The README's examples, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
