//! URL-mode questions through the gateway: the demo's
//! `connect_store_account` (a sign-in page) on every pairing of revisions,
//! the exact wire a client of each revision receives (with the gateway's
//! review of the URL in a 2025-11-25 client's `_meta`), and the URLs and
//! clients a URL question must never reach.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{ClientConfig, Direction, ElicitationResponse};
use frontdesk::wire::Revision;
use serde_json::{Map, Value, json};
use support::*;

const SIGN_IN: &str = "Sign in to your Brightgrid store account to connect it.";

fn consent() -> ElicitationResponse {
    ElicitationResponse::Accept(Map::new())
}

/// Every message of `wire` in `direction` that passes `keep`.
fn messages(
    wire: &Arc<Mutex<Vec<(Direction, Value)>>>,
    direction: Direction,
    keep: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    wire.lock()
        .unwrap()
        .iter()
        .filter(|(d, m)| *d == direction && keep(m))
        .map(|(_, m)| m.clone())
        .collect()
}

/// The `notifications/elicitation/complete` the client got, waiting up to
/// 2 s (it may come after the call's result).
async fn completions(wire: &Arc<Mutex<Vec<(Direction, Value)>>>) -> Vec<Value> {
    let is_completion = |m: &Value| m["method"] == "notifications/elicitation/complete";
    for _ in 0..40 {
        let found = messages(wire, Direction::Incoming, is_completion);
        if !found.is_empty() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    messages(wire, Direction::Incoming, is_completion)
}

/// No completion notice within 200 ms.
async fn no_completion(wire: &Arc<Mutex<Vec<(Direction, Value)>>>) -> bool {
    tokio::time::sleep(Duration::from_millis(200)).await;
    messages(wire, Direction::Incoming, |m| {
        m["method"] == "notifications/elicitation/complete"
    })
    .is_empty()
}

/// The person signs in on the upstream's page and says so: the upstream's
/// flow completes, the call ends connected, on every pairing; the person
/// saw the upstream's URL as the upstream made it.
#[tokio::test]
async fn connect_store_account_signs_in_on_every_pairing() {
    for (upstream, downstream) in PAIRINGS {
        let demo = brightgrid();
        let script = Script::with_url(vec![consent()], demo.clone());
        let (gateway, down, wire) =
            through_gateway_to(demo, upstream, downstream, Arc::clone(&script)).await;
        let result = down
            .call_tool("connect_store_account", json!({}))
            .await
            .unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("Your store account is connected."),
            "{upstream} → {downstream}"
        );
        let seen = script.seen();
        assert_eq!(seen.len(), 1, "{upstream} → {downstream}: {seen:?}");
        assert_eq!(seen[0].0, SIGN_IN);
        let url = seen[0].1["url"].as_str().unwrap();
        assert!(
            url.starts_with("http://127.0.0.1:9/signin?token=") && url.len() > 40,
            "{url}"
        );
        if downstream == Revision::V2025_11_25 {
            // The id the client was given is the one completed.
            let id = seen[0].1["elicitationId"].as_str().unwrap().to_string();
            assert_eq!(
                completions(&wire).await,
                [
                    json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                    "params": {"elicitationId": id}})
                ],
                "{upstream} → {downstream}"
            );
        } else {
            assert!(seen[0].1["elicitationId"].is_null());
            assert!(no_completion(&wire).await);
        }
        assert_eq!(gateway.held_calls(), 0);
    }
}

