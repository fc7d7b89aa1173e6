//! [`TaskStore`] in this process's memory: for tests, and for several
//! servers in one process. Nothing survives the process.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::{Inbox, MAX_INBOX, TaskAnswer, TaskRecord, TaskStore, now_ms};
use crate::BoxFuture;
use crate::store::StoreError;

#[derive(Default)]
struct Kept {
    record: Option<TaskRecord>,
    inbox: VecDeque<TaskAnswer>,
}

/// Task records in a map; expired ones are dropped as the map is used.
#[derive(Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<HashMap<String, Kept>>,
}

impl std::fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTaskStore").finish_non_exhaustive()
    }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, Kept>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The live record `id` (an expired one is dropped).
    fn live<'m>(tasks: &'m mut HashMap<String, Kept>, id: &str) -> Option<&'m mut Kept> {
        let expired = tasks
            .get(id)
            .is_some_and(|k| k.record.as_ref().is_none_or(|r| r.is_expired(now_ms())));
        if expired {
            tasks.remove(id);
        }
        tasks.get_mut(id)
    }
}

impl TaskStore for InMemoryTaskStore {
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks();
            // Drops an expired record first.
            let _ = Self::live(&mut tasks, &record.id);
            let kept = tasks.entry(record.id.clone()).or_default();
            if kept.record.as_ref().is_some_and(TaskRecord::is_finished) {
                return Ok(false);
            }
            kept.record = Some(record.clone());
            Ok(true)
        })
    }

    fn get_task<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks();
            Ok(Self::live(&mut tasks, id).and_then(|k| k.record.clone()))
        })
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        instance: &'a str,
        lease_until_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks();
            let Some(record) = Self::live(&mut tasks, id).and_then(|k| k.record.as_mut()) else {
                return Ok(false);
            };
            if record.is_finished() || record.instance != instance {
                return Ok(false);
            }
            record.lease_until_ms = lease_until_ms;
            Ok(true)
        })
    }

    fn push_answers<'a>(
        &'a self,
        id: &'a str,
        answers: Vec<TaskAnswer>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks();
            if let Some(kept) = Self::live(&mut tasks, id) {
                kept.inbox.extend(answers);
                while kept.inbox.len() > MAX_INBOX {
                    kept.inbox.pop_front();
                }
            }
            Ok(())
        })
    }

    fn take_inbox<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Inbox, StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks();
            Ok(match Self::live(&mut tasks, id) {
                Some(kept) => Inbox::new(
                    kept.inbox.drain(..).collect(),
                    kept.record.as_ref().is_none_or(TaskRecord::is_finished),
                ),
                None => Inbox::new(Vec::new(), true),
            })
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.tasks().remove(id);
            Ok(())
        })
    }

    fn purge_expired_tasks(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(async move {
            let now = now_ms();
            let mut tasks = self.tasks();
            let before = tasks.len();
            tasks.retain(|_, k| k.record.as_ref().is_some_and(|r| !r.is_expired(now)));
            Ok(before - tasks.len())
        })
    }
}
