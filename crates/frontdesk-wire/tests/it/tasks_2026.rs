//! The Tasks extension's wire shapes (SEP-2663 as the conformance suite
//! checks them): flat results, integer-millisecond fields, `ttlMs` always
//! written, the status names, and the update/get/cancel params.

#![allow(clippy::unwrap_used)]

use frontdesk_wire::*;
use serde_json::json;

#[test]
fn create_task_result_is_flat_and_always_writes_ttl() {
    let task =
        Task::new("t-1", TaskStatus::Working, "2026-08-01T10:00:00Z").with_poll_interval_ms(500);
    let v = serde_json::to_value(CreateTaskResult::new(task)).unwrap();
    assert_eq!(
        v,
        json!({"resultType": "task", "taskId": "t-1", "status": "working",
            "createdAt": "2026-08-01T10:00:00Z", "lastUpdatedAt": "2026-08-01T10:00:00Z",
            "ttlMs": null, "pollIntervalMs": 500})
    );
    let back: CreateTaskResult = serde_json::from_value(v).unwrap();
    assert_eq!(back.task.task_id, "t-1");
    assert!(
        back.extra.is_empty(),
        "the task's fields are not kept twice"
    );
}

#[test]
fn get_task_result_inlines_what_the_status_carries() {
    let mut task = Task::new("t-2", TaskStatus::InputRequired, "2026-08-01T10:00:00Z")
        .with_ttl_ms(Some(60_000));
    task.last_updated_at = "2026-08-01T10:00:05Z".into();
    let ask = ElicitRequestParams::form("Delete it?", serde_json::Map::new());
    let mut r = GetTaskResult::new(task);
    r.input_requests = Some(InputRequests::new().with("confirm", ask));
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"resultType": "complete", "taskId": "t-2", "status": "input_required",
            "createdAt": "2026-08-01T10:00:00Z", "lastUpdatedAt": "2026-08-01T10:00:05Z",
            "ttlMs": 60000,
            "inputRequests": {"confirm": {"method": "elicitation/create",
                "params": {"mode": "form", "message": "Delete it?", "requestedSchema": {}}}}})
    );
    let failed: GetTaskResult = serde_json::from_value(json!({
        "resultType": "complete", "taskId": "t-3", "status": "failed",
        "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": null,
        "error": {"code": -32603, "message": "Internal error"}}))
    .unwrap();
    assert_eq!(failed.error.unwrap().code, ErrorCode::INTERNAL_ERROR);
    assert!(failed.task.status.is_terminal());
    assert!(!TaskStatus::InputRequired.is_terminal());
}

#[test]
fn task_request_params_read_the_suites_shapes() {
    let u: UpdateTaskRequestParams = serde_json::from_value(json!({
        "taskId": "t-1",
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}},
                           "unknown-key": {"ignored": true}},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    .unwrap();
    assert_eq!(u.task_id, "t-1");
    assert!(u.input_responses.elicit_result("confirm").is_some());
    assert!(matches!(
        u.input_responses.0.get("unknown-key"),
        Some(InputResponse::Unknown(_))
    ));
    let g: TaskRequestParams = serde_json::from_value(json!({"taskId": "t-9"})).unwrap();
    assert_eq!(serde_json::to_value(&g).unwrap(), json!({"taskId": "t-9"}));
    assert_eq!(header::name_field(method::TASKS_UPDATE), Some("taskId"));
    assert_eq!(extension::TASKS, "io.modelcontextprotocol/tasks");
}
