//! The server's load: requests in flight and 2025-11-25 questions waiting
//! for an answer, counted against [`ServerConfig`](crate::server::api::config::ServerConfig)
//! bounds. A slot is held while the work runs and given back when it ends,
//! however it ends: the places a request holds ([`Held`]) go with the part of
//! its work that outlives it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counters shared by every session and request of one server.
#[derive(Debug)]
pub(crate) struct Load {
    requests: AtomicUsize,
    pending: AtomicUsize,
    max_requests: usize,
    max_pending: usize,
}

/// A place taken in one of the counters; given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    load: Arc<Load>,
    pending: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let counter = if self.pending {
            &self.load.pending
        } else {
            &self.load.requests
        };
        counter.fetch_sub(1, Ordering::AcqRel);
        crate::metrics::gauge(gauge_of(self.pending), -1.0);
    }
}

/// The gauge that follows a kind of slot.
fn gauge_of(pending: bool) -> &'static str {
    if pending {
        crate::metrics::QUESTIONS_WAITING
    } else {
        crate::metrics::REQUESTS_IN_FLIGHT
    }
}

/// The places one request holds in the counts of requests in flight: the
/// server's ([`Load::request`]) and the transport's own (the HTTP
/// endpoint's per-client count). Owned by the request's work: when the work
/// outlives its request (a 2026-07-28 retry whose connection dropped goes
/// on by itself, see `modern::finishing`), they go with it, and are given
/// back only when the work ends. Otherwise sending retries and dropping
/// them at once would run any number of rounds past both caps.
#[derive(Default)]
pub(crate) struct Held {
    server: Option<Slot>,
    /// Never read: it is given back by being dropped.
    _transport: Option<Box<dyn Send + Sync>>,
}

impl Held {
    /// The transport's place (given back when dropped).
    #[cfg(any(feature = "http-server", test))]
    pub(crate) fn transport(place: impl Send + Sync + 'static) -> Self {
        Self {
            server: None,
            _transport: Some(Box::new(place)),
        }
    }

    /// Add the server's place.
    pub(crate) fn with_server(mut self, slot: Slot) -> Self {
        self.server = Some(slot);
        self
    }
}

impl Load {
    pub(crate) fn new(max_requests: usize, max_pending: usize) -> Arc<Self> {
        Arc::new(Self {
            requests: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            max_requests: max_requests.max(1),
            max_pending: max_pending.max(1),
        })
    }

    fn take(self: &Arc<Self>, pending: bool) -> Option<Slot> {
        let (counter, max) = if pending {
            (&self.pending, self.max_pending)
        } else {
            (&self.requests, self.max_requests)
        };
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| {
                crate::metrics::gauge(gauge_of(pending), 1.0);
                Slot {
                    load: Arc::clone(self),
                    pending,
                }
            })
    }

    /// A place for one request in flight, if the server has one.
    pub(crate) fn request(self: &Arc<Self>) -> Option<Slot> {
        self.take(false)
    }

    /// A place for one question waiting on a client, if the server has one.
    pub(crate) fn question(self: &Arc<Self>) -> Option<Slot> {
        self.take(true)
    }

    /// Requests in flight now.
    pub(crate) fn requests(&self) -> usize {
        self.requests.load(Ordering::Acquire)
    }

    /// Questions waiting now.
    #[cfg(test)]
    pub(crate) fn questions(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_and_given_back() {
        let load = Load::new(2, 1);
        let a = load.request();
        let b = load.request();
        assert!(a.is_some() && b.is_some());
        assert!(load.request().is_none(), "full");
        drop(a);
        assert!(load.request().is_some(), "a place came back");
        let q = load.question();
        assert!(q.is_some() && load.question().is_none());
        drop(q);
        assert_eq!(load.questions(), 0);
        assert_eq!(load.requests(), 1);
    }

    #[test]
    fn held_places_are_given_back_when_dropped() {
        struct Flag(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let load = Load::new(1, 1);
        let given_back = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let held =
            Held::transport(Flag(Arc::clone(&given_back))).with_server(load.request().unwrap());
        assert!(load.request().is_none());
        drop(held);
        assert!(given_back.load(Ordering::SeqCst));
        assert_eq!(load.requests(), 0);
    }
}
