//! 2026-07-28 over stdio: `_meta` validation, discover, the input_required
//! loop with sealed state, capability gating, the MRTR fixtures.

use std::time::Duration;

use frontdesk::server::ServerConfig;
use frontdesk::state::StateSealer;
use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::{Client, builder, call, meta, test_server};

const FORM: fn() -> Value = || json!({"elicitation": {}});

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "brightgrid-test", "version": "0.0.1"}})
}

#[tokio::test]
async fn discover_and_lists() {
    let mut c = Client::start(test_server());
    let d = c
        .request(
            json!(1),
            "server/discover",
            json!({"_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(
        d,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "supportedVersions": ["2026-07-28", "2025-11-25"],
            "capabilities": {
                "tools": {"listChanged": true},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "completions": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "instructions": "Brightgrid store assistant: book returns and connect your store account.",
            "ttlMs": 300000,
            "cacheScope": "public",
            "resultType": "complete",
            "_meta": server_info()
        }})
    );
    let l = c
        .request(json!(2), "tools/list", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(l["result"]["resultType"], "complete");
    assert_eq!(l["result"]["cacheScope"], "public");
    assert!(l["result"]["tools"].as_array().unwrap().len() > 10);
    let p = c
        .request(json!(3), "prompts/list", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(
        p["result"]["prompts"][0]["name"],
        "test_input_required_result_prompt"
    );
}

#[tokio::test]
async fn meta_errors() {
    let mut c = Client::start(test_server());
    let r = c.request(json!(1), "server/discover", json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["id"], 1);
    let r = c
        .request(
            json!(2),
            "server/discover",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let r = c
        .request(
            json!(3),
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0",
            "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28", "2025-11-25"], "requested": "v999.0.0"}}})
    );
    // Without clientInfo it is still served.
    let r = c
        .request(
            json!(4),
            "server/discover",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    for (i, m) in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "unknown/method",
    ]
    .iter()
    .enumerate()
    {
        let r = c
            .request(json!(10 + i), m, json!({"_meta": meta(json!({}))}))
            .await;
        assert_eq!(r["error"]["code"], -32601, "{m}");
        assert_eq!(r["id"], 10 + i);
    }
}

/// What `handle` tells a transport about each failure (the HTTP transport
/// turns these into statuses; see `http::modern::statuses_per_failure`).
#[tokio::test]
async fn failures_from_handle() {
    use frontdesk::server::transport::Failure;
    use frontdesk_wire::ErrorCode;
    let server = test_server();
    let (sink, _rx) = frontdesk::server::transport::OutboundSink::channel();
    let info = frontdesk::server::transport::RequestInfo::default();
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}),
            Some(Failure::MissingMeta),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "nope", "params": {"_meta": meta(json!({}))}}),
            Some(Failure::Error(ErrorCode::METHOD_NOT_FOUND)),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": call("test_missing_capability", json!({}), json!({}))}),
            Some(Failure::Error(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            )),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": call("nope", json!({}), json!({}))}),
            Some(Failure::Error(ErrorCode::INVALID_PARAMS)),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": 7}),
            Some(Failure::Unreadable),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(json!({}))}}),
            None,
        ),
    ];
    for (message, failure) in cases {
        let h = server
            .handle_json(None, message.clone(), &sink, &info)
            .await;
        assert_eq!(h.failure, failure, "{message}");
        assert!(h.response.is_some(), "{message}");
    }
    let h = server
        .handle_json(
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": call("test_missing_capability", json!({}), json!({}))}),
            &sink,
            &info,
        )
        .await;
    assert_eq!(
        h.response_value().unwrap()["error"],
        json!({"code": -32021, "message": "This request requires a client capability that was not declared",
            "data": {"requiredCapabilities": {"sampling": {}}}})
    );
    let h = server
        .handle_json(
            None,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &sink,
            &info,
        )
        .await;
    assert_eq!((h.response_value(), h.failure), (None, None));
}

