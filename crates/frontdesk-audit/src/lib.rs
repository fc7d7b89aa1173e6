//! `frontdesk audit`: check any MCP server's elicitation against the spec
//! (2025-11-25 and 2026-07-28) and its security rules, probing it as a
//! careful and as a hostile client would.
//!
//! ```no_run
//! # async fn run() {
//! use frontdesk_audit::{Endpoint, Options, Severity, Target, audit, render};
//!
//! let target = Target::new(Endpoint::url("http://127.0.0.1:8080/mcp"));
//! let options = Options {
//!     calls: vec![("book_return".into(), serde_json::json!({"order_id": "A-1"}))],
//!     ..Options::default()
//! };
//! let report = audit(&target, &options).await;
//! print!("{}", render::table(&report, Some(Severity::Error)));
//! assert!(report.failed_at(Severity::Error).is_empty());
//! # }
//! ```
//!
//! - [`catalog`]: every check as data (id, title, spec reference, severity).
//! - [`audit`]: discovery (revisions, tools, which of them ask — found only by
//!   calling the tools [`Options::calls`] allows), then every check.
//! - [`report`] and [`render`]: the findings, a terminal table and JSON (its
//!   schema: [`render::REPORT_SCHEMA`]).
//!
//! The probes use the frontdesk client as it is (a careful client), and
//! send what a hostile one sends through two narrow doors: retries built by
//! hand with [`frontdesk::client::Client::request`] (2026-07-28) and
//! [`frontdesk::client::ClientConfig::unchecked_answers`] (2025-11-25). No
//! evidence shows a token, a `requestState` or an answer's content unless
//! [`Disclosure::content`] asks for content.

mod answers;
mod call;
pub mod catalog;
mod checks;
mod evidence;
#[cfg(feature = "fixture")]
#[doc(hidden)]
pub mod fixture;
pub mod render;
pub mod report;
mod runner;
mod session;
pub mod target;

pub use catalog::{CHECKS, Check, CheckId, Severity};
pub use evidence::Disclosure;
pub use report::{Finding, Outcome, Report};
pub use runner::{Options, Progress, audit};
pub use target::{Endpoint, Reach, Target};
