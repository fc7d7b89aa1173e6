//! The Tasks extension (SEP-2663) over stdio: tools that continue as tasks,
//! their questions in `tasks/get` answered with `tasks/update` (partial
//! answers, keys never reused), cancellation, the two kinds of failure, the
//! capability gate, and input rounds before a task.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::stdio::{Client, call, meta};
use crate::support::surface::server;

const TASKS: fn() -> Value =
    || json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "brightgrid-test", "version": "0.0.1"}})
}

fn is_iso8601(v: &Value) -> bool {
    let s = v.as_str().unwrap_or_default();
    s.len() == 24 && s.ends_with('Z') && s.as_bytes()[10] == b'T'
}

struct Tasks {
    c: Client,
    next: u64,
}

impl Tasks {
    fn start() -> Self {
        Self {
            c: Client::start(server()),
            next: 100,
        }
    }

    async fn request(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        self.next += 1;
        params["_meta"] = meta(caps);
        self.c.request(json!(self.next), method, params).await
    }

    async fn call(&mut self, tool: &str, args: Value) -> Value {
        self.next += 1;
        self.c
            .request(json!(self.next), "tools/call", call(tool, args, TASKS()))
            .await
    }

    async fn get(&mut self, id: &str) -> Value {
        self.request("tasks/get", json!({"taskId": id}), TASKS())
            .await["result"]
            .clone()
    }

