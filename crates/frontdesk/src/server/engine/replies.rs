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
//! to the same principal, method, name and arguments. Several instances on
//! a store that shares replies (Redis) do the same across instances: see
//! `server::modern::elsewhere`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::server::api::error::RpcError;
use crate::server::engine::requests::Reply;
use crate::state::{IdHasher, StateId};

/// The replies of recent retries, by state id, with a share per owner (the
/// client the call's states are charged to), so one client's flood of
/// retries only pushes out its own kept replies.
#[derive(Debug)]
pub(crate) struct RetryReplies {
    inner: Mutex<Kept>,
    keep_for: Duration,
    max: usize,
    max_per_owner: usize,
}

/// A kept reply: the result object's JSON text (one allocation to keep
/// and to free), or the error.
type KeptReply = Reply;

#[derive(Debug)]
struct Slot {
    reply: Arc<ReplyCell>,
    owner: Arc<str>,
}

/// One round's reply, set once, for every request that waits for it.
///
/// A cell of its own rather than a `watch` channel: every retry claims one,
/// and a channel's shared state (eight `Notify`s, each locked when it
/// publishes) cost more to make and to publish than the rare request that
/// waits on it.
#[derive(Debug, Default)]
pub(crate) struct ReplyCell {
    /// `Some` once the round published its reply, `None` in it once the
    /// round ended without one (it panicked or was dropped).
    outcome: OnceLock<Option<KeptReply>>,
    /// Wakes the requests waiting for `outcome`.
    set: Notify,
}

impl ReplyCell {
    /// Whether the round is over: it published its reply, or it ended
    /// without one.
    fn finished(&self) -> bool {
        self.outcome.get().is_some()
    }

    /// Set the outcome (the first one set stays) and wake every waiter.
    fn settle(&self, outcome: Option<KeptReply>) {
        // Only `Running` settles a cell, once (its `finish` or its drop).
        let _ = self.outcome.set(outcome);
        self.set.notify_waiters();
    }
}

#[derive(Debug, Default)]
struct Kept {
    slots: HashMap<StateId, Slot, IdHasher>,
    /// Claim order, for expiry and the bound; may hold ids already
    /// forgotten (skipped, and compacted now and then).
    order: VecDeque<(Instant, StateId)>,
    /// Each owner's ids in claim order (may hold forgotten ids too), and
    /// how many of them are kept.
    owners: HashMap<Arc<str>, (VecDeque<StateId>, usize)>,
}

/// What [`RetryReplies::claim`] found.
pub(crate) enum Claim {
    /// Nobody ran this state yet: run it and [`Running::finish`] it.
    First(Running),
    /// Another request ran (or is running) it: this is its reply.
    Repeat(Arc<ReplyCell>),
    /// No room to remember it: run it without the guarantee.
    Untracked,
}

/// The right and duty to publish one state's reply; dropped without
/// [`finish`](Self::finish), it tells the waiters the round ended without
/// one.
pub(crate) struct Running {
    cell: Arc<ReplyCell>,
}

impl Running {
    /// Publish the reply to everyone waiting for it, and keep it.
    pub(crate) fn finish(self, reply: &Reply) {
        self.cell.settle(Some(reply.clone()));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.cell.finished() {
            self.cell.settle(None);
        }
    }
}

impl RetryReplies {
    /// Keep replies for `keep_for`, at most `max` of them, and at most a
    /// sixteenth of that (or 64, whichever is more) per owner.
    pub(crate) fn new(keep_for: Duration, max: usize) -> Self {
        let max = max.max(1);
        Self {
            inner: Mutex::new(Kept::default()),
            keep_for,
            max,
            max_per_owner: (max / 16).max(64).min(max),
        }
    }

