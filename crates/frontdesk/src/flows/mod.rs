//! URL-mode elicitations as flows, not strings.
//!
//! A URL elicitation sends the person to a page outside MCP (a third-party
//! OAuth consent, a payment form). The server keeps a [`Flow`] for it: an id,
//! the principal who started it, an expiry and a status
//! (`Pending → Complete | Failed`). The server's own page or callback marks it
//! complete; then
//!
//! - on 2025-11-25 the session that asked learns it through
//!   [`FlowStore::subscribe`] and sends `notifications/elicitation/complete`;
//! - on 2026-07-28 the client's retry finds it complete, possibly after waiting
//!   a bounded time with [`FlowStore::wait_for_completion`].
//!
//! **Connect tokens** guard the page against phishing (ELICITATION §10.5): the
//! elicited URL carries a single-use, expiring token bound to the flow's
//! principal, and the page redeems it only for the same principal, as
//! identified by the page itself (e.g. its session cookie). Stores keep only
//! the SHA-256 of each token.
//!
//! # Threat model
//!
//! The link is not a credential. Whoever holds a URL-mode link (the person's
//! client, a model that saw it, anyone it was forwarded to, a browser history)
//! must not be able to finish the flow *as* the person who started it. The
//! attack this module exists to stop: Alice starts a "connect your account"
//! flow on her own client and sends the link to Bob; if Bob's sign-in
//! completed Alice's flow, the server would bind Bob's account (or payment) to
//! Alice. So the page that completes a flow must identify the person in the
//! browser by its own means — a sign-in against the same identity the MCP
//! endpoint trusts, then a short-lived session cookie, or an OAuth/OIDC
//! redirect through the authorization server — and pass that principal to
//! [`redeem_connect_token`](FlowStore::redeem_connect_token) (through
//! `Server::complete_flow`). A different principal gets
//! [`FlowError::OtherPrincipal`]: nothing is redeemed, the flow stays pending
//! and its owner can still finish it; the page tells the person why.
//!
//! What else holds: tokens are 256 random bits, single-use, expire with the
//! flow at the latest, and are stored hashed, so a leaked store does not
//! yield live links; a token names no principal and no flow id in clear, so
//! editing the URL gains nothing (ids and user hints in a URL are never
//! trusted); the flow id the client sees (`elicitationId`) completes nothing.
//! Out of scope: a page that passes `None` trusts the token alone (acceptable
//! only where no one else can reach the page, such as a loopback demo without
//! authentication); an attacker who controls the person's browser or their
//! sign-in credentials is the person as far as the server can tell; and the
//! store itself must be protected (SQLite file permissions, Redis
//! authentication and network).
//!
//! ```
//! use frontdesk::flows::{FlowStore, InMemoryFlowStore, NewFlow};
//! use std::time::Duration;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let flows = InMemoryFlowStore::new();
//! let flow = flows.create(NewFlow::new("user-42", Duration::from_secs(600)).purpose("connect GitHub")).await?;
//! let token = flows.issue_connect_token(&flow.id, "user-42", Duration::from_secs(300)).await?;
//! // … the person opens https://example.com/connect?token=… and signs in as user-42 …
//! let id = flows.redeem_connect_token(&token, Some("user-42")).await?;
//! flows.complete(&id).await?;
//! let done = flows.wait_for_completion(&flow.id, Duration::from_secs(1)).await?;
//! assert!(done.status.is_complete());
//! # Ok(())
//! # }
//! ```

mod memory;
mod model;
mod store;
#[cfg(test)]
mod tests;

pub use memory::InMemoryFlowStore;
pub use model::{Flow, FlowError, FlowEvent, FlowId, FlowStatus, NewFlow};
pub use store::FlowStore;
// For the durable stores in `crate::stores`.
#[allow(unused_imports)]
pub(crate) use model::{random_token, token_hash, ttl_secs};
#[allow(unused_imports)]
pub(crate) use store::wait_until_done;
