//! What clients subscribed to, within bounds: each 2025-11-25 session (and
//! each 2026-07-28 listen stream) subscribes to at most
//! [`max_subscriptions_per_session`](crate::server::api::config::ServerConfig::max_subscriptions_per_session)
//! resources, each client to at most
//! [`max_subscriptions_per_client`](crate::server::api::config::ServerConfig::max_subscriptions_per_client)
//! over all its sessions and streams, the whole server to
//! [`max_subscriptions`](crate::server::api::config::ServerConfig::max_subscriptions). A
//! subscription over a bound is refused at once (`-32000` with the reason).
//!
//! Subscriptions are [`Charge`]d to their client in the [`Ledger`] and given
//! back when dropped: a session's set lives in the session and is emptied
//! when the session closes (and freed with it), a listen stream's charge
//! ends with the stream.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::server::api::config::ServerConfig;
use crate::server::api::error::RpcError;

/// The bounds, from the configuration.
#[derive(Debug, Clone, Copy)]
struct Limits {
    total: usize,
    per_client: usize,
    per_session: usize,
}

/// How many subscriptions the server and each client hold.
#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: HashMap<String, usize>,
}

/// The server's count of subscriptions, against its bounds.
#[derive(Debug)]
pub(crate) struct Ledger {
    limits: Limits,
    counts: Mutex<Counts>,
}

/// Subscriptions counted for one client until dropped.
#[derive(Debug)]
pub(crate) struct Charge {
    ledger: Arc<Ledger>,
    client: String,
    n: usize,
}

/// Why a subscription was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The session (or listen stream) has its most.
    Session(usize),
    /// The client has its most over all its sessions and streams.
    Client(usize),
    /// The server has its most.
    Server(usize),
}

impl Refused {
    /// The `-32000` answering a refused `resources/subscribe`.
    pub(crate) fn into_error(self) -> RpcError {
        match self {
            Self::Session(n) => RpcError::busy(format!(
                "Too many subscriptions on this session (at most {n}); unsubscribe from one first"
            )),
            Self::Client(n) => RpcError::busy(format!(
                "Too many subscriptions from this client (at most {n}); unsubscribe from one first"
            )),
            Self::Server(_) => {
                RpcError::overloaded("Too many subscriptions on the server; try again later")
            }
        }
    }

    /// The `-32000` answering a refused `subscriptions/listen`.
    pub(crate) fn into_listen_error(self) -> RpcError {
        match self {
            Self::Session(n) => RpcError::busy(format!(
                "Too many resource subscriptions on one listen stream (at most {n})"
            )),
            other => other.into_error(),
        }
    }
}

impl Ledger {
    pub(crate) fn new(config: &ServerConfig) -> Arc<Self> {
        Arc::new(Self {
            limits: Limits {
                total: config.max_subscriptions,
                per_client: config.max_subscriptions_per_client.max(1),
                per_session: config.max_subscriptions_per_session.max(1),
            },
            counts: Mutex::new(Counts::default()),
        })
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Most subscriptions of one session or listen stream.
    pub(crate) fn per_session(&self) -> usize {
        self.limits.per_session
    }

    /// An empty charge for `client`.
    pub(crate) fn open(self: &Arc<Self>, client: &str) -> Charge {
        Charge {
            ledger: Arc::clone(self),
            client: client.to_string(),
            n: 0,
        }
    }

    /// `n` subscriptions of one listen stream of `client`, counted.
    pub(crate) fn reserve(self: &Arc<Self>, client: &str, n: usize) -> Result<Charge, Refused> {
        if n > self.limits.per_session {
            return Err(Refused::Session(self.limits.per_session));
        }
        let mut charge = self.open(client);
        charge.add(n)?;
        Ok(charge)
    }
}

impl Charge {
    /// Count `n` more, unless the client or the server would go over.
    fn add(&mut self, n: usize) -> Result<(), Refused> {
        if n == 0 {
            return Ok(());
        }
        let limits = self.ledger.limits;
        let mut counts = self.ledger.counts();
        let mine = counts.per_client.get(&self.client).copied().unwrap_or(0);
        if mine + n > limits.per_client {
            return Err(Refused::Client(limits.per_client));
        }
        if counts.total + n > limits.total {
            return Err(Refused::Server(limits.total));
        }
        counts.total += n;
        *counts.per_client.entry(self.client.clone()).or_default() += n;
        self.n += n;
        Ok(())
    }

