//! The table of held calls: bounded in number and time, and, when every
//! connection to a 2025-11-25 upstream is busy, giving up the call whose
//! round has waited longest for a 2026-07-28 client's retry (see
//! [`Held::yield_oldest`]).

use std::collections::HashMap;
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
    calls: Mutex<HashMap<String, Arc<HeldCall>>>,
}

impl Held {
    pub(crate) fn new(max: usize, hold_for: Duration, yield_after: Duration) -> Self {
        Self {
            max,
            hold_for,
            yield_after,
            calls: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.calls.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// Hold `call`, after stopping those past their time; refused as busy
    /// when the most calls are held.
    pub(super) fn insert(&self, call: &Arc<HeldCall>) -> Result<(), ToolError> {
        let Ok(mut calls) = self.calls.lock() else {
            return Err(ToolError::internal(
                "the gateway's table of calls is poisoned",
            ));
        };
        let hold_for = self.hold_for;
        calls.retain(|_, c| {
            let alive = c.started.elapsed() < hold_for;
            if !alive {
                tracing::info!("an upstream call held past its time was stopped");
                c.stop();
            }
            alive
        });
        if calls.len() >= self.max {
            tracing::warn!(
                held = calls.len(),
                "call refused: the gateway holds its most calls"
            );
            return Err(ToolError::Rpc(RpcError::overloaded(
                "The gateway holds its most upstream calls; try again later",
            )));
        }
        calls.insert(call.id.clone(), Arc::clone(call));
        Ok(())
    }

    /// The held call `id` of `principal`, unless it is past its time.
    pub(super) fn get(&self, id: &str, principal: &str) -> Option<Arc<HeldCall>> {
        let call = self.calls.lock().ok()?.get(id).cloned()?;
        if call.principal != principal || call.started.elapsed() >= self.hold_for {
            return None;
        }
        Some(call)
    }

    pub(super) fn remove(&self, id: &str) {
        let call = self.calls.lock().ok().and_then(|mut c| c.remove(id));
        if let Some(call) = call {
            call.stop();
        }
    }

    /// Let the call `id` go without stopping it (it became a task, which
    /// the server core bounds and stops).
    pub(super) fn detach(&self, id: &str) {
        if let Ok(mut c) = self.calls.lock() {
            c.remove(id);
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
