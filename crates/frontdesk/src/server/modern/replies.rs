//! Retries that survive a dropped connection.
//!
//! A retry redeems its single-use `requestState` before the handler runs, so
//! if the connection drops while the round is running, sending the same retry
//! again would find the state spent and the person's answers lost. Instead,
//! the round of a retry runs detached from the connection, and its reply is
//! kept for a short time under the state's id: the same retry sent again
//! (while the round runs or soon after) gets the same reply instead of a
//! rejection. The state itself still opens only once; only its reply is
//! repeated, and only to a request that opened the same state, which binds it
//! to the same principal, method, name and arguments.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::super::error::RpcError;
use super::super::requests::Reply;
use crate::state::StateId;

/// The replies of recent retries, by state id.
#[derive(Debug)]
pub(crate) struct RetryReplies {
    inner: Mutex<Kept>,
    keep_for: Duration,
    max: usize,
}

#[derive(Debug, Default)]
struct Kept {
    slots: HashMap<StateId, watch::Receiver<Option<Reply>>>,
    /// Insertion order, for expiry and for the bound.
    order: VecDeque<(Instant, StateId)>,
}

/// What [`RetryReplies::claim`] found.
pub(crate) enum Claim {
    /// Nobody ran this state yet: run it and [`Running::finish`] it.
    First(Running),
    /// Another request ran (or is running) it: this is its reply.
    Repeat(watch::Receiver<Option<Reply>>),
    /// No room to remember it: run it without the guarantee.
    Untracked,
}

/// The right and duty to publish one state's reply.
pub(crate) struct Running {
    sender: watch::Sender<Option<Reply>>,
}

impl Running {
    /// Publish the reply to everyone waiting for it, and keep it.
    pub(crate) fn finish(self, reply: &Reply) {
        // `send_replace` keeps the value even with no receiver right now.
        self.sender.send_replace(Some(reply.clone()));
    }
}

impl RetryReplies {
    pub(crate) fn new(keep_for: Duration, max: usize) -> Self {
        Self {
            inner: Mutex::new(Kept::default()),
            keep_for,
            max,
        }
    }

    /// Claim `id` for this request, or find who already did.
    pub(crate) fn claim(&self, id: StateId) -> Claim {
        let now = Instant::now();
        let mut kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        kept.forget_older_than(now.checked_sub(self.keep_for));
        if let Some(rx) = kept.slots.get(&id) {
            return Claim::Repeat(rx.clone());
        }
        if kept.order.len() >= self.max && !kept.forget_oldest_finished() {
            return Claim::Untracked;
        }
        let (sender, rx) = watch::channel(None);
        kept.slots.insert(id, rx);
        kept.order.push_back((now, id));
        Claim::First(Running { sender })
    }
}

impl Kept {
    /// Forget finished replies kept since before `cutoff`. A reply still
    /// running is kept whatever its age (the load caps bound how many run).
    fn forget_older_than(&mut self, cutoff: Option<Instant>) {
        let Some(cutoff) = cutoff else { return };
        while let Some(&(at, id)) = self.order.front() {
            if at > cutoff {
                break;
            }
            if self.slots.get(&id).is_some_and(|rx| !finished(rx)) {
                break;
            }
            self.order.pop_front();
            self.slots.remove(&id);
        }
    }

    /// Make room by forgetting the oldest finished reply; `false` when every
    /// kept reply is still running.
    fn forget_oldest_finished(&mut self) -> bool {
        let Some(pos) = self
            .order
            .iter()
            .position(|(_, id)| self.slots.get(id).is_none_or(finished))
        else {
            return false;
        };
        if let Some((_, id)) = self.order.remove(pos) {
            self.slots.remove(&id);
        }
        true
    }
}

/// Whether the round behind `rx` is over: it published its reply, or it
/// ended without one.
fn finished(rx: &watch::Receiver<Option<Reply>>) -> bool {
    rx.borrow().is_some() || rx.has_changed().is_err()
}

/// Wait for the reply another request is producing.
pub(crate) async fn wait(mut rx: watch::Receiver<Option<Reply>>) -> Reply {
    match rx.wait_for(Option::is_some).await {
        Ok(reply) => reply
            .clone()
            .unwrap_or_else(|| Err(RpcError::internal("Internal error"))),
        // The round that held the state ended without a reply (it panicked).
        Err(_) => Err(RpcError::internal("Internal error")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn id(n: u8) -> StateId {
        StateId::from_bytes([n; 16])
    }

    #[tokio::test]
    async fn the_second_claim_gets_the_first_reply() {
        let replies = RetryReplies::new(Duration::from_secs(60), 100);
        let Claim::First(running) = replies.claim(id(1)) else {
            panic!("first claim");
        };
        let Claim::Repeat(rx) = replies.claim(id(1)) else {
            panic!("second claim");
        };
        let waiter = tokio::spawn(wait(rx));
        let mut reply = Map::new();
        reply.insert("n".into(), 1.into());
        running.finish(&Ok(reply.clone()));
        assert_eq!(waiter.await.unwrap(), Ok(reply.clone()));
        // And after it finished.
        let Claim::Repeat(rx) = replies.claim(id(1)) else {
            panic!("third claim");
        };
        assert_eq!(wait(rx).await, Ok(reply));
    }

    #[tokio::test]
    async fn a_round_that_dies_is_an_internal_error_not_a_hang() {
        let replies = RetryReplies::new(Duration::from_secs(60), 100);
        let Claim::First(running) = replies.claim(id(1)) else {
            panic!("first claim");
        };
        let Claim::Repeat(rx) = replies.claim(id(1)) else {
            panic!("second claim");
        };
        drop(running);
        assert!(wait(rx).await.is_err());
    }

    #[test]
    fn bounded_finished_replies_make_room_running_ones_do_not() {
        let replies = RetryReplies::new(Duration::from_secs(60), 2);
        let Claim::First(a) = replies.claim(id(1)) else {
            panic!()
        };
        let Claim::First(_b) = replies.claim(id(2)) else {
            panic!()
        };
        assert!(matches!(replies.claim(id(3)), Claim::Untracked));
        a.finish(&Ok(Map::new()));
        let Claim::First(_c) = replies.claim(id(3)) else {
            panic!("finished id 1 makes room")
        };
        // Both kept ones are running now: no room, and id 1 is forgotten.
        assert!(matches!(replies.claim(id(1)), Claim::Untracked));
    }

    #[test]
    fn finished_replies_expire() {
        let replies = RetryReplies::new(Duration::ZERO, 10);
        let Claim::First(a) = replies.claim(id(1)) else {
            panic!()
        };
        // Running: kept whatever its age.
        assert!(matches!(replies.claim(id(1)), Claim::Repeat(_)));
        a.finish(&Ok(Map::new()));
        assert!(matches!(replies.claim(id(1)), Claim::First(_)));
    }
}