#[tokio::test]
async fn book_return_two_rounds_then_complete() {
    let mut c = Client::start(test_server());
    let r1 = c
        .request(
            json!(1),
            "tools/call",
            call("book_return", json!({"order_id": "A1"}), FORM()),
        )
        .await;
    let res = &r1["result"];
    assert_eq!(res["resultType"], "input_required");
    assert_eq!(res["_meta"], server_info());
    assert_eq!(
        res["inputRequests"]["return"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        res["inputRequests"]["return"]["params"]["message"],
        "Tell us about the return of order A1"
    );
    let s1 = res["requestState"].as_str().unwrap().to_string();

    let mut p = call("book_return", json!({"order_id": "A1"}), FORM());
    p["inputResponses"] = json!({"return": {"action": "accept", "content": {"reason": "wrong_item", "boxes": 2, "pickup_date": "2026-12-01",
        "contact_email": "ana@example.com", "notes": "Leave at the door"}}});
    p["requestState"] = json!(s1);
    let r2 = c.request(json!(2), "tools/call", p).await;
    let res = &r2["result"];
    assert_eq!(res["resultType"], "input_required");
    assert_eq!(
        res["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["confirm"]
    );
    let s2 = res["requestState"].as_str().unwrap().to_string();
    assert_ne!(s1, s2);

    let mut p = call("book_return", json!({"order_id": "A1"}), FORM());
    p["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    p["requestState"] = json!(s2);
    let r3 = c.request(json!(3), "tools/call", p).await;
    assert_eq!(
        r3["result"]["structuredContent"],
        json!({"orderId": "A1", "reason": "wrong_item", "boxes": 2, "pickupDate": "2026-12-01",
            "contactEmail": "ana@example.com", "notes": "Leave at the door", "status": "booked"})
    );
    assert_eq!(
        r3["result"]["content"],
        json!([{"type": "text", "text": "Return booked for order A1: 2 box(es) collected on \
            2026-12-01 (Wrong item); the label goes to ana@example.com. Notes: Leave at the door"}])
    );
    assert_eq!(r3["result"]["resultType"], "complete");
}

#[tokio::test]
async fn whole_float_for_an_integer_field_reads_as_the_integer() {
    let mut c = Client::start(test_server());
    let mut p = call("book_return", json!({"order_id": "A2"}), FORM());
    p["inputResponses"] = json!({"return": {"action": "accept", "content": {"reason": "damaged",
        "boxes": 3.0, "pickup_date": "2026-12-01", "contact_email": "ana@example.com"}}});
    let r = c.request(json!(1), "tools/call", p).await;
    let res = &r["result"];
    assert_eq!(res["resultType"], "input_required", "{r}");
    assert_eq!(
        res["inputRequests"]["confirm"]["params"]["message"],
        "Book a pickup of 3 box(es) on 2026-12-01 for order A2?"
    );
}

async fn first_round(c: &mut Client, tool: &str) -> (Value, String) {
    let r = c
        .request(json!(1), "tools/call", call(tool, json!({}), FORM()))
        .await;
    let state = r["result"]["requestState"].as_str().unwrap().to_string();
    (r, state)
}

fn retry(tool: &str, responses: Value, state: &str) -> Value {
    let mut p = call(tool, json!({}), FORM());
    p["inputResponses"] = responses;
    p["requestState"] = json!(state);
    p
}

#[tokio::test]
async fn basic_elicitation_fixture_exact() {
    let mut c = Client::start(test_server());
    let (r, _) = first_round(&mut c, "test_input_required_result_elicitation").await;
    assert_eq!(
        r["result"]["inputRequests"],
        json!({"user_name": {"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}})
    );
    // Answers without any state are accepted when they validate; extra keys ignored.
    let mut p = call("test_input_required_result_elicitation", json!({}), FORM());
    p["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}},
        "unknown_extra_key": {"x": 1}, "another_unexpected": 5});
    let r = c.request(json!(2), "tools/call", p).await;
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "Hello, Alice!"}])
    );
    // A wrong key re-asks.
    let mut p = call("test_input_required_result_elicitation", json!({}), FORM());
    p["inputResponses"] = json!({"wrong_key": {"action": "accept", "content": {"name": "Alice"}}});
    let r = c.request(json!(3), "tools/call", p).await;
    assert_eq!(r["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn malformed_input_responses() {
    let mut c = Client::start(test_server());
    let mut p = call("test_input_required_result_elicitation", json!({}), FORM());
    p["inputResponses"] = json!({"user_name": 12345});
    let r = c.request(json!(1), "tools/call", p).await;
    assert_eq!(r["error"]["code"], -32602);
    let mut p = call("test_input_required_result_elicitation", json!({}), FORM());
    p["inputResponses"] = Value::Null;
    let r = c.request(json!(2), "tools/call", p).await;
    assert_eq!(r["error"]["code"], -32602);
    // Accepted content that fails the schema is asked again, not an error.
    let mut p = call("test_input_required_result_elicitation", json!({}), FORM());
    p["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": 7}}});
    let r = c.request(json!(3), "tools/call", p).await;
    assert_eq!(r["result"]["resultType"], "input_required");
    assert!(r["result"]["inputRequests"]["user_name"].is_object());
}

