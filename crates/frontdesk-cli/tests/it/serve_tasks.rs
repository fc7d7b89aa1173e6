//! Issue 28: tasks of `frontdesk serve` in its store, with real processes
//! on loopback.
//!
//! - SQLite: a task that completed before a `SIGKILL` reads the same after
//!   the restart on the same data directory; a task that was still running
//!   reads `failed`, with the reason, once its lease (`--task-lease 1`) has
//!   run out.
//! - Redis (at `FRONTDESK_REDIS_URL`; skipped with a note without it,
//!   failed with `FRONTDESK_REQUIRE_REDIS=1`): a task created on one
//!   instance is read, answered and finished through the other; a task
//!   still running when one instance is stopped with `SIGTERM` reads
//!   `failed` on the other at once (the drain ends it and writes that).

use std::time::Duration;

use frontdesk_testkit::TestClient;
use serde_json::{Value, json};

use super::serve_restart::{Serve, generate_key, http, messages, temp_dir};
use crate::support::modern_post;

/// Why a task still running when its server drained failed.
const SHUT_DOWN: &str =
    "The server running this task shut down before the task finished; call the tool again.";

/// Why a task whose server stopped failed (the exact wire text).
const LOST: &str =
    "The server running this task stopped before the task finished; call the tool again.";

fn meta() -> Value {
    TestClient::new("serve-tasks", "1")
        .capabilities(
            json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
        )
        .meta()
}

/// A 2026-07-28 request of `method` naming `name` (the tool, or the task).
async fn rpc(s: &Serve, method: &str, name: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let r = modern_post(&http(), &s.mcp, method, name, &body)
        .send()
        .await
        .unwrap();
    messages(r).await.pop().unwrap()
}

/// Call `tool` with `args` as a task: its id.
async fn start(s: &Serve, tool: &str, args: Value) -> String {
    let v = rpc(
        s,
        "tools/call",
        tool,
        json!({"name": tool, "arguments": args}),
    )
    .await;
    assert_eq!(v["result"]["resultType"], "task", "{v}");
    v["result"]["taskId"].as_str().unwrap().to_string()
}

/// `tasks/get` of `id` on `s` until it is `status` (within 20 s): the result.
async fn wait_for(s: &Serve, id: &str, status: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = rpc(s, "tasks/get", id, json!({"taskId": id})).await;
        if last["result"]["status"] == status {
            return last["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} never {status}: {last}");
}

#[tokio::test]
async fn tasks_outlive_a_sigkill_on_sqlite() {
    let dir = temp_dir("tasks");
    let data = dir.join("data");
    let data = data.to_str().unwrap();
    let keys = generate_key("k1");
    let args = [
        "--conformance-fixtures",
        "--data-dir",
        data,
        "--task-lease",
        "1",
    ];
    let first = Serve::start(&keys, &args);
    let running = start(&first, "slow_compute", json!({"seconds": 3600})).await;
    let quick = start(
        &first,
        "slow_compute",
        json!({"seconds": 0.1, "label": "the sum"}),
    )
    .await;
    let done = wait_for(&first, &quick, "completed").await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Computed the sum in 0.1 s."}])
    );
    wait_for(&first, &running, "working").await;
    // The completed record is written right after the change it records.
    tokio::time::sleep(Duration::from_millis(300)).await;
    first.kill();

    let second = Serve::start(&keys, &args);
    assert_eq!(wait_for(&second, &quick, "completed").await, done);
    let failed = wait_for(&second, &running, "failed").await;
    assert_eq!(
        failed,
        json!({"resultType": "complete", "taskId": running, "status": "failed",
            "statusMessage": LOST,
            "createdAt": failed["createdAt"], "lastUpdatedAt": failed["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000,
            "error": {"code": -32603, "message": LOST},
            "_meta": done["_meta"]})
    );
    // Unknown stays unknown.
    let v = rpc(&second, "tasks/get", "nope", json!({"taskId": "nope"})).await;
    assert_eq!(
        v["error"],
        json!({"code": -32602, "message": "Invalid params: unknown task \"nope\""})
    );
    eprintln!(
        "serve tasks | after SIGKILL and restart: the completed task read back, the running one failed with the reason"
    );
}

#[tokio::test]
async fn a_task_moves_between_instances_on_redis() {
    let Some(url) = frontdesk_testkit::redis_url("two-instance task test") else {
        return;
    };
    let keys = generate_key("k1");
    let prefix = format!(
        "serve-tasks-{}-{}:",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let args = [
        "--conformance-fixtures",
        "--store",
        "redis",
        "--redis-url",
        &url,
        "--redis-prefix",
        &prefix,
    ];
    let (a, b) = (Serve::start(&keys, &args), Serve::start(&keys, &args));
    let id = start(&a, "confirm_delete", json!({"filename": "b.txt"})).await;
    let on_b = wait_for(&b, &id, "input_required").await;
    assert_eq!(on_b, wait_for(&a, &id, "input_required").await);
    assert_eq!(
        on_b["inputRequests"]["confirm"]["params"]["message"],
        "Delete b.txt?"
    );
    let ack = rpc(
        &b,
        "tasks/update",
        &id,
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    )
    .await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "_meta": on_b["_meta"]}})
    );
    let done = wait_for(&b, &id, "completed").await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Deleted b.txt."}])
    );
    assert_eq!(wait_for(&a, &id, "completed").await, done);

    // A SIGTERM ends the tasks A still runs, and B reads that at once.
    let running = start(&a, "slow_compute", json!({"seconds": 3600})).await;
    wait_for(&b, &running, "working").await;
    let mut a = a;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &a.process.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exited = a.process.exited_within(Duration::from_secs(15));
    assert!(exited.is_some_and(|s| s.success()), "{exited:?}");
    let failed = rpc(&b, "tasks/get", &running, json!({"taskId": running})).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert_eq!(
        failed["result"]["error"],
        json!({"code": -32603, "message": SHUT_DOWN})
    );
}
