//! Task records in a store, so that a task (the Tasks extension,
//! `io.modelcontextprotocol/tasks`) can be read and answered on another
//! instance and after a restart.
//!
//! A task runs where it was created: the handler's future lives in that
//! process (the *owning instance*). The owner writes a [`TaskRecord`]
//! through to the [`TaskStore`] on every change (created, a question asked
//! or answered, a status note, completed, failed, cancelled) and renews the
//! record's lease while the task runs. Any instance sharing the store then
//! answers `tasks/get` from the record, puts the answers of `tasks/update`
//! in the task's inbox (the owner takes them out and hands them to the
//! waiting question), and cancels with `tasks/cancel` by writing the record
//! `cancelled` (the owner sees it and stops the run).
//!
//! What survives, with the SQLite or the Redis store of [`crate::stores`]
//! (features `sqlite`, `redis`):
//!
//! - a finished task (completed, failed, cancelled): readable with
//!   `tasks/get` on every instance and after any restart, until it expires
//!   (`task_ttl` after creation);
//! - a running task, while its owner runs: readable, answerable and
//!   cancellable everywhere;
//! - a running task whose owner stopped (crash, restart, `SIGKILL`): its
//!   lease runs out, and the next `tasks/get` reports it `failed` (the
//!   handler's future cannot move to another process), with an error
//!   telling the client to call the tool again. That outcome is written
//!   back, so every instance reports the same.
//!
//! What needs the owning instance: the run itself, and so the pace of a
//! task served elsewhere. Answers left on another instance reach the run
//! when the owner next looks at the task's inbox (every
//! [`task_inbox_poll`](crate::server::ServerConfig::task_inbox_poll),
//! 250 ms, while the task waits for input); a cancel from elsewhere stops
//! the run within that time while it waits for input, within a third of
//! the [`task_lease`](crate::server::ServerConfig::task_lease) while it
//! works. The bounds on tasks (`max_tasks`, `max_tasks_per_client`) are
//! per instance: each counts the tasks it runs.
//!
//! Without a store (the library's default) tasks live only in the memory
//! of the process that runs them, as they always did.
//!
//! Cost: one store write per change of a task, one lease renewal per
//! running task every third of the lease (5 s by default), and while a
//! task waits for input one look at its inbox every `task_inbox_poll` (on
//! SQLite a read while the inbox is empty). Leases compare wall clocks of
//! different machines: keep them in sync (NTP) well within the lease, or a
//! task may be reported lost while its instance still runs it (that
//! instance then sees the failure and stops the run, so every instance
//! still agrees).
//!
//! A record whose status is terminal is final: [`TaskStore::put`] does not
//! overwrite it, which is what makes a cancel from another instance (or a
//! failure for a lost lease) stick even if the owner writes a change at the
//! same moment.

mod memory;

use std::time::Duration;

use frontdesk_wire::{GetTaskResult, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::BoxFuture;
use crate::store::StoreError;

pub use memory::InMemoryTaskStore;

/// Most answers waiting in one task's inbox; past it the oldest go.
pub const MAX_INBOX: usize = 64;

/// One task as a store keeps it: who may see it, who runs it, and what
/// `tasks/get` answers about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id (unguessable, 128 random bits in hex).
    pub id: String,
    /// The principal the task is bound to: only it may read, answer or
    /// cancel the task.
    pub principal: String,
    /// The client whose share the task counts against (its quota key).
    pub owner: String,
    /// The instance that runs the task (random per server, per start).
    pub instance: String,
    /// What `tasks/get` answers (without `_meta`): the status, its note,
    /// the outstanding `inputRequests`, the result or the error, the
    /// timestamps.
    pub snapshot: GetTaskResult,
    /// When the record goes (unix milliseconds): creation plus `task_ttl`.
    pub expires_at_ms: u64,
    /// Until when the owner is known to run the task (unix milliseconds):
    /// a task that is not finished by then and was not renewed has lost
    /// its run.
    pub lease_until_ms: u64,
}

impl TaskRecord {
    /// A record.
    pub fn new(
        id: impl Into<String>,
        principal: impl Into<String>,
        owner: impl Into<String>,
        instance: impl Into<String>,
        snapshot: GetTaskResult,
        expires_at_ms: u64,
        lease_until_ms: u64,
    ) -> Self {
        Self {
            id: id.into(),
            principal: principal.into(),
            owner: owner.into(),
            instance: instance.into(),
            snapshot,
            expires_at_ms,
            lease_until_ms,
        }
    }

    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.snapshot.task.status
    }

    /// Completed, failed or cancelled: the record will not change again.
    pub fn is_finished(&self) -> bool {
        self.status().is_terminal()
    }

    /// Whether the record is past its expiry at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms <= now_ms
    }
}

/// An answer to one of a task's questions, as `tasks/update` carried it
/// (the question's key and the client's raw response).
pub type TaskAnswer = (String, Value);

/// What the owner of a task finds when it looks at the task's inbox.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Inbox {
    /// The answers that were waiting, oldest first (now taken out).
    pub answers: Vec<TaskAnswer>,
    /// The record is finished (cancelled or failed elsewhere) or gone:
    /// the run should stop.
    pub finished: bool,
}

impl Inbox {
    /// An inbox.
    pub fn new(answers: Vec<TaskAnswer>, finished: bool) -> Self {
        Self { answers, finished }
    }
}

/// Keeps task records for the instances sharing it.
///
/// Dyn-compatible (methods return [`BoxFuture`]): the server holds
/// `Arc<dyn TaskStore>` ([`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store)).
/// An expired record does not exist: `get_task` returns `None` for it.
pub trait TaskStore: Send + Sync {
    /// Write `record` (create it, or replace the one with its id) unless
    /// the stored one is finished: `Ok(false)` then, and nothing changes.
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The live record `id`, if any.
    fn get_task<'a>(&'a self, id: &'a str)
    -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Move the lease of the record `id` to `lease_until_ms`, if it is not
    /// finished and `instance` runs it; `Ok(false)` when it is finished,
    /// gone, or run by another instance.
    fn renew<'a>(
        &'a self,
        id: &'a str,
        instance: &'a str,
        lease_until_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Add answers to the task's inbox, for its owner to take; the inbox
    /// keeps the newest [`MAX_INBOX`]. Nothing happens for a task that
    /// has no live record.
    fn push_answers<'a>(
        &'a self,
        id: &'a str,
        answers: Vec<TaskAnswer>,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Take every answer waiting in the task's inbox, and say whether the
    /// record is finished or gone.
    fn take_inbox<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Inbox, StoreError>>;

    /// Forget the record `id` and its inbox (a finished task forgotten to
    /// make room for a new one).
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Delete expired records and their inboxes; how many records went.
    /// Stores also do this on their own as they are used (Redis expires its
    /// keys itself).
    fn purge_expired_tasks(&self) -> BoxFuture<'_, Result<usize, StoreError>>;
}

/// Unix milliseconds of `t` (before 1970: 0).
pub(crate) fn unix_ms(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Unix milliseconds now.
pub(crate) fn now_ms() -> u64 {
    unix_ms(std::time::SystemTime::now())
}

/// `d` in milliseconds, saturating.
pub(crate) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
