//! Tasks have a share per client as well as the server's cap, and finished
//! tasks make room before anyone is refused: one client creating tasks as
//! fast as it can fills only its own share, and a call that cannot become a
//! task continues within the call, as when the whole table is full.

use std::time::Duration;

use frontdesk::server::tool::TaskSupport;
use frontdesk::server::transport::{OutboundSink, RequestInfo};
use frontdesk::server::{
    NoArgs, Server, ServerConfig, ToolContext, ToolDef, ToolError, ToolOutput,
};
use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::{call, meta};

fn caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// `hold` runs for a minute as a task; `quick` finishes as soon as it is
/// one. Either answers "in the call" when it could not become a task.
fn task_server(config: ServerConfig) -> Server {
    async fn hold(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        if !cx.continue_as_task().await {
            return Ok(ToolOutput::text("in the call"));
        }
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(ToolOutput::text("held"))
    }
    async fn quick(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        if !cx.continue_as_task().await {
            return Ok(ToolOutput::text("in the call"));
        }
        Ok(ToolOutput::text("quick"))
    }
    Server::builder("tasks", "0.0.1")
        .config(config)
        .tool(
            ToolDef::new("hold", "Runs a minute as a task", hold)
                .task_support(TaskSupport::Optional),
        )
        .tool(ToolDef::new("quick", "Done at once", quick).task_support(TaskSupport::Optional))
        .build()
}

/// What a call from `client` became: `Some(task id)`, or `None` when it
/// continued within the call.
async fn call_from(server: &Server, client: &str, tool: &str) -> Option<String> {
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new().client(client);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": call(tool, json!({}), caps())});
    let v = server
        .handle_json(None, body, &sink, &info)
        .await
        .response_value()
        .unwrap();
    match v["result"]["taskId"].as_str() {
        Some(id) => Some(id.to_string()),
        None => {
            assert_eq!(v["result"]["content"][0]["text"], "in the call", "{v}");
            None
        }
    }
}

/// The task's status as `client` sees it; `None` when it is unknown.
async fn status(server: &Server, client: &str, id: &str) -> Option<String> {
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new().client(client);
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
        "params": {"taskId": id, "_meta": meta(caps())}});
    let v = server
        .handle_json(None, body, &sink, &info)
        .await
        .response_value()
        .unwrap();
    if v["error"]["code"] == -32602 {
        return None;
    }
    Some(v["result"]["status"].as_str().unwrap().to_string())
}

async fn until_completed(server: &Server, client: &str, id: &str) {
    for _ in 0..200 {
        if status(server, client, id).await.as_deref() == Some("completed") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task never completed");
}

#[tokio::test]
async fn a_flood_of_tasks_fills_only_the_flooders_share() {
    let server = task_server(ServerConfig::new().max_tasks(8).max_tasks_per_client(2));
    let mut tasks = 0;
    for _ in 0..8 {
        if call_from(&server, "attacker", "hold").await.is_some() {
            tasks += 1;
        }
    }
    assert_eq!(
        tasks, 2,
        "the attacker's calls beyond its share became tasks"
    );
    let good = call_from(&server, "good", "hold").await;
    assert!(
        good.is_some(),
        "another client's call did not become a task"
    );
}

#[tokio::test]
async fn finished_tasks_make_room_before_anyone_is_refused() {
    let server = task_server(ServerConfig::new().max_tasks(2).max_tasks_per_client(2));
    let a1 = call_from(&server, "a", "quick").await.unwrap();
    let a2 = call_from(&server, "a", "quick").await.unwrap();
    until_completed(&server, "a", &a1).await;
    until_completed(&server, "a", &a2).await;
    // The table is full of finished tasks: the oldest makes room each time.
    let b1 = call_from(&server, "b", "hold")
        .await
        .expect("b's first task");
    assert_eq!(
        status(&server, "a", &a1).await,
        None,
        "the oldest finished task stays"
    );
    assert_eq!(
        status(&server, "a", &a2).await.as_deref(),
        Some("completed")
    );
    let b2 = call_from(&server, "b", "hold")
        .await
        .expect("b's second task");
    assert_eq!(status(&server, "a", &a2).await, None);
    // Running tasks are never forgotten to make room: b is at its share and
    // the table is full of running tasks.
    assert_eq!(call_from(&server, "b", "hold").await, None);
    assert_eq!(call_from(&server, "a", "hold").await, None);
    assert_eq!(status(&server, "b", &b1).await.as_deref(), Some("working"));
    assert_eq!(status(&server, "b", &b2).await.as_deref(), Some("working"));
}

#[tokio::test]
async fn a_client_at_its_share_makes_room_from_its_own_finished_tasks() {
    let server = task_server(ServerConfig::new().max_tasks(10).max_tasks_per_client(2));
    let a1 = call_from(&server, "a", "quick").await.unwrap();
    let a2 = call_from(&server, "a", "quick").await.unwrap();
    let b1 = call_from(&server, "b", "quick").await.unwrap();
    for id in [&a1, &a2] {
        until_completed(&server, "a", id).await;
    }
    until_completed(&server, "b", &b1).await;
    assert!(call_from(&server, "a", "hold").await.is_some());
    assert_eq!(
        status(&server, "a", &a1).await,
        None,
        "a's oldest finished task stays"
    );
    assert!(call_from(&server, "a", "hold").await.is_some());
    assert_eq!(status(&server, "a", &a2).await, None);
    // Both of a's tasks run: its next call continues within the call, and
    // nobody else's finished task was taken for it.
    assert_eq!(call_from(&server, "a", "hold").await, None);
    assert_eq!(
        status(&server, "b", &b1).await.as_deref(),
        Some("completed")
    );
    assert!(call_from(&server, "b", "hold").await.is_some());
}

#[tokio::test]
async fn an_expired_task_gives_its_place_in_the_share_back() {
    let server = task_server(
        ServerConfig::new()
            .max_tasks_per_client(1)
            .task_ttl(Duration::from_millis(100)),
    );
    let first = call_from(&server, "a", "hold").await.unwrap();
    assert_eq!(call_from(&server, "a", "hold").await, None);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(call_from(&server, "a", "hold").await.is_some());
    assert_eq!(status(&server, "a", &first).await, None);
}
