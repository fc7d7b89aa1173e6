//! A retry's round that finishes even when its request goes away.
//!
//! The round is polled in place while the request waits for it (no task, no
//! wake-up of another worker, no timer for the JSON window: a round that
//! does not wait on anything completes in its first poll). When the request's
//! future is dropped first (the connection dropped), the rest of the round
//! moves to a task of its own, so its reply is still published for the same
//! retry sent again (see [`crate::server::engine::replies`]). The places the request held
//! in the counts of requests in flight ([`Held`]) move with it and are given
//! back when the round ends, so a dropped retry still counts against the
//! server's and its client's caps while it runs.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::server::api::error::RpcError;
use crate::server::engine::load::Held;
use crate::server::engine::requests::Reply;
use crate::server::modern::elsewhere::Handoff;

/// A round's future that is polled in place and, when dropped unfinished,
/// handed to the runtime to finish, with the places its request held.
pub(in crate::server::modern) struct Finishing<F>
where
    F: Future<Output = Reply> + Send + 'static,
{
    work: Option<Pin<Box<F>>>,
    held: Option<Held>,
    /// Where the reply goes when the request goes away first (a shared
    /// store, for the same retry sent to another instance).
    handoff: Option<Handoff>,
}

impl<F> Finishing<F>
where
    F: Future<Output = Reply> + Send + 'static,
{
    /// Own `work` and `held` until the work finishes here or is handed off;
    /// `handoff` keeps the reply of work handed off for other instances.
    pub(in crate::server::modern) fn new(work: F, held: Held, handoff: Option<Handoff>) -> Self {
        Self {
            work: Some(Box::pin(work)),
            held: Some(held),
            handoff,
        }
    }
}

impl<F> Future for Finishing<F>
where
    F: Future<Output = Reply> + Send + 'static,
{
    type Output = Reply;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        let Some(work) = self.work.as_mut() else {
            // Polled after it returned: a caller's bug, answered not panicked.
            return Poll::Ready(Err(RpcError::internal("Internal error")));
        };
        // A panicking handler ends its round with -32603, as a panicking
        // task would; the round's waiters see its reply never came.
        let reply = match catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(reply)) => reply,
            Err(_) => {
                tracing::error!("a handler panicked during a retry's round");
                Err(RpcError::internal("Internal error"))
            }
        };
        self.work = None;
        self.held = None;
        Poll::Ready(reply)
    }
}

impl<F> Drop for Finishing<F>
where
    F: Future<Output = Reply> + Send + 'static,
{
    fn drop(&mut self) {
        let Some(work) = self.work.take() else {
            return;
        };
        // Outside a runtime nothing could run it; it is dropped, and the
        // round's waiters see its reply never came.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            tracing::debug!("request dropped while its round runs; the round goes on");
            let held = self.held.take();
            let handoff = self.handoff.take();
            drop(runtime.spawn(async move {
                if let Some(handoff) = &handoff {
                    handoff.went_away().await;
                }
                let reply = work.await;
                if let Some(handoff) = &handoff {
                    handoff.finished(&reply).await;
                }
                // Given back last: a drain waits for the reply to be kept.
                drop(held);
                reply
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::engine::load::Load;
    use serde_json::value::RawValue;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    fn empty() -> Box<RawValue> {
        RawValue::from_string("{}".into()).unwrap()
    }

    #[tokio::test]
    async fn a_round_that_waits_on_nothing_finishes_in_place() {
        let r = Finishing::new(async { Ok(empty()) }, Held::default(), None).await;
        assert_eq!(r.ok().map(|t| t.get().to_string()), Some("{}".into()));
    }

    #[tokio::test]
    async fn a_dropped_round_finishes_on_its_own() {
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        let round = Finishing::new(
            async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                flag.store(true, Ordering::SeqCst);
                Ok(empty())
            },
            Held::default(),
            None,
        );
        let waited = tokio::time::timeout(Duration::from_millis(1), round).await;
        assert!(waited.is_err(), "the round should still be running");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            done.load(Ordering::SeqCst),
            "the dropped round did not finish"
        );
    }

    #[tokio::test]
    async fn a_dropped_round_holds_its_places_until_it_finishes() {
        let load = Load::new(1, 1);
        let held = Held::default().with_server(load.request().unwrap());
        let round = Finishing::new(
            async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(empty())
            },
            held,
            None,
        );
        let waited = tokio::time::timeout(Duration::from_millis(1), round).await;
        assert!(waited.is_err(), "the round should still be running");
        assert_eq!(load.requests(), 1, "the dropped round gave its place back");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(load.requests(), 0, "the finished round kept its place");
    }

    #[tokio::test]
    async fn a_round_finished_in_place_gives_its_places_back() {
        let load = Load::new(1, 1);
        let held = Held::default().with_server(load.request().unwrap());
        let r = Finishing::new(async { Ok(empty()) }, held, None).await;
        assert!(r.is_ok());
        assert_eq!(load.requests(), 0);
    }

    #[tokio::test]
    async fn a_panicking_round_is_an_internal_error() {
        let r = Finishing::new(
            async {
                if true {
                    panic!("handler bug");
                }
                Ok(empty())
            },
            Held::default(),
            None,
        )
        .await;
        assert_eq!(r.err().map(|e| e.code().0), Some(-32603));
    }
}
