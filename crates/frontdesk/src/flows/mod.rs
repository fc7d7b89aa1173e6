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
