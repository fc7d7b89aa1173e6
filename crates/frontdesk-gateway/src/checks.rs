//! The checks the gateway applies to what an upstream server asks, and
//! which of them an operator may switch off ([`Checks`]). Two are how a
//! question is asked at all and stay on: a form must be in the elicitation
//! schema subset, and an accepted answer is validated against it before it
//! goes upstream.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The switchable checks, all on by default.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Checks {
    /// URL-mode URLs pass `frontdesk_url::review`; a refused URL never
    /// reaches the person. Off: any URL the client in front can show goes.
    pub review_urls: bool,
    /// Control and bidirectional formatting characters are removed from
    /// the server's messages, titles, descriptions, name and instructions.
    pub scrub: bool,
    /// Most questions the upstream may ask per minute (a burst of this many,
    /// then one every `60 s / n`); past it a question is refused upstream.
    /// `0`: no limit.
    pub questions_per_minute: u32,
}

impl Default for Checks {
    /// Everything on; 60 questions a minute.
    fn default() -> Self {
        Self {
            review_urls: true,
            scrub: true,
            questions_per_minute: 60,
        }
    }
}

/// A token bucket for the upstream's questions.
#[derive(Debug)]
pub(crate) struct QuestionRate {
    per_minute: u32,
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl QuestionRate {
    pub(crate) fn new(per_minute: u32) -> Self {
        Self {
            per_minute,
            state: Mutex::new(Bucket {
                tokens: f64::from(per_minute),
                at: Instant::now(),
            }),
        }
    }

    /// Take one question's place at `now`: `false` when the upstream has
    /// asked its most for now.
    pub(crate) fn admit(&self, now: Instant) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        let Ok(mut bucket) = self.state.lock() else {
            return false;
        };
        let capacity = f64::from(self.per_minute);
        let elapsed = now.saturating_duration_since(bucket.at);
        bucket.tokens = (bucket.tokens + elapsed.as_secs_f64() * capacity / 60.0).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// How long until the next question may be asked (for the refusal).
    pub(crate) fn period(&self) -> Duration {
        Duration::from_secs(60) / self.per_minute.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_per_period() {
        let rate = QuestionRate::new(60);
        let t0 = Instant::now();
        let admitted = (0..1000).filter(|_| rate.admit(t0)).count();
        assert_eq!(admitted, 60, "the burst");
        assert!(!rate.admit(t0 + Duration::from_millis(500)));
        assert!(rate.admit(t0 + Duration::from_millis(1001)));
        assert!(!rate.admit(t0 + Duration::from_millis(1002)));
        assert_eq!(rate.period(), Duration::from_secs(1));
    }

    #[test]
    fn zero_means_no_limit() {
        let rate = QuestionRate::new(0);
        let t0 = Instant::now();
        assert!((0..10_000).all(|_| rate.admit(t0)));
    }
}
