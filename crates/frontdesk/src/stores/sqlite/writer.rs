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
//! With [`Durability::Process`](super::Durability::Process) redemptions do
//! not come through the queue: they are committed on the async runtime
//! (see the `batch` module), with the same [`Writer`] behind a mutex, and
//! the write-ahead log is checkpointed here, so that its `fsync`s never
//! stop a runtime thread.
//!
//! Expired rows are deleted here too, [`SWEEP_ROWS`] at a time, at most once
//! per [`SWEEP_EVERY`] and preferably when the queue is empty: lookups skip
//! expired rows anyway, so deleting them is housekeeping, not part of any
//! request.

use std::sync::{Arc, Mutex, PoisonError, mpsc as std_mpsc};
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::backend;
use super::shares::{Redeem, Shares};
use crate::flows::{FlowEvent, FlowId, FlowStatus};
use crate::store::StoreError;

/// Most writes committed in one transaction.
pub(super) const MAX_BATCH: usize = 512;
/// Writes waiting for the writer before senders wait for room.
pub(super) const QUEUE: usize = 4096;
/// How often expired rows are looked for.
pub(super) const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// Most expired rows of one table deleted in one sweep transaction.
pub(super) const SWEEP_ROWS: i64 = 1024;
/// Fewest expired rows of one table a batch deletes when it sweeps.
const SWEEP_WITH_BATCH: i64 = 64;
/// Commits between two checkpoints of the write-ahead log, when the writer
/// checkpoints it itself. A commit of redemptions adds a page or two (the
/// end of the table; now and then the owners' order, see the `shares`
/// module), so the log holds a few thousand pages at most (about 15 MB
/// under the load benchmark). Each checkpoint holds the writer while it
/// copies the pages and syncs the file, and the redemptions arriving
/// meanwhile wait: that wait is fixed more than it grows with the pages
/// (the `fsync`), so fewer checkpoints leave fewer redemptions in the
/// tail. Measured with the load benchmark pinned (`--pin --concurrency
/// 16`, 2-core VM, the builds in alternate rounds): a p99 of 1.64–2.09 ms
/// with a checkpoint every 3,000 commits against 2.11–2.66 every 300, in
/// six rounds out of six, and every 1,000 as every 3,000 (2.03–2.40
/// against 2.04–2.24); the same CPU per call.
pub(super) const CHECKPOINT_EVERY: u32 = 1_000;

/// The writer, shared by its thread and the runtime's redemption batches.
pub(super) type Shared = Arc<Mutex<Writer>>;

/// Lock `writer`; a panic while it was held left nothing half-done that
/// the next batch does not start over (a transaction not committed is
/// rolled back, the shares read again).
pub(super) fn lock(writer: &Shared) -> std::sync::MutexGuard<'_, Writer> {
    writer.lock().unwrap_or_else(PoisonError::into_inner)
}

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
        redeem: Redeem,
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
    /// Checkpoint the write-ahead log (asked for by the runtime's batches).
    Checkpoint,
}

