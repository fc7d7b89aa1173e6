//! Streamable HTTP, the Tasks extension: `Mcp-Name` carries the task id on
//! `tasks/get`, `tasks/update` and `tasks/cancel`; the capability gate is an
//! HTTP 400; a task's question is answered over HTTP.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::http::{MODERN, TestServer, json_of, start_with};
use crate::support::surface::server_at;

fn tasks_meta(with_extension: bool) -> Value {
    let mut caps = json!({"elicitation": {}});
    if with_extension {
        caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps})
}

fn request(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = tasks_meta(true);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn get(s: &TestServer, task: &str) -> Value {
    json_of(
        s.modern(&request(50, "tasks/get", json!({"taskId": task})))
            .await,
        200,
    )
    .await["result"]
        .clone()
}

#[tokio::test]
async fn tasks_over_http_with_routing_headers() {
    let s = start_with(server_at, |_| {}).await;
    let call = request(
        1,
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "b.txt"}}),
    );
    let created = json_of(s.modern(&call).await, 200).await;
    assert_eq!(created["result"]["resultType"], "task");
    let task = created["result"]["taskId"].as_str().unwrap().to_string();

    // Mcp-Name must be the task id, present and equal.
    let body = request(2, "tasks/get", json!({"taskId": task})).to_string();
    for name in [Some("another-task"), None] {
        let mut headers = vec![
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "tasks/get"),
        ];
        if let Some(n) = name {
            headers.push(("mcp-name", n));
        }
        let v = json_of(s.post_with(&headers, body.clone()).await, 400).await;
        assert_eq!(v["error"]["code"], -32020, "{name:?}");
    }

    let mut waiting = Value::Null;
    for _ in 0..100 {
        waiting = get(&s, &task).await;
        if waiting["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let update = request(
        3,
        "tasks/update",
        json!({"taskId": task,
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": false}}}}),
    );
    let ack = json_of(s.modern(&update).await, 200).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let mut done = Value::Null;
    for _ in 0..100 {
        done = get(&s, &task).await;
        if done["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(done["result"]["content"][0]["text"], "Kept b.txt.");

    // Without the extension: -32021, HTTP 400.
    let mut gated = request(4, "tasks/get", json!({"taskId": task}));
    gated["params"]["_meta"] = tasks_meta(false);
    let v = json_of(s.modern(&gated).await, 400).await;
    assert_eq!(v["error"]["code"], -32021);
}
