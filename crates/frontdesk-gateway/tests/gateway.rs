//! The gateway between real parts: a frontdesk `Client` (scripted answers)
//! → the gateway's `Server` → a frontdesk `Client` → the brightgrid demo
//! server (`book_return`: a form, then a confirmation), on each pairing of
//! revisions; and a hostile upstream asking a form outside the subset.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use frontdesk::client::{
    ClientConfig, Direction, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::server::Server;
use frontdesk::wire::Revision;
use frontdesk::{BoxFuture, Form};
use frontdesk_demo::ReturnForm;
use frontdesk_gateway::{Gateway, GatewayOptions};
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn tools_are_listed_as_the_upstream_lists_them() {
    for (upstream, downstream) in PAIRINGS {
        let (_gateway, down, _) = through_gateway(upstream, downstream, Script::new(vec![])).await;
        let direct = client_of(
            brightgrid(),
            ClientConfig::default().protocol(upstream),
            Script::new(vec![]),
        )
        .await;
        assert_eq!(
            down.list_tools().await.unwrap(),
            direct.list_tools().await.unwrap(),
            "{upstream} → {downstream}"
        );
        assert_eq!(down.server_info().name, "brightgrid");
    }
}

#[tokio::test]
async fn book_return_accepted_and_confirmed_on_every_pairing() {
    for (upstream, downstream) in PAIRINGS {
        let script = Script::new(vec![
            accept(return_form()),
            accept(json!({"confirm": true})),
        ]);
        let (gateway, down, _) = through_gateway(upstream, downstream, Arc::clone(&script)).await;
        let result = down
            .call_tool("book_return", json!({"order_id": "A-1001"}))
            .await
            .unwrap();
        // The upstream's result, as it made it.
        assert_eq!(
            result.structured_content,
            Some(json!({
                "orderId": "A-1001", "reason": "damaged", "boxes": 2,
                "pickupDate": "2026-12-10", "contactEmail": "ada@example.com",
                "notes": null, "status": "booked"
            })),
            "{upstream} → {downstream}"
        );
        assert_eq!(result.is_error, Some(false));
        // The person saw the upstream's two questions, schemas as sent.
        let seen = script.seen();
        assert_eq!(seen.len(), 2, "{upstream} → {downstream}");
        assert_eq!(seen[0].0, "Tell us about the return of order A-1001");
        assert_eq!(seen[0].1, ReturnForm::schema().to_json());
        assert_eq!(
            seen[1].0,
            "Book a pickup of 2 box(es) on 2026-12-10 for order A-1001?"
        );
        assert_eq!(gateway.held_calls(), 0, "the finished call is let go");
    }
}

#[tokio::test]
async fn decline_and_cancel_reach_the_upstream_as_they_are() {
    for (upstream, downstream) in PAIRINGS {
        let script = Script::new(vec![ElicitationResponse::Decline]);
        let (_g, down, _) = through_gateway(upstream, downstream, script).await;
        let result = down
            .call_tool("book_return", json!({"order_id": "A-1"}))
            .await
            .unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("No return was booked: the person declined.")
        );
        let script = Script::new(vec![accept(return_form()), ElicitationResponse::Cancel]);
        let (_g, down, _) = through_gateway(upstream, downstream, script).await;
        let result = down
            .call_tool("book_return", json!({"order_id": "A-1"}))
            .await
            .unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("No return was booked: not confirmed."),
            "{upstream} → {downstream}"
        );
    }
}

/// A 2026-07-28 client: each upstream question is one `input_required`
/// round, under `upstream-N`, with a state sealed by the gateway; the
/// retry's answer goes to the waiting upstream request.
#[tokio::test]
async fn a_modern_client_gets_one_round_per_upstream_question() {
    let script = Script::new(vec![
        accept(return_form()),
        accept(json!({"confirm": true})),
    ]);
    let (_g, down, wire) =
        through_gateway(Revision::V2025_11_25, Revision::V2026_07_28, script).await;
    down.call_tool("book_return", json!({"order_id": "A-1001"}))
        .await
        .unwrap();
    let results: Vec<Value> = wire
        .lock()
        .unwrap()
        .iter()
        .filter(|(d, m)| *d == Direction::Incoming && m.get("result").is_some())
        .map(|(_, m)| m["result"].clone())
        .filter(|r| r.get("content").is_some() || r.get("inputRequests").is_some())
        .collect();
    assert_eq!(results.len(), 3, "{results:#?}");
    let first = results[0].as_object().unwrap();
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"],
        json!({"upstream-1": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Tell us about the return of order A-1001",
                "requestedSchema": ReturnForm::schema().to_json()
            }
        }})
    );
    assert!(first["requestState"].as_str().is_some_and(|s| s.len() > 40));
    let second = results[1].as_object().unwrap();
    assert_eq!(second["resultType"], "input_required");
    let keys: Vec<&String> = second["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["upstream-2"]);
    assert_eq!(results[2]["resultType"], "complete");
    assert_eq!(results[2]["structuredContent"]["status"], "booked");
}

