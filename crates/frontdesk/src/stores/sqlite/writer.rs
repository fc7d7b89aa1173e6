//! The store's one writer: a thread of its own holding the only writing
//! connection, committing what arrives together in one transaction (group
//! commit), and answering each write only once its transaction is durable.
//!
//! Requests queue on a bounded channel. The writer takes the first, then
//! everything else already waiting (up to [`MAX_BATCH`]), runs them all in
//! one `BEGIN IMMEDIATE … COMMIT`, and only then sends each its answer: the
//! window a redemption can share is the time the previous commit took, so
//! an idle store commits at once and a busy one pays one commit (and, with
//! `synchronous = FULL`, one `fsync`) for many redemptions. When a commit
//! fails, every write of the batch gets the error; none was answered yet, so
//! none is believed done.
//!
//! Expired rows are deleted here too, [`SWEEP_ROWS`] at a time, at most once
//! per [`SWEEP_EVERY`] and preferably when the queue is empty: lookups skip
//! expired rows anyway, so deleting them is housekeeping, not part of any
//! request.

use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::backend;
use crate::flows::{FlowEvent, FlowId, FlowStatus};
use crate::state::StateId;
use crate::store::StoreError;

/// Most writes committed in one transaction.
pub(super) const MAX_BATCH: usize = 512;
/// Writes waiting for the writer before senders wait for room.
pub(super) const QUEUE: usize = 4096;
/// How often expired rows are looked for.
pub(super) const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// Most expired rows of one table deleted in one sweep transaction.
pub(super) const SWEEP_ROWS: i64 = 1024;

/// What a write hands back once its transaction's fate is known: `None`
/// when it committed, the error when it did not.
pub(super) type Deliver = Box<dyn FnOnce(Option<StoreError>) + Send>;

/// A write that is not a redemption: run inside the batch's transaction;
/// what it returns is called once the commit succeeded or failed.
pub(super) type Work = Box<dyn FnOnce(&Connection, i64) -> Deliver + Send>;

/// One request to the writer.
pub(super) enum Job {
    /// Record a redeemed state (the hot path, without a boxed closure).
    Redeem {
        id: StateId,
        expires_at: i64,
        now: i64,
        reply: oneshot::Sender<Result<bool, StoreError>>,
    },
    /// Any other write, at time `now`.
    Work { now: i64, work: Work },
    /// Delete everything expired by `now`, then answer how many flows went.
    Purge {
        now: i64,
        reply: oneshot::Sender<Result<usize, StoreError>>,
    },
}

impl Job {
    fn now(&self) -> i64 {
        match self {
            Self::Redeem { now, .. } | Self::Work { now, .. } | Self::Purge { now, .. } => *now,
        }
    }
}

/// A job run inside the transaction, waiting for its commit.
enum Done {
    Redeemed(
        oneshot::Sender<Result<bool, StoreError>>,
        Result<bool, StoreError>,
    ),
    Worked(Deliver),
    Purged(
        oneshot::Sender<Result<usize, StoreError>>,
        Result<usize, StoreError>,
    ),
}

impl Done {
    /// Answer, now that the commit's outcome is known. A write that failed
    /// on its own keeps its error; a failed commit fails them all.
    fn deliver(self, commit: Option<&StoreError>) {
        let failed = || commit.map(|e| StoreError::Backend(e.to_string()));
        // A requester that went away does not need its answer.
        match self {
            Self::Redeemed(reply, result) => {
                let _ = reply.send(match failed() {
                    Some(e) => Err(e),
                    None => result,
                });
            }
            Self::Worked(deliver) => deliver(failed()),
            Self::Purged(reply, result) => {
                let _ = reply.send(match failed() {
                    Some(e) => Err(e),
                    None => result,
                });
            }
        }
    }
}

/// The writer thread's state.
pub(super) struct Writer {
    conn: Connection,
    events: broadcast::Sender<FlowEvent>,
    /// The latest request time seen: what the background sweep calls now.
    latest_now: i64,
    swept_at: Instant,
}

impl Writer {
    pub(super) fn new(conn: Connection, events: broadcast::Sender<FlowEvent>) -> Self {
        Self {
            conn,
            events,
            latest_now: 0,
            swept_at: Instant::now(),
        }
    }

    /// Serve `queue` until every sender is gone; `started` hears once the
    /// loop runs.
    pub(super) fn run(mut self, mut queue: mpsc::Receiver<Job>, started: std_mpsc::Sender<()>) {
        let _ = started.send(());
        let mut batch = Vec::with_capacity(64);
        loop {
            let first = match queue.try_recv() {
                Ok(job) => job,
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                Err(mpsc::error::TryRecvError::Empty) => {
                    // Idle: the moment for housekeeping, then wait.
                    self.sweep_if_due();
                    match queue.blocking_recv() {
                        Some(job) => job,
                        None => break,
                    }
                }
            };
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            self.commit(&mut batch);
            // Under constant load the queue may never be empty.
            if self.swept_at.elapsed() >= SWEEP_EVERY * 4 {
                self.sweep_if_due();
            }
        }
    }

    /// Run `batch` in one transaction, commit, answer each.
    fn commit(&mut self, batch: &mut Vec<Job>) {
        let mut done = Vec::with_capacity(batch.len());
        let began = self.execute_cached("BEGIN IMMEDIATE");
        for job in batch.drain(..) {
            self.latest_now = self.latest_now.max(job.now());
            if let Err(e) = &began {
                done.push(refuse(job, e));
                continue;
            }
            done.push(self.run_job(job));
        }
        let outcome = match began {
            Err(e) => Some(e),
            Ok(()) => self.execute_cached("COMMIT").err(),
        };
        if outcome.is_some() {
            // The transaction may still be open after a failed COMMIT (a
            // busy database, say): roll it back so the next batch can begin.
            let _ = self.conn.execute_batch("ROLLBACK");
            if let Some(e) = &outcome {
                tracing::warn!(error = %e, writes = done.len(), "SQLite commit failed");
            }
        }
        for d in done {
            d.deliver(outcome.as_ref());
        }
    }

