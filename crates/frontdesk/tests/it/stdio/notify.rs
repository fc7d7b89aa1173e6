//! Logging, progress, sampling, roots and change notifications from
//! handlers over stdio, on both revisions.

use serde_json::{Value, json};

use crate::support::stdio::{Client, call, meta};
use crate::support::surface::server;

fn log(data: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "logger": "frontdesk", "data": data}})
}

const LOGS: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

async fn legacy_client(caps: Value) -> Client {
    let mut c = Client::start(server());
    c.initialize(caps).await;
    c
}

#[tokio::test]
async fn logging_honours_set_level_on_2025_11_25() {
    let mut c = legacy_client(json!({})).await;
    let call = json!({"name": "test_tool_with_logging", "arguments": {}});
    // No level set: no log messages.
    let r = c.request(json!(1), "tools/call", call.clone()).await;
    assert_eq!(r["id"], 1);
    let set = c
        .request(json!(2), "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(set, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}))
        .await;
    for data in LOGS {
        assert_eq!(c.recv().await, log(data));
    }
    assert_eq!(c.recv().await["id"], 3);
    // Above the messages' level: filtered out.
    c.request(json!(4), "logging/setLevel", json!({"level": "error"}))
        .await;
    let r = c
        .request(
            json!(5),
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    assert_eq!(r["id"], 5);
    let bad = c
        .request(json!(6), "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    c.close().await.unwrap();
}

#[tokio::test]
async fn logging_follows_the_request_log_level_on_2026_07_28() {
    let mut c = Client::start(server());
    let quiet = c
        .request(
            json!(1),
            "tools/call",
            call("test_tool_with_logging", json!({}), json!({})),
        )
        .await;
    assert_eq!(quiet["result"]["resultType"], "complete");
    let mut params = call("test_tool_with_logging", json!({}), json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}))
        .await;
    for data in LOGS {
        assert_eq!(c.recv().await, log(data));
    }
    assert_eq!(c.recv().await["id"], 2);
    c.close().await.unwrap();
}

#[tokio::test]
async fn progress_goes_up_on_both_revisions() {
    let progress = |n: u64| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p-1", "progress": n, "total": 100}})
    };
    let mut c = legacy_client(json!({})).await;
    c.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p-1"}}}),
    )
    .await;
    for n in [0, 50, 100] {
        assert_eq!(c.recv().await, progress(n));
    }
    assert_eq!(c.recv().await["id"], 1);
    c.close().await.unwrap();

    let mut c = Client::start(server());
    let mut params = call("test_tool_with_progress", json!({}), json!({}));
    params["_meta"]["progressToken"] = json!("p-1");
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}))
        .await;
    for n in [0, 50, 100] {
        assert_eq!(c.recv().await, progress(n));
    }
    assert_eq!(c.recv().await["result"]["resultType"], "complete");
    c.close().await.unwrap();
}

const SAMPLED: fn() -> Value = || {
    json!({"role": "assistant", "content": {"type": "text", "text": "Paris."},
        "model": "test-model", "stopReason": "endTurn"})
};

