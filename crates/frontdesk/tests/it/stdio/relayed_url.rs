//! `Question::relayed_url`: a URL question for someone else's page. An
//! `accept` is answered at once on both revisions (nobody here knows when
//! that page is done); whoever learns it completes the flow with the ticket
//! `on_ticket` kept, and a 2025-11-25 client is then told, under the id it
//! was given, even after the call ended. The question's `_meta` reaches a
//! 2025-11-25 client only (2026-07-28's URL params have none).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::server::question::FlowTicket;
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ServerConfig, ToolContext, ToolDef, ToolOutput,
};
use frontdesk::wire::Meta;
use serde_json::json;

use crate::support::stdio::{Client, call};

const PAGE: &str = "https://login.example.com/connect?flow=42";

/// A server whose `relay` tool sends the person to [`PAGE`]; the flow's
/// ticket is kept in `kept`.
fn relaying(kept: Arc<Mutex<Option<FlowTicket>>>) -> Server {
    let mut config = ServerConfig::default();
    // An own URL question's accept would wait this long for its flow.
    config.url_hold = Duration::from_secs(30);
    Server::builder("relay", "0.0.1")
        .config(config)
        .tool(ToolDef::new(
            "relay",
            "Sends the person to another server's page",
            move |cx: ToolContext, _: NoArgs| {
                let kept = Arc::clone(&kept);
                async move {
                    let mut meta = Meta::new();
                    meta.0
                        .insert("example.com/note".into(), json!({"checked": true}));
                    let question = Question::relayed_url("Sign in at the other server", PAGE)
                        .key("other")
                        .meta(meta)
                        .on_ticket(move |t| *kept.lock().unwrap() = Some(t.clone()));
                    Ok(ToolOutput::text(match cx.ask(question).await? {
                        Answer::Accepted(()) => "consented",
                        Answer::Declined => "declined",
                        Answer::Cancelled => "cancelled",
                    }))
                }
            },
        ))
        .build()
}

#[tokio::test]
async fn legacy_accept_is_answered_at_once_and_completion_told_later() {
    let kept = Arc::default();
    let server = relaying(Arc::clone(&kept));
    let mut c = Client::start(server.clone());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "relay", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    let eid = ask["params"]["elicitationId"].as_str().unwrap().to_string();
    assert_eq!(
        ask["params"],
        json!({"mode": "url", "message": "Sign in at the other server", "url": PAGE,
            "elicitationId": eid, "_meta": {"example.com/note": {"checked": true}}})
    );
    c.reply(&ask["id"], json!({"action": "accept"})).await;
    let result = c.recv().await;
    assert_eq!(result["id"], 2);
    assert_eq!(result["result"]["content"][0]["text"], "consented");
    c.quiet(100).await;
    let ticket = kept.lock().unwrap().clone().expect("the ticket was kept");
    assert_eq!(ticket.flow_id, eid);
    server
        .complete_flow(&ticket.connect_token, None)
        .await
        .unwrap();
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": eid}})
    );
}

#[tokio::test]
async fn legacy_decline_fails_the_flow() {
    let kept = Arc::default();
    let server = relaying(Arc::clone(&kept));
    let mut c = Client::start(server.clone());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "relay", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    c.reply(&ask["id"], json!({"action": "decline"})).await;
    assert_eq!(c.recv().await["result"]["content"][0]["text"], "declined");
    let ticket = kept.lock().unwrap().clone().unwrap();
    assert!(
        server
            .complete_flow(&ticket.connect_token, None)
            .await
            .is_err()
    );
    c.quiet(100).await;
}

#[tokio::test]
async fn modern_accept_is_answered_at_once() {
    let kept = Arc::default();
    let mut c = Client::start(relaying(Arc::clone(&kept)));
    let caps = json!({"elicitation": {"url": {}}});
    let r1 = c
        .request(
            json!(1),
            "tools/call",
            call("relay", json!({}), caps.clone()),
        )
        .await;
    assert_eq!(
        r1["result"]["inputRequests"],
        json!({"other": {"method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in at the other server", "url": PAGE}}})
    );
    let mut retry = call("relay", json!({}), caps);
    retry["inputResponses"] = json!({"other": {"action": "accept"}});
    retry["requestState"] = r1["result"]["requestState"].clone();
    let started = std::time::Instant::now();
    let r2 = c.request(json!(2), "tools/call", retry).await;
    assert_eq!(r2["result"]["resultType"], "complete");
    assert_eq!(r2["result"]["content"][0]["text"], "consented");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "not held for the flow (url_hold is 30 s)"
    );
    assert!(kept.lock().unwrap().is_some());
}