impl Job {
    fn now(&self) -> i64 {
        match self {
            Self::Redeem { now, .. } | Self::Work { now, .. } | Self::Purge { now, .. } => *now,
            Self::Checkpoint => 0,
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
        let failed = || commit.map(|e| StoreError::Backend(crate::Reason::new(e)));
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
    /// The owners' counts and floors; `None` after a batch that did not
    /// commit until they are read again.
    shares: Option<Shares>,
    events: broadcast::Sender<FlowEvent>,
    /// The latest request time seen: what the background sweep calls now.
    latest_now: i64,
    swept_at: Instant,
    /// The last sweep left expired rows behind: sweep again at the next
    /// chance, not a second later, so deleting keeps up with a busy store.
    behind: bool,
    /// Commits since the last checkpoint, when SQLite's own automatic
    /// checkpoint is off (`None` when it is on).
    uncheckpointed: Option<u32>,
    /// The write-ahead log's file (`None` for a database without a file).
    log: Option<std::path::PathBuf>,
}

impl Writer {
    /// The writer of `conn`, reading the owners' shares from it.
    /// With `checkpoints` the writer counts commits for
    /// [`checkpoint_due`](Self::checkpoint_due) and turns SQLite's automatic
    /// checkpoint (which would `fsync` in whichever thread commits) off.
    pub(super) fn new(
        conn: Connection,
        events: broadcast::Sender<FlowEvent>,
        checkpoints: bool,
    ) -> Result<Self, StoreError> {
        if checkpoints {
            conn.pragma_update(None, "wal_autocheckpoint", 0)
                .map_err(backend)?;
        }
        let shares = Shares::load(&conn)?;
        let log = conn
            .path()
            .filter(|p| !p.is_empty())
            .map(|p| std::path::PathBuf::from(format!("{p}-wal")));
        Ok(Self {
            log,
            conn,
            shares: Some(shares),
            events,
            latest_now: 0,
            swept_at: Instant::now(),
            behind: false,
            uncheckpointed: checkpoints.then_some(0),
        })
    }

    /// Copy what the log holds into the file, without waiting for readers
    /// (those still reading older pages keep them in the log until the
    /// next checkpoint); when that was all of it, start the log over here.
    fn checkpoint(&mut self) {
        self.uncheckpointed = self.uncheckpointed.map(|_| 0);
        // The log's frames, and how many of them are in the file now.
        let result = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
            });
        match result {
            Err(e) => tracing::warn!(error = %e, "SQLite checkpoint failed"),
            Ok((frames, copied)) if frames > 0 && copied == frames => self.start_log_over(),
            Ok(_) => {}
        }
    }

    /// Commit one page (the file's header, unchanged) so that the log
    /// starts over on this thread. The first commit after a checkpoint
    /// that copied the whole log writes the log from its start again, and
    /// with `synchronous = NORMAL` `fsync`s the log's new header before
    /// its first frame: left to the next batch of redemptions, that
    /// `fsync` stopped a runtime thread, with every request it was running,
    /// for as long as the disk took to flush it: 0.2–0.3 ms by `strace -T`
    /// on the load benchmark's virtual disk, whose log was just synced
    /// (see [`run`]), every [`CHECKPOINT_EVERY`] commits; on a slower disk
    /// longer.
    fn start_log_over(&mut self) {
        let same_version = format!("PRAGMA user_version = {}", super::schema::VERSION);
        if let Err(e) = self.in_transaction(|w| w.execute_cached(&same_version)) {
            tracing::warn!(error = %e, "SQLite log not started over after its checkpoint");
        }
    }

    /// Write what the owners' order still lists in memory (the store is
    /// closing), so that the next open finds `owner_order` complete rather
    /// than rebuilding it.
    fn close(&mut self) {
        let written = self.in_transaction(|w| match &mut w.shares {
            Some(shares) => shares.write_order(&w.conn),
            None => Ok(()),
        });
        if let Err(e) = written {
            tracing::warn!(error = %e, "SQLite owners' order not written at close; rebuilt at the next open");
        }
    }

