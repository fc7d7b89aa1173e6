//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on
//! 2026-07-28: a tool call that continues as a task
//! ([`ToolContext::continue_as_task`](crate::server::api::context::ToolContext::continue_as_task))
//! keeps running here after the client got its `CreateTaskResult`. The
//! table below holds each task's status, its outstanding questions (keys
//! unique for the task's lifetime), and its result or error; the client
//! reads it with `tasks/get`, answers with `tasks/update` and stops it with
//! `tasks/cancel` ([`serve`]). Questions a task asks go through the same
//! `ask` ([`conversation`]); the run itself is in [`run`].
//!
//! Tasks live in this process's memory, bound to the principal that
//! created them, and are forgotten `task_ttl` after creation, or earlier
//! once finished, when a new task needs the room: each client (its quota
//! key) has a share of the table (`max_tasks_per_client`) as well as the
//! server's bound (`max_tasks`), and a new task over either first makes
//! room from finished tasks (the client's own oldest for its share, the
//! oldest overall for the table). A running task is never forgotten to make
//! room; with none finished, the call continues without a task.
//!
//! With a task store ([`crate::tasks`]) each task is also written through
//! as a record, so other instances (and this one after a restart) can read
//! it; [`shared`] keeps the record of a running task up to date and serves
//! tasks this instance does not run. The shares above stay per instance:
//! each instance counts the tasks it runs, and the store holds at most
//! what the instances' tables hold (a task forgotten to make room is
//! removed from the store too), plus the records of stopped instances
//! until they expire.

pub(crate) mod shared;
pub(crate) mod time;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use frontdesk_wire::{
    ErrorObject, GetTaskResult, InputRequest as WireInputRequest, InputRequests, Task, TaskStatus,
};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;

use crate::fingerprint::fingerprint;
use crate::server::api::config::ServerConfig;
use crate::tasks::{TaskRecord, TaskStore, ms, unix_ms};

/// A task a call just became, handed from the call to the runtime.
pub(crate) struct Started {
    pub(crate) entry: Arc<TaskEntry>,
}

/// One outstanding question of a task.
struct Pending {
    request: WireInputRequest,
    answer: oneshot::Sender<Value>,
}

struct TaskState {
    status: TaskStatus,
    message: Option<String>,
    updated: SystemTime,
    pending: IndexMap<String, Pending>,
    /// Every key ever used (keys are never reused).
    used: HashSet<String>,
    result: Option<Map<String, Value>>,
    error: Option<ErrorObject>,
}

/// One task.
pub(crate) struct TaskEntry {
    id: String,
    principal: String,
    /// The client whose share the task counts against (its quota key).
    owner: String,
    created: SystemTime,
    ttl: Duration,
    poll_interval_ms: u64,
    /// Cancelled by `tasks/cancel` or expiry: the run stops.
    pub(crate) cancel: CancellationToken,
    /// Signalled on every change, for the writer of the task's record.
    pub(crate) changed: Notify,
    state: Mutex<TaskState>,
}

impl TaskEntry {
    fn state(&self) -> std::sync::MutexGuard<'_, TaskState> {
        match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Completed, failed or cancelled: its run is over.
    pub(crate) fn is_finished(&self) -> bool {
        self.state().status.is_terminal()
    }

    /// Whether the task waits for answers (`input_required`).
    pub(crate) fn waits_for_input(&self) -> bool {
        self.state().status == TaskStatus::InputRequired
    }

    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The task as a record for a store, run by `instance` with a lease
    /// until `lease_until_ms`.
    pub(crate) fn record(&self, instance: &str, lease_until_ms: u64) -> TaskRecord {
        TaskRecord::new(
            self.id.clone(),
            self.principal.clone(),
            self.owner.clone(),
            instance,
            self.detailed(),
            unix_ms(self.created).saturating_add(ms(self.ttl)),
            lease_until_ms,
        )
    }

    fn expired(&self, now: SystemTime) -> bool {
        now.duration_since(self.created)
            .is_ok_and(|age| age > self.ttl)
    }