    /// Give `n` back.
    fn release(&mut self, n: usize) {
        let n = n.min(self.n);
        if n == 0 {
            return;
        }
        self.n -= n;
        let mut counts = self.ledger.counts();
        counts.total = counts.total.saturating_sub(n);
        if let Some(mine) = counts.per_client.get_mut(&self.client) {
            *mine = mine.saturating_sub(n);
            if *mine == 0 {
                counts.per_client.remove(&self.client);
            }
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.release(self.n);
    }
}

/// The resources one 2025-11-25 session subscribed to, charged to the
/// client of its first subscription.
#[derive(Debug, Default)]
pub(crate) struct SessionSubscriptions {
    uris: HashSet<String>,
    charge: Option<Charge>,
}

impl SessionSubscriptions {
    /// Subscribe to `uri` for `client` (again: nothing changes).
    pub(crate) fn subscribe(
        &mut self,
        ledger: &Arc<Ledger>,
        client: &str,
        uri: &str,
    ) -> Result<(), Refused> {
        if self.uris.contains(uri) {
            return Ok(());
        }
        if self.uris.len() >= ledger.per_session() {
            return Err(Refused::Session(ledger.per_session()));
        }
        self.charge
            .get_or_insert_with(|| ledger.open(client))
            .add(1)?;
        self.uris.insert(uri.to_string());
        Ok(())
    }

    /// Unsubscribe from `uri` (not subscribed: nothing changes).
    pub(crate) fn unsubscribe(&mut self, uri: &str) {
        if self.uris.remove(uri)
            && let Some(charge) = &mut self.charge
        {
            charge.release(1);
        }
    }

    /// Whether the session subscribed to `uri`.
    pub(crate) fn contains(&self, uri: &str) -> bool {
        self.uris.contains(uri)
    }

    /// The session ended: everything is given back, the set freed.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(total: usize, per_client: usize, per_session: usize) -> Arc<Ledger> {
        Ledger::new(
            &ServerConfig::new()
                .max_subscriptions(total)
                .max_subscriptions_per_client(per_client)
                .max_subscriptions_per_session(per_session),
        )
    }

    fn total(ledger: &Ledger) -> usize {
        ledger.counts().total
    }

    #[test]
    fn a_session_is_charged_once_per_resource_and_given_back_on_clear() {
        let ledger = ledger(10, 10, 2);
        let mut s = SessionSubscriptions::default();
        s.subscribe(&ledger, "a", "u1").unwrap();
        s.subscribe(&ledger, "a", "u1").unwrap();
        s.subscribe(&ledger, "a", "u2").unwrap();
        assert_eq!(s.subscribe(&ledger, "a", "u3"), Err(Refused::Session(2)));
        assert_eq!(total(&ledger), 2);
        s.unsubscribe("u1");
        s.unsubscribe("u1");
        assert_eq!(total(&ledger), 1);
        s.clear();
        assert_eq!(total(&ledger), 0);
        assert!(ledger.counts().per_client.is_empty());
    }

    #[test]
    fn refusals_name_the_bound_that_was_reached() {
        let ledger = ledger(3, 2, 5);
        let (mut a, mut b) = (
            SessionSubscriptions::default(),
            SessionSubscriptions::default(),
        );
        a.subscribe(&ledger, "a", "u1").unwrap();
        a.subscribe(&ledger, "a", "u2").unwrap();
        assert_eq!(a.subscribe(&ledger, "a", "u3"), Err(Refused::Client(2)));
        b.subscribe(&ledger, "b", "u1").unwrap();
        assert_eq!(b.subscribe(&ledger, "b", "u2"), Err(Refused::Server(3)));
        assert_eq!(ledger.reserve("c", 6).err(), Some(Refused::Session(5)));
        drop(a);
        let stream = ledger.reserve("c", 2).unwrap();
        assert_eq!(total(&ledger), 3);
        drop(stream);
        drop(b);
        assert_eq!(total(&ledger), 0);
    }
}