#[tokio::test]
async fn a_form_outside_the_subset_is_refused_to_the_upstream_and_never_shown() {
    let params = json!({"mode": "form", "message": "Your address", "requestedSchema": {
        "type": "object",
        "properties": {"address": {"type": "object", "properties": {
            "street": {"type": "string"}}}}
    }});
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let answer = refused_upstream(params.clone(), downstream).await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": "q1", "error": {
                "code": -32602,
                "message": "invalid requestedSchema: field \"address\": nested objects are not \
                            supported in a form (refused by the gateway: outside the elicitation \
                            schema subset)"
            }}),
            "{downstream}"
        );
    }
}

/// A retry that comes after the gateway stopped holding its call (held
/// 200 ms here; the person takes 400) is refused with the state error.
#[tokio::test]
async fn a_call_held_past_its_time_is_refused() {
    let mut options = GatewayOptions::default();
    options.hold_for = std::time::Duration::from_millis(200);
    let gateway = Gateway::new(options);
    let up = client_of(
        brightgrid(),
        ClientConfig::default().protocol(Revision::V2025_11_25),
        gateway.upstream_handler(),
    )
    .await;
    let server = gateway.attach(up).await.unwrap().build();
    let down = client_of(
        server,
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Arc::new(Script {
            answers: Mutex::new(vec![accept(return_form())].into()),
            delay: std::time::Duration::from_millis(400),
            ..Script::default()
        }),
    )
    .await;
    let err = down
        .call_tool("book_return", json!({"order_id": "A-1"}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("requestState is invalid or expired"),
        "{err}"
    );
    assert_eq!(gateway.held_calls(), 1, "swept when the next call starts");
}

/// A 2025-11-25 client that cancels its call while the upstream waits for
/// an answer: the gateway lets the upstream call go (its question answered
/// cancel), so the next call is not stuck behind it.
#[tokio::test]
async fn a_cancelled_call_lets_the_upstream_call_go() {
    let (gateway, server) = gateway_before(brightgrid(), Revision::V2025_11_25).await;
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(frontdesk::server::stdio::serve(server, read, write));
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |m: Value| {
        let mut text = m.to_string();
        text.push('\n');
        write.write_all(text.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let call = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": format!("C-{id}")}}})
    };
    send(call(1)).await;
    let mut next = async || -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
            .await
            .expect("a message within 5 s")
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    };
    assert_eq!(next().await["id"], 0);
    let asked = next().await;
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(
        asked["params"]["message"],
        "Tell us about the return of order C-1"
    );
    assert_eq!(gateway.held_calls(), 1);
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "changed my mind"}}),
    )
    .await;
    // The next call's question comes: the lane is free.
    send(call(2)).await;
    let asked = loop {
        let m = next().await;
        if m["method"] == "elicitation/create" {
            break m;
        }
    };
    assert_eq!(
        asked["params"]["message"],
        "Tell us about the return of order C-2"
    );
    assert_eq!(gateway.held_calls(), 1, "only the second call is held");
}

/// A frontdesk server made to ask a form outside the subset (read leniently,
/// as a careless server would send it), on either revision: the question
/// never reaches the client, and the call ends with the reason.
#[tokio::test]
async fn an_out_of_subset_form_from_either_upstream_revision_is_stopped() {
    use frontdesk::form::FormSchema;
    use frontdesk::server::question::InputRequest;
    use frontdesk::server::{ToolDef, ToolOutput};
    let nested = json!({"type": "object", "properties": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}}}}});
    let lenient = FormSchema::parse(&nested).unwrap().schema;
    let careless = move || {
        let schema = lenient.clone();
        Server::builder("careless", "1.0.0")
            .tool(ToolDef::raw(
                "where",
                "Asks a nested form",
                json!({}),
                move |cx, _| {
                    let schema = schema.clone();
                    async move {
                        let asked = cx
                            .ask_all(vec![("addr".into(), InputRequest::form("Where?", schema))])
                            .await;
                        Ok(match asked {
                            Ok(answers) => ToolOutput::text(format!("answered: {answers:?}")),
                            Err(e) => ToolOutput::error(format!("not asked: {e}")),
                        })
                    }
                },
            ))
            .build()
    };
    let reason = "invalid requestedSchema: field \"address\": nested objects are not supported \
                  in a form (refused by the gateway: outside the elicitation schema subset)";
    for (upstream, downstream) in PAIRINGS {
        let (_gateway, server) = gateway_before(careless(), upstream).await;
        let script = Script::new(vec![accept(json!({}))]);
        let down = client_of(
            server,
            ClientConfig::default().protocol(downstream),
            Arc::clone(&script) as Arc<dyn ElicitationHandler>,
        )
        .await;
        let result = down.call_tool("where", json!({})).await.unwrap();
        assert!(script.seen().is_empty(), "{upstream} → {downstream}: shown");
        assert_eq!(result.is_error, Some(true), "{upstream} → {downstream}");
        let text = result.content[0].as_text().unwrap();
        assert!(text.contains(reason), "{upstream} → {downstream}: {text}");
    }
}