    /// Claim `id` (a state of `owner`) for this request, or find who
    /// already did.
    pub(crate) fn claim(&self, id: StateId, owner: &str) -> Claim {
        let now = Instant::now();
        let mut kept = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        kept.forget_older_than(now.checked_sub(self.keep_for));
        if let Some(slot) = kept.slots.get(&id) {
            return Claim::Repeat(Arc::clone(&slot.reply));
        }
        let owner = kept.owner_key(owner);
        if kept.count_of(&owner) >= self.max_per_owner && !kept.forget_oldest_of(&owner) {
            return Claim::Untracked;
        }
        if kept.slots.len() >= self.max && !kept.forget_oldest_finished() {
            return Claim::Untracked;
        }
        let cell = Arc::new(ReplyCell::default());
        kept.slots.insert(
            id,
            Slot {
                reply: Arc::clone(&cell),
                owner: Arc::clone(&owner),
            },
        );
        kept.order.push_back((now, id));
        let (ids, count) = kept.owners.entry(Arc::clone(&owner)).or_default();
        ids.push_back(id);
        *count += 1;
        kept.compact(&owner, self.max, self.max_per_owner);
        Claim::First(Running { cell })
    }
}

impl Kept {
    fn owner_key(&self, owner: &str) -> Arc<str> {
        self.owners
            .get_key_value(owner)
            .map_or_else(|| Arc::from(owner), |(k, _)| Arc::clone(k))
    }

    fn count_of(&self, owner: &str) -> usize {
        self.owners.get(owner).map_or(0, |(_, n)| *n)
    }

    fn is_finished(&self, id: &StateId) -> bool {
        self.slots.get(id).is_none_or(|s| s.reply.finished())
    }

    /// Forget `id`'s reply (its entries in the queues go stale).
    fn forget(&mut self, id: &StateId) {
        let Some(slot) = self.slots.remove(id) else {
            return;
        };
        if let Some((ids, count)) = self.owners.get_mut(&slot.owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                ids.clear();
                self.owners.remove(&slot.owner);
            }
        }
    }

    /// Forget finished replies kept since before `cutoff`. A reply still
    /// running is kept whatever its age (the load caps bound how many run).
    fn forget_older_than(&mut self, cutoff: Option<Instant>) {
        let Some(cutoff) = cutoff else { return };
        while let Some(&(at, id)) = self.order.front() {
            if !self.slots.contains_key(&id) {
                self.order.pop_front();
                continue;
            }
            if at > cutoff || !self.is_finished(&id) {
                break;
            }
            self.order.pop_front();
            self.forget(&id);
        }
    }

    /// Make room by forgetting the oldest finished reply; `false` when every
    /// kept reply is still running.
    fn forget_oldest_finished(&mut self) -> bool {
        let oldest = self
            .order
            .iter()
            .map(|(_, id)| *id)
            .find(|id| self.slots.contains_key(id) && self.is_finished(id));
        oldest.is_some_and(|id| {
            self.forget(&id);
            true
        })
    }

    /// Make room in `owner`'s share by forgetting its oldest finished reply.
    ///
    /// Ids already forgotten at the front of the owner's queue are dropped
    /// on the way (they would be skipped again by every later call; a
    /// client at its share makes this call on each retry).
    fn forget_oldest_of(&mut self, owner: &str) -> bool {
        let Self { slots, owners, .. } = self;
        let oldest = owners.get_mut(owner).and_then(|(ids, _)| {
            while ids.front().is_some_and(|id| !slots.contains_key(id)) {
                ids.pop_front();
            }
            ids.iter()
                .copied()
                .find(|id| slots.get(id).is_some_and(|s| s.reply.finished()))
        });
        oldest.is_some_and(|id| {
            self.forget(&id);
            true
        })
    }

    /// Drop forgotten ids from the claim order, and from `owner`'s queue
    /// (the one that just grew), once they outnumber kept ones. Only the
    /// claiming owner's queue is looked at: a claim costs the same however
    /// many owners have replies kept.
    fn compact(&mut self, owner: &str, max: usize, max_per_owner: usize) {
        let slots = &self.slots;
        if self.order.len() > 2 * max {
            self.order.retain(|(_, id)| slots.contains_key(id));
        }
        if let Some((ids, _)) = self.owners.get_mut(owner)
            && ids.len() > 2 * max_per_owner
        {
            ids.retain(|id| slots.contains_key(id));
        }
    }
}

