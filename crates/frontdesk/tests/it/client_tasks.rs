//! Tasks (SEP-2663) on the client: a `tools/call` answered with a task is
//! polled to its end; its input requests reach the handler once each, even
//! when later polls still list them; answers go back with `tasks/update`;
//! a failed task is the server's error. The server is a small scripted
//! 2026-07-28 peer over a duplex pipe, so every message is visible.

use std::sync::{Arc, Mutex};

use crate::support::client::{Step, TestHandler};
use frontdesk::client::{Client, ClientConfig, ClientError, ProtocolChoice};
use frontdesk::wire::Revision;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the scripted server saw, in order (method, params).
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// Answers discover, then a `tools/call` with a task whose `tasks/get`
/// answers come from `polls` in turn (the last one repeats).
fn task_server(polls: Vec<Value>) -> (Client2Server, Seen) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_io);
        let mut lines = BufReader::new(read).lines();
        let mut poll = 0usize;
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let method = message["method"].as_str().unwrap_or("").to_owned();
            log.lock()
                .unwrap()
                .push((method.clone(), message["params"].clone()));
            let Some(id) = message.get("id").cloned() else {
                continue;
            };
            let result = match method.as_str() {
                "server/discover" => json!({
                    "resultType": "complete", "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
                    "ttlMs": 0, "cacheScope": "private",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tasks-test", "version": "1"}}
                }),
                "tools/call" => json!({
                    "resultType": "task", "taskId": "task-1", "status": "working",
                    "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:00Z",
                    "ttlMs": 60000, "pollIntervalMs": 50
                }),
                "tasks/get" => {
                    let answer = polls[poll.min(polls.len() - 1)].clone();
                    poll += 1;
                    answer
                }
                "tasks/update" | "tasks/cancel" => json!({"resultType": "complete"}),
                _ => json!({"resultType": "complete"}),
            };
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
            let mut text = reply.to_string();
            text.push('\n');
            if write.write_all(text.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    (Client2Server(client_io), seen)
}

struct Client2Server(tokio::io::DuplexStream);

fn confirm_request() -> Value {
    json!({"confirm": {"method": "elicitation/create", "params": {
        "message": "Delete report.txt?",
        "requestedSchema": {"type": "object",
            "properties": {"confirm": {"type": "boolean", "title": "Delete it"}},
            "required": ["confirm"]}}}})
}

fn task(status: &str, extra: Value) -> Value {
    let mut t = json!({"taskId": "task-1", "status": status, "pollIntervalMs": 50,
        "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:01Z"});
    if let (Some(t), Some(extra)) = (t.as_object_mut(), extra.as_object()) {
        t.extend(extra.clone());
    }
    t
}

async fn connect(pipe: Client2Server, handler: Arc<TestHandler>) -> Client {
    let config = ClientConfig::default().protocol(ProtocolChoice::Only(Revision::V2026_07_28));
    let (r, w) = tokio::io::split(pipe.0);
    Client::connect_io(r, w, config, handler).await.unwrap()
}

#[tokio::test]
async fn a_task_is_polled_and_its_question_asked_once_across_polls() {
    let waiting = task(
        "input_required",
        json!({"inputRequests": confirm_request()}),
    );
    let (pipe, seen) = task_server(vec![
        task("working", json!({})),
        waiting.clone(),
        // The server has not taken the answer in yet: same request again.
        waiting,
        task("working", json!({})),
        task(
            "completed",
            json!({"result": {"content": [{"type": "text", "text": "deleted"}], "isError": false}}),
        ),
    ]);
    let handler = TestHandler::new([Step::Accept(json!({"confirm": true}))]);
    let client = connect(pipe, handler.clone()).await;
    let declared = client.capabilities();
    assert!(
        declared
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks")),
        "{declared:?}"
    );
    let result = client
        .call_tool("delete_file", json!({"filename": "report.txt"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "deleted"
    );
    let asked = handler.seen();
    assert_eq!(asked.len(), 1, "asked once, though two polls listed it");
    assert_eq!(asked[0].message, "Delete report.txt?");
    assert_eq!(
        asked[0].origin.request.as_deref(),
        Some("tools/call delete_file")
    );
    let seen = seen.lock().unwrap().clone();
    let updates: Vec<&Value> = seen
        .iter()
        .filter(|(m, _)| m == "tasks/update")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(updates.len(), 1, "{seen:?}");
    assert_eq!(updates[0]["taskId"], "task-1");
    assert_eq!(
        updates[0]["inputResponses"]["confirm"],
        json!({"action": "accept", "content": {"confirm": true}})
    );
    assert!(
        seen.iter()
            .filter(|(m, _)| m == "tasks/get")
            .all(|(_, p)| p["taskId"] == "task-1" && p["_meta"].is_object()),
        "{seen:?}"
    );
    client.close().await;
}

#[tokio::test]
async fn a_failed_task_is_the_servers_error() {
    let (pipe, _) = task_server(vec![task(
        "failed",
        json!({"error": {"code": -32603, "message": "the job crashed"}}),
    )]);
    let client = connect(pipe, TestHandler::new([])).await;
    match client.call_tool("protocol_error_job", json!({})).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.message, "the job crashed"),
        other => panic!("expected the task's error, got {other:?}"),
    }
    client.close().await;
}

#[tokio::test]
async fn a_declined_question_is_sent_and_the_task_goes_on() {
    let (pipe, seen) = task_server(vec![
        task(
            "input_required",
            json!({"inputRequests": confirm_request()}),
        ),
        task(
            "completed",
            json!({"result": {"content": [{"type": "text", "text": "kept"}]}}),
        ),
    ]);
    let client = connect(pipe, TestHandler::new([Step::Decline])).await;
    let result = client.call_tool("delete_file", json!({})).await.unwrap();
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "kept"
    );
    let seen = seen.lock().unwrap().clone();
    let update = seen
        .iter()
        .find(|(m, _)| m == "tasks/update")
        .map(|(_, p)| p.clone())
        .expect("an update");
    assert_eq!(
        update["inputResponses"]["confirm"],
        json!({"action": "decline"})
    );
    client.close().await;
}