/// Answers only once two questions are open at the same time (or after
/// 3 s), then declines; says whether each answer saw the other question.
#[derive(Default)]
struct Together {
    open: Mutex<usize>,
    changed: tokio::sync::Notify,
    overlapped: Mutex<Vec<bool>>,
}

impl ElicitationHandler for Together {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            *self.open.lock().unwrap() += 1;
            self.changed.notify_waiters();
            let both = async {
                loop {
                    let waiting = self.changed.notified();
                    if *self.open.lock().unwrap() >= 2 {
                        return;
                    }
                    waiting.await;
                }
            };
            let overlapped = tokio::time::timeout(std::time::Duration::from_secs(3), both)
                .await
                .is_ok();
            self.overlapped.lock().unwrap().push(overlapped);
            ElicitationResponse::Decline
        })
    }
}

/// Calls of a 2026-07-28 upstream run side by side (each round's questions
/// find their own call); on either client revision.
/// Two `book_return` calls at once through `server` from a `downstream`
/// client whose person is [`Together`] (both declined): whether each
/// answer saw the other question open.
async fn two_bookings_at_once(server: Server, downstream: Revision) -> Vec<bool> {
    let person = Arc::new(Together::default());
    let down = client_of(
        server,
        ClientConfig::default().protocol(downstream),
        Arc::clone(&person) as Arc<dyn ElicitationHandler>,
    )
    .await;
    let (a, b) = tokio::join!(
        down.call_tool("book_return", json!({"order_id": "A"})),
        down.call_tool("book_return", json!({"order_id": "B"})),
    );
    for r in [a, b] {
        assert_eq!(
            r.unwrap().content[0].as_text(),
            Some("No return was booked: the person declined.")
        );
    }
    person.overlapped.lock().unwrap().clone()
}

#[tokio::test]
async fn calls_of_a_modern_upstream_run_side_by_side() {
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let (_gateway, server) = gateway_before(brightgrid(), Revision::V2026_07_28).await;
        let overlapped = two_bookings_at_once(server, downstream).await;
        assert_eq!(overlapped, [true, true], "{downstream}");
    }
}

/// Two calls to a 2025-11-25 upstream, with more connections allowed
/// (`Gateway::connect_more`): the second call opens another connection
/// instead of waiting for the first call's person, so both questions are
/// open at once; without it the second waits its turn. (The client in
/// front is form only: its calls run on connections that declared just
/// that, not on the attached upstream, which declared everything.)
#[tokio::test]
async fn calls_of_a_legacy_upstream_run_side_by_side_on_more_connections() {
    for more in [true, false] {
        let gateway = Gateway::new(GatewayOptions::default());
        let up = client_of(
            brightgrid(),
            gateway.upstream_config(ClientConfig::default().protocol(Revision::V2025_11_25)),
            gateway.upstream_handler(),
        )
        .await;
        let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        if more {
            let opened = Arc::clone(&opened);
            gateway.connect_more(2, move |lane| {
                opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Box::pin(async move {
                    let config =
                        lane.config(ClientConfig::default().protocol(Revision::V2025_11_25));
                    Ok(client_of(brightgrid(), config, lane.handler()).await)
                })
            });
        }
        let server = gateway.attach(up).await.unwrap().build();
        let overlapped = two_bookings_at_once(server, Revision::V2026_07_28).await;
        if more {
            assert_eq!(overlapped, [true, true]);
            assert_eq!(opened.load(std::sync::atomic::Ordering::SeqCst), 2);
        } else {
            // The first person answers alone (after Together's 3 s), only
            // then is the second call's question put.
            assert!(!overlapped[0], "one at a time: {overlapped:?}");
        }
        gateway.close_extra_connections().await;
    }
}

