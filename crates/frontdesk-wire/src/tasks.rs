//! The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`, on
//! 2026-07-28): a `tools/call` may answer with a task instead of a result;
//! the client polls it with `tasks/get`, answers its input requests with
//! `tasks/update`, and may end it with `tasks/cancel`.
//!
//! Shapes as the extension and the conformance suite have them: a
//! `CreateTaskResult` is flat (`resultType: "task"` next to the task's
//! members, no `task` wrapper); `tasks/get` returns the task with, by status,
//! `inputRequests` (input_required), `result` (completed) or `error`
//! (failed); `tasks/update` and `tasks/cancel` return an empty
//! `{resultType: "complete"}`. Durations are integer milliseconds (`ttlMs`,
//! `pollIntervalMs`). There is no `requestState` on this surface.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::meta::Meta;
use crate::mrtr::{InputRequests, InputResponses};
use crate::util::wire_tag;

/// The extension's identifier, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// `resultType` of a `CreateTaskResult`.
pub const RESULT_TYPE_TASK: &str = "task";
/// `tasks/get`.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update`.
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel`.
pub const TASKS_CANCEL: &str = "tasks/cancel";

wire_tag!(
    /// `"resultType": "task"`.
    TaskTag = "task"
);

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers to its `inputRequests`.
    InputRequired,
    /// Finished; `result` holds the tool's result (which may be an error result).
    Completed,
    /// Ended by a protocol-level error; `error` holds it.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The members every task carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's id.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    #[serde(
        default,
        rename = "statusMessage",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    #[serde(default, rename = "createdAt", skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it last changed (ISO 8601).
    #[serde(
        default,
        rename = "lastUpdatedAt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_updated_at: Option<String>,
    /// How long it stays readable, in ms (`null`: unlimited).
    #[serde(default, rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<Value>,
    /// How often to poll, in ms.
    #[serde(
        default,
        rename = "pollIntervalMs",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `tools/call` answered with a task (flat: `resultType` and the task's members).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// Always `"task"`.
    #[serde(rename = "resultType")]
    pub result_type: TaskTag,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

/// What `tasks/get` returns: the task, with what its status carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetailedTask {
    /// `input_required`: what the task asks, by key.
    #[serde(
        default,
        rename = "inputRequests",
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the tool's result, inlined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// `failed`: the protocol error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

/// Parameters of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskIdParams {
    /// The task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Parameters of `tasks/update`: answers to some or all of the task's
/// pending `inputRequests`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateTaskParams {
    /// The task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// The answers, by the keys of `inputRequests`.
    #[serde(rename = "inputResponses")]
    pub input_responses: InputResponses,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn create_task_result_is_flat() {
        let v = json!({
            "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 500
        });
        let r: CreateTaskResult = serde_json::from_value(v.clone()).expect("parses");
        assert_eq!(r.task.task_id, "t1");
        assert_eq!(r.task.poll_interval_ms, Some(500));
        assert_eq!(serde_json::to_value(&r).expect("serializes"), v);
    }

    #[test]
    fn detailed_task_by_status() {
        let waiting: DetailedTask = serde_json::from_value(json!({
            "taskId": "t1", "status": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}}}
        }))
        .expect("parses");
        assert_eq!(waiting.task.status, TaskStatus::InputRequired);
        assert_eq!(waiting.input_requests.map(|r| r.0.len()), Some(1));
        let done: DetailedTask = serde_json::from_value(json!({
            "taskId": "t1", "status": "completed",
            "result": {"content": [{"type": "text", "text": "ok"}]}
        }))
        .expect("parses");
        assert!(done.task.status.is_terminal() && done.result.is_some());
        let failed: DetailedTask = serde_json::from_value(json!({
            "taskId": "t1", "status": "failed", "error": {"code": -32603, "message": "boom"}
        }))
        .expect("parses");
        assert_eq!(failed.error.map(|e| e.message), Some("boom".to_owned()));
    }
}