    /// Run `work` in a transaction of its own: committed when it succeeds,
    /// rolled back when it or the commit fails.
    fn in_transaction<T>(
        &mut self,
        work: impl FnOnce(&mut Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let outcome = self
            .execute_cached("BEGIN IMMEDIATE")
            .and_then(|()| work(self))
            .and_then(|done| self.execute_cached("COMMIT").map(|()| done));
        if outcome.is_err() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        outcome
    }

    /// Whether the log wants a checkpoint now (then counted as done).
    pub(super) fn checkpoint_due(&mut self) -> bool {
        match &mut self.uncheckpointed {
            Some(n) if *n >= CHECKPOINT_EVERY => {
                *n = 0;
                true
            }
            _ => false,
        }
    }

    /// Run `batch` in one transaction, commit, answer each.
    pub(super) fn commit(&mut self, batch: &mut Vec<Job>) {
        let mut done = Vec::with_capacity(batch.len());
        if self.shares.is_none() {
            match Shares::load(&self.conn) {
                Ok(shares) => self.shares = Some(shares),
                Err(e) => tracing::warn!(error = %e, "SQLite nonce shares not readable"),
            }
        }
        // The first failure stops the batch: a redemption that failed
        // midway may have left the counts in memory ahead of the rows, so
        // nothing of the batch is committed and the counts are read again.
        let mut failure = self.execute_cached("BEGIN IMMEDIATE").err();
        let writes = batch.len();
        for job in batch.drain(..) {
            self.latest_now = self.latest_now.max(job.now());
            if let Some(e) = &failure {
                done.push(refuse(job, e));
                continue;
            }
            let (result, failed) = self.run_job(job);
            done.push(result);
            failure = failed;
        }
        // Under constant load the queue is never empty: expired rows go
        // with a batch (no commit of their own), at most twice as many as
        // the batch wrote, so deleting keeps up with writing.
        let mut expired = Vec::new();
        if failure.is_none() && (self.behind || self.swept_at.elapsed() >= SWEEP_EVERY) {
            self.swept_at = Instant::now();
            let limit = i64::try_from(writes.saturating_mul(2)).unwrap_or(SWEEP_ROWS);
            match self.sweep(self.latest_now, limit.max(SWEEP_WITH_BATCH)) {
                Ok((_, events)) => expired = events,
                Err(e) => failure = Some(e),
            }
        }
        let outcome = match failure {
            Some(e) => Some(e),
            None => self.execute_cached("COMMIT").err(),
        };
        if let Some(e) = &outcome {
            // The transaction may still be open after a failed COMMIT (a
            // busy database, say): roll it back so the next batch can begin.
            let _ = self.conn.execute_batch("ROLLBACK");
            self.shares = None;
            tracing::warn!(error = %e, writes = done.len(), "SQLite commit failed");
        }
        if outcome.is_none() {
            publish(&self.events, expired);
            if let Some(n) = &mut self.uncheckpointed {
                *n = n.saturating_add(1);
            }
        }
        for d in done {
            d.deliver(outcome.as_ref());
        }
    }

    /// Run `job` in the open transaction; the error that must stop the
    /// batch, if any.
    fn run_job(&mut self, job: Job) -> (Done, Option<StoreError>) {
        match job {
            Job::Redeem { redeem, now, reply } => {
                let result = match &mut self.shares {
                    Some(shares) => shares.redeem(&self.conn, &redeem, now),
                    None => Err(backend("the nonce shares could not be read")),
                };
                let failed = result
                    .as_ref()
                    .err()
                    .map(|e| StoreError::Backend(crate::Reason::new(e)));
                (Done::Redeemed(reply, result), failed)
            }
            Job::Work { now, work } => (Done::Worked(work(&self.conn, now)), None),
            Job::Checkpoint => (Done::Worked(Box::new(|_| {})), None),
            Job::Purge { now, reply } => {
                let result = self.sweep(now, i64::MAX);
                let (gone, events) = match result {
                    Ok((gone, events)) => (Ok(gone), events),
                    Err(e) => (Err(e), Vec::new()),
                };
                let sender = self.events.clone();
                // The events go out after the commit, with the answer.
                let done = Done::Worked(Box::new(move |failed| {
                    if failed.is_none() {
                        publish(&sender, events);
                    }
                    let _ = reply.send(match failed {
                        Some(e) => Err(e),
                        None => gone,
                    });
                }));
                (done, None)
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
        if self.latest_now == 0 || (!self.behind && self.swept_at.elapsed() < SWEEP_EVERY) {
            return;
        }
        self.swept_at = Instant::now();
        let now = self.latest_now;
        match self.in_transaction(|w| w.sweep(now, SWEEP_ROWS)) {
            Ok((_, events)) => publish(&self.events, events),
            Err(e) => {
                self.shares = None;
                self.behind = false;
                tracing::warn!(error = %e, "SQLite expiry sweep failed");
            }
        }
    }

    /// Delete what expired by `now`, at most `limit` rows of each table,
    /// and forget owners left with nothing to keep: how many flows went,
    /// and the pending ones among them as events. When a table had more
    /// than `limit` expired rows the writer is [`behind`](Self::behind) and
    /// sweeps again soon instead of a second later.
    fn sweep(&mut self, now: i64, limit: i64) -> Result<(usize, Vec<FlowEvent>), StoreError> {
        let (gone, expired, mut full) = sweep_flows(&self.conn, now, limit)?;
        full |= super::tasks::sweep(&self.conn, now, limit)? >= limit;
        let redeemed = Shares::sweep(self.shares.as_mut(), &self.conn, now, limit)?;
        full |= i64::try_from(redeemed).unwrap_or(i64::MAX) >= limit;
        if let Some(shares) = &mut self.shares {
            let forgotten = shares.forget_idle(
                &self.conn,
                now,
                usize::try_from(limit).unwrap_or(usize::MAX),
            )?;
            full |= i64::try_from(forgotten).unwrap_or(i64::MAX) >= limit;
        }
        self.behind = full;
        Ok((gone, expired))
    }
}

/// The answer to `job` when its transaction could not even begin.
fn refuse(job: Job, e: &StoreError) -> Done {
    let e = StoreError::Backend(crate::Reason::new(e));
    match job {
        Job::Redeem { reply, .. } => Done::Redeemed(reply, Err(e)),
        // Its answer channel closes unanswered: the requester reports the
        // write as not committed.
        Job::Work { .. } => {
            tracing::warn!(error = %e, "SQLite write not attempted");
            Done::Worked(Box::new(|_| {}))
        }
        Job::Purge { reply, .. } => Done::Purged(reply, Err(e)),
        Job::Checkpoint => Done::Worked(Box::new(|_| {})),
    }
}

/// Serve `queue` until every sender is gone; `started` hears once the loop
/// runs. The thread also checkpoints the log when the writer's automatic
/// checkpoint is off, holding the writer meanwhile: a checkpoint that no
/// commit interrupts copies the whole log, so the next commit starts the
/// log over instead of growing it. The log is synced first, without the
/// writer (see [`sync_log`]), so that commits wait only for the copy.
pub(super) fn run(writer: Shared, mut queue: mpsc::Receiver<Job>, started: std_mpsc::Sender<()>) {
    let _ = started.send(());
    let log = lock(&writer).log.clone();
    let mut batch = Vec::with_capacity(64);
    loop {
        let first = match queue.try_recv() {
            Ok(job) => job,
            Err(mpsc::error::TryRecvError::Disconnected) => break,
            Err(mpsc::error::TryRecvError::Empty) => {
                // Idle: the moment for housekeeping, then wait.
                lock(&writer).sweep_if_due();
                match queue.blocking_recv() {
                    Some(job) => job,
                    None => break,
                }
            }
        };
        let mut checkpoint = false;
        let mut take = |job: Job, batch: &mut Vec<Job>| match job {
            Job::Checkpoint => checkpoint = true,
            job => batch.push(job),
        };
        take(first, &mut batch);
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => take(job, &mut batch),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            let mut writer = lock(&writer);
            writer.commit(&mut batch);
            checkpoint |= writer.checkpoint_due();
        }
        if checkpoint {
            sync_log(log.as_deref());
            lock(&writer).checkpoint();
        }
    }
    lock(&writer).close();
}

/// Write the log's pages to disk without holding the writer: a checkpoint
/// begins with an `fsync` of the log, which with `synchronous = NORMAL`
/// has every frame since the last checkpoint to write (about 17 ms on a
/// 2-core VM, every commit meanwhile waiting for the writer), and after
/// this it has only the frames of the commits since. Syncing a file is
/// harmless at any time: it only makes what it holds durable sooner.
fn sync_log(log: Option<&std::path::Path>) {
    let Some(log) = log else { return };
    // No log (not in WAL mode, or not created yet): the checkpoint has
    // nothing to sync either.
    if let Ok(file) = std::fs::File::open(log)
        && let Err(e) = file.sync_data()
    {
        tracing::warn!(error = %e, "SQLite log not synced before its checkpoint");
    }
}

/// Up to `?2` pending flows expired by `?1`. (Limits are given through
/// `CAST`, see the `shares` module's `NEXT_ORDERED`: the sweep's limit
/// differs from one batch to the next.)
const PENDING_FLOWS_EXPIRED: &str = "SELECT id, principal FROM flows
     WHERE expires_at <= ?1 AND status = 'pending' LIMIT CAST(?2 AS INTEGER)";

/// Up to `?2` finished flows expired by `?1`.
const FINISHED_FLOWS_EXPIRED: &str = "DELETE FROM flows WHERE id IN
     (SELECT id FROM flows WHERE expires_at <= ?1 AND status != 'pending'
      LIMIT CAST(?2 AS INTEGER))";

/// Up to `?2` connect tokens expired by `?1`.
const TOKENS_EXPIRED: &str = "DELETE FROM connect_tokens WHERE hash IN
     (SELECT hash FROM connect_tokens WHERE expires_at <= ?1 LIMIT CAST(?2 AS INTEGER))";

/// Delete the flows and connect tokens that expired by `now`, at most
/// `limit` of each: how many flows went, the pending ones among them as
/// events, and whether a table had `limit` or more.
fn sweep_flows(
    conn: &Connection,
    now: i64,
    limit: i64,
) -> Result<(usize, Vec<FlowEvent>, bool), StoreError> {
    let mut select = conn
        .prepare_cached(PENDING_FLOWS_EXPIRED)
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
    let finished = delete(FINISHED_FLOWS_EXPIRED)?;
    gone += finished;
    let tokens = delete(TOKENS_EXPIRED)?;
    let at_limit = |n: usize| i64::try_from(n).unwrap_or(i64::MAX) >= limit;
    let full = at_limit(expired.len()) || at_limit(finished) || at_limit(tokens);
    Ok((gone, expired, full))
}

fn publish(sender: &broadcast::Sender<FlowEvent>, events: Vec<FlowEvent>) {
    for e in events {
        // No subscriber is not an error: nobody is waiting.
        let _ = sender.send(e);
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::super::{shares, tasks};
    use super::*;

    /// A checkpoint that copied the whole log starts the log over itself,
    /// before any other commit: the header of the log (how many times it
    /// started over, its salts) is new once the checkpoint returns, so the
    /// next batch of redemptions, on the runtime, does not `fsync` it.
    #[test]
    fn a_checkpoint_starts_the_log_over_before_the_next_commit() {
        let dir =
            std::env::temp_dir().join(format!("frontdesk-log-{}", crate::state::StateId::random()));
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("store.sqlite3");
        let conn = super::super::connect_writer(&path, super::super::Durability::Process).unwrap();
        let mut writer = Writer::new(conn, broadcast::channel(1).0, true).unwrap();
        let header = || std::fs::read(dir.join("store.sqlite3-wal")).unwrap()[..32].to_vec();
        let work: Work = Box::new(|conn, _| {
            conn.execute("INSERT INTO nonce_owners (name) VALUES ('10.0.0.1')", [])
                .unwrap();
            Box::new(|failed| assert!(failed.is_none()))
        });
        writer.commit(&mut vec![Job::Work { now: 1, work }]);
        let before = header();
        writer.checkpoint();
        let after = header();
        drop(writer);
        std::fs::remove_dir_all(&dir).unwrap();
        // Bytes 12..16 count the log's new starts, 16..24 are its salts.
        assert_ne!(before[12..24], after[12..24]);
    }

    /// The sweep's limit differs from one batch to the next (twice the
    /// batch's writes, or [`SWEEP_ROWS`] when idle): each of its statements
    /// runs as prepared whatever limit it is bound to. (With a bare `LIMIT
    /// ?2` SQLite prepared each again whenever the limit changed.)
    #[test]
    fn the_sweep_is_prepared_once_whatever_its_limit() {
        let conn = super::super::schema::in_memory();
        let mut owners = Shares::load(&conn).unwrap();
        for limit in [64, SWEEP_ROWS, 14, 64, 200] {
            sweep_flows(&conn, 1000, limit).unwrap();
            tasks::sweep(&conn, 1000, limit).unwrap();
            Shares::sweep(Some(&mut owners), &conn, 1000, limit).unwrap();
        }
        for sql in [
            PENDING_FLOWS_EXPIRED,
            FINISHED_FLOWS_EXPIRED,
            TOKENS_EXPIRED,
            tasks::INBOXES_EXPIRED,
            tasks::TASKS_EXPIRED,
            shares::ORDER_EXPIRED,
        ] {
            let statement = conn.prepare_cached(sql).unwrap();
            assert_eq!(statement.get_status(StatementStatus::RePrepare), 0, "{sql}");
        }
    }
}
