//! Tasks in a [`TaskStore`]: the owner's side ([`publish`], [`keep`]: the
//! record written through on every change, the lease renewed, answers and
//! cancels left by other instances taken in) and the side of an instance
//! that does not run the task ([`Tasks::find`]: the record, with a lost
//! lease reported as a failure).
//!
//! Every store operation is bounded ([`STORE_WAIT`]) and none is on the
//! task's own path: the run never waits for the store, except for the
//! first write, which the call awaits before it answers with the task's id
//! (so that another instance finds the task as soon as the client can ask
//! for it).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use frontdesk_wire::{ErrorObject, TaskStatus};
use tokio::time::Instant;

use super::{TaskEntry, Tasks, time};
use crate::fingerprint::fingerprint;
use crate::server::api::config::ServerConfig;
use crate::store::StoreError;
use crate::tasks::{TaskRecord, TaskStore, ms, now_ms};

/// The longest a task waits for one store operation.
pub(crate) const STORE_WAIT: Duration = Duration::from_secs(5);

/// How long a task waits before it writes again a change the store did
/// not take.
const RETRY: Duration = Duration::from_secs(1);

/// How many times the end of a task is written before it is given up (a
/// store down for longer: other instances report the task lost once its
/// lease has run out).
const MAX_FAILED_WRITES: u32 = 20;

/// Why a task whose instance stopped has failed (its `statusMessage` and
/// its error's message).
pub(crate) const LOST: &str =
    "The server running this task stopped before the task finished; call the tool again.";

/// Why a task still running when its server drained has failed.
pub(crate) const SHUT_DOWN: &str =
    "The server running this task shut down before the task finished; call the tool again.";

/// Counts a task's record keeper while it runs (see [`Tasks::keepers`]).
pub(crate) struct Keeping(Arc<AtomicUsize>);

impl Drop for Keeping {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `op`'s result, or `None` (logged) when the store failed or did not
/// answer within [`STORE_WAIT`].
pub(crate) async fn bounded<T>(
    what: &'static str,
    op: impl Future<Output = Result<T, StoreError>>,
) -> Option<T> {
    match tokio::time::timeout(STORE_WAIT, op).await {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            tracing::warn!(what, error = %e, "task store failed");
            None
        }
        Err(_) => {
            tracing::warn!(what, "task store did not answer in time");
            None
        }
    }
}

/// The end of a lease taken now.
fn lease_until(config: &ServerConfig) -> u64 {
    now_ms().saturating_add(ms(config.task_lease))
}

/// Write the new task's record; the call answers with the task's id only
/// after this (bounded: a store that fails leaves the task local).
pub(crate) async fn publish(
    store: &dyn TaskStore,
    entry: &TaskEntry,
    instance: &str,
    config: &ServerConfig,
) {
    let record = entry.record(instance, lease_until(config));
    if bounded("create", store.put(&record)).await.is_none() {
        tracing::warn!(task = %fingerprint(entry.id()), "task not in the store; only this instance knows it");
    }
}

/// Keep the record of `entry`, which this instance runs, up to date until
/// the task is finished: write every change, renew the lease every third
/// of it, and while the task waits for input take the answers left in its
/// inbox every `task_inbox_poll`. A record finished elsewhere (cancelled,
/// or failed for a lease that ran out) stops the run.
pub(crate) async fn keep(
    store: Arc<dyn TaskStore>,
    entry: Arc<TaskEntry>,
    instance: String,
    config: ServerConfig,
    _keeping: Keeping,
) {
    let renew_every = (config.task_lease / 3).max(Duration::from_millis(10));
    let poll = config.task_inbox_poll.max(Duration::from_millis(10));
    let mut renew_at = Instant::now() + renew_every;
    let mut failed_writes = 0;
    loop {
        let waiting = entry.waits_for_input();
        tokio::select! {
            () = entry.changed.notified() => {
                let record = entry.record(&instance, lease_until(&config));
                match bounded("write", store.put(&record)).await {
                    Some(true) => failed_writes = 0,
                    Some(false) => {
                        if adopt(&*store, &entry, &instance, &config).await {
                            return;
                        }
                    }
                    None => {
                        // Not written: write again in a while (the latest
                        // state then), and give a finished task up only
                        // after many tries.
                        failed_writes += 1;
                        if record.is_finished() && failed_writes >= MAX_FAILED_WRITES {
                            tracing::warn!(task = %fingerprint(entry.id()), "the task's end could not be written to the store");
                            return;
                        }
                        tokio::time::sleep(RETRY).await;
                        entry.changed.notify_one();
                        continue;
                    }
                }
                if record.is_finished() {
                    return;
                }
                renew_at = Instant::now() + renew_every;
            }
            () = tokio::time::sleep(poll), if waiting => {
                if let Some(inbox) = bounded("inbox", store.take_inbox(entry.id())).await {
                    for (key, raw) in inbox.answers {
                        if !entry.answer(&key, raw) {
                            tracing::debug!(task = %fingerprint(entry.id()), key, "answer for no outstanding question; ignored");
                        }
                    }
                    if inbox.finished && adopt(&*store, &entry, &instance, &config).await {
                        return;
                    }
                }
            }
            () = tokio::time::sleep_until(renew_at) => {
                renew_at = Instant::now() + renew_every;
                let renewed = store.renew(entry.id(), &instance, lease_until(&config));
                if bounded("renew", renewed).await == Some(false)
                    && adopt(&*store, &entry, &instance, &config).await
                {
                    return;
                }
            }
        }
    }
}

