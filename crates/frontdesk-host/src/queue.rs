//! One request on screen at a time: concurrent elicitations (parallel tool calls)
//! wait their turn in arrival order, each knows how many wait behind it, and one
//! withdrawn while waiting is dropped without ever being shown.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, OwnedMutexGuard};
use tokio_util::sync::CancellationToken;

/// A first-come, first-served queue of requests for one screen.
#[derive(Debug, Default)]
pub struct Queue {
    screen: Arc<Mutex<()>>,
    pending: AtomicUsize,
}

/// The right to use the screen; the next request gets it when this is dropped.
#[derive(Debug)]
pub struct Turn {
    _guard: OwnedMutexGuard<()>,
    queue: Arc<Queue>,
}

impl Turn {
    /// How many requests wait behind this one right now.
    pub fn waiting(&self) -> usize {
        self.queue.pending.load(Ordering::SeqCst).saturating_sub(1)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.queue.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Undoes the pending count of a request withdrawn while it waited.
struct Waiting<'a>(&'a Queue, bool);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.1 {
            self.0.pending.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Queue {
    /// An empty queue.
    pub fn new() -> Arc<Queue> {
        Arc::new(Queue::default())
    }

    /// Requests on screen or waiting.
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    /// Wait for the screen. `None` when `cancelled` fires first (the request was
    /// withdrawn while it waited: show nothing, answer nothing).
    pub async fn enter(self: &Arc<Self>, cancelled: &CancellationToken) -> Option<Turn> {
        self.pending.fetch_add(1, Ordering::SeqCst);
        let mut waiting = Waiting(self, true);
        let guard = tokio::select! {
            g = self.screen.clone().lock_owned() => g,
            () = cancelled.cancelled() => return None,
        };
        waiting.1 = false;
        Some(Turn {
            _guard: guard,
            queue: self.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn second_request_waits_and_counts() {
        let q = Queue::new();
        let none = CancellationToken::new();
        let first = q.enter(&none).await;
        assert!(first.is_some());
        let q2 = q.clone();
        let waiter = tokio::spawn(async move {
            let t = q2.enter(&CancellationToken::new()).await;
            t.map(|t| t.waiting())
        });
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert_eq!(first.as_ref().map(Turn::waiting), Some(1));
        drop(first);
        assert_eq!(waiter.await.ok().flatten(), Some(0));
        assert_eq!(q.pending(), 0);
    }

    #[tokio::test]
    async fn withdrawn_while_waiting_is_dropped() {
        let q = Queue::new();
        let first = q.enter(&CancellationToken::new()).await;
        let token = CancellationToken::new();
        let q2 = q.clone();
        let t2 = token.clone();
        let waiter = tokio::spawn(async move { q2.enter(&t2).await.is_some() });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        token.cancel();
        assert_eq!(waiter.await.ok(), Some(false));
        assert_eq!(first.as_ref().map(Turn::waiting), Some(0));
    }
}
