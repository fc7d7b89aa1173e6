//! Draining before a shutdown: once [`Drain::begin`] is called, every
//! 2025-11-25 question waiting for a person is withdrawn
//! (`notifications/cancelled` with [`WITHDRAWN`] as its reason) and its call
//! ends with an `isError` result saying to call again ([`CALL_AGAIN`]); a
//! question asked afterwards ends the same way without being sent.
//! 2026-07-28 calls never wait for a person, so they finish on their own:
//! their sealed state lets the client retry on another instance.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// The reason of the `notifications/cancelled` that withdraws a question.
pub(crate) const WITHDRAWN: &str = "The server is shutting down.";

/// The text of the `isError` result of a call whose question was withdrawn.
pub(crate) const CALL_AGAIN: &str =
    "The server is shutting down before the question was answered; call the tool again.";

/// Whether the server is draining, for everything that waits.
#[derive(Debug, Default)]
pub(crate) struct Drain {
    started: CancellationToken,
}

impl Drain {
    /// Start draining (idempotent).
    pub(crate) fn begin(&self) {
        if !self.started.is_cancelled() {
            tracing::info!("draining: questions waiting for a person are withdrawn");
        }
        self.started.cancel();
    }

    /// Whether draining has begun.
    pub(crate) fn is_draining(&self) -> bool {
        self.started.is_cancelled()
    }

    /// Completes once draining has begun.
    pub(crate) async fn begun(&self) {
        self.started.cancelled().await;
    }
}

/// Wait until `in_progress` reports no request, polling every few
/// milliseconds, for at most `within`; `true` when none is left.
pub(crate) async fn settled(in_progress: impl Fn() -> usize, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if in_progress() == 0 {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