#[tokio::test]
async fn multi_round_fixture() {
    let mut c = Client::start(test_server());
    let tool = "test_input_required_result_multi_round";
    let (r1, s1) = first_round(&mut c, tool).await;
    assert_eq!(
        r1["result"]["inputRequests"]["step1"]["params"]["message"],
        "Step 1: What is your name?"
    );
    let r2 = c
        .request(
            json!(2),
            "tools/call",
            retry(
                tool,
                json!({"step1": {"action": "accept", "content": {"name": "Ann"}}}),
                &s1,
            ),
        )
        .await;
    assert_eq!(
        r2["result"]["inputRequests"]["step2"]["params"]["message"],
        "Step 2: What is your favorite color?"
    );
    assert!(r2["result"]["inputRequests"].get("step1").is_none());
    let s2 = r2["result"]["requestState"].as_str().unwrap();
    assert_ne!(s1, s2);
    let r3 = c
        .request(
            json!(3),
            "tools/call",
            retry(
                tool,
                json!({"step2": {"action": "accept", "content": {"color": "blue"}}}),
                s2,
            ),
        )
        .await;
    assert_eq!(r3["result"]["resultType"], "complete");
    assert_eq!(
        r3["result"]["content"][0]["text"],
        r#"step1 action=accept, content={"name":"Ann"}; step2 action=accept, content={"color":"blue"}"#
    );
}

#[tokio::test]
async fn tampered_replayed_and_wrong_request_state() {
    // Replies to retries are kept for no time: a replay is refused at once.
    let server = builder()
        .config(ServerConfig::new().retry_reply_ttl(Duration::ZERO))
        .build();
    let mut c = Client::start(server);
    let tool = "test_input_required_result_tampered_state";
    let ok = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let (_, s) = first_round(&mut c, tool).await;
    let fixed =
        json!({"code": -32602, "message": "Invalid params: requestState is invalid or expired"});
    let r = c
        .request(
            json!(2),
            "tools/call",
            retry(tool, ok.clone(), &format!("{s}-TAMPERED")),
        )
        .await;
    assert_eq!(r["error"], fixed);
    // On another tool (request binding).
    let r = c
        .request(
            json!(3),
            "tools/call",
            retry("test_input_required_result_request_state", ok.clone(), &s),
        )
        .await;
    assert_eq!(r["error"], fixed);
    // The genuine state works once…
    let r = c
        .request(json!(4), "tools/call", retry(tool, ok.clone(), &s))
        .await;
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("state-ok")
    );
    // …and is refused when replayed.
    let r = c.request(json!(5), "tools/call", retry(tool, ok, &s)).await;
    assert_eq!(r["error"], fixed);
}

#[tokio::test]
async fn a_resent_retry_gets_the_same_reply_and_the_handler_runs_once() {
    let mut c = Client::start(test_server());
    let tool = "test_input_required_result_tampered_state";
    let ok = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let (_, s) = first_round(&mut c, tool).await;
    let first = c
        .request(json!(4), "tools/call", retry(tool, ok.clone(), &s))
        .await;
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    // The same retry again (its connection dropped, say): the same result,
    // under the new request's id; with other answers, still the first result.
    let again = c.request(json!(5), "tools/call", retry(tool, ok, &s)).await;
    assert_eq!(again["id"], 5);
    assert_eq!(again["result"], first["result"]);
    let other = c
        .request(
            json!(6),
            "tools/call",
            retry(tool, json!({"confirm": {"action": "decline"}}), &s),
        )
        .await;
    assert_eq!(other["result"], first["result"]);
}

