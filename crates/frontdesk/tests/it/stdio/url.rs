//! URL mode in both eras, the flow completed through `Server::complete_flow`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::{Client, builder, call};
use crate::support::token_of;

#[tokio::test]
async fn legacy_url_flow_sends_complete() {
    let server = builder().build();
    let mut c = Client::start(server.clone());
    c.initialize(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "connect_store_account", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    let p = &ask["params"];
    assert_eq!(p["mode"], "url");
    assert_eq!(
        p["message"],
        "Sign in to your Brightgrid store account to connect it."
    );
    let url = p["url"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:9/signin?token="));
    let eid = p["elicitationId"].as_str().unwrap().to_string();
    assert!(server.complete_flow("not-a-token", None).await.is_err());
    c.reply(&ask["id"], json!({"action": "accept"})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.complete_flow(&token_of(url), None).await.unwrap();
    let done = c.recv().await;
    assert_eq!(
        done,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": eid}})
    );
    let result = c.recv().await;
    assert_eq!(result["id"], 2);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "Your store account is connected."
    );
}

/// Issue 29: a client that answers `accept` only when the person says they
/// are done (MCP Inspector 2.12) hears of the finished flow at once, while its
/// `elicitation/create` is still unanswered; its later `accept` ends the call
/// without a second notice.
#[tokio::test]
async fn legacy_url_flow_finished_before_the_answer_is_announced_at_once() {
    let server = builder().build();
    let mut c = Client::start(server.clone());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "connect_store_account", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    let url = ask["params"]["url"].as_str().unwrap().to_string();
    let eid = ask["params"]["elicitationId"].as_str().unwrap().to_string();
    c.quiet(100).await;
    server.complete_flow(&token_of(&url), None).await.unwrap();
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": eid}}),
        "announced before the client answered"
    );
    c.reply(&ask["id"], json!({"action": "accept"})).await;
    let result = c.recv().await;
    assert_eq!(result["id"], 2, "no second notice: {result}");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "Your store account is connected."
    );
}

#[tokio::test]
async fn legacy_url_decline() {
    let mut c = Client::start(builder().build());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "connect_store_account"}}))
        .await;
    let ask = c.recv().await;
    c.reply(&ask["id"], json!({"action": "decline"})).await;
    let r = c.recv().await;
    assert_eq!(
        r["result"]["content"][0]["text"],
        "The account was not connected: the person declined."
    );
}

#[tokio::test]
async fn modern_url_flow_reasks_until_complete() {
    let mut config = frontdesk::server::ServerConfig::default();
    config.url_hold = Duration::from_millis(100);
    let server = builder().config(config).build();
    let mut c = Client::start(server.clone());
    let caps = json!({"elicitation": {"form": {}, "url": {}}});
    let r1 = c
        .request(
            json!(1),
            "tools/call",
            call("connect_store_account", json!({}), caps.clone()),
        )
        .await;
    let req = &r1["result"]["inputRequests"]["signin"];
    assert_eq!(req["method"], "elicitation/create");
    let params = req["params"].as_object().unwrap();
    assert_eq!(
        params.keys().collect::<Vec<_>>(),
        ["mode", "url", "message"],
        "no elicitationId"
    );
    let url = params["url"].as_str().unwrap().to_string();

    let retry = |state: &Value| {
        let mut p = call("connect_store_account", json!({}), caps.clone());
        p["inputResponses"] = json!({"signin": {"action": "accept"}});
        p["requestState"] = state.clone();
        p
    };
    // Not finished yet: held briefly, then the same URL is asked again.
    let r2 = c
        .request(json!(2), "tools/call", retry(&r1["result"]["requestState"]))
        .await;
    assert_eq!(r2["result"]["resultType"], "input_required");
    assert_eq!(
        r2["result"]["inputRequests"]["signin"]["params"]["url"],
        url
    );
    assert_ne!(r2["result"]["requestState"], r1["result"]["requestState"]);
    server.complete_flow(&token_of(&url), None).await.unwrap();
    let r3 = c
        .request(json!(3), "tools/call", retry(&r2["result"]["requestState"]))
        .await;
    assert_eq!(r3["result"]["resultType"], "complete");
    assert_eq!(
        r3["result"]["content"][0]["text"],
        "Your store account is connected."
    );
}

#[tokio::test]
async fn modern_url_needs_url_capability() {
    let mut c = Client::start(builder().build());
    let r = c
        .request(
            json!(1),
            "tools/call",
            call(
                "connect_store_account",
                json!({}),
                json!({"elicitation": {}}),
            ),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {"url": {}}}})
    );
}

