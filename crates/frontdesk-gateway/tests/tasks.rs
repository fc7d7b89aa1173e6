//! The Tasks extension (SEP-2663, 2026-07-28) through the gateway: a
//! 2026-07-28 upstream that answers a call with a task makes the call of a
//! client in front that declared the extension a task of the gateway's own
//! (its status, its questions, its result, its cancel); a client that did
//! not declare it is not declared upstream either (a tool that needs a task
//! is refused, `-32021`); a 2025-11-25 client, which holds its call open,
//! gets the task's result within the call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use frontdesk::client::{Client, ClientConfig, ClientError};
use frontdesk::server::tool::TaskSupport;
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::{ErrorCode, Revision};
use serde_json::{Map, Value, json};
use support::{Script, client_of, fixtures, gateway_before};

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("an object"),
    }
}

/// A 2026-07-28 client (declaring the extension unless `tasks` is off) of
/// the gateway in front of `upstream` (spoken to in 2026-07-28).
async fn front_of(upstream: Server, tasks: bool) -> Client {
    let (_gateway, server) = gateway_before(upstream, Revision::V2026_07_28).await;
    let mut config = ClientConfig::default().protocol(Revision::V2026_07_28);
    config.tasks = tasks;
    client_of(server, config, Script::new(vec![])).await
}

/// `tasks/get` until the task's status is `want` (at most 10 s).
async fn poll_until(client: &Client, task: &str, want: &str) -> Map<String, Value> {
    for _ in 0..200 {
        let got = client
            .request("tasks/get", obj(json!({"taskId": task})))
            .await
            .expect("tasks/get answered");
        if got["status"] == want {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task never became {want}");
}

#[tokio::test]
async fn an_upstream_task_is_a_task_of_the_gateway_for_a_client_that_declared_the_extension() {
    let client = front_of(fixtures(), true).await;
    let extensions = client.server_capabilities().unwrap().extensions.unwrap();
    assert!(
        extensions.contains_key("io.modelcontextprotocol/tasks"),
        "the gateway declares the extension its upstream declares: {extensions:?}"
    );

    let created = client
        .request(
            "tools/call",
            obj(json!({"name": "slow_compute", "arguments": {"seconds": 0.3, "label": "x"}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created:?}");
    let task = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(created["status"], "working");

    let done = poll_until(&client, &task, "completed").await;
    assert_eq!(done["taskId"], task.as_str(), "the gateway's own task id");
    assert_eq!(
        done["result"]["content"][0]["text"], "Computed x in 0.3 s.",
        "{done:?}"
    );

    // No seconds: the upstream answers at once, and so does the gateway.
    let at_once = client
        .request(
            "tools/call",
            obj(json!({"name": "slow_compute", "arguments": {"seconds": 0}})),
        )
        .await
        .unwrap();
    assert_eq!(at_once["resultType"], "complete", "{at_once:?}");
}

#[tokio::test]
async fn a_question_of_the_upstream_task_is_asked_and_answered_through_the_gateway_task() {
    let client = front_of(fixtures(), true).await;
    let created = client
        .request(
            "tools/call",
            obj(json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created:?}");
    let task = created["taskId"].as_str().unwrap().to_owned();

    let asking = poll_until(&client, &task, "input_required").await;
    let requests = asking["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        ["confirm"],
        "the upstream's own key"
    );
    assert_eq!(requests["confirm"]["method"], "elicitation/create");
    assert_eq!(requests["confirm"]["params"]["message"], "Delete a.txt?");

    client
        .request(
            "tasks/update",
            obj(json!({"taskId": task, "inputResponses": {
                "confirm": {"action": "accept", "content": {"confirm": true}}
            }})),
        )
        .await
        .expect("tasks/update acknowledged");
    let done = poll_until(&client, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt.");
}

#[tokio::test]
async fn a_failed_upstream_task_fails_the_gateway_task() {
    let client = front_of(fixtures(), true).await;
    let created = client
        .request(
            "tools/call",
            obj(json!({"name": "protocol_error_job", "arguments": {}})),
        )
        .await
        .unwrap();
    let task = created["taskId"].as_str().unwrap().to_owned();
    let failed = poll_until(&client, &task, "failed").await;
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("worker crashed"),
        "{failed:?}"
    );
}

#[tokio::test]
async fn a_client_that_did_not_declare_the_extension_is_not_declared_upstream() {
    let client = front_of(fixtures(), false).await;
    // A tool that needs a task: the upstream refuses, as it would refuse
    // the client itself.
    let refused = client
        .request(
            "tools/call",
            obj(json!({"name": "failing_job", "arguments": {}})),
        )
        .await
        .unwrap_err();
    let ClientError::Rpc(e) = refused else {
        panic!("a JSON-RPC error: {refused:?}")
    };
    assert_eq!(
        e.code,
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "{e:?}"
    );
    // A tool that may become one: it answers within the call.
    let inline = client
        .request(
            "tools/call",
            obj(json!({"name": "slow_compute", "arguments": {"seconds": 0.1}})),
        )
        .await
        .unwrap();
    assert_eq!(inline["resultType"], "complete", "{inline:?}");
    assert_eq!(inline["content"][0]["text"], "Computed a result in 0.1 s.");
}

#[tokio::test]
async fn a_2025_11_25_client_gets_the_upstream_task_result_within_its_call() {
    let (_gateway, server) = gateway_before(fixtures(), Revision::V2026_07_28).await;
    let client = client_of(
        server,
        ClientConfig::default().protocol(Revision::V2025_11_25),
        Script::new(vec![]),
    )
    .await;
    let result = client.call_tool("failing_job", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text(),
        Some("The job failed: nothing to process.")
    );
}

/// Set when the upstream's long task stops running.
struct Stopped(Arc<AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn cancelling_the_gateway_task_cancels_the_upstream_task() {
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopped);
    let upstream = Server::builder("long", "1.0.0")
        .tool(
            ToolDef::new(
                "long",
                "Works for a minute as a task",
                move |cx: ToolContext, _: NoArgs| {
                    let flag = Arc::clone(&flag);
                    async move {
                        let _stopped = Stopped(flag);
                        cx.continue_as_task().await;
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        Ok::<_, ToolError>(ToolOutput::text("done"))
                    }
                },
            )
            .task_support(TaskSupport::Required),
        )
        .build();
    let client = front_of(upstream, true).await;
    let created = client
        .request("tools/call", obj(json!({"name": "long", "arguments": {}})))
        .await
        .unwrap();
    let task = created["taskId"].as_str().unwrap().to_owned();
    client
        .request("tasks/cancel", obj(json!({"taskId": task})))
        .await
        .expect("tasks/cancel acknowledged");
    poll_until(&client, &task, "cancelled").await;
    for _ in 0..200 {
        if stopped.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the upstream's task still runs");
}