#[tokio::test]
async fn state_is_bound_to_the_principal() {
    let server = builder().state_sealer(StateSealer::development()).build();
    let (sink, _rx) = frontdesk::server::transport::OutboundSink::channel();
    let alice = frontdesk::server::transport::RequestInfo::new().principal("alice");
    let mallory = frontdesk::server::transport::RequestInfo::new().principal("mallory");
    let tool = "test_input_required_result_request_state";
    let msg = |params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let h = server
        .handle_json(None, msg(call(tool, json!({}), FORM())), &sink, &alice)
        .await;
    let state = h.response_value().unwrap()["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let h = server
        .handle_json(
            None,
            msg(retry(
                tool,
                json!({"confirm": {"action": "decline"}}),
                &state,
            )),
            &sink,
            &mallory,
        )
        .await;
    assert_eq!(h.response_value().unwrap()["error"]["code"], -32602);
}

#[tokio::test]
async fn other_mrtr_fixtures() {
    let mut c = Client::start(test_server());
    let all = json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}});
    let sampling_answer = json!({"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
        "model": "test-model", "stopReason": "endTurn"});
    let roots_answer = json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]});

    let r = c
        .request(
            json!(1),
            "tools/call",
            call(
                "test_input_required_result_sampling",
                json!({}),
                all.clone(),
            ),
        )
        .await;
    let reqs = r["result"]["inputRequests"].as_object().unwrap();
    let (key, req) = reqs.iter().next().unwrap();
    assert_eq!(req["method"], "sampling/createMessage");
    assert_eq!(req["params"]["maxTokens"], 100);
    let mut p = call(
        "test_input_required_result_sampling",
        json!({}),
        all.clone(),
    );
    p["inputResponses"] = json!({key: sampling_answer});
    p["requestState"] = r["result"]["requestState"].clone();
    let r = c.request(json!(2), "tools/call", p).await;
    assert_eq!(
        r["result"]["content"][0]["text"],
        "Sampling answered: The capital of France is Paris."
    );

    let r = c
        .request(
            json!(3),
            "tools/call",
            call(
                "test_input_required_result_multiple_inputs",
                json!({}),
                all.clone(),
            ),
        )
        .await;
    let reqs = r["result"]["inputRequests"].as_object().unwrap();
    let methods: Vec<&str> = reqs
        .values()
        .map(|v| v["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );
    let mut p = call(
        "test_input_required_result_multiple_inputs",
        json!({}),
        all.clone(),
    );
    p["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": "Bo"}},
        "greeting": sampling_answer, "client_roots": roots_answer});
    p["requestState"] = r["result"]["requestState"].clone();
    let r = c.request(json!(4), "tools/call", p).await;
    assert_eq!(r["result"]["content"][0]["text"], "Received 3 answers.");

    // Only what the request declared.
    let r = c
        .request(
            json!(5),
            "tools/call",
            call(
                "test_input_required_result_capabilities",
                json!({}),
                json!({"sampling": {}}),
            ),
        )
        .await;
    let reqs = r["result"]["inputRequests"].as_object().unwrap();
    assert!(
        reqs.values()
            .all(|v| v["method"] == "sampling/createMessage"),
        "{reqs:?}"
    );

    // prompts/get
    let params = json!({"name": "test_input_required_result_prompt", "_meta": meta(FORM())});
    let r = c.request(json!(6), "prompts/get", params.clone()).await;
    assert_eq!(
        r["result"]["inputRequests"]["user_context"]["params"]["message"],
        "What context should the prompt use?"
    );
    let mut p = params;
    p["inputResponses"] =
        json!({"user_context": {"action": "accept", "content": {"context": "tests"}}});
    p["requestState"] = r["result"]["requestState"].clone();
    let r = c.request(json!(7), "prompts/get", p).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Use this context: tests"
    );
    assert_eq!(r["result"]["resultType"], "complete");

    // Logging only when asked; streaming tool sends no requests.
    let r = c
        .request(
            json!(8),
            "tools/call",
            call("test_logging_tool", json!({}), json!({})),
        )
        .await;
    assert_eq!(r["id"], 8);
    let r = c
        .request(
            json!(9),
            "tools/call",
            call("test_streaming_elicitation", json!({}), FORM()),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn missing_capability_is_32021() {
    let mut c = Client::start(test_server());
    let r = c
        .request(
            json!(1),
            "tools/call",
            call("book_return", json!({"order_id": "A"}), json!({})),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {}}})
    );
}

/// Issue 13 item 3: a re-ask after an invalid answer keeps what the person
/// got right (as the fields' defaults) and says what was wrong; the answer to
/// the re-ask completes the call, the original question's state still
/// applying.
#[tokio::test]
async fn a_reask_keeps_the_valid_values_as_defaults() {
    let mut c = Client::start(test_server());
    let args = json!({"order_id": "A1"});
    let r1 = c
        .request(
            json!(1),
            "tools/call",
            call("book_return", args.clone(), FORM()),
        )
        .await;
    let s1 = r1["result"]["requestState"].as_str().unwrap().to_string();
    let mut p = call("book_return", args.clone(), FORM());
    p["inputResponses"] = json!({"return": {"action": "accept", "content": {
        "reason": "wrong_item", "boxes": 2, "pickup_date": "2026-02-30",
        "contact_email": "ann@example.com"}}});
    p["requestState"] = json!(s1);
    let r2 = c.request(json!(2), "tools/call", p).await;
    assert_eq!(r2["result"]["resultType"], "input_required");
    let again = &r2["result"]["inputRequests"]["return"]["params"];
    let message = again["message"].as_str().unwrap();
    assert!(
        message.starts_with("Tell us about the return of order A1\n\nPlease check your answer: ")
            && message.contains("Pickup date must be a date"),
        "{message}"
    );
    let props = &again["requestedSchema"]["properties"];
    assert_eq!(props["reason"]["default"], "wrong_item");
    assert_eq!(props["boxes"]["default"], 2);
    assert_eq!(props["contact_email"]["default"], "ann@example.com");
    assert!(props["pickup_date"].get("default").is_none(), "{props}");
    // Answering the re-ask is answering the question.
    let s2 = r2["result"]["requestState"].as_str().unwrap().to_string();
    let mut p = call("book_return", args, FORM());
    p["inputResponses"] = json!({"return": {"action": "accept", "content": {
        "reason": "wrong_item", "boxes": 2, "pickup_date": "2026-03-02",
        "contact_email": "ann@example.com"}}});
    p["requestState"] = json!(s2);
    let r3 = c.request(json!(3), "tools/call", p).await;
    assert_eq!(r3["result"]["resultType"], "input_required");
    assert!(r3["result"]["inputRequests"]["confirm"].is_object(), "{r3}");
}

