//! Flows, redeemed states and task records in Redis, shared by several
//! instances, with completions announced over pub/sub.
//!
//! ```no_run
//! use std::sync::Arc;
//! use frontdesk::server::Server;
//! use frontdesk::stores::redis::RedisStore;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let store = Arc::new(RedisStore::connect("redis://127.0.0.1:6379", "frontdesk:").await?);
//! let server = Server::builder("shop", "1.0.0")
//!     .flow_store(store.clone())
//!     .nonce_store(Some(store.clone()))
//!     .task_store(store)
//!     .build();
//! # let _ = server; Ok(()) }
//! ```
//!
//! Layout, every key under the prefix:
//!
//! - `flow:<id>`: a hash, `flow` (the flow as JSON, as created) and `status`
//!   (its status as JSON, the one field that changes), expiring with the flow;
//! - `ctok:<hex sha256>`: a connect token's flow and principal, expiring with
//!   the token (only the hash of a token is stored);
//! - `state:<state id>`: a redeemed request state, `SET NX` until it expires;
//! - `task:<id>` and `tinbox:<id>`: a task's record and the answers waiting
//!   for its owner, expiring with the task (see
//!   [`TaskStore`](crate::tasks::TaskStore));
//! - the channel `events`: one JSON [`FlowEvent`] per flow that leaves
//!   `Pending`, published by the same Lua script that changes the status, so
//!   a completion and its announcement are one atomic step.
//!
//! Every instance subscribes to the channel on [`RedisStore::connect`] and
//! feeds its local [`FlowStore::subscribe`](crate::flows::FlowStore::subscribe)
//! receivers: the instance holding a 2025-11-25 session learns that a flow
//! completed through another instance's page. Pub/sub is at-most-once (a
//! message sent while the subscriber reconnects is lost), so waiting also
//! looks at the flow again every [`RECHECK`]; a lost event costs that much
//! latency, never the notification. Redis expires keys itself, so an expired
//! flow simply disappears (no `expired` event; waiters find it gone).
//!
//! Cost per request: a redemption is one `SET … NX EXAT` (one round trip,
//! no script); every command goes over one multiplexed connection
//! ([`ConnectionManager`], reconnecting), which pipelines the commands of
//! concurrent requests instead of waiting for each reply, so there is no
//! pool to size.
//!
//! [`RedisEventArchive`] (feature `http-server`) keeps the events of
//! 2025-11-25 session streams under the same prefix, so a stream can be
//! resumed on another instance (see its module for its keys).
//!
//! Redis must be 6.2 or newer (`SET … EXAT`). Protect it like any store of
//! user state: authentication, TLS or a private network.

#[cfg(feature = "http-server")]
mod events;
mod flows;
mod nonces;
mod tasks;

#[cfg(feature = "http-server")]
pub use events::RedisEventArchive;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use redis::aio::ConnectionManager;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::clock::{Clock, SystemClock};
use crate::flows::FlowEvent;
use crate::state::InMemoryNonceStore;
use crate::store::StoreError;

/// How often a waiter looks at a flow again without an event.
pub const RECHECK: Duration = Duration::from_secs(1);

/// A [`FlowStore`](crate::flows::FlowStore),
/// [`NonceStore`](crate::state::NonceStore) and
/// [`TaskStore`](crate::tasks::TaskStore) in Redis.
pub struct RedisStore {
    conn: ConnectionManager,
    prefix: String,
    events: broadcast::Sender<FlowEvent>,
    clock: Arc<dyn Clock>,
    listener: JoinHandle<()>,
    max_per_owner: u64,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

pub(super) fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(crate::Reason::new(format!("redis: {e}")))
}

impl RedisStore {
    /// Connect to `url` (`redis://[user:password@]host:port[/db]`, or
    /// `rediss://` for TLS) and subscribe to the event channel; every key is
    /// under `prefix` (e.g. `frontdesk:`, or one per deployment).
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(backend)?;
        let conn = client.get_connection_manager().await.map_err(backend)?;
        let prefix = prefix.to_owned();
        let events = broadcast::channel(1024).0;
        let channel = format!("{prefix}events");
        // Subscribed before `connect` returns: no completion from now on is
        // missed while the connection holds.
        let pubsub = subscribe(&client, &channel).await?;
        let listener = tokio::spawn(listen(client, channel, pubsub, events.clone()));
        Ok(Self {
            conn,
            prefix,
            events,
            clock: Arc::new(SystemClock),
            listener,
            max_per_owner: InMemoryNonceStore::DEFAULT_MAX_PER_OWNER as u64,
        })
    }

    /// Set the share of one owner: most redeemed states kept per owner (at
    /// least 1; [`InMemoryNonceStore::DEFAULT_MAX_PER_OWNER`] by default).
    /// Past it the owner's earliest-issued one is forgotten and its floor
    /// rises over it (see [`InMemoryNonceStore`] for the rules).
    pub fn with_max_per_owner(mut self, max_per_owner: usize) -> Self {
        self.max_per_owner = u64::try_from(max_per_owner.max(1)).unwrap_or(u64::MAX);
        self
    }

    /// Use `clock` for expiry checks (Redis still expires keys by its own
    /// clock).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}{kind}:{id}", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}events", self.prefix)
    }

    fn now(&self) -> u64 {
        self.clock.now_unix()
    }
}

async fn subscribe(
    client: &redis::Client,
    channel: &str,
) -> Result<redis::aio::PubSub, StoreError> {
    let mut pubsub = client.get_async_pubsub().await.map_err(backend)?;
    pubsub.subscribe(channel).await.map_err(backend)?;
    Ok(pubsub)
}

/// Forward the channel's events to local subscribers; resubscribe when the
/// connection drops (events in between are lost; waiters recheck).
async fn listen(
    client: redis::Client,
    channel: String,
    mut pubsub: redis::aio::PubSub,
    events: broadcast::Sender<FlowEvent>,
) {
    loop {
        {
            let mut messages = pubsub.on_message();
            while let Some(msg) = messages.next().await {
                match serde_json::from_slice::<FlowEvent>(msg.get_payload_bytes()) {
                    Ok(event) => {
                        let _ = events.send(event);
                    }
                    Err(e) => tracing::warn!(error = %e, "unreadable flow event on Redis"),
                }
            }
        }
        tracing::warn!("Redis pub/sub connection lost; resubscribing");
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            match subscribe(&client, &channel).await {
                Ok(p) => {
                    pubsub = p;
                    tracing::info!("Redis pub/sub resubscribed");
                    break;
                }
                Err(e) => tracing::debug!(error = %e, "Redis pub/sub still down"),
            }
        }
    }
}
