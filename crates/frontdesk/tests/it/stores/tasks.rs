//! Tasks through a shared task store (issue 28): two `Server`s on one store
//! serve one task (created on A, read, answered and cancelled on B), and a
//! server started again on the same store after the first one stopped
//! reports a task that was running as failed, and a finished one as it
//! finished. Run against each store (`sqlite.rs`, `redis.rs`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use frontdesk::server::tool::TaskSupport;
use frontdesk::server::transport::{OutboundSink, RequestInfo};
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ServerConfig, ToolContext, ToolDef, ToolError, ToolOutput,
};
use frontdesk::tasks::TaskStore;
use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::{call, meta};

/// Why a task whose server stopped failed (the exact wire text).
pub const LOST: &str =
    "The server running this task stopped before the task finished; call the tool again.";

fn caps() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

fn confirm_schema() -> frontdesk::form::FormSchema {
    frontdesk::form::FormSchema::parse_strict(
        &json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}),
    )
    .expect("a valid schema")
}

/// `confirm` asks once and says what it did; `hold` runs for an hour;
/// `quick` finishes at once. All continue as tasks.
pub fn server(store: Arc<dyn TaskStore>) -> Server {
    async fn confirm(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        cx.continue_as_task().await;
        let question = Question::schema("Delete b.txt?", confirm_schema()).key("confirm");
        Ok(match cx.ask(question).await? {
            Answer::Accepted(c) if c.get("confirm") == Some(&json!(true)) => {
                ToolOutput::text("Deleted b.txt.")
            }
            _ => ToolOutput::text("Kept b.txt."),
        })
    }
    async fn hold(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        cx.continue_as_task().await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(ToolOutput::text("held"))
    }
    async fn quick(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        cx.continue_as_task().await;
        Ok(ToolOutput::text("quick"))
    }
    let config = ServerConfig::new()
        .task_lease(Duration::from_millis(900))
        .task_inbox_poll(Duration::from_millis(50));
    let tool = |def: ToolDef| def.task_support(TaskSupport::Optional);
    Server::builder("tasks", "0.0.1")
        .config(config)
        .task_store(store)
        .tool(tool(ToolDef::new("confirm", "Asks, then acts", confirm)))
        .tool(tool(ToolDef::new("hold", "Runs an hour", hold)))
        .tool(tool(ToolDef::new("quick", "Done at once", quick)))
        .build()
}

/// The response to `body` from `principal` (the `result` or the `error`
/// object, whole).
pub async fn send(server: &Server, principal: &str, body: Value) -> Value {
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new().principal(principal);
    server
        .handle_json(None, body, &sink, &info)
        .await
        .response_value()
        .expect("a response")
}

/// Call `tool` as alice: the task id.
pub async fn start(server: &Server, tool: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": call(tool, json!({}), caps())});
    let v = send(server, "alice", body).await;
    assert_eq!(v["result"]["resultType"], "task", "{v}");
    v["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_string()
}

fn task_request(method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(caps());
    json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
}

/// `tasks/get` of `id` as `principal`: the whole response.
pub async fn get_as(server: &Server, principal: &str, id: &str) -> Value {
    send(
        server,
        principal,
        task_request("tasks/get", json!({"taskId": id})),
    )
    .await
}

/// `tasks/get` as alice until the task is `status` (within 10 s): its result.
pub async fn wait_for(server: &Server, id: &str, status: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = get_as(server, "alice", id).await;
        if last["result"]["status"] == status {
            return last["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never {status}: {last}");
}

/// The `_meta` every result of these servers carries.
fn info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "tasks", "version": "0.0.1"}})
}

/// A task created on A is read on B, answered on B, completes on A, and
/// its result is read on B; another principal and an unknown id get the
/// same `-32602` as on the instance running the task.
pub async fn one_task_two_servers(store: Arc<dyn TaskStore>) {
    let (a, b) = (server(Arc::clone(&store)), server(store));
    let id = start(&a, "confirm").await;
    let on_a = wait_for(&a, &id, "input_required").await;
    let on_b = wait_for(&b, &id, "input_required").await;
    assert_eq!(on_b, on_a);
    assert_eq!(
        on_b,
        json!({"resultType": "complete", "taskId": id, "status": "input_required",
            "createdAt": on_a["createdAt"], "lastUpdatedAt": on_a["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000,
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Delete b.txt?",
                "requestedSchema": {"type": "object",
                    "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}},
            "_meta": info()})
    );
    for server in [&a, &b] {
        for (principal, task) in [("mallory", id.as_str()), ("alice", "no-such-task")] {
            let v = get_as(server, principal, task).await;
            assert_eq!(
                v["error"],
                json!({"code": -32602, "message": format!("Invalid params: unknown task {task:?}")}),
                "{principal} {task}"
            );
        }
    }

    // Answered on B (an answer to no outstanding question is ignored, and
    // so is an update from another principal).
    let update = |confirm: bool| {
        task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {
                "confirm": {"action": "accept", "content": {"confirm": confirm}},
                "made-up": {"action": "decline"}}}),
        )
    };
    let ignored = send(&b, "mallory", update(false)).await;
    assert_eq!(
        ignored,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "_meta": info()}})
    );
    let ack = send(&b, "alice", update(true)).await;
    assert_eq!(ack, ignored);
    let done = wait_for(&b, &id, "completed").await;
    assert_eq!(
        done,
        json!({"resultType": "complete", "taskId": id, "status": "completed",
            "createdAt": on_a["createdAt"], "lastUpdatedAt": done["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000,
            "result": {"resultType": "complete",
                "content": [{"type": "text", "text": "Deleted b.txt."}], "isError": false,
                "_meta": info()},
            "_meta": info()})
    );
    assert_eq!(wait_for(&a, &id, "completed").await, done);
}