#[tokio::test]
async fn sampling_and_roots_are_live_requests_on_2025_11_25() {
    let mut c = legacy_client(json!({"sampling": {}, "roots": {}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "Capital of France?"}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(
        ask,
        json!({"jsonrpc": "2.0", "id": ask["id"], "method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
            "maxTokens": 100}})
    );
    c.reply(&ask["id"], SAMPLED()).await;
    let done = c.recv().await;
    assert_eq!(done["result"]["content"][0]["text"], "LLM response: Paris.");
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_roots", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "roots/list");
    c.reply(
        &ask["id"],
        json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
    )
    .await;
    assert_eq!(
        c.recv().await["result"]["content"][0]["text"],
        "Roots: file:///work"
    );
    c.close().await.unwrap();

    // A client without sampling: the tool says so as an isError result.
    let mut c = legacy_client(json!({})).await;
    let r = c
        .request(
            json!(1),
            "tools/call",
            json!({"name": "test_sampling", "arguments": {"prompt": "x"}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    c.close().await.unwrap();
}

#[tokio::test]
async fn sampling_and_roots_are_input_requests_on_2026_07_28() {
    let mut c = Client::start(server());
    let caps = json!({"sampling": {}, "roots": {}});
    let args = json!({"prompt": "Capital of France?"});
    let first = c
        .request(
            json!(1),
            "tools/call",
            call("test_sampling", args.clone(), caps.clone()),
        )
        .await;
    let requests = first["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert!(key.starts_with("q_"), "a derived key: {key}");
    assert_eq!(
        request,
        &json!({"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
            "maxTokens": 100}})
    );
    let mut retry = call("test_sampling", args.clone(), caps.clone());
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({key.as_str(): SAMPLED()});
    let done = c.request(json!(2), "tools/call", retry).await;
    assert_eq!(done["result"]["content"][0]["text"], "LLM response: Paris.");
    // A sampling answer without role and model is malformed: -32602.
    let mut bad = call("test_sampling", args, caps.clone());
    bad["inputResponses"] = json!({key.as_str(): {"content": {"type": "text", "text": "x"}}});
    let r = c.request(json!(3), "tools/call", bad).await;
    assert_eq!(r["error"]["code"], -32602);

    let first = c
        .request(
            json!(4),
            "tools/call",
            call("test_roots", json!({}), caps.clone()),
        )
        .await;
    let (key, request) = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(request, json!({"method": "roots/list", "params": {}}));
    let mut retry = call("test_roots", json!({}), caps);
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({key: {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}});
    let done = c.request(json!(5), "tools/call", retry).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Roots: file:///a, file:///b"
    );
    c.close().await.unwrap();
}

/// The next `n` messages, in any order.
async fn next(c: &mut Client, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(c.recv().await);
    }
    out
}

#[tokio::test]
async fn subscriptions_and_list_changes_on_2025_11_25() {
    let mut c = legacy_client(json!({})).await;
    let watched = "test://watched-resource";
    let r = c
        .request(json!(1), "resources/subscribe", json!({"uri": watched}))
        .await;
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let update = json!({"name": "test_update_watched_resource", "arguments": {}});
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": update}))
        .await;
    let got = next(&mut c, 2).await;
    assert!(got.contains(
        &json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": watched}})
    ));
    assert!(got.iter().any(|m| m["id"] == 2));
    let r = c
        .request(json!(3), "resources/unsubscribe", json!({"uri": watched}))
        .await;
    assert_eq!(r["result"], json!({}));
    let r = c.request(json!(4), "tools/call", update).await;
    assert_eq!(r["id"], 4);
    c.quiet(200).await;
    // List changes reach every session.
    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "test_trigger_tool_change", "arguments": {}}}))
        .await;
    let got = next(&mut c, 2).await;
    assert!(got.contains(
        &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {}})
    ));
    let unknown = c
        .request(
            json!(6),
            "resources/subscribe",
            json!({"uri": "test://nope"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32002);
    c.close().await.unwrap();
}

#[tokio::test]
async fn listen_streams_carry_what_they_asked_for_on_2026_07_28() {
    let mut c = Client::start(server());
    let watched = "test://watched-resource";
    c.send(
        json!({"jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen", "params": {
        "_meta": meta(json!({})),
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": [watched]}}}),
    )
    .await;
    let tag = json!({"io.modelcontextprotocol/subscriptionId": "L1"});
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "notifications": {"toolsListChanged": true, "resourceSubscriptions": [watched]},
            "_meta": tag}})
    );
    let trigger = |id: u64, name: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": call(name, json!({}), json!({}))})
    };
    c.send(trigger(1, "test_trigger_tool_change")).await;
    let got = next(&mut c, 2).await;
    assert!(got.contains(
        &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": tag}})
    ));
    c.send(trigger(2, "test_update_watched_resource")).await;
    let got = next(&mut c, 2).await;
    assert!(got.contains(
        &json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": watched, "_meta": tag}})
    ));
    // Not asked for: prompt list changes stay off this stream.
    c.send(trigger(3, "test_trigger_prompt_change")).await;
    assert_eq!(c.recv().await["id"], 3);
    c.quiet(200).await;
    // Cancelled, the stream ends without a response and hears nothing more.
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "L1"}}),
    )
    .await;
    c.send(trigger(4, "test_trigger_tool_change")).await;
    assert_eq!(c.recv().await["id"], 4);
    c.quiet(200).await;
    c.close().await.unwrap();
}
