//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, on
//! 2026-07-28): a `tools/call` answered with a task handle
//! ([`CreateTaskResult`], `resultType: "task"`) instead of its result; the
//! client polls `tasks/get` ([`GetTaskResult`]), answers the task's
//! `inputRequests` with `tasks/update` and may `tasks/cancel` it.
//!
//! The shapes are the ones the extension's conformance scenarios check:
//! flat (`Result & Task`, no nested `task`), `ttlMs` and `pollIntervalMs` in
//! integer milliseconds, and no `requestState` on the task wire.
//!
//! ```
//! use frontdesk_wire::{CreateTaskResult, Task, TaskStatus};
//!
//! let task = Task::new("t-1", TaskStatus::Working, "2026-08-01T10:00:00Z").with_ttl_ms(Some(60_000));
//! let created = serde_json::to_value(CreateTaskResult::new(task))?;
//! assert_eq!(created["resultType"], "task");
//! assert_eq!(created["taskId"], "t-1");
//! assert_eq!(created["ttlMs"], 60_000);
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::meta::Meta;
use crate::mrtr::{InputRequests, InputResponses};
use crate::result::ResultType;
use crate::util::wire_tag;

wire_tag!(
    /// `"resultType": "task"`.
    TaskResultTag = "task"
);

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Being worked on.
    Working,
    /// Waiting for the client's answers to its `inputRequests`.
    InputRequired,
    /// Finished with a result (a tool result with `isError: true` included).
    Completed,
    /// Cancelled before it finished.
    Cancelled,
    /// Ended by a JSON-RPC error (inlined as `error`).
    Failed,
}

impl TaskStatus {
    /// Whether the task can no longer change (`completed`, `cancelled`,
    /// `failed`).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Cancelled | Self::Failed)
    }
}

/// What every task message carries about the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's identifier (unguessable).
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A human-readable note on the current status.
    #[serde(
        default,
        rename = "statusMessage",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_message: Option<String>,
    /// ISO 8601 creation time (read as empty when a server leaves it out).
    #[serde(default, rename = "createdAt")]
    pub created_at: String,
    /// ISO 8601 time of the last change (read as empty when left out).
    #[serde(default, rename = "lastUpdatedAt")]
    pub last_updated_at: String,
    /// How long the task is kept after creation, in milliseconds; `null`
    /// for unlimited (always written).
    #[serde(default, rename = "ttlMs")]
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval, in milliseconds.
    #[serde(
        default,
        rename = "pollIntervalMs",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// A task created (and last updated) at `created_at`, kept without limit.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
    ) -> Self {
        let created_at = created_at.into();
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl_ms: None,
            poll_interval_ms: None,
        }
    }

    /// Sets `ttlMs` (builder style).
    pub fn with_ttl_ms(mut self, ttl_ms: Option<u64>) -> Self {
        self.ttl_ms = ttl_ms;
        self
    }

    /// Sets `pollIntervalMs` (builder style).
    pub fn with_poll_interval_ms(mut self, interval_ms: u64) -> Self {
        self.poll_interval_ms = Some(interval_ms);
        self
    }
}

/// The answer to a `tools/call` that became a task: `resultType: "task"`
/// and the task, flat. Never carries `result`, `error` or `inputRequests`
/// (those are on [`GetTaskResult`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// Always `"task"`.
    #[serde(rename = "resultType")]
    pub result_type: TaskResultTag,
    /// The new task.
    #[serde(flatten)]
    pub task: Task,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: TaskResultTag,
            task,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The result of `tasks/get`: `resultType: "complete"`, the task, and what
/// its status carries: `inputRequests` while `input_required`, `result`
/// once `completed`, `error` once `failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetTaskResult {
    /// `"complete"` (read as such when a server leaves it out).
    #[serde(rename = "resultType", default = "complete")]
    pub result_type: ResultType,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Outstanding questions (`input_required`), keys unique for the task's
    /// lifetime.
    #[serde(
        default,
        rename = "inputRequests",
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<InputRequests>,
    /// The original request's result (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// The JSON-RPC error that ended it (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn complete() -> ResultType {
    ResultType::Complete
}

impl GetTaskResult {
    /// A `tasks/get` result for `task`, with nothing inlined yet.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: ResultType::Complete,
            task,
            input_requests: None,
            result: None,
            error: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Parameters of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRequestParams {
    /// The task (HTTP: also in `Mcp-Name`).
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TaskRequestParams {
    /// Params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Parameters of `tasks/update`: answers to some or all of the task's
/// outstanding `inputRequests` (unknown or answered keys are ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateTaskRequestParams {
    /// The task (HTTP: also in `Mcp-Name`).
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// The answers, by `inputRequests` key.
    #[serde(rename = "inputResponses")]
    pub input_responses: InputResponses,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UpdateTaskRequestParams {
    /// Answers for `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: InputResponses) -> Self {
        Self {
            task_id: task_id.into(),
            input_responses,
            meta: None,
            extra: Map::new(),
        }
    }
}