/// Cancelled on B, the task A runs is cancelled everywhere and its run
/// stops; the reply is the one A gives.
pub async fn cancelled_on_another_server(store: Arc<dyn TaskStore>) {
    let (a, b) = (server(Arc::clone(&store)), server(store));
    let id = start(&a, "confirm").await;
    wait_for(&b, &id, "input_required").await;
    let cancel = task_request("tasks/cancel", json!({"taskId": id}));
    let ack = send(&b, "alice", cancel.clone()).await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "_meta": info()}})
    );
    let on_b = wait_for(&b, &id, "cancelled").await;
    assert_eq!(on_b["statusMessage"], "Cancelled by the client.");
    assert!(on_b.get("inputRequests").is_none(), "{on_b}");
    // A stops the run; its own view says cancelled, and an answer now
    // changes nothing.
    let on_a = wait_for(&a, &id, "cancelled").await;
    assert_eq!(on_a["statusMessage"], "Cancelled by the client.");
    let late = task_request(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    );
    send(&b, "alice", late).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(wait_for(&b, &id, "cancelled").await["status"], "cancelled");
    // Cancelling again (on either) answers the same.
    assert_eq!(send(&a, "alice", cancel.clone()).await, ack);
    assert_eq!(send(&b, "alice", cancel).await, ack);
}

/// Why a task still running when its server drained failed.
pub const SHUT_DOWN: &str =
    "The server running this task shut down before the task finished; call the tool again.";

/// A server that drains ends its running tasks `failed`, and has written
/// that to the store once it has settled: another server reads it at once.
pub async fn drained(store: Arc<dyn TaskStore>) {
    let (a, b) = (server(Arc::clone(&store)), server(store));
    let id = start(&a, "hold").await;
    let working = wait_for(&b, &id, "working").await;
    a.drain();
    assert!(a.settled(Duration::from_secs(10)).await);
    let on_b = get_as(&b, "alice", &id).await["result"].clone();
    assert_eq!(
        on_b,
        json!({"resultType": "complete", "taskId": id, "status": "failed",
            "statusMessage": SHUT_DOWN,
            "createdAt": working["createdAt"], "lastUpdatedAt": on_b["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000,
            "error": {"code": -32603, "message": SHUT_DOWN},
            "_meta": info()})
    );
    assert_eq!(get_as(&a, "alice", &id).await["result"], on_b);
}

/// Task ids from the first life of a server on a store: one still running
/// (`hold`), one completed (`quick`).
pub struct Before {
    /// The running one.
    pub running: String,
    /// The completed one and its `tasks/get` result.
    pub completed: (String, Value),
}

/// The first life: start both tasks on a server on `store`.
pub async fn first_life(store: Arc<dyn TaskStore>) -> Before {
    let a = server(store);
    let running = start(&a, "hold").await;
    let done = start(&a, "quick").await;
    let result = wait_for(&a, &done, "completed").await;
    // Its record is written before the call after it looks.
    tokio::time::sleep(Duration::from_millis(200)).await;
    Before {
        running,
        completed: (done, result),
    }
}

/// The second life, on the same store after the first one's runtime is
/// gone: the completed task reads as it was; the running one is failed,
/// once its lease ran out, with the reason, and stays so.
pub async fn second_life(store: Arc<dyn TaskStore>, before: &Before) {
    let b = server(Arc::clone(&store));
    let (done, result) = &before.completed;
    assert_eq!(&wait_for(&b, done, "completed").await, result);
    let failed = wait_for(&b, &before.running, "failed").await;
    assert_eq!(
        failed,
        json!({"resultType": "complete", "taskId": before.running, "status": "failed",
            "statusMessage": LOST,
            "createdAt": failed["createdAt"], "lastUpdatedAt": failed["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000,
            "error": {"code": -32603, "message": LOST},
            "_meta": info()})
    );
    // Written back: the same answer later, here and on another server
    // (not failed again, at a later time).
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(wait_for(&b, &before.running, "failed").await, failed);
    let c = server(store);
    assert_eq!(wait_for(&c, &before.running, "failed").await, failed);
    // An update is acknowledged and goes nowhere; a cancel changes nothing.
    let cancel = task_request("tasks/cancel", json!({"taskId": before.running}));
    send(&b, "alice", cancel).await;
    assert_eq!(wait_for(&b, &before.running, "failed").await, failed);
}

/// Run `life` on a runtime of its own, then shut that runtime down: every
/// task it spawned is dropped, as when the process is killed.
pub fn in_a_runtime<T>(life: impl Future<Output = T>) -> T {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let out = runtime.block_on(life);
    runtime.shutdown_timeout(Duration::from_secs(5));
    out
}