/// The exact wire: a 2025-11-25 client gets `elicitation/create` in URL
/// mode with the gateway's `elicitationId`, then the completion under that
/// id; a 2026-07-28 client gets one `input_required` round with the URL
/// question under `upstream-1`, and its retry completes the call.
#[tokio::test]
async fn the_url_question_on_the_wire_of_each_client_revision() {
    // 2025-11-25 server behind, 2025-11-25 client in front.
    let demo = brightgrid();
    let script = Script::with_url(vec![consent()], demo.clone());
    let (_g, down, wire) = through_gateway_to(
        demo,
        Revision::V2025_11_25,
        Revision::V2025_11_25,
        Arc::clone(&script),
    )
    .await;
    down.call_tool("connect_store_account", json!({}))
        .await
        .unwrap();
    let url = script.seen()[0].1["url"].as_str().unwrap().to_string();
    let asked = messages(&wire, Direction::Incoming, |m| {
        m["method"] == "elicitation/create"
    });
    assert_eq!(asked.len(), 1);
    let id = asked[0]["params"]["elicitationId"]
        .as_str()
        .unwrap()
        .to_string();
    // The gateway's review of the URL travels in `_meta` for hosts that
    // show it (the demo's page is plain http on loopback, port 9).
    assert_eq!(
        asked[0]["params"],
        json!({"mode": "url", "message": SIGN_IN, "url": url, "elicitationId": id,
        "_meta": {"io.github.frontdesk-mcp/urlReview": {
            "verdict": "allowed_with_warnings",
            "findings": [
                {"code": "loopback_http", "severity": "warning", "message":
                    "This is a plain-http link to this computer (a development server). It is not encrypted."},
                {"code": "ip_address_host", "severity": "info", "message":
                    "The link goes to 127.0.0.1, this computer."},
                {"code": "non_default_port", "severity": "info", "message":
                    "The link goes to port 9, not the usual port for http."}
            ]
        }}})
    );
    let answered = messages(&wire, Direction::Outgoing, |m| m["id"] == asked[0]["id"]);
    assert_eq!(answered[0]["result"], json!({"action": "accept"}));
    assert_eq!(
        completions(&wire).await,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": id}})
        ]
    );

    // 2025-11-25 server behind, 2026-07-28 client in front.
    let demo = brightgrid();
    let script = Script::with_url(vec![consent()], demo.clone());
    let (_g, down, wire) = through_gateway_to(
        demo,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
        Arc::clone(&script),
    )
    .await;
    down.call_tool("connect_store_account", json!({}))
        .await
        .unwrap();
    let url = script.seen()[0].1["url"].as_str().unwrap().to_string();
    let results: Vec<Value> = messages(&wire, Direction::Incoming, |m| {
        m["result"].get("content").is_some() || m["result"].get("inputRequests").is_some()
    })
    .into_iter()
    .map(|m| m["result"].clone())
    .collect();
    assert_eq!(results.len(), 2, "{results:#?}");
    assert_eq!(results[0]["resultType"], "input_required");
    // No `_meta`: 2026-07-28's `ElicitRequestURLParams` lists none (its
    // schema, where the 2025-11-25 one has `_meta`).
    assert_eq!(
        results[0]["inputRequests"],
        json!({"upstream-1": {
            "method": "elicitation/create",
            "params": {"mode": "url", "message": SIGN_IN, "url": url}
        }})
    );
    assert_eq!(results[1]["resultType"], "complete");
    assert_eq!(
        results[1]["content"],
        json!([{"type": "text", "text": "Your store account is connected."}])
    );
    let retry = messages(&wire, Direction::Outgoing, |m| {
        m["params"].get("inputResponses").is_some()
    });
    assert_eq!(
        retry[0]["params"]["inputResponses"],
        json!({"upstream-1": {"action": "accept"}})
    );
}

/// Declined on the way: the upstream hears `decline`, its flow is not
/// completed, the call says so.
#[tokio::test]
async fn a_declined_sign_in_reaches_the_upstream() {
    for (upstream, downstream) in PAIRINGS {
        let demo = brightgrid();
        let script = Script::with_url(vec![ElicitationResponse::Decline], demo.clone());
        let (_g, down, wire) = through_gateway_to(demo, upstream, downstream, script).await;
        let result = down
            .call_tool("connect_store_account", json!({}))
            .await
            .unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("The account was not connected: the person declined."),
            "{upstream} → {downstream}"
        );
        assert!(no_completion(&wire).await, "{upstream} → {downstream}");
    }
}

/// The hostile upstream's URL refused by the review: the upstream gets
/// `-32602` naming the finding, the person sees nothing, on either client
/// revision.
async fn refused_url(url: &str, finding: &str) {
    let params = json!({"mode": "url", "message": "Sign in", "elicitationId": "e1", "url": url});
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let answer = refused_upstream(params.clone(), downstream).await;
        assert_eq!(answer["id"], "q1");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("the URL was refused by the gateway's URL review (")
                && message.contains(finding),
            "{downstream}: {message}"
        );
        assert!(answer.get("result").is_none());
    }
}

#[tokio::test]
async fn a_javascript_url_is_refused_to_the_upstream() {
    refused_url("javascript:alert(document.cookie)", "scheme").await;
}

/// Cyrillic "аррӏе" under `.com`, sent as punycode: a look-alike of a
/// well-known domain.
#[tokio::test]
async fn a_punycode_lookalike_is_refused_to_the_upstream() {
    refused_url("https://xn--80ak6aa92e.com/login", "lookalike_domain").await;
    refused_url("https://аррӏе.com/login", "lookalike_domain").await;
}

