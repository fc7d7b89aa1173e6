//! URL review for MCP URL-mode elicitation: may this link be opened, and how to
//! show it honestly.
//!
//! In URL mode a server hands the person a link (sign-in, payment, secrets). A host
//! must never open it without consent, must show where it really goes, and must warn
//! about links built to deceive. [`review`] checks a URL against a [`UrlPolicy`] and
//! returns a [`UrlReview`]: a [`Verdict`], the [`Finding`]s behind it, and the parts
//! a renderer shows.
//!
//! This crate never opens, fetches or resolves anything: no I/O, no async.
//!
//! # Presenting a review
//!
//! ```
//! use frontdesk_url::{review, UrlPolicy, Verdict};
//!
//! let r = review("https://login.example.com/connect?flow=42", &UrlPolicy::default());
//!
//! // 1. Show the full URL as it will be opened (ASCII, punycode) - as text, never as
//! //    a clickable link - and highlight the registrable domain inside it.
//! assert_eq!(r.url(), Some("https://login.example.com/connect?flow=42"));
//! assert_eq!(
//!     r.highlight_parts(),
//!     Some(("https://login.", "example.com", "/connect?flow=42"))
//! );
//! // 2. If the host is internationalized, also show its Unicode reading
//! //    (`host_unicode`), next to the ASCII form, never instead of it.
//! // 3. Show every finding, worst first (`findings()`), with its sentence.
//! // 4. Then act on the verdict:
//! match r.verdict() {
//!     // Never open, never offer to. Say why.
//!     Verdict::Refused => {}
//!     // Ask for explicit consent (default answer: no). Only after a yes, take
//!     // `r.consented()` and hand its URL to the system browser.
//!     Verdict::Allowed | Verdict::AllowedWithWarnings => {
//!         if let Some(consented) = r.consented() {
//!             assert_eq!(consented.as_str(), "https://login.example.com/connect?flow=42");
//!         }
//!     }
//! }
//!
//! // A terminal renderer can print the ready-made plain text:
//! let text = r.plain_text();
//! assert!(text.contains("Domain:   example.com"));
//! ```
//!
//! A lookalike of a well-known domain is refused, and the plain text says why:
//!
//! ```
//! use frontdesk_url::{review, FindingCode, UrlPolicy, Verdict};
//!
//! // Cyrillic "аррӏе" under a Latin TLD.
//! let r = review("https://аррӏе.com/login", &UrlPolicy::default());
//! assert_eq!(r.verdict(), Verdict::Refused);
//! assert_eq!(r.host(), Some("xn--80ak6aa92e.com"));
//! assert_eq!(r.host_unicode(), Some("аррӏе.com"));
//! assert!(r.has(FindingCode::LookalikeDomain));
//! assert!(r.consented().is_none());
//! print!("{}", r.plain_text());
//! ```
//!
//! # Rules a renderer follows
//!
//! - Do not fetch the URL or anything about it (no previews, no favicon, no HEAD).
//! - Show [`UrlReview::url`] in full, never the raw input (except
//!   [`UrlReview::input_preview`] when there is no URL), and never as a link a
//!   client or model can follow.
//! - Highlight [`UrlReview::registrable_domain`] (see [`UrlReview::highlight_parts`]).
//! - Ask for consent every time; open only a [`ConsentedUrl`], in the system browser.
//! - When refused, do not open and do not offer to.
//!
//! # What is checked
//!
//! Scheme (`https` only; `http` to loopback with a warning), userinfo, length, IP
//! hosts and disguised IP forms, non-default ports, IDN, per-label mixed scripts and
//! UTS #39 skeleton lookalikes (against [`KNOWN_DOMAINS`]), right-to-left labels,
//! brand names in subdomains, and on the raw string: bidi and invisible characters,
//! fullwidth forms, percent-encoded hosts, backslashes, whitespace and control
//! characters, and a host that reads differently from the one that will be opened.
//! [`FindingCode`] lists every code with its default severity; [`threats`] lists
//! each trick with an example.

mod display;
mod findings;
mod homograph;
mod known_domains;
mod policy;
mod raw;
mod review;
pub mod threats;

pub use findings::{Finding, FindingCode, Severity, UnknownName, Verdict};
pub use known_domains::KNOWN_DOMAINS;
pub use policy::{DEFAULT_MAX_URL_LENGTH, NEVER_ALLOWED_SCHEMES, UrlPolicy};
pub use raw::escape_for_display;
pub use review::{ConsentedUrl, HostKind, UrlReview, review};