    /// Poll until `done` holds for the task (5 s at most).
    async fn until(&mut self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..100 {
            let t = self.get(id).await;
            if done(&t) {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("task {id} never got there");
    }

    async fn update(&mut self, id: &str, responses: Value) -> Value {
        self.request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": responses}),
            TASKS(),
        )
        .await
    }
}

fn id_of(created: &Value) -> String {
    created["result"]["taskId"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_tool_continues_as_a_task_and_completes() {
    let mut t = Tasks::start();
    let created = t
        .call("slow_compute", json!({"seconds": 0.3, "label": "x"}))
        .await;
    let r = &created["result"];
    let id = id_of(&created);
    assert_eq!(id.len(), 32);
    assert_eq!(
        r,
        &json!({"resultType": "task", "taskId": id, "status": "working",
            "createdAt": r["createdAt"], "lastUpdatedAt": r["lastUpdatedAt"],
            "ttlMs": 3_600_000, "pollIntervalMs": 1000, "_meta": server_info()})
    );
    assert!(is_iso8601(&r["createdAt"]) && is_iso8601(&r["lastUpdatedAt"]));
    // Durable before the answer: an immediate tasks/get finds it.
    let now = t.get(&id).await;
    assert_eq!(now["resultType"], "complete");
    assert_eq!(now["taskId"], id.as_str());
    let done = t.until(&id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Computed x in 0.3 s.");
    assert_eq!(done["result"]["resultType"], "complete");
    assert!(done.get("inputRequests").is_none() && done.get("error").is_none());
    // Without the extension the same tool answers within the call.
    let sync = t
        .request(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.1}}),
            json!({}),
        )
        .await;
    assert_eq!(sync["result"]["resultType"], "complete");
    assert!(sync["result"].get("taskId").is_none());
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn task_questions_surface_through_tasks_get_and_keys_are_never_reused() {
    let mut t = Tasks::start();
    let id = id_of(&t.call("confirm_delete", json!({"filename": "a.txt"})).await);
    let waiting = t.until(&id, |t| t["status"] == "input_required").await;
    assert_eq!(
        waiting["inputRequests"],
        json!({"confirm": {"method": "elicitation/create", "params": {"mode": "form",
            "message": "Delete a.txt?", "requestedSchema": {"type": "object",
                "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}})
    );
    // An answer that does not fit is asked again under a new key.
    let ack = t
        .update(
            &id,
            json!({"confirm": {"action": "accept", "content": {"confirm": "yes"}}}),
        )
        .await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "id": t.next, "result": {"resultType": "complete", "_meta": server_info()}})
    );
    let again = t
        .until(&id, |t| t["inputRequests"].get("confirm-2").is_some())
        .await;
    assert!(again["inputRequests"].get("confirm").is_none());
    let message = again["inputRequests"]["confirm-2"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("Delete a.txt?\n\nPlease check your answer:"),
        "{message}"
    );
    // Answers for keys that are not outstanding are ignored.
    let ack = t
        .update(
            &id,
            json!({"confirm": {"action": "accept", "content": {"confirm": true}},
            "unknown-key": {"ignored": true}}),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert_eq!(t.get(&id).await["status"], "input_required");
    t.update(
        &id,
        json!({"confirm-2": {"action": "accept", "content": {"confirm": true}}}),
    )
    .await;
    let done = t.until(&id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt.");
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn partial_answers_keep_the_task_waiting_for_the_rest() {
    let mut t = Tasks::start();
    let id = id_of(&t.call("multi_input", json!({})).await);
    let waiting = t
        .until(&id, |t| {
            t["inputRequests"].as_object().is_some_and(|r| r.len() == 2)
        })
        .await;
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["name", "confirm"]);
    t.update(
        &id,
        json!({"name": {"action": "accept", "content": {"name": "Ada", "confirm": true}}}),
    )
    .await;
    let after = t.get(&id).await;
    assert_eq!(after["status"], "input_required");
    assert_eq!(
        after["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["confirm"]
    );
    t.update(
        &id,
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}}),
    )
    .await;
    let done = t.until(&id, |t| t["status"] == "completed").await;
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Got 2 answers:"), "{text}");
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_fail() {
    let mut t = Tasks::start();
    let id = id_of(&t.call("failing_job", json!({})).await);
    let done = t.until(&id, |t| t["status"] != "working").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);
    let id = id_of(&t.call("protocol_error_job", json!({})).await);
    let failed = t.until(&id, |t| t["status"] != "working").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["error"],
        json!({"code": -32603, "message": "Internal error: the job's worker crashed"})
    );
    assert!(failed.get("result").is_none());
    // A handler that panics fails its task instead of leaving it working.
    let id = id_of(&t.call("panicking_job", json!({})).await);
    let failed = t.until(&id, |t| t["status"] != "working").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn cancellation_is_an_empty_ack_and_idempotent() {
    let mut t = Tasks::start();
    let id = id_of(&t.call("slow_compute", json!({"seconds": 60})).await);
    let ack = t
        .request("tasks/cancel", json!({"taskId": id}), TASKS())
        .await;
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete", "_meta": server_info()})
    );
    let cancelled = t.get(&id).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["statusMessage"], "Cancelled by the client.");
    let again = t
        .request("tasks/cancel", json!({"taskId": id}), TASKS())
        .await;
    assert_eq!(again["result"]["resultType"], "complete");
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn the_extension_gates_the_task_surface() {
    let mut t = Tasks::start();
    let required =
        json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let r = t
        .request(
            "tools/call",
            json!({"name": "failing_job", "arguments": {}}),
            json!({}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(r["error"]["data"], required);
    for method in ["tasks/get", "tasks/cancel"] {
        let r = t.request(method, json!({"taskId": "x"}), json!({})).await;
        assert_eq!(r["error"]["code"], -32021, "{method}");
    }
    for method in ["tasks/get", "tasks/cancel"] {
        let r = t.request(method, json!({"taskId": "nope"}), TASKS()).await;
        assert_eq!(r["error"]["code"], -32602, "{method}");
    }
    let r = t
        .request(
            "tasks/update",
            json!({"taskId": "nope", "inputResponses": {}}),
            TASKS(),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    for removed in ["tasks/result", "tasks/list"] {
        let r = t.request(removed, json!({"taskId": "x"}), TASKS()).await;
        assert_eq!(r["error"]["code"], -32601, "{removed}");
    }
    // A sync tool never becomes a task, a legacy `task` hint notwithstanding.
    let mut params = call("greet", json!({"name": "Bo"}), TASKS());
    params["task"] = json!({"ttl": 60000});
    t.next += 1;
    let r = t.c.request(json!(t.next), "tools/call", params).await;
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Bo!");
    assert_eq!(r["result"]["resultType"], "complete");
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn input_rounds_finish_before_the_task_exists() {
    let mut t = Tasks::start();
    let first = t.call("test_tool_with_task", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required");
    assert!(first["result"].get("taskId").is_none());
    let mut retry = call("test_tool_with_task", json!({}), TASKS());
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] =
        json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let created = t.c.request(json!(2), "tools/call", retry).await;
    assert_eq!(created["result"]["resultType"], "task");
    assert!(created["result"].get("requestState").is_none());
    assert!(created["result"].get("inputRequests").is_none());
    let id = id_of(&created);
    let done = t.until(&id, |t| t["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Hello, Alice! (finished as a task)"
    );
    t.c.close().await.unwrap();
}

#[tokio::test]
async fn a_2025_11_25_session_runs_task_tools_within_the_call() {
    let mut c = Client::start(server());
    c.initialize(json!({"elicitation": {}})).await;
    let r = c
        .request(
            json!(1),
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.1, "label": "y"}}),
        )
        .await;
    assert_eq!(
        r["result"],
        json!({"content": [{"type": "text", "text": "Computed y in 0.1 s."}], "isError": false})
    );
    let r = c
        .request(json!(2), "tasks/get", json!({"taskId": "x"}))
        .await;
    assert_eq!(r["error"]["code"], -32601);
    c.close().await.unwrap();
}