/// A client in front that declared form mode only is never sent a URL
/// question: a 2025-11-25 upstream (told both modes at `initialize`) gets
/// `-32602` with the reason; a 2026-07-28 upstream is told, per request,
/// that the client has no URL mode, so it refuses the call itself
/// (`-32021`, the frontdesk server's missing-capability error, passed on).
#[tokio::test]
async fn a_form_only_client_never_gets_a_url_question() {
    let params = json!({"mode": "url", "message": "Sign in", "elicitationId": "e1",
        "url": "https://login.example.com/connect?flow=42"});
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        assert_eq!(
            refused_upstream(params.clone(), downstream).await,
            json!({"jsonrpc": "2.0", "id": "q1", "error": {
                "code": -32602,
                "message": "the client behind this gateway does not accept URL-mode elicitation"
            }}),
            "{downstream}"
        );
    }
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let script = Script::new(vec![consent()]);
        let (_g, down, wire) =
            through_gateway(Revision::V2026_07_28, downstream, Arc::clone(&script)).await;
        let outcome = down.call_tool("connect_store_account", json!({})).await;
        assert!(script.seen().is_empty(), "{downstream}");
        assert!(
            messages(&wire, Direction::Incoming, |m| {
                m.to_string().contains("\"mode\":\"url\"")
            })
            .is_empty()
        );
        match outcome {
            Ok(result) => assert_eq!(result.is_error, Some(true), "{downstream}: {result:?}"),
            // The upstream's own refusal: the capability is missing.
            Err(e) => assert!(e.to_string().contains("-32021"), "{downstream}: {e}"),
        }
    }
}

/// A hand-written 2025-11-25 server whose tool first answers `-32042`
/// (sign in at a URL first), announces that interaction complete 300 ms
/// later, and answers the retried call.
async fn url_required_upstream() -> tokio::io::DuplexStream {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        let mut calls = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let mut replies = vec![];
            match m.get("method").and_then(Value::as_str) {
                Some("initialize") => {
                    replies.push(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "signin-first", "version": "0.0.1"}
                    }}))
                }
                Some("tools/list") => {
                    replies.push(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "tools": [{"name": "orders", "inputSchema": {"type": "object"}}]
                    }}))
                }
                Some("tools/call") if calls == 0 => {
                    calls += 1;
                    replies.push(json!({"jsonrpc": "2.0", "id": m["id"], "error": {
                        "code": -32042,
                        "message": "Sign in first",
                        "data": {"elicitations": [{"mode": "url", "elicitationId": "up-1",
                            "url": "https://login.example.com/connect?flow=42",
                            "message": "Sign in to see your orders"}]}
                    }}));
                    replies.push(json!("sleep"));
                    replies.push(json!({"jsonrpc": "2.0",
                        "method": "notifications/elicitation/complete",
                        "params": {"elicitationId": "up-1"}}));
                }
                Some("tools/call") => {
                    replies.push(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "content": [{"type": "text", "text": "2 open orders"}]
                    }}))
                }
                _ => {}
            }
            for reply in replies {
                if reply == "sleep" {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    continue;
                }
                let mut text = reply.to_string();
                text.push('\n');
                write.write_all(text.as_bytes()).await.unwrap();
            }
        }
    });
    client_end
}

/// `-32042` from a 2025-11-25 upstream: the gateway's client runs the URL
/// interaction it names as a URL question to the client in front (a live
/// request on 2025-11-25, an `input_required` round on 2026-07-28, where
/// `-32042` does not exist), waits for the upstream's completion, which a
/// 2025-11-25 client is told under its own id, and retries the call.
#[tokio::test]
async fn url_elicitation_required_from_the_upstream_reaches_either_client() {
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let gateway = frontdesk_gateway::Gateway::new(Default::default());
        let (read, write) = tokio::io::split(url_required_upstream().await);
        let up = frontdesk::client::Client::connect_io(
            read,
            write,
            ClientConfig::default().protocol(Revision::V2025_11_25),
            gateway.upstream_handler(),
        )
        .await
        .unwrap();
        let server = gateway.attach(up).await.unwrap().build();
        let script = Script::with_url(vec![consent()], brightgrid());
        let wire: Arc<Mutex<Vec<(Direction, Value)>>> = Arc::default();
        let tap = Arc::clone(&wire);
        let config = ClientConfig::default()
            .protocol(downstream)
            .on_wire(move |d, m| tap.lock().unwrap().push((d, m.clone())));
        let down = client_of(server, config, Arc::clone(&script) as _).await;
        let result = down.call_tool("orders", json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("2 open orders"));
        let seen = script.seen();
        assert_eq!(seen.len(), 1, "{downstream}");
        assert_eq!(seen[0].0, "Sign in to see your orders");
        assert_eq!(
            seen[0].1["url"],
            "https://login.example.com/connect?flow=42"
        );
        if downstream == Revision::V2025_11_25 {
            let id = seen[0].1["elicitationId"].as_str().unwrap().to_string();
            assert_ne!(id, "up-1", "the gateway's own id");
            assert_eq!(
                completions(&wire).await,
                [
                    json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                    "params": {"elicitationId": id}})
                ]
            );
        }
    }
}
