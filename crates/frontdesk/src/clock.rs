//! Wall-clock time for expiries, injectable so tests can move time by hand.
//!
//! Expiries are whole unix seconds: they travel inside sealed state and stores,
//! where a plain integer is the simplest thing to compare and persist.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current time in unix seconds.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Seconds since the unix epoch, now.
    fn now_unix(&self) -> u64;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_unix(&self) -> u64 {
        unix_secs(SystemTime::now())
    }
}

/// A clock that only moves when told to; for tests and simulations.
///
/// Clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock standing at `unix_secs`.
    pub fn new(unix_secs: u64) -> Self {
        Self {
            now: Arc::new(AtomicU64::new(unix_secs)),
        }
    }

    /// Move the clock forward by `secs`.
    pub fn advance(&self, secs: u64) {
        self.now.fetch_add(secs, Ordering::SeqCst);
    }

    /// Set the clock to `unix_secs`.
    pub fn set(&self, unix_secs: u64) {
        self.now.store(unix_secs, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_unix(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// Whole seconds since the unix epoch; times before the epoch count as 0.
pub fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
