//! Lanes to a 2025-11-25 upstream: one call at a time on each connection
//! (a live `elicitation/create` does not say which call it belongs to, so
//! the one call in flight on a connection is the one that asks). The
//! attached upstream is the first lane; with a connector
//! ([`Gateway::connect_more`](crate::Gateway::connect_more)) a call that
//! finds every lane busy gets a new connection (a new child process or
//! session), up to a bound, so one person taking their time, or a client
//! that never comes back for its next round, does not hold every other call.
//!
//! A 2025-11-25 upstream learns the client's capabilities once, at
//! `initialize`, so each connection tells it exactly what the clients of
//! its calls declared: the attached upstream declares everything the
//! gateway can pass on (form and URL elicitation, sampling, roots) and
//! serves the calls of clients that declared all of it; a call whose
//! client declared less runs on a connection opened with that client's
//! capabilities. A lane that sits idle with other capabilities gives its
//! place up when the bound is reached. Without a connector, or when a
//! connection cannot be made, a call runs on the attached upstream, whose
//! questions the call's client cannot take are refused per call.

use std::sync::{Arc, Weak};

use frontdesk::BoxFuture;
use frontdesk::client::{Client, ClientConfig, ElicitationHandler};
use tokio::sync::{Mutex, Notify, OwnedMutexGuard};

use crate::Shared;
use crate::held::Modes;
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
    /// The gateway, whose listing this lane's notifications keep current.
    shared: Weak<Shared>,
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

    /// `config` with this lane's relays of sampling and roots, and the
    /// upstream's `notifications/tools/list_changed` heard on this lane
    /// making the gateway read the tools again (as
    /// [`Gateway::upstream_config`](crate::Gateway::upstream_config)). Give
    /// it the config the attached upstream was given before
    /// `upstream_config`: a config already through it would hear each
    /// change twice.
    pub fn config(&self, config: ClientConfig) -> ClientConfig {
        crate::listing::hooked(
            Weak::clone(&self.shared),
            crate::relayed_config(&self.relay, config),
        )
    }
}

/// One more connection, and whether a call runs on it.
pub(crate) struct Extra {
    client: Client,
    relay: Arc<Relay>,
    /// What its `initialize` declared: the calls it serves.
    modes: Modes,
    busy: Arc<Mutex<()>>,
}

/// The lanes beyond the first.
#[derive(Default)]
pub(crate) struct Extras {
    pub(crate) connect: std::sync::RwLock<Option<(Connect, usize)>>,
    /// The open lanes and how many are being opened; never held across an
    /// `.await`, so a slow connection holds no other call.
    pool: std::sync::Mutex<Pool>,
    /// Told each time a call lets its lane go.
    freed: Notify,
}

#[derive(Default)]
struct Pool {
    lanes: Vec<Arc<Extra>>,
    connecting: usize,
}

/// What the pool has for a call that found the first lane busy.
enum Found<'a> {
    /// An idle lane, now held.
    Idle(Arc<Extra>, OwnedMutexGuard<()>),
    /// Room for one more: the caller opens it.
    Room(Reserved<'a>),
    /// Every lane busy and no room.
    Full,
}

/// A place in the pool for a lane being opened, given back if the opening
/// fails or is abandoned (its call stopped).
struct Reserved<'a>(&'a Extras);

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        if let Ok(mut pool) = self.0.pool.lock() {
            pool.connecting = pool.connecting.saturating_sub(1);
        }
    }
}

impl Extras {
    /// A lane for a call whose client declared `modes`: an idle one that
    /// declared the same; else room for one more, made if need be by
    /// retiring an idle lane that declared something else.
    fn find(&self, most: usize, modes: Modes) -> Found<'_> {
        let Ok(mut pool) = self.pool.lock() else {
            return Found::Full;
        };
        for lane in pool.lanes.iter().filter(|l| l.modes == modes) {
            if let Ok(held) = Arc::clone(&lane.busy).try_lock_owned() {
                return Found::Idle(Arc::clone(lane), held);
            }
        }
        if pool.lanes.len() + pool.connecting >= most {
            // Under the pool's lock nobody takes a lane meanwhile.
            let idle = pool.lanes.iter().position(|l| l.busy.try_lock().is_ok());
            let Some(idle) = idle else {
                return Found::Full;
            };
            let retired = pool.lanes.swap_remove(idle);
            tracing::info!(
                "an idle connection to the upstream gives its place to other capabilities"
            );
            tokio::spawn(async move { retired.client.close().await });
        }
        pool.connecting += 1;
        Found::Room(Reserved(self))
    }
}

