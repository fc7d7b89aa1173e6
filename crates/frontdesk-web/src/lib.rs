//! frontdesk's browser host: the questions of an MCP server (forms and URL
//! consent), the queue, the tools and the wire, on a protected page served on
//! loopback, as the [`WebHandler`] behind a [`frontdesk::client::Client`].
//!
//! ```no_run
//! use std::sync::Arc;
//! use frontdesk::client::Client;
//! use frontdesk_web::{Connector, WebHost, WebOptions};
//!
//! # async fn run() -> std::io::Result<()> {
//! let host = WebHost::bind(WebOptions::new("frontdesk connect").target("my server")).await?;
//! eprintln!("open {}", host.url()); // the launch secret is in the URL
//! let connector: Connector = Arc::new(|config, handler| {
//!     Box::pin(async move {
//!         Client::connect_http("http://127.0.0.1:3917/mcp", config, handler)
//!             .await
//!             .map_err(|e| e.to_string())
//!     })
//! });
//! host.run(connector, async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```
//!
//! `frontdesk lab --web` and `frontdesk connect --web` are built on it.
//!
//! # What the page does
//!
//! - **Forms**: who asks (server name and version, the call it belongs to), the
//!   message, every field with its control (text, email, URL, date, date-time,
//!   integer and number with their range, checkbox, single select showing titles,
//!   multi-select with its item limits), descriptions, required markers, defaults,
//!   a warning on fields that look like secrets. Messages appear as the person
//!   types; **Review** stays disabled while the form is invalid; the review step
//!   shows exactly what will be sent, with **Accept**; **Decline** and **Cancel**
//!   are on every step.
//! - **URL consent**: the full URL as text with its registrable domain
//!   highlighted, every finding of the URL review with its severity, and **Open
//!   link**, **Decline**, **Cancel** with no default. A refused URL has no Open
//!   link and the page is never given it to open. The link opens in a new tab
//!   (`noopener`, `noreferrer`) only from the click on Open link.
//! - **Queue**: questions arrive in order, one on screen, every one listed with
//!   the server and call it belongs to.
//! - **The wire**: per call, every JSON-RPC message (collapsible, pretty-printed,
//!   answers to fields the form model's sensitive-field lint flags masked before
//!   they are even stored), and when the call ends the same explanation the
//!   terminal lab gives ([`frontdesk_host::explain`]). Results as text, their JSON
//!   on demand.
//!
//! # Why server-rendered HTML with a little script
//!
//! The page is rendered by this crate (`view`) from the same state the handler
//! fills; the only script, `assets/app.js` (about 250 lines with comments, hand-written), adds
//! three things: live checks (it posts the form's controls to the local server and
//! shows the messages it gets back), refreshing when the state changes (a
//! long-polled status), and opening a consented link on its click. Every choice is
//! an ordinary form post, so the flows work from the keyboard, are testable by
//! role and label, and keep working if the script fails.
//!
//! A compiled front end (a framework, or the form model compiled to WebAssembly)
//! would add a second toolchain and build step to a Rust repository and a second
//! place where forms are rendered. Here there is one form model and one renderer
//! per host: validation messages come from `frontdesk-form` through the local
//! server, exactly as the terminal host's do, and nothing is re-implemented in
//! JavaScript. The cost is a round trip per check on loopback (well under a
//! millisecond) and a page refresh when a new question arrives; drafts are kept on
//! the server, so a refresh loses nothing typed.
//!
//! # How the page is protected
//!
//! Like a local admin page: loopback only; a secret made
//! for each launch as the first path segment (`404` without it); `Host` must name
//! the listener and `Origin` must be the page's own (`403` otherwise; requests that
//! change something must send it); a strict Content-Security-Policy
//! (`default-src 'none'; script-src 'self'; style-src 'self'; …`, no inline script
//! or style); the address never sent to another site as a referrer; no framing,
//! no caching. Server text reaches the page
//! only escaped by one function (`html::esc`) in the rendered markup, or through
//! `textContent` in the script; nothing is ever inserted with `innerHTML`. Controls
//! are named by position (`f0`, option `2`), so no server string becomes a name,
//! id or submitted value. All assets are embedded with `include_str!`: the page
//! needs no network.
//!
//! It never speaks JSON-RPC itself: it renders [`frontdesk::client::Elicitation`]s
//! and hands answers back to the client runtime, which validates them again.

mod draft;
mod guard;
mod handler;
mod host;
mod html;
mod routes;
mod session;
mod state;
mod view;
mod wire;

pub use handler::WebHandler;
pub use host::{WebHost, WebOptions, open_in_browser};
pub use session::Connector;
