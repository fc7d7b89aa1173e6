//! Stores that outlive the process or are shared between processes, for the
//! three things a server must remember: URL flows ([`FlowStore`]), which
//! sealed request states were already redeemed ([`NonceStore`]), and tasks
//! ([`TaskStore`]).
//!
//! | Store | Feature | For |
//! | --- | --- | --- |
//! | [`InMemoryFlowStore`], [`InMemoryNonceStore`] | — | one process; lost on restart (the library default; without a task store, tasks live in the memory of the process running them) |
//! | `sqlite::SqliteStore` | `sqlite` | one instance that restarts: flows survive, a state redeemed before a restart stays redeemed, a finished task stays readable and a task that was running is reported failed (the default of `frontdesk serve`) |
//! | `redis::RedisStore` | `redis` | several instances behind a load balancer: shared flows, redemptions and task records, and pub/sub so the instance holding a 2025-11-25 session hears that a flow completed on another |
//!
//! Each type implements all three traits; hand the same `Arc` to
//! [`ServerBuilder::flow_store`](crate::server::ServerBuilder::flow_store),
//! [`ServerBuilder::nonce_store`](crate::server::ServerBuilder::nonce_store) and
//! [`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store).
//! A task's handler runs only in the instance that created it: `tasks/get`,
//! `tasks/update` and `tasks/cancel` work on every instance through the
//! record while that instance runs, and a task whose instance stopped ends
//! `failed` (see [`crate::tasks`]).
//! Durable state only helps with durable keys: seal with a keyring that
//! every instance and every restart shares (see [`crate::state`]), or no
//! state sealed before a restart opens after it.
//!
//! [`FlowStore`]: crate::flows::FlowStore
//! [`NonceStore`]: crate::state::NonceStore
//! [`TaskStore`]: crate::tasks::TaskStore
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