/// A retry whose connection drops while its round runs: sending it again
/// gets the round's result, and the handler's work was done once.
#[tokio::test]
async fn a_retry_dropped_mid_round_is_not_lost() {
    use frontdesk::form::FormSchema;
    use frontdesk::server::{Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolOutput};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let bookings = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&bookings);
    let schema = FormSchema::builder()
        .boolean("ok", |f| f.title("Book it?").required())
        .build()
        .unwrap();
    let server = Server::builder("slow-book", "0.0.1")
        .tool(ToolDef::new(
            "book",
            "Asks, then takes a while to book",
            move |cx: ToolContext, _: NoArgs| {
                let (schema, counter) = (schema.clone(), Arc::clone(&counter));
                async move {
                    match cx.ask(Question::schema("Book?", schema).key("ok")).await? {
                        Answer::Accepted(_) => {
                            tokio::time::sleep(Duration::from_millis(300)).await;
                            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                            Ok(ToolOutput::text(format!("booked #{n}")))
                        }
                        _ => Ok(ToolOutput::text("not booked")),
                    }
                }
            },
        ))
        .build();
    let (sink, _rx) = frontdesk::server::transport::OutboundSink::channel();
    let info = frontdesk::server::transport::RequestInfo::new();
    let msg = |id: u64, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let h = server
        .handle_json(None, msg(1, call("book", json!({}), FORM())), &sink, &info)
        .await;
    let state = h.response_value().unwrap()["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let answers = json!({"ok": {"action": "accept", "content": {"ok": true}}});
    // The connection drops 50 ms into the round.
    let dropped = tokio::time::timeout(
        Duration::from_millis(50),
        server.handle_json(
            None,
            msg(2, retry("book", answers.clone(), &state)),
            &sink,
            &info,
        ),
    )
    .await;
    assert!(dropped.is_err(), "the round should still be running");
    // The client sends the same retry again.
    let h = server
        .handle_json(None, msg(3, retry("book", answers, &state)), &sink, &info)
        .await;
    let r = h.response_value().unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "booked #1", "{r}");
    assert_eq!(bookings.load(Ordering::SeqCst), 1);
}

/// The load benchmark's call: its question exactly, and each answer's text.
#[tokio::test]
async fn bench_confirm_contract() {
    let mut c = Client::start(test_server());
    let first = c
        .request(
            json!(1),
            "tools/call",
            call("bench_confirm", json!({"n": 7}), FORM()),
        )
        .await;
    assert_eq!(
        first["result"]["inputRequests"],
        json!({"confirm": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Confirm 7?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        }}})
    );
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = [
        (
            json!({"action": "accept", "content": {"ok": true}}),
            "confirmed 7",
        ),
        (
            json!({"action": "accept", "content": {"ok": false}}),
            "not confirmed 7",
        ),
        (json!({"action": "decline"}), "declined"),
        (json!({"action": "cancel"}), "cancelled"),
    ];
    for (i, (answer, text)) in cases.into_iter().enumerate() {
        // A fresh first round each time: a state opens once.
        let state = if i == 0 {
            state.clone()
        } else {
            let r = c
                .request(
                    json!(10 + i),
                    "tools/call",
                    call("bench_confirm", json!({"n": 7}), FORM()),
                )
                .await;
            r["result"]["requestState"].as_str().unwrap().to_string()
        };
        let mut p = call("bench_confirm", json!({"n": 7}), FORM());
        p["inputResponses"] = json!({"confirm": answer});
        p["requestState"] = json!(state);
        let r = c.request(json!(20 + i), "tools/call", p).await;
        assert_eq!(r["result"]["content"][0]["text"], text, "{r}");
    }
}
