//! Tasks (SEP-2663, 2026-07-28): a `tools/call` answered with a task is
//! followed to its end inside [`Client::call_tool`](super::Client::call_tool).
//!
//! The client polls `tasks/get` at the task's `pollIntervalMs` (bounded);
//! while the task is `input_required`, each of its input requests goes to
//! the same handlers as an `input_required` round's, **once**: a key
//! answered with `tasks/update` is not asked again when a later poll still
//! lists it (the server may not have taken the answer in yet). `completed`
//! returns the inlined result; `failed` is the server's error; `cancelled`
//! ends the call. A call cancelled on the client's side sends `tasks/cancel`.

use std::collections::HashSet;
use std::time::Duration;

use frontdesk_wire::InputRequests;
use frontdesk_wire::method::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use frontdesk_wire::tasks::{
    CreateTaskResult, GetTaskResult, TaskRequestParams, TaskStatus, UpdateTaskRequestParams,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::connection::Core;
use super::error::ClientError;
use super::{modern, mrtr};
use crate::fingerprint::fingerprint;

const DEFAULT_POLL: Duration = Duration::from_secs(1);
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(10);

fn params<T: serde::Serialize>(p: &T) -> Result<Map<String, Value>, ClientError> {
    super::to_object(p)
}

/// Follow `created` until it ends; the tool's result.
pub(crate) async fn follow(
    core: &Core,
    label: &str,
    created: CreateTaskResult,
    cancel: &CancellationToken,
) -> Result<Map<String, Value>, ClientError> {
    let id = created.task.task_id.clone();
    tracing::info!(task = %fingerprint(&id), "the call became a task; polling it");
    let mut every = poll_interval(created.task.poll_interval_ms);
    let mut answered: HashSet<String> = HashSet::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = cancel.cancelled() => {
                cancel_task(core, &id).await;
                return Err(ClientError::Cancelled);
            }
        }
        let get = TaskRequestParams::new(id.clone());
        let task: GetTaskResult = serde_json::from_value(Value::Object(
            modern::request(core, TASKS_GET, params(&get)?).await?,
        ))
        .map_err(|e| {
            ClientError::Protocol(crate::Reason::from(format!("bad tasks/get result: {e}")))
        })?;
        every = poll_interval(task.task.poll_interval_ms.or(created.task.poll_interval_ms));
        match task.task.status {
            TaskStatus::Working => {}
            TaskStatus::InputRequired => {
                let mut fresh = InputRequests::new();
                for (key, request) in task.input_requests.map(|r| r.0).unwrap_or_default() {
                    if !answered.contains(&key) {
                        fresh.0.insert(key, request);
                    }
                }
                if fresh.0.is_empty() {
                    continue;
                }
                let responses = match mrtr::fulfil(core, Some(label), fresh, cancel).await {
                    Ok(r) => r,
                    Err(e) => {
                        cancel_task(core, &id).await;
                        return Err(e);
                    }
                };
                answered.extend(responses.0.keys().cloned());
                let update = UpdateTaskRequestParams::new(id.clone(), responses);
                modern::request(core, TASKS_UPDATE, params(&update)?).await?;
            }
            TaskStatus::Completed => {
                return task.result.ok_or_else(|| {
                    ClientError::Protocol(crate::Reason::from(
                        "a completed task without its result",
                    ))
                });
            }
            TaskStatus::Failed => {
                return Err(match task.error {
                    Some(e) => ClientError::Rpc(Box::new(e)),
                    None => ClientError::Protocol(crate::Reason::from(
                        "the task failed without saying why",
                    )),
                });
            }
            TaskStatus::Cancelled => {
                return Err(ClientError::Protocol(crate::Reason::from(format!(
                    "the server cancelled the task{}",
                    task.task
                        .status_message
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                ))));
            }
            // A status this version does not know: keep polling until it
            // turns into one it does (or the wait ends).
            _ => {}
        }
    }
}

fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Tell the server the client gave up on the task (best effort).
async fn cancel_task(core: &Core, id: &str) {
    let cancel = TaskRequestParams::new(id);
    let Ok(p) = params(&cancel) else { return };
    if let Err(e) = modern::request(core, TASKS_CANCEL, p).await {
        tracing::debug!(error = %e, task = %fingerprint(id), "tasks/cancel failed");
    }
}
