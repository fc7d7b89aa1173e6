//! Stores that outlive the process or are shared between processes, for the
//! two things a server must remember: URL flows ([`FlowStore`]) and which
//! sealed request states were already redeemed ([`NonceStore`]).
//!
//! | Store | Feature | For |
//! | --- | --- | --- |
//! | [`InMemoryFlowStore`], [`InMemoryNonceStore`] | — | one process; lost on restart (the library default) |
//! | `sqlite::SqliteStore` | `sqlite` | one instance that restarts: flows survive, a state redeemed before a restart stays redeemed (the default of `frontdesk serve`) |
//! | `redis::RedisStore` | `redis` | several instances behind a load balancer: shared flows and redemptions, and pub/sub so the instance holding a 2025-11-25 session hears that a flow completed on another |
//!
//! Each type implements both traits; hand the same `Arc` to
//! [`ServerBuilder::flow_store`](crate::server::ServerBuilder::flow_store) and
//! [`ServerBuilder::nonce_store`](crate::server::ServerBuilder::nonce_store).
//! Durable state only helps with durable keys: seal with a keyring that
//! every instance and every restart shares (see [`crate::state`]), or no
//! state sealed before a restart opens after it.
//!
//! [`FlowStore`]: crate::flows::FlowStore
//! [`NonceStore`]: crate::state::NonceStore
//! [`InMemoryFlowStore`]: crate::flows::InMemoryFlowStore
//! [`InMemoryNonceStore`]: crate::state::InMemoryNonceStore

#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "sqlite")]
pub mod sqlite;

/// Unix seconds as SQL/Redis integers (every time we store is far below
/// `i64::MAX`; larger saturates).
#[cfg(any(feature = "sqlite", feature = "redis"))]
fn secs(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}