/// The store says the task is finished, gone or not ours: take what it
/// says. A finished record ends the task here as it ended there (and stops
/// the run): `true`. A record that is gone (or still running) is written
/// again from this instance's view: `false`, go on.
async fn adopt(
    store: &dyn TaskStore,
    entry: &TaskEntry,
    instance: &str,
    config: &ServerConfig,
) -> bool {
    let record = bounded("read", store.get_task(entry.id())).await.flatten();
    match record {
        Some(r) if r.is_finished() => {
            let status = r.status();
            if status == TaskStatus::Failed {
                let error = r
                    .snapshot
                    .error
                    .unwrap_or_else(|| ErrorObject::internal_error(LOST));
                entry.fail(error);
            } else {
                entry.cancel();
            }
            entry.cancel.cancel();
            tracing::info!(task = %fingerprint(entry.id()), ?status, "task finished through the store");
            true
        }
        _ => {
            let record = entry.record(instance, lease_until(config));
            bounded("write", store.put(&record)).await;
            record.is_finished()
        }
    }
}

/// A task as an instance finds it.
pub(crate) enum Found {
    /// This instance runs it (or ran it).
    Here(Arc<TaskEntry>),
    /// Another instance runs it, or ran it: its record.
    Elsewhere(Box<TaskRecord>),
}

/// The snapshot of a task whose run was lost, at `now`.
fn lost(mut record: TaskRecord, now: SystemTime) -> TaskRecord {
    let snapshot = &mut record.snapshot;
    snapshot.task.status = TaskStatus::Failed;
    snapshot.task.status_message = Some(LOST.to_string());
    snapshot.task.last_updated_at = time::iso8601(now);
    snapshot.input_requests = None;
    snapshot.result = None;
    snapshot.error = Some(ErrorObject::internal_error(LOST));
    record
}

impl Tasks {
    /// Count a new record keeper until the returned guard drops.
    pub(crate) fn keeping(&self) -> Keeping {
        self.keepers.fetch_add(1, Ordering::SeqCst);
        Keeping(Arc::clone(&self.keepers))
    }

    /// How many tasks' records are being kept (a draining server waits for
    /// them to write the tasks' ends).
    pub(crate) fn keepers(&self) -> usize {
        self.keepers.load(Ordering::SeqCst)
    }

    /// The server is shutting down: a task still running cannot outlive
    /// the process, so it fails now with [`SHUT_DOWN`] (written through,
    /// so every instance reports it at once instead of once its lease has
    /// run out) and its run stops.
    pub(crate) fn abandon(&self) {
        let running: Vec<Arc<TaskEntry>> = self
            .entries()
            .entries
            .values()
            .filter(|e| !e.is_finished())
            .cloned()
            .collect();
        for entry in running {
            entry.fail(ErrorObject::internal_error(SHUT_DOWN));
            entry.cancel.cancel();
            tracing::info!(task = %fingerprint(entry.id()), "task ended by the shutdown");
        }
    }

    /// The task `id` of `principal`: this instance's own first, then the
    /// store's record (another principal's task is as unknown as a
    /// missing one). A record that is not finished and whose lease ran out
    /// lost its run: it is failed, and written back so every instance says
    /// the same. `Err` when the store failed.
    pub(crate) async fn find(&self, id: &str, principal: &str) -> Result<Option<Found>, ()> {
        if let Some(entry) = self.get(id, principal) {
            return Ok(Some(Found::Here(entry)));
        }
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let Some(record) = bounded("read", store.get_task(id)).await.ok_or(())? else {
            return Ok(None);
        };
        let now = SystemTime::now();
        if record.principal != principal || record.is_expired(now_ms()) {
            return Ok(None);
        }
        if record.is_finished() || record.lease_until_ms > crate::tasks::unix_ms(now) {
            return Ok(Some(Found::Elsewhere(Box::new(record))));
        }
        let failed = lost(record, now);
        tracing::info!(task = %fingerprint(id), "task lost its instance; failed");
        match bounded("write", store.put(&failed)).await {
            // Finished meanwhile: what it finished as.
            Some(false) => Ok(bounded("read", store.get_task(id))
                .await
                .flatten()
                .filter(|r| r.principal == principal)
                .map(|r| Found::Elsewhere(Box::new(r)))),
            _ => Ok(Some(Found::Elsewhere(Box::new(failed)))),
        }
    }

    /// Cancel the task of `record` from an instance that does not run it:
    /// the record says `cancelled` (its owner sees that and stops the run).
    pub(crate) async fn cancel_elsewhere(&self, mut record: TaskRecord) -> Result<(), ()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        if record.is_finished() {
            return Ok(());
        }
        let snapshot = &mut record.snapshot;
        snapshot.task.status = TaskStatus::Cancelled;
        snapshot.task.status_message = Some("Cancelled by the client.".into());
        snapshot.task.last_updated_at = time::iso8601(SystemTime::now());
        snapshot.input_requests = None;
        bounded("cancel", store.put(&record)).await.ok_or(())?;
        tracing::info!(task = %fingerprint(&record.id), "task cancelled on another instance");
        Ok(())
    }

    /// Leave `answers` for the instance running the task of `record`,
    /// those to questions it shows as outstanding (others are ignored, as
    /// on the owner).
    pub(crate) async fn answer_elsewhere(
        &self,
        record: &TaskRecord,
        answers: Vec<(String, serde_json::Value)>,
    ) -> Result<(), ()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let outstanding = record.snapshot.input_requests.as_ref();
        let answers: Vec<_> = answers
            .into_iter()
            .filter(|(key, _)| {
                let known = outstanding.is_some_and(|r| r.0.contains_key(key));
                if !known {
                    tracing::debug!(task = %fingerprint(&record.id), key, "answer for no outstanding question; ignored");
                }
                known
            })
            .collect();
        if answers.is_empty() || record.is_finished() {
            return Ok(());
        }
        bounded("answer", store.push_answers(&record.id, answers))
            .await
            .ok_or(())
    }
}