    fn run_job(&mut self, job: Job) -> Done {
        match job {
            Job::Redeem {
                id,
                expires_at,
                now,
                reply,
            } => {
                let result = if expires_at <= now {
                    Ok(false)
                } else {
                    redeem(&self.conn, id, expires_at)
                };
                Done::Redeemed(reply, result)
            }
            Job::Work { now, work } => Done::Worked(work(&self.conn, now)),
            Job::Purge { now, reply } => {
                let result = sweep(&self.conn, now, i64::MAX);
                let (gone, events) = match result {
                    Ok((gone, events)) => (Ok(gone), events),
                    Err(e) => (Err(e), Vec::new()),
                };
                let sender = self.events.clone();
                // The events go out after the commit, with the answer.
                Done::Worked(Box::new(move |failed| {
                    if failed.is_none() {
                        publish(&sender, events);
                    }
                    let _ = reply.send(match failed {
                        Some(e) => Err(e),
                        None => gone,
                    });
                }))
            }
        }
    }

    fn execute_cached(&self, sql: &str) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.execute([]))
            .map(drop)
            .map_err(backend)
    }

    /// Delete up to [`SWEEP_ROWS`] expired rows per table, in a transaction
    /// of their own, when the last sweep is [`SWEEP_EVERY`] old.
    fn sweep_if_due(&mut self) {
        if self.latest_now == 0 || self.swept_at.elapsed() < SWEEP_EVERY {
            return;
        }
        self.swept_at = Instant::now();
        let now = self.latest_now;
        let outcome = self.execute_cached("BEGIN IMMEDIATE").and_then(|()| {
            let swept = sweep(&self.conn, now, SWEEP_ROWS);
            match swept {
                Ok((_, events)) => self.execute_cached("COMMIT").map(|()| events),
                Err(e) => Err(e),
            }
        });
        match outcome {
            Ok(events) => publish(&self.events, events),
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                tracing::warn!(error = %e, "SQLite expiry sweep failed");
            }
        }
    }
}

/// The answer to `job` when its transaction could not even begin.
fn refuse(job: Job, e: &StoreError) -> Done {
    let e = StoreError::Backend(e.to_string());
    match job {
        Job::Redeem { reply, .. } => Done::Redeemed(reply, Err(e)),
        // Its answer channel closes unanswered: the requester reports the
        // write as not committed.
        Job::Work { .. } => {
            tracing::warn!(error = %e, "SQLite write not attempted");
            Done::Worked(Box::new(|_| {}))
        }
        Job::Purge { reply, .. } => Done::Purged(reply, Err(e)),
    }
}

/// Record `id` unless it is there: the primary key makes the first insert
/// win, across restarts.
fn redeem(conn: &Connection, id: StateId, expires_at: i64) -> Result<bool, StoreError> {
    let inserted = conn
        .prepare_cached("INSERT OR IGNORE INTO redeemed_states (id, expires_at) VALUES (?1, ?2)")
        .and_then(|mut s| s.execute(params![&id.as_bytes()[..], expires_at]))
        .map_err(backend)?;
    Ok(inserted == 1)
}

/// Delete what expired by `now`, at most `limit` rows of each table: how
/// many flows went, and the pending ones among them as events.
fn sweep(conn: &Connection, now: i64, limit: i64) -> Result<(usize, Vec<FlowEvent>), StoreError> {
    let mut select = conn
        .prepare_cached(
            "SELECT id, principal FROM flows
             WHERE expires_at <= ?1 AND status = 'pending' LIMIT ?2",
        )
        .map_err(backend)?;
    let expired = select
        .query_map(params![now, limit], |r| {
            Ok(FlowEvent {
                id: FlowId::from_string(r.get::<_, String>(0)?),
                principal: r.get(1)?,
                status: FlowStatus::Failed {
                    reason: "expired".to_owned(),
                },
            })
        })
        .map_err(backend)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(backend)?;
    let delete = |sql: &str| {
        conn.prepare_cached(sql)
            .and_then(|mut s| s.execute(params![now, limit]))
            .map_err(backend)
    };
    // Only the pending flows announced above are deleted among the pending
    // ones, so none expires unannounced when there are more than `limit`.
    let mut gone = 0;
    for event in &expired {
        gone += conn
            .prepare_cached("DELETE FROM flows WHERE id = ?1")
            .and_then(|mut s| s.execute(params![event.id.as_str()]))
            .map_err(backend)?;
    }
    gone += delete(
        "DELETE FROM flows WHERE id IN
         (SELECT id FROM flows WHERE expires_at <= ?1 AND status != 'pending' LIMIT ?2)",
    )?;
    delete(
        "DELETE FROM connect_tokens WHERE hash IN
         (SELECT hash FROM connect_tokens WHERE expires_at <= ?1 LIMIT ?2)",
    )?;
    delete(
        "DELETE FROM redeemed_states WHERE id IN
         (SELECT id FROM redeemed_states WHERE expires_at <= ?1 LIMIT ?2)",
    )?;
    Ok((gone, expired))
}

fn publish(sender: &broadcast::Sender<FlowEvent>, events: Vec<FlowEvent>) {
    for e in events {
        // No subscriber is not an error: nobody is waiting.
        let _ = sender.send(e);
    }
}
