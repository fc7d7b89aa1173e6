//! frontdesk runtime: the MCP server and client built on the pure crates.
//!
//! Modules so far:
//! - [`client`]: the MCP client and the elicitation handler interface.
//! - [`state`]: sealed `requestState` (AEAD, key rotation, expiry, principal and
//!   request binding) and single-use redemption through a nonce store.
//! - [`flows`]: URL-mode elicitations as pending flows, with connect tokens.
//! - [`http`]: the Streamable HTTP transport (both revisions on one endpoint)
//!   and the demo's sign-in page.
//! - [`store`] and [`clock`]: what the stores share (errors, boxed futures, time).

pub mod client;
pub mod clock;
pub mod demo;
pub mod flows;
pub mod http;
pub mod server;
pub mod state;
pub mod store;
