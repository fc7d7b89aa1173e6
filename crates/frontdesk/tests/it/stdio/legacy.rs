//! 2025-11-25 over stdio: handshake, live elicitation, decline/cancel,
//! cancellation, capability gating, re-ask on invalid content, timeouts.

use std::time::Duration;

use frontdesk::Form;
use frontdesk_demo::ReturnForm;
use serde_json::{Value, json};

/// The `requestedSchema` of `book_return`'s form, as it goes on the wire.
fn return_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "Why you are sending it back.",
                "oneOf": [
                    {"const": "damaged", "title": "It arrived damaged"},
                    {"const": "wrong_item", "title": "Wrong item"},
                    {"const": "not_needed", "title": "No longer needed"}
                ]
            },
            "boxes": {
                "type": "integer",
                "title": "Number of boxes",
                "description": "How many boxes the courier collects.",
                "minimum": 1,
                "maximum": 3,
                "default": 1
            },
            "pickup_date": {
                "type": "string",
                "title": "Pickup date",
                "description": "The day the courier comes.",
                "format": "date"
            },
            "contact_email": {
                "type": "string",
                "title": "Contact email",
                "description": "Where we send the return label.",
                "format": "email"
            },
            "notes": {
                "type": "string",
                "title": "Notes",
                "description": "Anything the courier should know.",
                "maxLength": 500
            }
        },
        "required": ["reason", "pickup_date", "contact_email"]
    })
}

use crate::support::stdio::{Client, builder, test_client, test_server};

async fn start_book_return(c: &mut Client) -> Value {
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A1"}}}))
        .await;
    c.recv().await
}

#[tokio::test]
async fn initialize_then_list_tools() {
    let mut c = Client::start(test_server());
    let init = c.initialize(json!({"elicitation": {}})).await;
    assert_eq!(
        init,
        json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": {"listChanged": true},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "logging": {},
                "completions": {}
            },
            "serverInfo": {"name": "brightgrid-test", "version": "0.0.1"},
            "instructions": "Brightgrid store assistant: book returns and connect your store account."
        }})
    );
    let list = c.request(json!(1), "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let book = tools.iter().find(|t| t["name"] == "book_return").unwrap();
    assert_eq!(book["inputSchema"]["type"], "object");
    assert_eq!(book["inputSchema"]["required"], json!(["order_id"]));
    assert!(tools.iter().all(|t| t["description"].is_string()));
    assert!(list["result"].get("resultType").is_none());
    c.close().await.unwrap();
}

#[tokio::test]
async fn unsupported_version_gets_our_latest() {
    let mut c = Client::start(test_server());
    let r = c
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
        )
        .await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn book_return_accept_then_confirm() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let ask = start_book_return(&mut c).await;
    assert_eq!(
        ask,
        json!({"jsonrpc": "2.0", "id": "fd-1", "method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Tell us about the return of order A1",
            "requestedSchema": return_schema()
        }})
    );
    assert_eq!(ReturnForm::schema().to_json(), return_schema());
    c.reply(
        &ask["id"],
        json!({"action": "accept", "content": {"reason": "damaged", "pickup_date": "2026-12-01",
            "contact_email": "ana@example.com"}}),
    )
    .await;
    let confirm = c.recv().await;
    assert_eq!(confirm["method"], "elicitation/create");
    assert_eq!(confirm["id"], "fd-2");
    assert_eq!(
        confirm["params"]["message"],
        "Book a pickup of 1 box(es) on 2026-12-01 for order A1?"
    );
    c.reply(
        &confirm["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    )
    .await;
    let done = c.recv().await;
    assert_eq!(done["id"], 2);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"orderId": "A1", "reason": "damaged", "boxes": 1, "pickupDate": "2026-12-01",
            "contactEmail": "ana@example.com", "notes": null, "status": "booked"})
    );
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Return booked for order A1: 1 box(es) collected on \
            2026-12-01 (It arrived damaged); the label goes to ana@example.com."}])
    );
    assert_eq!(done["result"]["isError"], false);
    c.close().await.unwrap();
}

#[tokio::test]
async fn book_return_decline_and_cancel() {
    for (action, text) in [
        ("decline", "No return was booked: the person declined."),
        (
            "cancel",
            "No return was booked: the question was dismissed.",
        ),
    ] {
        let mut c = Client::start(test_server());
        c.initialize(json!({"elicitation": {"form": {}}})).await;
        let ask = start_book_return(&mut c).await;
        c.reply(&ask["id"], json!({"action": action})).await;
        let done = c.recv().await;
        assert_eq!(
            done["result"]["content"],
            json!([{"type": "text", "text": text}])
        );
    }
}

