//! `--rate R`: the same offered load for every server.
//!
//! In the closed loop each server is offered as many calls as it can
//! serve, so a faster server also runs at a higher rate, with a busier
//! load generator beside it, and its latency is not comparable with a
//! slower server's. With `--rate R` the C clients of a row together start
//! about R calls a second (each client one every C/R seconds, the clients
//! spread over that interval), so every server is measured at the same
//! load; a server that cannot keep up shows it in its calls per second.
//!
//! The runtime's timer wakes a client at millisecond granularity, so a
//! client that woke late starts its next calls at once until it is back on
//! its schedule; one that fell more than [`SLACK`] behind (a server slower
//! than the rate) skips ahead rather than send a burst. Latency is measured
//! from when a call was sent.

use std::time::{Duration, Instant};

/// How far a client may fall behind its schedule and still catch up.
const SLACK: Duration = Duration::from_millis(10);

/// One client's schedule.
pub struct Pace {
    next: Instant,
    every: Duration,
}

impl Pace {
    /// The schedule of client `index` of `clients`, all together starting
    /// `rate` calls a second.
    pub fn new(rate: f64, clients: usize, index: usize) -> Self {
        #[allow(clippy::cast_precision_loss)]
        let every = Duration::from_secs_f64(clients as f64 / rate);
        #[allow(clippy::cast_precision_loss)]
        let offset = every.mul_f64(index as f64 / clients as f64);
        Self {
            next: Instant::now() + offset,
            every,
        }
    }

    /// Wait until the next call is due.
    pub async fn wait(&mut self) {
        tokio::time::sleep_until(self.next.into()).await;
        let now = Instant::now();
        self.next = (self.next + self.every).max(now.checked_sub(SLACK).unwrap_or(now));
    }
}
