//! `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28, for clients
//! that declare the extension in the request's capabilities; others get
//! `-32021`). Unknown tasks (or another principal's) are `-32602` on get
//! and cancel; an update for one is acknowledged and ignored, as are
//! answers to keys that are not outstanding.

use frontdesk_wire::{
    EmptyResult, ErrorCode, ResultType, TaskRequestParams, UpdateTaskRequestParams, extension,
    method,
};
use serde_json::{Value, json};

use crate::fingerprint::fingerprint;
use crate::server::api::error::RpcError;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::invoke::result_json;
use crate::server::engine::requests;
use crate::server::engine::requests::{ObjectRequest, Reply};

/// Whether `caps` (a request's client capabilities) declare the extension.
pub(crate) fn negotiated(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(extension::TASKS))
        .is_some()
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

/// Serve one of the task methods.
pub(crate) fn serve(
    server: &ServerInner,
    request: &ObjectRequest<'_>,
    caps: &Value,
    principal: &str,
) -> Reply {
    if !negotiated(caps) {
        return Err(extension_required());
    }
    match request.method {
        method::TASKS_GET => {
            let p: TaskRequestParams = requests::typed(request)?;
            let entry = server
                .tasks
                .get(&p.task_id, principal)
                .ok_or_else(|| unknown(&p.task_id))?;
            let mut detailed = entry.detailed();
            detailed.meta = Some(server.info_meta.meta());
            result_json(&detailed)
        }
        method::TASKS_UPDATE => {
            let p: UpdateTaskRequestParams = requests::typed(request)?;
            match server.tasks.get(&p.task_id, principal) {
                Some(entry) => {
                    for (key, response) in p.input_responses.0 {
                        let raw = serde_json::to_value(&response).unwrap_or(Value::Null);
                        if !entry.answer(&key, raw) {
                            tracing::debug!(task = %fingerprint(&p.task_id), key, "answer for no outstanding question; ignored");
                        }
                    }
                }
                None => {
                    tracing::debug!(task = %fingerprint(&p.task_id), "update for an unknown task; acknowledged")
                }
            }
            ack(server)
        }
        method::TASKS_CANCEL => {
            let p: TaskRequestParams = requests::typed(request)?;
            let entry = server
                .tasks
                .get(&p.task_id, principal)
                .ok_or_else(|| unknown(&p.task_id))?;
            entry.cancel();
            ack(server)
        }
        other => Err(RpcError::method_not_found(other)),
    }
}
