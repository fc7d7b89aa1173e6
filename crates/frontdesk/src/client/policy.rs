//! Policies that protect the person: a per-server rate limit on questions,
//! and the clock that keeps request timeouts from running out while someone
//! is answering.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// At most `limit` elicitations in any sliding minute.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    limit: u32,
    window: Duration,
    seen: Mutex<VecDeque<Instant>>,
}

impl RateLimiter {
    pub(super) fn per_minute(limit: u32) -> Self {
        Self {
            limit,
            window: Duration::from_secs(60),
            seen: Mutex::new(VecDeque::new()),
        }
    }

    /// Count one elicitation; `false` when it is over the limit.
    pub(super) fn admit(&self) -> bool {
        let now = Instant::now();
        let Ok(mut seen) = self.seen.lock() else {
            return false;
        };
        while seen
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            seen.pop_front();
        }
        if seen.len() >= self.limit as usize {
            return false;
        }
        seen.push_back(now);
        true
    }
}

/// Tracks whether a person is (or just was) answering a question, so
/// machine timeouts pause for human time.
#[derive(Debug)]
pub(crate) struct HumanClock {
    active: AtomicUsize,
    last_end: Mutex<Option<Instant>>,
}

impl Default for HumanClock {
    fn default() -> Self {
        Self {
            active: AtomicUsize::new(0),
            last_end: Mutex::new(None),
        }
    }
}

impl HumanClock {
    /// Mark the start of a human wait; the guard marks its end.
    pub(crate) fn start(&self) -> HumanGuard<'_> {
        self.active.fetch_add(1, Ordering::SeqCst);
        HumanGuard { clock: self }
    }

    /// Whether someone is answering now, or finished less than `within` ago.
    pub(crate) fn busy_within(&self, within: Duration) -> bool {
        if self.active.load(Ordering::SeqCst) > 0 {
            return true;
        }
        self.last_end
            .lock()
            .ok()
            .and_then(|t| *t)
            .is_some_and(|t| t.elapsed() < within)
    }
}

/// Ends a human wait when dropped.
pub(crate) struct HumanGuard<'a> {
    clock: &'a HumanClock,
}

impl Drop for HumanGuard<'_> {
    fn drop(&mut self) {
        self.clock.active.fetch_sub(1, Ordering::SeqCst);
        if let Ok(mut t) = self.clock.last_end.lock() {
            *t = Some(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_counts_a_window() {
        let r = RateLimiter::per_minute(2);
        assert!(r.admit());
        assert!(r.admit());
        assert!(!r.admit());
    }

    #[test]
    fn human_clock_covers_the_wait_and_a_grace_period() {
        let c = HumanClock::default();
        assert!(!c.busy_within(Duration::from_secs(1)));
        {
            let _g = c.start();
            assert!(c.busy_within(Duration::ZERO));
        }
        assert!(c.busy_within(Duration::from_secs(60)));
        assert!(!c.busy_within(Duration::ZERO));
    }
}
