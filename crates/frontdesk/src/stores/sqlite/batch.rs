//! Redemptions committed on the async runtime, in batches (with
//! [`Durability::Process`](super::Durability::Process)).
//!
//! Handing each redemption to the writer thread and back cost as much CPU
//! as SQLite's own work (a `futex` wake of the thread per commit, the
//! thread's sleep and wake, the answer's wake of the runtime: the memory
//! store behind the same hand-off cost 40–50 % more per call). Here a
//! redemption joins the pending batch; the first one to find no batch
//! under way spawns its leader, a task that yields while the batch grows
//! (so that the requests the runtime has ready run first and join the same
//! batch, see [`gather`]), then
//! commits the batch with the [`Writer`](super::writer::Writer) and
//! answers each, all on the runtime's threads. A commit with `synchronous
//! = NORMAL` writes to the log without `fsync`, a few tens of
//! microseconds; the log's checkpoints, which do `fsync`, are left to the
//! writer thread (and so is the `fsync` of the log's header when the log
//! starts over after one), and while it holds the writer (a checkpoint,
//! or a write of another kind) a leader commits on the blocking pool
//! rather than block a runtime thread.
//!
//! Every redemption is answered only after the commit of its batch, as on
//! the thread.

use std::sync::{Arc, Mutex, PoisonError, TryLockError};

use tokio::sync::mpsc;

use super::writer::{self, Job, MAX_BATCH, Shared, Writer};

/// Most times a leader yields to let its batch grow before it commits.
const GATHER_YIELDS: usize = 16;

/// Let the requests the runtime has ready join the batch: yield until three
/// yields in a row added nothing (at most [`GATHER_YIELDS`] times). One
/// yield caught only the requests ready at that instant; under load more
/// arrive while those run, and each commit costs about the same whatever
/// its size (its pages written to the log), so a larger batch is less CPU
/// per redemption and, with fewer commits queued behind each other, a
/// shorter tail of latency. Measured with the load benchmark (2026-07-28
/// `bench_confirm`, SQLite store, 2 cores): at C=64 the CPU per call went
/// from about 1.3× the memory store's to about the same, at C=16 from
/// about 1.45× to 1.35×, and the p99 at C=16 from 9 ms to 5–6 ms. Three
/// quiet yields rather than two: a little less again in one run (C=16
/// 97.3 against 99.4 CPU-µs per call, C=64 74.9 against 79.2), within the
/// run-to-run spread, and no worse.
async fn gather(batches: &Batches) {
    let mut quiet = 0;
    for _ in 0..GATHER_YIELDS {
        let before = batches.pending().jobs.len();
        tokio::task::yield_now().await;
        if batches.pending().jobs.len() == before {
            quiet += 1;
            if quiet == 3 {
                return;
            }
        } else {
            quiet = 0;
        }
    }
}

/// Redemptions waiting for their batch, and whether a leader will commit
/// them.
#[derive(Default)]
struct Pending {
    jobs: Vec<Job>,
    leading: bool,
}

/// The batches of one store.
pub(super) struct Batches {
    writer: Shared,
    pending: Mutex<Pending>,
    /// The writer thread's queue, for checkpoints (weak: the thread stops
    /// when the store is dropped, whatever batch tasks are left).
    thread: mpsc::WeakSender<Job>,
}

impl Batches {
    pub(super) fn new(writer: Shared, thread: mpsc::WeakSender<Job>) -> Self {
        Self {
            writer,
            pending: Mutex::new(Pending::default()),
            thread,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Add `job` to the next batch; `false` (and `job` not taken) when no
    /// runtime is there to commit it.
    pub(super) fn submit(self: &Arc<Self>, job: Job) -> Result<(), Job> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Err(job);
        };
        let lead = {
            let mut pending = self.pending();
            pending.jobs.push(job);
            !std::mem::replace(&mut pending.leading, true)
        };
        if lead {
            runtime.spawn(Arc::clone(self).lead());
        }
        Ok(())
    }

    /// Commit batches until none is pending.
    async fn lead(self: Arc<Self>) {
        // Dropped unfinished (the runtime shutting down): the next
        // redemption leads, and those pending now get no answer (their
        // requesters report them not committed).
        struct Leading<'a>(&'a Batches);
        impl Drop for Leading<'_> {
            fn drop(&mut self) {
                let mut pending = self.0.pending();
                pending.leading = false;
                pending.jobs.clear();
            }
        }
        let leading = Leading(&self);
        gather(&self).await;
        loop {
            let mut batch = {
                let mut pending = self.pending();
                if pending.jobs.is_empty() {
                    pending.leading = false;
                    std::mem::forget(leading);
                    return;
                }
                let n = pending.jobs.len().min(MAX_BATCH);
                pending.jobs.drain(..n).collect::<Vec<_>>()
            };
            let commit = |writer: &mut Writer, batch: &mut Vec<Job>| {
                writer.commit(batch);
                writer.checkpoint_due()
            };
            let held = match self.writer.try_lock() {
                Ok(mut w) => Some(commit(&mut w, &mut batch)),
                Err(TryLockError::Poisoned(p)) => Some(commit(&mut p.into_inner(), &mut batch)),
                Err(TryLockError::WouldBlock) => None,
            };
            let due = match held {
                Some(due) => due,
                None => {
                    let shared = Arc::clone(&self.writer);
                    let committed = tokio::task::spawn_blocking(move || {
                        commit(&mut writer::lock(&shared), &mut batch)
                    })
                    .await;
                    // Not run (the runtime shutting down): its jobs were
                    // dropped unanswered, their requesters told so.
                    committed.unwrap_or(false)
                }
            };
            if due && let Some(thread) = self.thread.upgrade() {
                // A full queue has a checkpoint coming anyway.
                let _ = thread.try_send(Job::Checkpoint);
            }
        }
    }
}
