//! Streamable HTTP, the rest of the surface on both revisions: a resource
//! read that asks, `Mcp-Param-*` headers checked against the body, a
//! `subscriptions/listen` stream, and updates on the 2025-11-25 GET stream.

use serde_json::{Value, json};

use crate::support::http::{LEGACY, MODERN, SseReader, TestServer, json_of, meta, start_with};
use crate::support::surface::{ASKING_RESOURCE, server_at};

async fn start() -> TestServer {
    start_with(server_at, |_| {}).await
}

fn read(id: i64, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
        "params": {"uri": uri, "_meta": meta()}})
}

#[tokio::test]
async fn a_resource_read_asks_on_both_revisions() {
    let s = start().await;
    // 2026-07-28: input_required, then the retry completes (never cacheable).
    let v = json_of(s.modern(&read(1, ASKING_RESOURCE)).await, 200).await;
    assert_eq!(v["result"]["resultType"], "input_required");
    let mut retry = read(2, ASKING_RESOURCE);
    retry["params"]["requestState"] = v["result"]["requestState"].clone();
    retry["params"]["inputResponses"] =
        json!({"region": {"action": "accept", "content": {"region": "eu"}}});
    let v = json_of(s.modern(&retry).await, 200).await;
    assert_eq!(v["result"]["contents"][0]["text"], "Sales report for eu");
    assert_eq!(v["result"]["ttlMs"], 0);
    assert_eq!(v["result"]["cacheScope"], "private");
    // Mcp-Name must mirror the URI.
    let r = s
        .post_with(
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "resources/read"),
                ("mcp-name", "memo://elsewhere"),
            ],
            read(3, ASKING_RESOURCE).to_string(),
        )
        .await;
    assert_eq!(json_of(r, 400).await["error"]["code"], -32020);

    // 2025-11-25: the question travels on the POST's stream.
    let sid = s.initialize(json!({"elicitation": {}})).await;
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read",
        "params": {"uri": ASKING_RESOURCE}});
    let mut stream = SseReader::new(s.legacy(&sid, &body).await);
    let ask = stream.message().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    s.answer(
        &sid,
        &ask["id"],
        json!({"action": "accept", "content": {"region": "us"}}),
    )
    .await;
    let done = stream.message().await.unwrap();
    assert_eq!(
        done,
        json!({"jsonrpc": "2.0", "id": 4, "result": {"contents": [{"uri": ASKING_RESOURCE,
            "mimeType": "text/plain", "text": "Sales report for us"}]}})
    );
}

/// A `test_header_param` call with `region` in the body and these headers
/// (besides the standard ones).
async fn header_call(
    s: &TestServer,
    region: Option<&str>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let args = match region {
        Some(r) => json!({"region": r}),
        None => json!({}),
    };
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "test_header_param", "arguments": args, "_meta": meta()}});
    let mut headers = vec![
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_header_param"),
    ];
    headers.extend_from_slice(extra);
    s.post_with(&headers, body.to_string()).await
}

#[tokio::test]
async fn mcp_param_headers_must_mirror_the_body() {
    let s = start().await;
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let v = json_of(s.modern(&list).await, 200).await;
    let tool = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "test_header_param")
        .unwrap()
        .clone();
    assert_eq!(
        tool["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    let ok = |r: reqwest::Response| async move {
        let v = json_of(r, 200).await;
        assert_eq!(v["result"]["content"][0]["text"], "Running in eu.", "{v}");
    };
    ok(header_call(&s, Some("eu"), &[("mcp-param-region", "eu")]).await).await;
    ok(header_call(&s, Some("eu"), &[("MCP-PARAM-REGION", "eu")]).await).await;
    ok(header_call(&s, Some("eu"), &[("mcp-param-region", "=?base64?ZXU=?=")]).await).await;
    // Literal values that only look half like the sentinel are taken as is.
    let literal = "=?base64?ZXU=";
    let v = json_of(
        header_call(&s, Some(literal), &[("mcp-param-region", literal)]).await,
        200,
    )
    .await;
    assert!(v.get("result").is_some(), "{v}");

    for (region, headers, why) in [
        (Some("eu"), vec![], "missing"),
        (Some("eu"), vec![("mcp-param-region", "us")], "different"),
        (
            Some("eu"),
            vec![("mcp-param-region", "=?base64?ZXU?=")],
            "bad padding",
        ),
        (
            Some("eu"),
            vec![("mcp-param-region", "=?base64?Z!U=?=")],
            "bad characters",
        ),
        (
            None,
            vec![("mcp-param-region", "eu")],
            "header without argument",
        ),
    ] {
        let v = json_of(header_call(&s, region, &headers).await, 400).await;
        assert_eq!(v["error"]["code"], -32020, "{why}");
        assert_eq!(v["id"], 9, "{why}");
    }
}

#[tokio::test]
async fn listen_streams_tagged_notifications_over_http() {
    let s = start().await;
    let listen = json!({"jsonrpc": "2.0", "id": "L7", "method": "subscriptions/listen", "params": {
        "_meta": meta(), "notifications": {"toolsListChanged": true, "promptsListChanged": true}}});
    let mut stream = SseReader::new(s.modern(&listen).await);
    let tag = json!({"io.modelcontextprotocol/subscriptionId": "L7"});
    assert_eq!(
        stream.message().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "notifications": {"toolsListChanged": true, "promptsListChanged": true}, "_meta": tag}})
    );
    let trigger = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "test_trigger_prompt_change", "arguments": {}, "_meta": meta()}});
    let v = json_of(s.modern(&trigger).await, 200).await;
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(
        stream.message().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": tag}})
    );
}

#[tokio::test]
async fn a_2025_11_25_session_hears_updates_on_its_get_stream() {
    let s = start().await;
    let sid = s.initialize(json!({})).await;
    let mut get = SseReader::new(s.get_stream(&sid, None).await);
    let sub = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "test://watched-resource"}});
    let v = json_of(s.legacy(&sid, &sub).await, 200).await;
    assert_eq!(v["result"], json!({}));
    let update = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_update_watched_resource", "arguments": {}}});
    let v = json_of(s.legacy(&sid, &update).await, 200).await;
    assert_eq!(v["result"]["isError"], false);
    assert_eq!(
        get.message().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "test://watched-resource"}})
    );
    let trigger = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_trigger_tool_change", "arguments": {}}});
    json_of(s.legacy(&sid, &trigger).await, 200).await;
    assert_eq!(
        get.message().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    let _ = LEGACY;
}
