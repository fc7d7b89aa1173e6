//! `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28, for clients
//! that declare the extension in the request's capabilities; others get
//! `-32021`). Unknown tasks (or another principal's) are `-32602` on get
//! and cancel; an update for one is acknowledged and ignored, as are
//! answers to keys that are not outstanding.
//!
//! With a task store, a task this instance does not run is served from its
//! record: `tasks/get` answers the record (a running task whose instance
//! stopped is `failed`), `tasks/update` leaves the answers in the task's
//! inbox for the instance running it, and `tasks/cancel` writes the record
//! `cancelled`, which that instance sees and stops the run. A store that
//! fails is `-32603`.

use frontdesk_wire::{
    EmptyResult, ErrorCode, ResultType, TaskRequestParams, UpdateTaskRequestParams, extension,
    method,
};
use serde_json::{Value, json};

use crate::fingerprint::fingerprint;
use crate::server::api::error::RpcError;
use crate::server::contract::caps::ClientCaps;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::invoke::result_json;
use crate::server::engine::requests;
use crate::server::engine::requests::{ObjectRequest, Reply};
use crate::server::engine::tasks::shared::Found;

/// Whether `caps` (a request's client capabilities) declare the extension.
pub(crate) fn negotiated(caps: &ClientCaps) -> bool {
    caps.declared().tasks
}

/// The `-32021` for a client that did not declare the extension.
pub(crate) fn extension_required() -> RpcError {
    RpcError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "This request requires the io.modelcontextprotocol/tasks extension",
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {extension::TASKS: {}}}}))
}

fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!("Invalid params: unknown task {id:?}"))
}

/// The empty acknowledgement of update and cancel.
fn ack(server: &ServerInner) -> Reply {
    result_json(&EmptyResult {
        result_type: Some(ResultType::Complete),
        meta: Some(server.info_meta.meta()),
        ..EmptyResult::default()
    })
}

/// The task store failed: the client may try again.
fn store_failed() -> RpcError {
    RpcError::internal("Internal error")
}

/// The task `id` of `principal`, here or in the store.
async fn find(server: &ServerInner, id: &str, principal: &str) -> Result<Found, RpcError> {
    server
        .tasks
        .find(id, principal)
        .await
        .map_err(|()| store_failed())?
        .ok_or_else(|| unknown(id))
}

/// Serve one of the task methods.
pub(crate) async fn serve(
    server: &ServerInner,
    request: &ObjectRequest<'_>,
    caps: &ClientCaps,
    principal: &str,
) -> Reply {
    if !negotiated(caps) {
        return Err(extension_required());
    }
    match request.method {
        method::TASKS_GET => {
            let p: TaskRequestParams = requests::typed(request)?;
            let mut detailed = match find(server, &p.task_id, principal).await? {
                Found::Here(entry) => entry.detailed(),
                Found::Elsewhere(record) => record.snapshot,
            };
            detailed.meta = Some(server.info_meta.meta());
            result_json(&detailed)
        }
        method::TASKS_UPDATE => {
            let p: UpdateTaskRequestParams = requests::typed(request)?;
            let answers = p.input_responses.0.into_iter().map(|(key, response)| {
                (key, serde_json::to_value(&response).unwrap_or(Value::Null))
            });
            match find(server, &p.task_id, principal).await {
                Ok(Found::Here(entry)) => {
                    for (key, raw) in answers {
                        if !entry.answer(&key, raw) {
                            tracing::debug!(task = %fingerprint(&p.task_id), key, "answer for no outstanding question; ignored");
                        }
                    }
                }
                Ok(Found::Elsewhere(record)) => server
                    .tasks
                    .answer_elsewhere(&record, answers.collect())
                    .await
                    .map_err(|()| store_failed())?,
                Err(e) if e.error_object().code == ErrorCode::INVALID_PARAMS => {
                    tracing::debug!(task = %fingerprint(&p.task_id), "update for an unknown task; acknowledged")
                }
                Err(e) => return Err(e),
            }
            ack(server)
        }
        method::TASKS_CANCEL => {
            let p: TaskRequestParams = requests::typed(request)?;
            match find(server, &p.task_id, principal).await? {
                Found::Here(entry) => entry.cancel(),
                Found::Elsewhere(record) => server
                    .tasks
                    .cancel_elsewhere(*record)
                    .await
                    .map_err(|()| store_failed())?,
            }
            ack(server)
        }
        other => Err(RpcError::method_not_found(other)),
    }
}