/// A tool's result relayed whole (`ToolOutput::from_result`), a prompt's
/// and a read's with their `_meta`, carry the decorations of the
/// downstream's revision only: a 2025-11-25 client gets no `resultType`,
/// no caching hints and no `_meta` naming the upstream, a 2026-07-28
/// client the upstream's own `_meta` members beside the `serverInfo` of
/// the server it speaks to.
#[tokio::test]
async fn a_relayed_result_carries_the_downstream_revisions_decorations_only() {
    use frontdesk::server::prompt::{PromptDef, PromptOutput};
    use frontdesk::server::resource::{ResourceDef, ResourceOutput};
    use frontdesk::server::{ToolDef, ToolOutput};
    use frontdesk::wire::{CallToolResult, GetPromptResult, Meta, ReadResourceResult};
    let trace = || Meta::new().with("com.example/trace", json!("t-1"));
    // Each result carries a member of a later revision or an extension
    // (top level and, in a prompt, on a message): a relay keeps it.
    let made_elsewhere = |result: Value| {
        let mut result = result;
        result["x-origin"] = json!("upstream");
        result
    };
    let tagger = move || {
        Server::builder("tagger", "1.0.0")
            .tool(ToolDef::raw(
                "tagged",
                "Answers with a trace id in _meta",
                json!({}),
                move |_cx, _| async move {
                    let mut result: CallToolResult = serde_json::from_value(made_elsewhere(
                        json!({"content": [{"type": "text", "text": "done"}], "isError": false}),
                    ))
                    .unwrap();
                    result.meta = Some(trace());
                    Ok(ToolOutput::from_result(result))
                },
            ))
            .prompt(PromptDef::new(
                "tagged",
                "A traced prompt",
                move |_cx, _| async move {
                    let result: GetPromptResult = serde_json::from_value(made_elsewhere(json!({
                        "messages": [{
                            "role": "user",
                            "content": {"type": "text", "text": "hi"},
                            "x-tone": "warm"
                        }]
                    })))
                    .unwrap();
                    Ok(PromptOutput::from_result(result).with_meta(trace()))
                },
            ))
            .resource(ResourceDef::new(
                "tag://one",
                "one",
                move |_cx, _| async move {
                    let result: ReadResourceResult = serde_json::from_value(made_elsewhere(
                        json!({"contents": [{"uri": "tag://one", "text": "one"}]}),
                    ))
                    .unwrap();
                    Ok(ResourceOutput::from_result(result).with_meta(trace()))
                },
            ))
            .build()
    };
    let requests = [
        ("tools/call", json!({"name": "tagged", "arguments": {}})),
        ("prompts/get", json!({"name": "tagged"})),
        ("resources/read", json!({"uri": "tag://one"})),
    ];
    let server_info = json!({"name": "tagger", "version": "1.0.0"});
    for (upstream, downstream) in PAIRINGS {
        let (_g, down, wire) =
            through_gateway_to(tagger(), upstream, downstream, Script::new(vec![])).await;
        let legacy = downstream == Revision::V2025_11_25;
        for (method, params) in &requests {
            let Value::Object(params) = params.clone() else {
                unreachable!()
            };
            down.request(method, params).await.unwrap();
            let got = wire
                .lock()
                .unwrap()
                .iter()
                .rev()
                .find(|(d, m)| *d == Direction::Incoming && m.get("result").is_some())
                .map(|(_, m)| m["result"].clone())
                .unwrap();
            let mut expected = match *method {
                "tools/call" => json!({
                    "content": [{"type": "text", "text": "done"}],
                    "isError": false
                }),
                "prompts/get" => json!({
                    "messages": [{
                        "role": "user",
                        "content": {"type": "text", "text": "hi"},
                        "x-tone": "warm"
                    }]
                }),
                _ => json!({"contents": [{"uri": "tag://one", "text": "one"}]}),
            };
            expected["x-origin"] = json!("upstream");
            let members = expected.as_object_mut().unwrap();
            if legacy {
                members.insert("_meta".into(), json!({"com.example/trace": "t-1"}));
            } else {
                members.insert("resultType".into(), json!("complete"));
                members.insert(
                    "_meta".into(),
                    json!({
                        "com.example/trace": "t-1",
                        "io.modelcontextprotocol/serverInfo": server_info
                    }),
                );
                if *method == "resources/read" {
                    // The upstream's hints (its default, public for five
                    // minutes) or, from a 2025-11-25 upstream, the gateway's.
                    members.insert("ttlMs".into(), json!(300_000));
                    members.insert("cacheScope".into(), json!("public"));
                }
            }
            assert_eq!(got, expected, "{upstream} → {downstream}: {method}");
        }
    }
}
