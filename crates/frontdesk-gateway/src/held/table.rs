//! The table of held calls: bounded in number and time, and, when every
//! connection to a 2025-11-25 upstream is busy, giving up the call whose
//! round has waited longest for a 2026-07-28 client's retry (see
//! [`Held::yield_oldest`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use frontdesk::server::{RpcError, ToolError};

use super::HeldCall;

/// The held calls, by id.
pub(crate) struct Held {
    max: usize,
    hold_for: Duration,
    /// How long a round waits for its retry before its call may be given
    /// up for another (see [`yield_oldest`](Self::yield_oldest)).
    yield_after: Duration,
    calls: Mutex<Calls>,
}

/// The held calls by id, and their ids in the order they started, so that
/// those past their time are found at the front rather than by a scan of
/// every call at each new one.
#[derive(Default)]
struct Calls {
    by_id: HashMap<String, Arc<HeldCall>>,
    /// (when it started, id), oldest first; ids of calls that ended are
    /// dropped when they reach the front, or all at once when they are
    /// more than the calls held.
    by_start: VecDeque<(Instant, String)>,
}

impl Calls {
    /// Stop and forget the calls started `hold_for` ago or earlier.
    fn expire(&mut self, hold_for: Duration) {
        while let Some((started, _)) = self.by_start.front() {
            if started.elapsed() < hold_for {
                break;
            }
            let Some((_, id)) = self.by_start.pop_front() else {
                break;
            };
            if let Some(call) = self.by_id.remove(&id) {
                tracing::info!("an upstream call held past its time was stopped");
                call.stop();
            }
        }
        // Calls end far sooner than they expire: keep the order's ids of
        // ended calls from piling up (each drop is paid for by the ends
        // before it).
        if self.by_start.len() > 2 * self.by_id.len() + 64 {
            let by_id = &self.by_id;
            self.by_start.retain(|(_, id)| by_id.contains_key(id));
        }
    }
}

impl Held {
    pub(crate) fn new(max: usize, hold_for: Duration, yield_after: Duration) -> Self {
        Self {
            max,
            hold_for,
            yield_after,
            calls: Mutex::new(Calls::default()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.calls.lock().map(|c| c.by_id.len()).unwrap_or(0)
    }

    /// Hold `call`, after stopping those past their time; refused as busy
    /// when the most calls are held.
    pub(super) fn insert(&self, call: &Arc<HeldCall>) -> Result<(), ToolError> {
        let Ok(mut calls) = self.calls.lock() else {
            return Err(ToolError::internal(
                "the gateway's table of calls is poisoned",
            ));
        };
        calls.expire(self.hold_for);
        if calls.by_id.len() >= self.max {
            tracing::warn!(
                held = calls.by_id.len(),
                "call refused: the gateway holds its most calls"
            );
            return Err(ToolError::Rpc(RpcError::overloaded(
                "The gateway holds its most upstream calls; try again later",
            )));
        }
        calls.by_id.insert(call.id.clone(), Arc::clone(call));
        calls.by_start.push_back((call.started, call.id.clone()));
        Ok(())
    }

    /// The held call `id` of `principal`, unless it is past its time.
    pub(super) fn get(&self, id: &str, principal: &str) -> Option<Arc<HeldCall>> {
        let call = self.calls.lock().ok()?.by_id.get(id).cloned()?;
        if call.principal != principal || call.started.elapsed() >= self.hold_for {
            return None;
        }
        Some(call)
    }

    pub(super) fn remove(&self, id: &str) {
        let call = self.calls.lock().ok().and_then(|mut c| c.by_id.remove(id));
        if let Some(call) = call {
            call.stop();
        }
    }

    /// Let the call `id` go without stopping it (it became a task, which
    /// the server core bounds and stops).
    pub(super) fn detach(&self, id: &str) {
        if let Ok(mut c) = self.calls.lock() {
            c.by_id.remove(id);
        }
    }

    /// Every connection is busy and a call waits for one: stop the call
    /// whose round has waited longest for its client's retry, if that is
    /// at least `yield_after` (its connection is let go; a retry for it
    /// is refused, as for a call past its time). `false`: none waited
    /// that long.
    pub(crate) fn yield_oldest(&self) -> bool {
        let now = Instant::now();
        let oldest = {
            let Ok(calls) = self.calls.lock() else {
                return false;
            };
            calls
                .by_id
                .values()
                .filter_map(|c| {
                    let since = c.waiting.lock().ok().and_then(|w| *w)?;
                    (now.saturating_duration_since(since) >= self.yield_after)
                        .then(|| (since, c.id.clone()))
                })
                .min()
        };
        let Some((_, id)) = oldest else {
            return false;
        };
        tracing::info!(
            waited_s = self.yield_after.as_secs(),
            "every upstream connection is busy: a call whose client has not come back for its round gives its connection up"
        );
        self.remove(&id);
        true
    }

    /// How often a call waiting for a connection looks for a round to give
    /// one up.
    pub(crate) fn yield_check(&self) -> Duration {
        self.yield_after
            .clamp(Duration::from_millis(10), Duration::from_secs(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held::Modes;

    fn call() -> Arc<HeldCall> {
        let modes = Modes {
            form: true,
            url: false,
            sampling: false,
            roots: false,
        };
        HeldCall::new("p".into(), "book_return".into(), modes)
    }

    /// Calls that end leave nothing that grows: the order of starts drops
    /// their ids once they outnumber the calls held.
    #[test]
    fn ended_calls_do_not_pile_up_in_the_order_of_starts() {
        let held = Held::new(8, Duration::from_secs(600), Duration::from_secs(60));
        let kept = call();
        held.insert(&kept).unwrap();
        for _ in 0..10_000 {
            let ended = call();
            held.insert(&ended).unwrap();
            held.remove(&ended.id);
        }
        let calls = held.calls.lock().unwrap();
        assert_eq!(calls.by_id.len(), 1);
        assert!(
            calls.by_start.len() <= 2 + 64 + 1,
            "{}",
            calls.by_start.len()
        );
        assert!(calls.by_id.contains_key(&kept.id));
    }

    /// At the cap a new call is refused, until the oldest is past its time:
    /// the next call to start stops and forgets it.
    #[test]
    fn a_call_past_its_time_makes_room_when_the_next_starts() {
        let held = Held::new(1, Duration::from_millis(30), Duration::from_secs(60));
        let old = call();
        held.insert(&old).unwrap();
        assert!(held.insert(&call()).is_err(), "over the cap");
        std::thread::sleep(Duration::from_millis(40));
        let new = call();
        held.insert(&new).unwrap();
        assert!(held.get(&old.id, "p").is_none());
        assert!(held.get(&new.id, "p").is_some());
        assert_eq!(held.len(), 1);
    }
}
