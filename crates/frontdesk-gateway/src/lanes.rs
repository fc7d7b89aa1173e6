//! Lanes to a 2025-11-25 upstream: one call at a time on each connection
//! (a live `elicitation/create` does not say which call it belongs to, so
//! the one call in flight on a connection is the one that asks). The
//! attached upstream is the first lane; with a connector
//! ([`Gateway::connect_more`](crate::Gateway::connect_more)) a call that
//! finds every lane busy gets a new connection (a new child process or
//! session), up to a bound, so one person taking their time, or a client
//! that never comes back for its next round, does not hold every other call.

use std::sync::Arc;

use frontdesk::BoxFuture;
use frontdesk::client::{Client, ClientConfig, ElicitationHandler};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::Shared;
use crate::relay::Relay;

/// A failure to connect another lane.
pub type ConnectError = Box<dyn std::error::Error + Send + Sync>;

/// Makes one more connection to the upstream for a [`Lane`].
pub type Connect =
    Arc<dyn Fn(Lane) -> BoxFuture<'static, Result<Client, ConnectError>> + Send + Sync>;

/// A new connection's place: connect the upstream client with its
/// [`handler`](Self::handler) and [`config`](Self::config).
pub struct Lane {
    relay: Arc<Relay>,
}

impl std::fmt::Debug for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lane").finish_non_exhaustive()
    }
}

impl Lane {
    /// The elicitation handler to connect this lane's client with.
    pub fn handler(&self) -> Arc<dyn ElicitationHandler> {
        self.relay.clone()
    }

    /// `config` with this lane's relays of sampling and roots (as
    /// [`Gateway::upstream_config`](crate::Gateway::upstream_config)).
    pub fn config(&self, config: ClientConfig) -> ClientConfig {
        crate::relayed_config(&self.relay, config)
    }
}

/// One more connection, and whether a call runs on it.
pub(crate) struct Extra {
    client: Client,
    relay: Arc<Relay>,
    busy: Arc<Mutex<()>>,
}

/// The lanes beyond the first.
#[derive(Default)]
pub(crate) struct Extras {
    pub(crate) connect: std::sync::RwLock<Option<(Connect, usize)>>,
    lanes: Mutex<Vec<Arc<Extra>>>,
}

/// The lane a call runs on, held until the call ends.
pub(crate) enum Taken<'a> {
    /// The attached upstream (its place held until dropped).
    First {
        _held: tokio::sync::MutexGuard<'a, ()>,
    },
    /// Another connection (its place held until dropped).
    Extra {
        lane: Arc<Extra>,
        _held: OwnedMutexGuard<()>,
    },
}

impl Taken<'_> {
    /// The client to call on and the relay its questions come through.
    pub(crate) fn parts(&self, shared: &Shared, first: &Client) -> (Client, Arc<Relay>) {
        match self {
            Taken::First { .. } => (first.clone(), Arc::clone(&shared.relay)),
            Taken::Extra { lane, .. } => (lane.client.clone(), Arc::clone(&lane.relay)),
        }
    }
}

/// A lane for one call: the first when free; else an idle extra one, or a
/// new one while under the bound; else wait for the first.
pub(crate) async fn take(shared: &Shared) -> Taken<'_> {
    if let Ok(first) = shared.lane.try_lock() {
        return Taken::First { _held: first };
    }
    let connect = shared.extras.connect.read().ok().and_then(|c| c.clone());
    if let Some((connect, most)) = connect {
        let mut lanes = shared.extras.lanes.lock().await;
        for lane in lanes.iter() {
            if let Ok(held) = Arc::clone(&lane.busy).try_lock_owned() {
                return Taken::Extra {
                    lane: Arc::clone(lane),
                    _held: held,
                };
            }
        }
        if lanes.len() < most {
            let relay = Arc::new(shared.relay.sibling());
            let lane = Lane {
                relay: Arc::clone(&relay),
            };
            match connect(lane).await {
                Ok(client) => {
                    crate::notes::ask_for_logs(&client).await;
                    tracing::info!(
                        lanes = lanes.len() + 2,
                        "another connection to the upstream"
                    );
                    let busy = Arc::new(Mutex::new(()));
                    let extra = Arc::new(Extra {
                        client,
                        relay,
                        busy: Arc::clone(&busy),
                    });
                    lanes.push(Arc::clone(&extra));
                    if let Ok(held) = busy.try_lock_owned() {
                        return Taken::Extra {
                            lane: extra,
                            _held: held,
                        };
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot open another connection to the upstream; waiting for the first");
                }
            }
        }
    }
    Taken::First {
        _held: shared.lane.lock().await,
    }
}

impl Taken<'_> {
    /// Forget this lane when its connection is gone (an extra one: the next
    /// call makes a new one; the first is the attached upstream's business).
    pub(crate) async fn forget(&self, shared: &Shared) {
        if let Taken::Extra { lane: extra, .. } = self {
            tracing::warn!("a connection to the upstream ended; it is not used again");
            shared
                .extras
                .lanes
                .lock()
                .await
                .retain(|l| !Arc::ptr_eq(l, extra));
        }
    }
}

/// Close every extra lane (the gateway is stopping).
pub(crate) async fn close(shared: &Shared) {
    let lanes = std::mem::take(&mut *shared.extras.lanes.lock().await);
    for lane in lanes {
        lane.client.close().await;
    }
}
