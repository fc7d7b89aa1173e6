//! Streamable HTTP, 2026-07-28: stateless POSTs, header checks, MRTR rounds,
//! URL mode through the served sign-in page.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::support::http::{
    MODERN, SseReader, all_messages, content_type, json_of, meta, modern_call, start, start_with,
};
use crate::support::token_of;
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use serde_json::json;

#[tokio::test]
async fn tools_list_and_discover_are_json() {
    let s = start(|_| {}).await;
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let r = s.modern(&body).await;
    assert!(r.headers().get("mcp-session-id").is_none());
    let v = json_of(r, 200).await;
    assert_eq!(v["result"]["resultType"], "complete");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"book_return"));
    let body = json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": meta()}});
    let v = json_of(s.modern(&body).await, 200).await;
    assert_eq!(v["id"], "d");
    assert!(
        v["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!(MODERN))
    );
}

#[tokio::test]
async fn book_return_input_required_then_complete() {
    let s = start(|_| {}).await;
    let args = json!({"order_id": "A-17"});
    let v = json_of(
        s.modern(&modern_call(1, "book_return", args.clone())).await,
        200,
    )
    .await;
    let r1 = &v["result"];
    assert_eq!(r1["resultType"], "input_required");
    assert_eq!(
        r1["inputRequests"]["return"]["method"],
        "elicitation/create"
    );
    let state = r1["requestState"].as_str().unwrap().to_string();

    let mut retry = modern_call(2, "book_return", args.clone());
    retry["params"]["inputResponses"] = json!({"return": {"action": "accept",
        "content": {"reason": "damaged", "boxes": 2, "pickup_date": "2026-08-03",
            "contact_email": "ana@example.com"}}});
    retry["params"]["requestState"] = json!(state);
    let v = json_of(s.modern(&retry).await, 200).await;
    let r2 = &v["result"];
    assert_eq!(r2["resultType"], "input_required");
    assert!(r2["inputRequests"]["confirm"].is_object());
    let state = r2["requestState"].as_str().unwrap().to_string();

    let mut retry = modern_call(3, "book_return", args);
    retry["params"]["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    retry["params"]["requestState"] = json!(state);
    let v = json_of(s.modern(&retry).await, 200).await;
    assert_eq!(v["id"], 3);
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["structuredContent"]["status"], "booked");
    assert_eq!(v["result"]["structuredContent"]["boxes"], 2);
    assert_eq!(
        v["result"]["structuredContent"]["contactEmail"],
        "ana@example.com"
    );
}

#[tokio::test]
async fn related_notifications_make_an_sse_response() {
    let s = start(|_| {}).await;
    let mut body = modern_call(5, "test_logging_tool", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let r = s.modern(&body).await;
    assert_eq!(r.status(), 200);
    let messages = all_messages(r).await;
    assert!(messages.len() >= 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/message");
    let last = messages.last().unwrap();
    assert_eq!(last["id"], 5);
    assert_eq!(last["result"]["resultType"], "complete");
    assert!(
        messages
            .iter()
            .all(|m| m.get("method").is_none() || m.get("id").is_none())
    );
}

#[tokio::test]
async fn header_checks() {
    let s = start(|_| {}).await;
    // _meta says v999.0.0, the header says 2026-07-28: mismatch before version.
    let mut body = json!({"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": meta()}});
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let v = json_of(s.modern(&body).await, 400).await;
    assert_eq!(v["error"]["code"], -32020);
    assert_eq!(v["id"], 7);

    // Both say v999.0.0: unsupported version.
    let r = s
        .post()
        .header("mcp-protocol-version", "v999.0.0")
        .header("mcp-method", "server/discover")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let v = json_of(r, 400).await;
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"]["requested"], "v999.0.0");
    assert!(
        v["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!(MODERN))
    );

    // Missing Mcp-Method.
    let body =
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": meta()}});
    let r = s
        .post()
        .header("mcp-protocol-version", MODERN)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r, 400).await["error"]["code"], -32020);

    // Wrong Mcp-Name; then the right one in base64.
    let call = modern_call(9, "book_return", json!({"order_id": "x"}));
    let send = |name: &'static str| {
        s.post()
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(call.to_string())
            .send()
    };
    assert_eq!(
        json_of(send("other").await.unwrap(), 400).await["error"]["code"],
        -32020
    );
    let v = json_of(send("=?base64?Ym9va19yZXR1cm4=?=").await.unwrap(), 200).await;
    assert_eq!(v["result"]["resultType"], "input_required");
    assert_eq!(
        json_of(send("=?base64?***?=").await.unwrap(), 400).await["error"]["code"],
        -32020
    );

    // No version header but a modern body: -32020.
    let r = s
        .post()
        .header("mcp-method", "tools/call")
        .header("mcp-name", "book_return")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r, 400).await["error"]["code"], -32020);
}

#[tokio::test]
async fn missing_meta_unknown_method_and_responses() {
    let s = start(|_| {}).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let v = json_of(s.modern(&body).await, 400).await;
    assert_eq!(v["error"]["code"], -32602);
    let body =
        json!({"jsonrpc": "2.0", "id": 2, "method": "unknown/method", "params": {"_meta": meta()}});
    let v = json_of(s.modern(&body).await, 404).await;
    assert_eq!(v["error"]["code"], -32601);
    assert_eq!(v["id"], 2);
    let body = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
    let v = json_of(s.modern(&body).await, 400).await;
    assert_eq!(v["error"]["code"], -32600);
    // A notification is accepted with 202 and no body.
    let body = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": meta(), "requestId": 1}});
    let r = s.modern(&body).await;
    assert_eq!(r.status(), 202);
    // A session id is ignored, never echoed.
    let body =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta()}});
    let r = s
        .post()
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .header("mcp-session-id", "nope")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("mcp-session-id").is_none());
    assert_eq!(json_of(r, 200).await["id"], 4);
}