/// The lane a call runs on, held until the call ends; letting it go tells
/// the calls waiting for one.
pub(crate) struct Taken<'a> {
    extras: &'a Extras,
    place: Option<Place<'a>>,
}

enum Place<'a> {
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

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        // The lane first, then the news: a waiter woken finds it free.
        drop(self.place.take());
        self.extras.freed.notify_waiters();
    }
}

impl Taken<'_> {
    /// The client to call on and the relay its questions come through.
    pub(crate) fn parts(&self, shared: &Shared, first: &Client) -> (Client, Arc<Relay>) {
        match &self.place {
            Some(Place::Extra { lane, .. }) => (lane.client.clone(), Arc::clone(&lane.relay)),
            _ => (first.clone(), Arc::clone(&shared.relay)),
        }
    }

    /// Forget this lane when its connection is gone (an extra one: the next
    /// call makes a new one; the first is the attached upstream's business).
    pub(crate) fn forget(&self, shared: &Shared) {
        if let Some(Place::Extra { lane: extra, .. }) = &self.place {
            tracing::warn!("a connection to the upstream ended; it is not used again");
            if let Ok(mut pool) = shared.extras.pool.lock() {
                pool.lanes.retain(|l| !Arc::ptr_eq(l, extra));
            }
        }
    }
}

/// A lane for one call whose client declared `modes`: the first when free
/// and its declared capabilities are the call's; else an idle extra one
/// that declared the same, or a new one while under the bound; else the
/// first fitting lane to be let go. Without a connector, or when a new
/// connection cannot be made, the call waits for the first lane.
pub(crate) async fn take(shared: &Arc<Shared>, modes: Modes) -> Taken<'_> {
    let taken = |place| Taken {
        extras: &shared.extras,
        place: Some(place),
    };
    let connect = shared.extras.connect.read().ok().and_then(|c| c.clone());
    let Some((connect, most)) = connect else {
        return taken(Place::First {
            _held: shared.lane.lock().await,
        });
    };
    loop {
        // Listening before looking: a lane let go after the look wakes us.
        let freed = shared.extras.freed.notified();
        tokio::pin!(freed);
        freed.as_mut().enable();
        if modes == Modes::ALL
            && let Ok(first) = shared.lane.try_lock()
        {
            return taken(Place::First { _held: first });
        }
        match shared.extras.find(most, modes) {
            Found::Idle(lane, held) => return taken(Place::Extra { lane, _held: held }),
            Found::Room(reserved) => {
                return match open(shared, &connect, reserved, modes).await {
                    Ok((lane, held)) => taken(Place::Extra { lane, _held: held }),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot open another connection to the upstream; waiting for the first");
                        taken(Place::First {
                            _held: shared.lane.lock().await,
                        })
                    }
                };
            }
            // A call whose client abandoned its round may give its
            // connection up; until one does, look again now and then.
            // (When one does, its connection is let go as its task ends.)
            Found::Full => {
                shared.held.yield_oldest();
                let _ = tokio::time::timeout(shared.held.yield_check(), freed).await;
            }
        }
    }
}

/// Open one more lane in the place `reserved` holds, declaring `modes`,
/// and hold it.
async fn open(
    shared: &Arc<Shared>,
    connect: &Connect,
    reserved: Reserved<'_>,
    modes: Modes,
) -> Result<(Arc<Extra>, OwnedMutexGuard<()>), ConnectError> {
    let relay = Arc::new(shared.relay.sibling(modes));
    let lane = Lane {
        relay: Arc::clone(&relay),
        shared: Arc::downgrade(shared),
    };
    let client = connect(lane).await?;
    crate::notes::ask_for_logs(&client).await;
    let busy = Arc::new(Mutex::new(()));
    let held = Arc::clone(&busy)
        .try_lock_owned()
        .map_err(|_| "a new connection was taken before it was added")?;
    let extra = Arc::new(Extra {
        client,
        relay,
        modes,
        busy,
    });
    let Ok(mut pool) = shared.extras.pool.lock() else {
        return Err("the gateway's connections are unusable".into());
    };
    pool.lanes.push(Arc::clone(&extra));
    tracing::info!(
        lanes = pool.lanes.len() + 1,
        "another connection to the upstream"
    );
    // Counted among the lanes now, no longer among those being opened.
    drop(pool);
    drop(reserved);
    Ok((extra, held))
}

/// Close every extra lane (the gateway is stopping).
pub(crate) async fn close(shared: &Shared) {
    let lanes = match shared.extras.pool.lock() {
        Ok(mut pool) => std::mem::take(&mut pool.lanes),
        Err(_) => return,
    };
    for lane in lanes {
        lane.client.close().await;
    }
}
