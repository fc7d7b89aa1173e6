//! frontdesk host: what shows an MCP elicitation to a person and brings the answer
//! back, as [`frontdesk::client::ElicitationHandler`]s.
//!
//! - [`terminal::TerminalHandler`]: a terminal form (every field with its label,
//!   description, required marker, position ("2 of 5") and pre-filled default or last
//!   answer; readline editing and validation as the person types; titled lists;
//!   multi-select with item limits; a review screen where any field can be edited;
//!   Esc at any prompt to decline, cancel or stop the server asking; Ctrl-C cancels)
//!   and the URL consent screen ([`consent`]), one request at a time ([`queue`]),
//!   wrapped to the terminal's width ([`layout`]), log lines held meanwhile ([`logs`]).
//! - [`parked::ParkedHandler`]: questions kept for someone else to answer later (an
//!   agent relaying them to its person), answers validated like typed ones.
//! - [`scripted::ScriptedHandler`]: answers from a JSON file, validated like a
//!   person's answer.
//! - [`HeadlessHandler`] (the client runtime's, re-exported): no person and no
//!   script: `cancel`, with a reason.
//!
//! [`sampling`] shows a server's sampling request with its whole prompt for
//! approval (a host without a model sends a refusal, never a made-up
//! completion) and turns directories into roots; [`signin`] is the sign-in
//! screen of an OAuth-protected server (the same URL review and consent).
//!
//! [`explain`] puts what travelled on the wire during one tool call into a few
//! sentences (the lab's teaching lines), for any renderer; [`result`] a tool's result,
//! [`problems`] what is wrong with an answer. [`widgets`] is what every renderer
//! (this terminal, the browser page of `frontdesk-web`) shows the same way: a
//! request's [`widgets::Header`], what a field expects, an answer as reviewed, a
//! server's tools, and how a tool's arguments are asked (a form of its input schema,
//! or JSON starting from a skeleton). [`memory`] keeps the person's last answer to
//! each form, for every renderer that starts a form asked again from it.
//!
//! Everything a server says is escaped before it is printed or logged ([`sanitize`]:
//! one path, applied again by every writer to the terminal). The flows
//! run on a [`screen::Screen`], so they are tested with [`screen::FakeScreen`]:
//!
//! ```
//! use frontdesk_form::FormSchema;
//! use frontdesk_host::screen::{FakeInput, FakeScreen};
//! use frontdesk_host::terminal::{FormOutcome, FormRequest, run_form};
//! use frontdesk_host::widgets::Header;
//! use serde_json::json;
//!
//! let schema = FormSchema::builder()
//!     .string("email", |f| f.title("Email").email().required())
//!     .build()
//!     .expect("valid");
//! let form = FormSchema::parse(&schema.to_json()).expect("an object");
//! let header = Header {
//!     server: "shop 1.0".into(),
//!     request: Some("tools/call subscribe".into()),
//!     message: "Where should we write?".into(),
//!     waiting: 0,
//! };
//! let mut screen = FakeScreen::new([
//!     FakeInput::Line("not-an-email".into()),
//!     FakeInput::Line("ann@example.com".into()),
//!     FakeInput::Key('a'),
//! ]);
//! let prefill = schema.prefill();
//! let request = FormRequest {
//!     header: &header,
//!     form: &form,
//!     prefill: &prefill,
//!     previous_errors: None,
//!     remembered: false,
//! };
//! let outcome = run_form(&mut screen, &request);
//! let sent = json!({ "email": "ann@example.com" });
//! assert_eq!(outcome, FormOutcome::Accept(sent.as_object().cloned().unwrap_or_default()));
//! assert!(screen.transcript().contains("Email must be an email address"));
//! ```

pub mod consent;
pub mod explain;
pub mod layout;
pub mod logs;
pub mod memory;
pub mod parked;
pub mod problems;
pub mod queue;
pub mod result;
pub mod sampling;
pub mod sanitize;
pub mod screen;
pub mod scripted;
pub mod signin;
pub mod terminal;
pub mod widgets;

pub use consent::{ConsentOutcome, NoBrowser, Opener, SystemBrowser, UrlAction};
pub use frontdesk::client::HeadlessHandler;
pub use scripted::{Answers, ScriptedHandler};
pub use terminal::{TerminalHandler, terminal_available};