/// Wait for the reply another request is producing.
pub(crate) async fn wait(cell: Arc<ReplyCell>) -> Reply {
    loop {
        // Registered before the look, so a reply set in between still wakes it.
        let set = cell.set.notified();
        let mut set = std::pin::pin!(set);
        set.as_mut().enable();
        match cell.outcome.get() {
            Some(Some(reply)) => return reply.clone(),
            // The round that held the state ended without a reply (it panicked).
            Some(None) => return Err(RpcError::internal("Internal error")),
            None => set.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn text_of(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_string()).unwrap()
    }

    fn id(n: u8) -> StateId {
        StateId::from_bytes([n; 16])
    }

    /// A store with state 1 claimed twice: the first claim's duty to
    /// publish, and the second claim's cell.
    fn claimed_twice() -> (RetryReplies, Running, Arc<ReplyCell>) {
        let replies = RetryReplies::new(Duration::from_secs(60), 100);
        let Claim::First(running) = replies.claim(id(1), "a") else {
            panic!("first claim");
        };
        let Claim::Repeat(cell) = replies.claim(id(1), "a") else {
            panic!("second claim");
        };
        (replies, running, cell)
    }

    #[tokio::test]
    async fn the_second_claim_gets_the_first_reply() {
        let (replies, running, rx) = claimed_twice();
        let waiter = tokio::spawn(wait(rx));
        let expected = r#"{"z":1.5,"a":{"y":[1,"x"],"b":null}}"#;
        running.finish(&Ok(text_of(expected)));
        // The same text: the same members in the same order.
        let text = |r: Reply| r.unwrap().get().to_string();
        assert_eq!(text(waiter.await.unwrap()), expected);
        // And after it finished.
        let Claim::Repeat(rx) = replies.claim(id(1), "a") else {
            panic!("third claim");
        };
        assert_eq!(text(wait(rx).await), expected);
    }

    #[tokio::test]
    async fn a_round_that_dies_is_an_internal_error_not_a_hang() {
        let (_replies, running, rx) = claimed_twice();
        drop(running);
        assert!(wait(rx).await.is_err());
    }

    #[tokio::test]
    async fn a_waiter_already_waiting_learns_the_round_died() {
        let (_replies, running, cell) = claimed_twice();
        let waiter = tokio::spawn(wait(cell));
        // Let the waiter register before the round goes away.
        tokio::task::yield_now().await;
        drop(running);
        let outcome = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter wakes")
            .unwrap();
        assert_eq!(outcome.unwrap_err().code().0, -32603);
    }

    #[test]
    fn bounded_finished_replies_make_room_running_ones_do_not() {
        let replies = RetryReplies::new(Duration::from_secs(60), 2);
        let Claim::First(a) = replies.claim(id(1), "a") else {
            panic!()
        };
        let Claim::First(_b) = replies.claim(id(2), "a") else {
            panic!()
        };
        assert!(matches!(replies.claim(id(3), "a"), Claim::Untracked));
        a.finish(&Ok(text_of("{}")));
        let Claim::First(_c) = replies.claim(id(3), "a") else {
            panic!("finished id 1 makes room")
        };
        // Both kept ones are running now: no room, and id 1 is forgotten.
        assert!(matches!(replies.claim(id(1), "a"), Claim::Untracked));
    }

    #[test]
    fn one_owner_pushes_out_only_its_own_replies() {
        let replies = RetryReplies::new(Duration::from_secs(60), 16 * 64 + 1);
        for n in 0..=200u8 {
            let Claim::First(r) = replies.claim(id(n), "flood") else {
                panic!("claim {n}")
            };
            r.finish(&Ok(text_of("{}")));
            if n == 0 {
                let Claim::First(mine) = replies.claim(id(255), "good") else {
                    panic!("good claim")
                };
                mine.finish(&Ok(text_of("{}")));
            }
        }
        // The flood kept its latest 64; the other owner's reply is still there.
        assert!(matches!(replies.claim(id(255), "good"), Claim::Repeat(_)));
        assert!(matches!(replies.claim(id(200), "flood"), Claim::Repeat(_)));
        assert!(matches!(replies.claim(id(0), "flood"), Claim::First(_)));
    }

    #[test]
    fn finished_replies_expire() {
        let replies = RetryReplies::new(Duration::ZERO, 10);
        let Claim::First(a) = replies.claim(id(1), "a") else {
            panic!()
        };
        // Running: kept whatever its age.
        assert!(matches!(replies.claim(id(1), "a"), Claim::Repeat(_)));
        a.finish(&Ok(text_of("{}")));
        assert!(matches!(replies.claim(id(1), "a"), Claim::First(_)));
    }
}