#[tokio::test]
async fn demo_signin_page_completes_the_flow() {
    let server = frontdesk_demo::brightgrid(&frontdesk_demo::DemoOptions::default())
        .await
        .unwrap();
    let mut c = Client::start(server);
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "connect_store_account"}}))
        .await;
    let ask = c.recv().await;
    let url = ask["params"]["url"].as_str().unwrap().to_string();
    c.reply(&ask["id"], json!({"action": "accept"})).await;
    let (base, _) = url.split_once("/signin?").unwrap();
    frontdesk::client::install_default_tls_provider();
    let resp = reqwest::Client::new()
        .post(format!("{base}/signin"))
        .form(&[
            ("token", token_of(&url).as_str()),
            ("email", "a@b.example"),
            ("password", "x"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.text()
            .await
            .unwrap()
            .contains("Your store account is connected.")
    );
    assert_eq!(
        c.recv().await["method"],
        "notifications/elicitation/complete"
    );
    assert_eq!(
        c.recv().await["result"]["content"][0]["text"],
        "Your store account is connected."
    );
}

#[tokio::test]
async fn connect_token_is_single_use_and_bound_to_the_principal() {
    let server = builder().build();
    let (sink, _rx) = frontdesk::server::transport::OutboundSink::channel();
    let info = frontdesk::server::transport::RequestInfo::new().principal("alice");
    let caps = json!({"elicitation": {"url": {}}});
    let h = server
        .handle_json(
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": call("connect_store_account", json!({}), caps)}),
            &sink,
            &info,
        )
        .await;
    let r = h.response_value().unwrap();
    let url = r["result"]["inputRequests"]["signin"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let token = token_of(&url);
    assert!(server.complete_flow(&token, Some("mallory")).await.is_err());
    server.complete_flow(&token, Some("alice")).await.unwrap();
    assert!(server.complete_flow(&token, Some("alice")).await.is_err());
}

#[tokio::test]
async fn modern_held_retry_is_cancelled_by_notification() {
    let mut config = frontdesk::server::ServerConfig::default();
    config.url_hold = Duration::from_secs(30);
    let mut c = Client::start(builder().config(config).build());
    let caps = json!({"elicitation": {"url": {}}});
    let r1 = c
        .request(
            json!(1),
            "tools/call",
            call("connect_store_account", json!({}), caps.clone()),
        )
        .await;
    let mut p = call("connect_store_account", json!({}), caps);
    p["inputResponses"] = json!({"signin": {"action": "accept"}});
    p["requestState"] = r1["result"]["requestState"].clone();
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": p}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    )
    .await;
    c.quiet(150).await;
    let r = c
        .request(
            json!(3),
            "server/discover",
            json!({"_meta": crate::support::stdio::meta(json!({}))}),
        )
        .await;
    assert_eq!(r["id"], 3);
}

fn link_tool() -> frontdesk::server::ToolDef {
    frontdesk::server::ToolDef::new(
        "needs_link",
        "Fails until an account is linked",
        |cx: frontdesk::server::ToolContext, _: frontdesk::server::NoArgs| async move {
            Err(cx
                .url_elicitation_required("Link your account first.", |t| {
                    format!("https://example.com/link?token={}", t.connect_token)
                })
                .await)
        },
    )
}

#[tokio::test]
async fn url_elicitation_required_is_32042_on_legacy_only() {
    let server = builder().tool(link_tool()).build();
    let mut c = Client::start(server.clone());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    let r = c
        .request(json!(2), "tools/call", json!({"name": "needs_link"}))
        .await;
    assert_eq!(r["error"]["code"], -32042);
    assert_eq!(
        r["error"]["message"],
        "This request requires more information."
    );
    let e = &r["error"]["data"]["elicitations"][0];
    assert_eq!(e["mode"], "url");
    assert_eq!(e["message"], "Link your account first.");
    let eid = e["elicitationId"].as_str().unwrap().to_string();
    server
        .complete_flow(&token_of(e["url"].as_str().unwrap()), None)
        .await
        .unwrap();
    let note = c.recv().await;
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": eid}})
    );

    // 2026-07-28: never -32042, an input_required instead.
    let r = c
        .request(
            json!(3),
            "tools/call",
            call("needs_link", json!({}), json!({"elicitation": {"url": {}}})),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "input_required");
    let requests = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    // A key derived from the question, not from the order of asking.
    assert!(key.starts_with("q_") && key.len() == 10, "{key}");
    assert_eq!(request["params"]["mode"], "url");
}
