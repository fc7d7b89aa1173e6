//! Bad input over stdio: each gets the right error and the loop keeps serving.

use serde_json::json;

use crate::support::stdio::{Client, builder, test_server};

#[tokio::test]
async fn malformed_json_then_keeps_serving() {
    let mut c = Client::start(test_server());
    c.send_raw("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")
        .await;
    let r = c.recv().await;
    assert_eq!(r["id"], serde_json::Value::Null);
    assert_eq!(r["error"]["code"], -32700);
    let pong = c.request(json!(2), "ping", json!({})).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[tokio::test]
async fn wrong_shapes() {
    let mut c = Client::start(test_server());
    for (line, id) in [
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, json!(null)),
        (r#""hello""#, json!(null)),
        (r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, json!(3)),
        (r#"{"jsonrpc":"2.0","id":4,"method":7}"#, json!(4)),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":[1]}"#,
            json!(5),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            json!(null),
        ),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, json!(null)),
        (r#"{"jsonrpc":"2.0","id":8}"#, json!(8)),
    ] {
        c.send_raw(line).await;
        let r = c.recv().await;
        assert_eq!(r["error"]["code"], -32600, "{line}: {r}");
        assert_eq!(r["id"], id, "{line}");
    }
    let pong = c.request(json!("s"), "ping", json!({})).await;
    assert_eq!(pong["id"], "s");
}

#[tokio::test]
async fn unknown_method_and_tool() {
    let mut c = Client::start(test_server());
    c.initialize(json!({})).await;
    let r = c.request(json!(1), "nothing/here", json!({})).await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: nothing/here"}})
    );
    let r = c
        .request(json!(2), "tools/call", json!({"name": "nope"}))
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}})
    );
    let r = c
        .request(
            json!(3),
            "tools/call",
            json!({"name": "book_return", "arguments": {"order_id": 5}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    // Unknown notifications and stray responses are ignored.
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": "fd-77", "result": {}}))
        .await;
    c.quiet(100).await;
}

#[tokio::test]
async fn oversize_line_then_keeps_serving() {
    let mut config = frontdesk::server::ServerConfig::default();
    config.max_message_bytes = 1024;
    let mut c = Client::start(builder().config(config).build());
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(5000)
    );
    c.send_raw(&big).await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], serde_json::Value::Null);
    let pong = c.request(json!(2), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

#[tokio::test]
async fn blank_lines_and_crlf() {
    let mut c = Client::start(test_server());
    c.send_raw("").await;
    c.send_raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r")
        .await;
    assert_eq!(c.recv().await["id"], 1);
}