    /// The task as every task message carries it.
    pub(crate) fn task(&self) -> Task {
        let state = self.state();
        let mut task = Task::new(self.id.clone(), state.status, time::iso8601(self.created))
            .with_ttl_ms(Some(
                u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX),
            ))
            .with_poll_interval_ms(self.poll_interval_ms);
        task.last_updated_at = time::iso8601(state.updated);
        task.status_message.clone_from(&state.message);
        task
    }

    /// The `tasks/get` view: the task and what its status carries.
    pub(crate) fn detailed(&self) -> GetTaskResult {
        let mut out = GetTaskResult::new(self.task());
        let state = self.state();
        match state.status {
            TaskStatus::InputRequired => {
                let mut requests = InputRequests::new();
                for (key, p) in &state.pending {
                    requests = requests.with(key.clone(), p.request.clone());
                }
                out.input_requests = Some(requests);
            }
            TaskStatus::Completed => out.result.clone_from(&state.result),
            TaskStatus::Failed => out.error.clone_from(&state.error),
            _ => {}
        }
        out
    }

    /// Put a question to the client under `key` (or, when `key` was used
    /// before in this task, `key-2`, `key-3`…): the task shows it in
    /// `inputRequests` until it is answered. Returns the key used and where
    /// the answer arrives.
    pub(crate) fn ask(
        &self,
        key: &str,
        request: WireInputRequest,
    ) -> (String, oneshot::Receiver<Value>) {
        let (tx, rx) = oneshot::channel();
        let mut state = self.state();
        let mut unique = key.to_string();
        let mut n = 1;
        while state.used.contains(&unique) {
            n += 1;
            unique = format!("{key}-{n}");
        }
        state.used.insert(unique.clone());
        state.pending.insert(
            unique.clone(),
            Pending {
                request,
                answer: tx,
            },
        );
        if !state.status.is_terminal() {
            state.status = TaskStatus::InputRequired;
        }
        state.updated = SystemTime::now();
        drop(state);
        self.changed.notify_one();
        (unique, rx)
    }

    /// Remove a question nobody waits for any more.
    pub(crate) fn withdraw(&self, key: &str) {
        let mut state = self.state();
        if state.pending.shift_remove(key).is_some() {
            Self::settle_input(&mut state);
            drop(state);
            self.changed.notify_one();
        }
    }

    /// The client answered `key`: hand the answer to the waiting question.
    /// `false` for a key that is not outstanding (never asked, answered, or
    /// withdrawn), which is ignored.
    pub(crate) fn answer(&self, key: &str, raw: Value) -> bool {
        let mut state = self.state();
        let Some(pending) = state.pending.shift_remove(key) else {
            return false;
        };
        Self::settle_input(&mut state);
        drop(state);
        self.changed.notify_one();
        if pending.answer.send(raw).is_err() {
            tracing::debug!(key, "answer for a question nobody waits for");
        }
        true
    }

    /// With no question left, an `input_required` task is working again.
    fn settle_input(state: &mut TaskState) {
        if state.pending.is_empty() && state.status == TaskStatus::InputRequired {
            state.status = TaskStatus::Working;
        }
        state.updated = SystemTime::now();
    }

    /// A note on the current status (progress messages).
    pub(crate) fn note(&self, message: &str) {
        let mut state = self.state();
        if !state.status.is_terminal() {
            state.message = Some(message.to_string());
            state.updated = SystemTime::now();
            drop(state);
            self.changed.notify_one();
        }
    }

    /// Move to a terminal status, unless already in one; `false` if it was.
    fn end(
        &self,
        status: TaskStatus,
        message: Option<String>,
        fill: impl FnOnce(&mut TaskState),
    ) -> bool {
        let mut state = self.state();
        if state.status.is_terminal() {
            return false;
        }
        state.status = status;
        state.message = message;
        state.pending.clear();
        state.updated = SystemTime::now();
        fill(&mut state);
        drop(state);
        self.changed.notify_one();
        true
    }

    /// The run finished with `result` (tool errors included).
    pub(crate) fn complete(&self, result: Map<String, Value>) {
        self.end(TaskStatus::Completed, None, |s| s.result = Some(result));
    }

    /// The run ended in a JSON-RPC error.
    pub(crate) fn fail(&self, error: ErrorObject) {
        let message = Some(error.message.clone());
        self.end(TaskStatus::Failed, message, |s| s.error = Some(error));
    }

    /// Stop the task (`tasks/cancel`): cancelled unless already finished.
    pub(crate) fn cancel(&self) {
        if self.end(
            TaskStatus::Cancelled,
            Some("Cancelled by the client.".into()),
            |_| {},
        ) {
            tracing::info!(task = %fingerprint(&self.id), "task cancelled");
        }
        self.cancel.cancel();
    }
}

/// Why a task could not be created: every task of the client's share, or
/// of the whole table, is still running.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TableFull {
    /// The client has `max_tasks_per_client` running.
    Client,
    /// The table has `max_tasks`, none finished.
    Server,
}

/// Every task, oldest first, and how many each client has.
#[derive(Default)]
struct Table {
    entries: IndexMap<String, Arc<TaskEntry>>,
    per_owner: HashMap<String, usize>,
}

impl Table {
    fn count(&self, owner: &str) -> usize {
        self.per_owner.get(owner).copied().unwrap_or(0)
    }

    fn insert(&mut self, entry: Arc<TaskEntry>) {
        *self.per_owner.entry(entry.owner.clone()).or_default() += 1;
        self.entries.insert(entry.id.clone(), entry);
    }