#[tokio::test]
async fn invalid_content_is_asked_again_then_fails() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let ask = start_book_return(&mut c).await;
    c.reply(
        &ask["id"],
        json!({"action": "accept", "content": {"reason": "stolen", "boxes": 9,
            "contact_email": "not an email"}}),
    )
    .await;
    let again = c.recv().await;
    assert_eq!(again["method"], "elicitation/create");
    let msg = again["params"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Tell us about the return of order A1\n\nPlease check your answer: "),
        "{msg}"
    );
    assert!(
        msg.contains("Contact email must be an email address like name@example.com"),
        "{msg}"
    );
    // What was right is kept as the fields' defaults; what was wrong is not.
    let props = &again["params"]["requestedSchema"]["properties"];
    assert!(props["reason"].get("default").is_none(), "{props}");
    assert_eq!(props["boxes"]["default"], 1, "the form's own default stays");
    assert!(props["contact_email"].get("default").is_none(), "{props}");
    c.reply(
        &again["id"],
        json!({"action": "accept", "content": {"reason": "stolen"}}),
    )
    .await;
    let done = c.recv().await;
    assert_eq!(done["result"]["isError"], true);
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("The answer did not fit the form:"),
        "{text}"
    );
}

#[tokio::test]
async fn url_only_client_gets_no_form() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {"url": {}}})).await;
    let done = start_book_return(&mut c).await;
    assert_eq!(done["id"], 2, "no elicitation/create was sent: {done}");
    assert_eq!(done["result"]["isError"], true);
}

#[tokio::test]
async fn form_only_client_never_gets_a_url_request() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let done = c
        .request(
            json!(5),
            "tools/call",
            json!({"name": "connect_store_account", "arguments": {}}),
        )
        .await;
    assert_eq!(done["id"], 5, "no URL request was sent: {done}");
    assert_eq!(done["result"]["isError"], true);
    c.quiet(100).await;
}

#[tokio::test]
async fn client_cancel_closes_the_question() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let ask = start_book_return(&mut c).await;
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "user gave up"}}),
    )
    .await;
    let cancel = c.recv().await;
    assert_eq!(
        cancel,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": ask["id"], "reason": "The server no longer needs this answer."}})
    );
    // A late answer is ignored and the tools/call gets no response.
    c.reply(&ask["id"], json!({"action": "decline"})).await;
    c.quiet(150).await;
    // The loop keeps serving.
    let pong = c.request(json!(9), "ping", json!({})).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
}

#[tokio::test(start_paused = true)]
async fn human_wait_budget_then_keepalives_and_timeout() {
    let mut config = frontdesk::server::ServerConfig::default();
    config.human_wait = Duration::from_secs(7);
    config.keepalive_interval = Duration::from_secs(3);
    let server = builder().config(config).build();
    let mut c = Client::start(server);
    c.initialize(json!({"elicitation": {}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "B2"}, "_meta": {"progressToken": "p1"}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    for n in 1..=2 {
        let p = c.recv().await;
        assert_eq!(
            p,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "p1", "progress": n, "message": "Waiting for the person to answer"}})
        );
    }
    let cancel = c.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], ask["id"]);
    let done = c.recv().await;
    assert_eq!(done["id"], 3);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "No answer arrived in the time allowed."
    );
}

#[tokio::test]
async fn disconnect_mid_question_ends_the_loop() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let _ask = start_book_return(&mut c).await;
    c.close().await.unwrap();
}