#[tokio::test]
async fn get_and_delete_are_405() {
    let s = start(|_| {}).await;
    let r = s
        .http
        .get(&s.mcp)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    let r = s.http.delete(&s.mcp).send().await.unwrap();
    assert_eq!(r.status(), 405);
    let r = s.http.put(&s.mcp).send().await.unwrap();
    assert_eq!(r.status(), 405);
}

/// A POST to the endpoint is served without the router (issue 27); only the
/// endpoint's own path is taken that way, as the router would: another path,
/// even one that starts with the endpoint's, is the router's `404`, and a
/// query does not change the path.
#[tokio::test]
async fn only_the_endpoints_own_path_is_the_endpoint() {
    let s = start(|_| {}).await;
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let list_at = |url: String| {
        s.post_to(&url)
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/list")
            .body(body.to_string())
            .send()
    };
    for path in ["/mcp/", "/mcpx", "/MCP", "/mcp/x", "/"] {
        let r = list_at(format!("{}{path}", s.base)).await.unwrap();
        assert_eq!(r.status(), 404, "POST {path}");
    }
    let r = list_at(format!("{}?probe=1", s.mcp)).await.unwrap();
    assert_eq!(json_of(r, 200).await["result"]["resultType"], "complete");
}

#[tokio::test]
async fn url_mode_through_the_sign_in_page() {
    let s = start(|_| {}).await;
    let v = json_of(
        s.modern(&modern_call(1, "connect_store_account", json!({})))
            .await,
        200,
    )
    .await;
    let r1 = &v["result"];
    assert_eq!(r1["resultType"], "input_required");
    let ask = &r1["inputRequests"]["signin"];
    assert_eq!(ask["params"]["mode"], "url");
    let url = ask["params"]["url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with(&format!("{}/signin?token=", s.base)),
        "{url}"
    );
    let state = r1["requestState"].as_str().unwrap().to_string();

    let page = s.http.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(content_type(&page).starts_with("text/html"));
    assert!(page.headers().get("content-security-policy").is_some());
    let html = page.text().await.unwrap();
    let token = token_of(&url);
    assert!(html.contains(&format!("value=\"{token}\"")));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external assets"
    );

    let done = s
        .sign_in(&[("token", token.as_str()), ("email", "a@b.example")])
        .await;
    assert_eq!(done.status(), 200);
    assert!(done.text().await.unwrap().contains("close this tab"));

    let mut retry = modern_call(2, "connect_store_account", json!({}));
    retry["params"]["inputResponses"] = json!({"signin": {"action": "accept"}});
    retry["params"]["requestState"] = json!(state);
    let v = json_of(s.modern(&retry).await, 200).await;
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(
        v["result"]["content"][0]["text"],
        "Your store account is connected."
    );

    // The token is single-use; junk is escaped, never reflected raw.
    let again = s.sign_in(&[("token", token.as_str())]).await;
    assert_eq!(again.status(), 404);
    let page = s
        .http
        .get(format!("{}/signin?token=%22%3E%3Cscript%3E", s.base))
        .send()
        .await
        .unwrap();
    let html = page.text().await.unwrap();
    assert!(!html.contains("\"><script>") && html.contains("&quot;&gt;&lt;script&gt;"));
}

#[tokio::test]
async fn sign_in_post_from_a_foreign_origin_is_refused() {
    let s = start(|_| {}).await;
    let r = s
        .http
        .post(format!("{}/signin", s.base))
        .header("origin", "http://evil.example")
        .form(&[("token", "whatever")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn closing_the_response_stream_cancels_the_request() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let s = start_with(
        move |_| {
            Server::builder("slow", "0.0.1")
                .tool(ToolDef::new(
                    "slow",
                    "Takes a minute",
                    move |_cx: ToolContext, _: NoArgs| {
                        let guard = SetOnDrop(Arc::clone(&flag));
                        async move {
                            let _guard = guard;
                            tokio::time::sleep(Duration::from_secs(60)).await;
                            Ok::<_, ToolError>(ToolOutput::text("late"))
                        }
                    },
                ))
                .build()
        },
        |o| o.json_window = Duration::from_millis(50),
    )
    .await;
    let r = s.modern(&modern_call(1, "slow", json!({}))).await;
    assert_eq!(r.status(), 200);
    let reader = SseReader::new(r);
    drop(reader);
    for _ in 0..50 {
        if dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "the handler was not dropped"
    );
    // The server still serves.
    let body =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}});
    assert_eq!(json_of(s.modern(&body).await, 200).await["id"], 2);
}

/// The status of each kind of failure, 2026-07-28 (the core reports the
/// kind; the transport picks the status).
#[tokio::test]
async fn statuses_per_failure() {
    let s = start(|_| {}).await;
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            400,
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 2, "method": "nope", "params": {"_meta": meta()}}),
            404,
            -32601,
        ),
        (
            modern_call(3, "test_missing_capability", json!({})),
            400,
            -32021,
        ),
        (modern_call(4, "no_such_tool", json!({})), 200, -32602),
    ];
    for (body, status, code) in cases {
        let v = json_of(s.modern(&body).await, status).await;
        assert_eq!(v["error"]["code"], code, "{body}");
    }
    let v = json_of(
        s.modern(&json!({"jsonrpc": "2.0", "id": 5, "method": 7}))
            .await,
        400,
    )
    .await;
    assert_eq!(v["error"]["code"], -32600);
}