    /// Uncount a task taken out of `entries`.
    fn uncount(per_owner: &mut HashMap<String, usize>, entry: &TaskEntry) {
        if let Some(n) = per_owner.get_mut(&entry.owner) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per_owner.remove(&entry.owner);
            }
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some(entry) = self.entries.shift_remove(id) {
            Self::uncount(&mut self.per_owner, &entry);
        }
    }

    /// Forget the oldest finished task (of `owner`, when given); its id,
    /// or `None` when there is none.
    fn forget_finished(&mut self, owner: Option<&str>) -> Option<String> {
        let oldest = self
            .entries
            .iter()
            .find(|(_, e)| owner.is_none_or(|o| e.owner == o) && e.is_finished())
            .map(|(id, _)| id.clone());
        let id = oldest?;
        tracing::debug!("a finished task forgotten to make room");
        self.remove(&id);
        Some(id)
    }
}

/// The live tasks of a server.
pub(crate) struct Tasks {
    entries: Mutex<Table>,
    /// Where the tasks are written through, if anywhere.
    store: Option<Arc<dyn TaskStore>>,
    /// This server's name in the records of the tasks it runs (random,
    /// new with every start).
    instance: String,
    /// Record keepers running ([`shared::keep`]).
    keepers: Arc<std::sync::atomic::AtomicUsize>,
}

impl Tasks {
    /// The tasks of a new server, written through to `store` when given.
    pub(crate) fn new(store: Option<Arc<dyn TaskStore>>) -> Self {
        Self {
            entries: Mutex::new(Table::default()),
            store,
            instance: random_id(),
            keepers: Arc::default(),
        }
    }

    /// The task store, if any.
    pub(crate) fn store(&self) -> Option<&Arc<dyn TaskStore>> {
        self.store.as_ref()
    }

    /// This server's instance id.
    pub(crate) fn instance(&self) -> &str {
        &self.instance
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Table> {
        match self.entries.lock() {
            Ok(e) => e,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Forget expired tasks (stopping any still running).
    fn sweep(table: &mut Table, now: SystemTime) {
        let Table { entries, per_owner } = table;
        entries.retain(|_, e| {
            let keep = !e.expired(now);
            if !keep {
                tracing::info!(task = %fingerprint(&e.id), "task expired");
                e.cancel.cancel();
                Table::uncount(per_owner, e);
            }
            keep
        });
    }

    /// A new working task of `principal`, counted against `owner`'s share,
    /// in the table before anyone sees its id. Finished tasks make room
    /// first: `owner`'s own oldest when it is at its share, the oldest of
    /// all when the table is full.
    pub(crate) fn create(
        &self,
        principal: &str,
        owner: &str,
        config: &ServerConfig,
    ) -> Result<Arc<TaskEntry>, TableFull> {
        let now = SystemTime::now();
        let mut entries = self.entries();
        Self::sweep(&mut entries, now);
        if entries.count(owner) >= config.max_tasks_per_client.max(1) {
            let forgotten = entries.forget_finished(Some(owner));
            self.unstore(forgotten.as_deref());
            if forgotten.is_none() {
                return Err(TableFull::Client);
            }
        }
        if entries.entries.len() >= config.max_tasks {
            let forgotten = entries.forget_finished(None);
            self.unstore(forgotten.as_deref());
            if forgotten.is_none() {
                return Err(TableFull::Server);
            }
        }
        let id = random_id();
        let entry = Arc::new(TaskEntry {
            id,
            principal: principal.to_string(),
            owner: owner.to_string(),
            created: now,
            ttl: config.task_ttl,
            poll_interval_ms: u64::try_from(config.task_poll_interval.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            cancel: CancellationToken::new(),
            changed: Notify::new(),
            state: Mutex::new(TaskState {
                status: TaskStatus::Working,
                message: None,
                updated: now,
                pending: IndexMap::new(),
                used: HashSet::new(),
                result: None,
                error: None,
            }),
        });
        entries.insert(Arc::clone(&entry));
        tracing::info!(task = %fingerprint(&entry.id), "task created");
        Ok(entry)
    }

    /// Remove the record of a task forgotten to make room, in the
    /// background (the store holds no more than the tables).
    fn unstore(&self, id: Option<&str>) {
        if let (Some(store), Some(id)) = (&self.store, id) {
            let (store, id) = (Arc::clone(store), id.to_string());
            tokio::spawn(async move {
                shared::bounded("remove", store.remove(&id)).await;
            });
        }
    }

    /// The task `id` of `principal` (another principal's task is as unknown
    /// as a missing one).
    pub(crate) fn get(&self, id: &str, principal: &str) -> Option<Arc<TaskEntry>> {
        let mut entries = self.entries();
        let entry = entries.entries.get(id).cloned()?;
        if entry.expired(SystemTime::now()) {
            tracing::info!(task = %fingerprint(&entry.id), "task expired");
            entry.cancel.cancel();
            entries.remove(id);
            return None;
        }
        (entry.principal == principal).then_some(entry)
    }
}

/// 128 random bits in hex: a task id, an instance id.
fn random_id() -> String {
    let mut id = [0u8; 16];
    rand::fill(&mut id[..]);
    id.iter().map(|b| format!("{b:02x}")).collect()
}