/// A shutdown signal (SIGTERM for `frontdesk serve --stdio`) while the
/// person answers: the question is withdrawn with a reason, the call gets an
/// answer that says to call again, and the loop ends with its input open.
#[tokio::test]
async fn a_shutdown_withdraws_the_question_and_answers_the_call() {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let mut c = Client::start_with_shutdown(test_server(), async {
        let _ = stopped.await;
    });
    c.initialize(json!({"elicitation": {}})).await;
    let ask = start_book_return(&mut c).await;
    assert_eq!(ask["method"], "elicitation/create");
    stop.send(()).unwrap();
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": ask["id"], "reason": "The server is shutting down."}})
    );
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text",
            "text": "The server is shutting down before the question was answered; call the tool again."}],
            "isError": true}})
    );
    tokio::time::timeout(Duration::from_secs(2), c.task)
        .await
        .expect("the loop ends")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn conformance_fixtures_2025() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"sampling": {}, "elicitation": {}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "test_elicitation", "arguments": {"message": "Please provide your information"}}}))
        .await;
    let ask = c.recv().await;
    assert_eq!(
        ask["params"],
        json!({"mode": "form", "message": "Please provide your information", "requestedSchema": {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        }})
    );
    c.reply(&ask["id"], json!({"action": "accept", "content": {"username": "testuser", "email": "test@example.com"}}))
        .await;
    let done = c.recv().await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        r#"User response: action=accept, content={"username":"testuser","email":"test@example.com"}"#
    );

    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "test_elicitation_sep1034_defaults"}}))
        .await;
    let ask = c.recv().await;
    let props = &ask["params"]["requestedSchema"]["properties"];
    assert_eq!(props["score"]["default"], 95.5);
    assert_eq!(props["status"]["default"], "active");
    c.reply(&ask["id"], json!({"action": "accept", "content": {"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false}}))
        .await;
    assert_eq!(c.recv().await["result"]["isError"], false);

    c.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "test_elicitation_sep1330_enums", "arguments": {}}}))
        .await;
    let ask = c.recv().await;
    let props = &ask["params"]["requestedSchema"]["properties"];
    assert_eq!(
        props["legacyEnum"]["enumNames"],
        json!(["Option One", "Option Two", "Option Three"])
    );
    assert_eq!(
        props["titledMulti"]["items"]["anyOf"][0],
        json!({"const": "value1", "title": "First Choice"})
    );
    c.reply(&ask["id"], json!({"action": "accept", "content": {"untitledSingle": "option1", "titledSingle": "value1",
        "legacyEnum": "opt1", "untitledMulti": ["option1", "option2"], "titledMulti": ["value1", "value2"]}}))
        .await;
    let done = c.recv().await;
    assert_eq!(done["result"]["isError"], false, "{done}");
}

#[tokio::test]
async fn requests_before_initialize_are_refused() {
    let mut c = Client::start(test_server());
    let r = c.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], 1);
}

/// `initialize` without the `notifications/initialized` that should follow.
async fn initialize_only(c: &mut Client) {
    let r = c
        .request(
            json!(0),
            "initialize",
            test_client()
                .capabilities(json!({"elicitation": {}}))
                .initialize_params(),
        )
        .await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn questions_wait_for_initialized() {
    let mut c = Client::start(test_server());
    initialize_only(&mut c).await;
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A1"}}}))
        .await;
    // The call is in flight, but the server sends no request before initialized.
    c.quiet(300).await;
    let pong = c.request(json!(3), "ping", json!({})).await;
    assert_eq!(pong["id"], 3);
    c.send(frontdesk_testkit::initialized()).await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["requestedSchema"], return_schema());
    c.reply(&ask["id"], json!({"action": "decline"})).await;
    let done = c.recv().await;
    assert_eq!(done["id"], 2);
    assert_eq!(done["result"]["isError"], false, "{done}");
}

#[tokio::test(start_paused = true)]
async fn waiting_for_initialized_is_bounded_and_cancellable() {
    let mut config = frontdesk::server::ServerConfig::default();
    config.human_wait = Duration::from_secs(5);
    let mut c = Client::start(builder().config(config).build());
    initialize_only(&mut c).await;
    // Cancelled while waiting: no question, no response.
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A1"}}}))
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2}}),
    )
    .await;
    // Never initialized: the call ends when the human-wait budget is spent,
    // and the question was never sent.
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A1"}}}))
        .await;
    let done = c.recv().await;
    assert_eq!(done["id"], 3);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "No answer arrived in the time allowed."
    );
}

/// Issue 13 item 3, 2025-11-25: the re-ask pre-fills what the person got right.
#[tokio::test]
async fn a_reask_keeps_the_valid_values_as_defaults() {
    let mut c = Client::start(test_server());
    c.initialize(json!({"elicitation": {}})).await;
    let ask = start_book_return(&mut c).await;
    c.reply(
        &ask["id"],
        json!({"action": "accept", "content": {"reason": "damaged", "boxes": 3,
            "pickup_date": "2026-12-24", "contact_email": "not an email"}}),
    )
    .await;
    let again = c.recv().await;
    let props = &again["params"]["requestedSchema"]["properties"];
    assert_eq!(props["reason"]["default"], "damaged");
    assert_eq!(props["boxes"]["default"], 3);
    assert_eq!(props["pickup_date"]["default"], "2026-12-24");
    assert!(props["contact_email"].get("default").is_none(), "{props}");
}
