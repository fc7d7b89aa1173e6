//! Starting a task from a call and running the rest of the handler in the
//! background: its result or error lands in the task, `tasks/cancel` stops
//! it, and a handler that panics fails the task instead of leaving it
//! working forever.

use std::sync::Arc;

use frontdesk_wire::{CreateTaskResult, ErrorObject};
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::fingerprint::fingerprint;
use crate::server::api::error::{RpcError, ToolError};
use crate::server::contract::caps::ClientCaps;
use crate::server::engine::call::{Call, Conversation, TaskStarter};
use crate::server::engine::inner::ServerInner;
use crate::server::engine::invoke::{Completed, result_json};
use crate::server::engine::requests::Reply;
use crate::server::engine::tasks::{Started, TableFull, TaskEntry, shared};
use crate::server::task::conversation::InTask;

/// What lets a call with these client capabilities continue as a task.
pub(crate) fn starter(caps: ClientCaps) -> TaskStarter {
    Box::new(move |call: &Call| {
        let config = &call.server.config;
        let entry = match call
            .server
            .tasks
            .create(&call.principal, &call.quota_key, config)
        {
            Ok(entry) => entry,
            Err(TableFull::Server) => {
                tracing::warn!(
                    limit = config.max_tasks,
                    "task table full; the call continues without a task"
                );
                return None;
            }
            Err(TableFull::Client) => {
                tracing::warn!(
                    client = %call.quota_key,
                    limit = config.max_tasks_per_client,
                    "the client has its most tasks running; the call continues without a task"
                );
                return None;
            }
        };
        let conversation: Arc<dyn Conversation> = Arc::new(InTask::new(Arc::clone(&entry), caps));
        Some((conversation, Started { entry }))
    })
}

/// Run the rest of the handler (`work`) as the task `started`, and answer
/// the call with its `CreateTaskResult`. `settle` turns the handler's
/// outcome into the result or error the call would have had. With a task
/// store, the task's record is written before the answer (so another
/// instance knows the id the client gets) and kept up to date while the
/// task runs.
pub(crate) async fn run(
    server: &Arc<ServerInner>,
    work: BoxFuture<'static, Result<Completed, ToolError>>,
    started: Started,
    settle: impl FnOnce(&ServerInner, Result<Completed, ToolError>) -> Reply + Send + 'static,
) -> Reply {
    let entry = started.entry;
    let mut created = CreateTaskResult::new(entry.task());
    created.meta = Some(server.info_meta.meta());
    if let Some(store) = server.tasks.store() {
        let instance = server.tasks.instance().to_string();
        shared::publish(&**store, &entry, &instance, &server.config).await;
        tokio::spawn(shared::keep(
            Arc::clone(store),
            Arc::clone(&entry),
            instance,
            server.config.clone(),
            server.tasks.keeping(),
        ));
    }
    let server = Arc::clone(server);
    let task = Arc::clone(&entry);
    tokio::spawn(async move {
        let handler = tokio::spawn(work);
        let abort = handler.abort_handle();
        tokio::select! {
            joined = handler => match joined {
                Ok(outcome) => finish(&task, settle(&server, outcome)),
                Err(e) if e.is_panic() => {
                    tracing::error!(task = %fingerprint(&task_id(&task)), "task handler panicked");
                    task.fail(ErrorObject::internal_error("Internal error"));
                }
                Err(_) => task.cancel(),
            },
            () = task.cancel.cancelled() => {
                abort.abort();
                task.cancel();
            }
        }
    });
    result_json(&created)
}

fn task_id(entry: &TaskEntry) -> String {
    entry.task().task_id
}

/// Record a finished run: a result (tool errors included) completes the
/// task, a JSON-RPC error fails it.
fn finish(entry: &TaskEntry, reply: Reply) {
    let reply = reply.and_then(|text| {
        serde_json::from_str::<Map<String, Value>>(text.get()).map_err(|e| {
            tracing::error!(error = %e, "a task's result is not a JSON object");
            RpcError::internal("Internal error")
        })
    });
    match reply {
        Ok(result) => entry.complete(result),
        Err(e) => entry.fail(e.error_object().clone()),
    }
}
