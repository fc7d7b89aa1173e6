//! The client against a hostile (or broken) server, over a scripted stdio
//! pipe, with the exact JSON it sends back:
//!
//! - every malformed request gets the JSON-RPC error the spec names (issue
//!   24 row 6): `-32602` for non-object `params`, `-32600` with `"id": null`
//!   when the id is unusable, `-32700` for a line that is not JSON, and
//!   nothing for a notification;
//! - on 2026-07-28 a server has no requests at all: `elicitation/create`,
//!   `sampling/createMessage`, `roots/list` and `ping` are `-32601`, and the
//!   person is never asked;
//! - a form whose `requestedSchema` is not an object form (row 5) is refused
//!   with `-32602` on 2025-11-25 and ends the call on 2026-07-28; it never
//!   reaches the person and is never answered `accept`; so is a request the
//!   handler refuses (`ElicitationHandler::refusal`, a relay's stricter rules).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::client::{Step, TestHandler};
use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, ClientError, Elicitation, ElicitationHandler, ElicitationResponse,
    HandlerModes, Notice, ProtocolChoice,
};
use frontdesk::wire::{ElicitRequestParams, Revision};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The server end of a scripted pipe.
struct Peer {
    /// Lines to write to the client (raw text: a line need not be JSON).
    push: mpsc::UnboundedSender<String>,
    /// Every message the client wrote.
    from_client: mpsc::UnboundedReceiver<Value>,
}

impl Peer {
    fn send(&self, line: impl Into<String>) {
        self.push.send(line.into()).unwrap();
    }

    /// The next message the client sends that is not a request or a
    /// notification of its own: a reply to the server.
    async fn reply(&mut self) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(5), self.from_client.recv())
                .await
                .ok()??;
            if message.get("method").is_none() {
                return Some(message);
            }
        }
    }
}

/// What the scripted server answers to one request of the client's
/// (`initialize` and `server/discover` are answered already).
type OnRequest = Box<dyn FnMut(&Value) -> Vec<String> + Send>;

fn result(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// A client connected to a scripted server speaking `revision`.
async fn connect(
    revision: Revision,
    handler: Arc<dyn ElicitationHandler>,
    config: ClientConfig,
    mut on_request: OnRequest,
) -> (Client, Peer) {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (push, mut pushed) = mpsc::unbounded_channel::<String>();
    let (to_test, from_client) = mpsc::unbounded_channel::<Value>();
    let answers = push.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_io);
        let mut lines = BufReader::new(read).lines();
        loop {
            tokio::select! {
                line = lines.next_line() => {
                    let Ok(Some(line)) = line else { break };
                    let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
                    let id = message["id"].clone();
                    let out = match message["method"].as_str() {
                        Some("initialize") => vec![result(&id, json!({
                            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "hostile", "version": "1"}}))],
                        Some("server/discover") => vec![result(&id, json!({
                            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                            "serverInfo": {"name": "hostile", "version": "1"}}))],
                        Some(_) if !id.is_null() => on_request(&message),
                        _ => Vec::new(),
                    };
                    let _ = to_test.send(message);
                    for line in out {
                        let _ = answers.send(line);
                    }
                }
                line = pushed.recv() => {
                    let Some(line) = line else { break };
                    if write.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let (r, w) = tokio::io::split(client_io);
    let config = config.protocol(ProtocolChoice::Only(revision));
    let client = Client::connect_io(r, w, config, handler).await.unwrap();
    (client, Peer { push, from_client })
}

fn no_requests() -> OnRequest {
    Box::new(|_| Vec::new())
}

#[tokio::test]
async fn every_malformed_request_gets_the_error_the_spec_names() {
    let handler = TestHandler::new([]);
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        handler.clone(),
        ClientConfig::default(),
        no_requests(),
    )
    .await;
    let cases: [(&str, Value); 8] = [
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[1,2]}"#,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602,
                "message": "Invalid params: \"params\" must be an object, got an array"}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
                "message": "Invalid request: request \"id\" must not be null"}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
                "message": "Invalid request: \"id\" must be a string or an integer, got an object"}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":"ask"}"#,
            json!({"jsonrpc": "2.0", "id": "e-1", "error": {"code": -32602,
                "message": "Invalid params: \"params\" must be an object, got a string"}}),
        ),
        (
            r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32600,
                "message": "Invalid request: \"jsonrpc\" must be \"2.0\", got \"1.0\""}}),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":9,"method":"ping"}]"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
                "message": "Invalid request: JSON-RPC batches are not supported"}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"no/such"}"#,
            json!({"jsonrpc": "2.0", "id": 10, "error": {"code": -32601,
                "message": "Method not found: no/such"}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"ping""#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                "message": "Parse error: EOF while parsing an object at line 1 column 40"}}),
        ),
    ];
    for (line, expected) in cases {
        // A malformed notification first: it gets no reply at all.
        peer.send(r#"{"jsonrpc":"2.0","method":"notifications/message","params":[1]}"#);
        peer.send(line);
        let got = peer.reply().await;
        assert_eq!(got.as_ref(), Some(&expected), "{line}");
    }
    // Nothing more: one reply per request, none for the notifications.
    peer.send(r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": "last", "result": {}}))
    );
    assert!(handler.seen().is_empty());
    client.close().await;
}

/// A line over the client's bound (16 MiB) is skipped without being held
/// and answered like the server answers one; the next line is read.
#[tokio::test]
async fn an_over_long_line_is_skipped_and_answered() {
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        TestHandler::new([]),
        ClientConfig::default(),
        no_requests(),
    )
    .await;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(16 * 1024 * 1024)
    );
    peer.send(long);
    assert_eq!(
        peer.reply().await,
        Some(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
            "message": "Invalid request: message larger than 16777216 bytes"}})
        )
    );
    peer.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": 2, "result": {}}))
    );
    client.close().await;
}

/// 2026-07-28 has no server requests: each of the four a 2025-11-25 server
/// may send is "method not found", and the person is never asked.
#[tokio::test]
async fn a_modern_connection_answers_no_server_request() {
    let handler = TestHandler::new([Step::Accept(json!({"ok": true}))]);
    let (client, mut peer) = connect(
        Revision::V2026_07_28,
        handler.clone(),
        ClientConfig::default(),
        no_requests(),
    )
    .await;
    let form = json!({"mode": "form", "message": "OK?", "requestedSchema": {
        "type": "object", "properties": {"ok": {"type": "boolean"}}}});
    let sampling = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 5});
    for (id, method, params) in [
        (41, "elicitation/create", Some(form)),
        (42, "sampling/createMessage", Some(sampling)),
        (43, "roots/list", None),
        (44, "ping", None),
    ] {
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            request["params"] = p;
        }
        peer.send(request.to_string());
        assert_eq!(
            peer.reply().await,
            Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                "message": format!("Method not found: {method} (2026-07-28 servers send no requests)")}})),
            "{method}"
        );
    }
    assert!(handler.seen().is_empty(), "the person was asked");
    client.close().await;
}

/// A config that records every notice.
fn noting() -> (ClientConfig, Arc<Mutex<Vec<Notice>>>) {
    let notices = Arc::new(Mutex::new(Vec::new()));
    let log = notices.clone();
    let config = ClientConfig::default().on_notice(move |n| log.lock().unwrap().push(n.clone()));
    (config, notices)
}

fn form_request(id: Value, schema: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "form", "message": "Which ones?", "requestedSchema": schema}})
    .to_string()
}

/// 2025-11-25: a schema that is not an object form is `-32602` with the
/// reason, the person hears why and is never asked.
#[tokio::test]
async fn a_form_that_is_not_an_object_is_refused_live() {
    // Were the refused forms shown, this person would accept them empty.
    let handler = TestHandler::new([Step::Accept(json!({})), Step::Accept(json!({}))]);
    let (config, notices) = noting();
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        handler.clone(),
        config,
        no_requests(),
    )
    .await;
    let refused = [
        (
            json!(5),
            json!({"type": "array", "items": {"type": "string"}}),
        ),
        (
            json!("no-type"),
            json!({"properties": {"name": {"type": "string"}}}),
        ),
    ];
    for (id, schema) in refused {
        peer.send(form_request(id.clone(), schema));
        assert_eq!(
            peer.reply().await,
            Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602,
                "message": "requestedSchema cannot be used: the schema's \"type\" must be \"object\""}}))
        );
    }
    assert!(
        handler.seen().is_empty(),
        "an unusable form reached the person"
    );
    let noticed = notices.lock().unwrap().clone();
    assert_eq!(
        noticed
            .iter()
            .filter(|n| matches!(n, Notice::FormRefused { reason, .. }
                if reason == "requestedSchema cannot be used: the schema's \"type\" must be \"object\""))
            .count(),
        2,
        "{noticed:?}"
    );

    client.close().await;
}

/// Unsupported fields are not a refusal (the lenient reader): the form is
/// shown, and the person's answer goes back.
#[tokio::test]
async fn a_form_with_only_unsupported_fields_is_still_shown() {
    let handler = TestHandler::new([Step::Decline]);
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        handler.clone(),
        ClientConfig::default(),
        no_requests(),
    )
    .await;
    peer.send(form_request(
        json!(6),
        json!({"type": "object", "properties": {"address": {"type": "object"}}}),
    ));
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": 6, "result": {"action": "decline"}}))
    );
    assert_eq!(handler.seen().len(), 1);
    client.close().await;
}

/// 2026-07-28: the same form inside `input_required` ends the call with the
/// reason; nothing is sent back (no retry, so no invented answer), and the
/// person is never asked.
#[tokio::test]
async fn a_form_that_is_not_an_object_ends_a_modern_call() {
    let handler = TestHandler::new([Step::Accept(json!({}))]);
    let (config, notices) = noting();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let on_request: OnRequest = Box::new(move |message| {
        if message["method"] != "tools/call" {
            return Vec::new();
        }
        let n = counted.fetch_add(1, Ordering::SeqCst);
        let answer = if n == 0 {
            json!({"resultType": "input_required", "inputRequests": {"pick": {
                "method": "elicitation/create", "params": {"mode": "form",
                "message": "Which ones?", "requestedSchema": {"type": "array"}}}}})
        } else {
            json!({"resultType": "complete", "content": [{"type": "text", "text": "agreed"}]})
        };
        vec![result(&message["id"], answer)]
    });
    let (client, _peer) = connect(Revision::V2026_07_28, handler.clone(), config, on_request).await;
    let outcome = client.call_tool("pick", json!({})).await;
    match outcome {
        Err(ClientError::Refused { request, reason }) => {
            assert_eq!(request, "elicitation/create");
            assert_eq!(
                reason,
                "requestedSchema cannot be used: the schema's \"type\" must be \"object\""
            );
        }
        other => panic!("expected the call to be refused, got {other:?}"),
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the call was retried");
    assert!(
        handler.seen().is_empty(),
        "an unusable form reached the person"
    );
    assert!(
        notices
            .lock()
            .unwrap()
            .iter()
            .any(|n| matches!(n, Notice::FormRefused { key, .. } if key == "pick"))
    );
    client.close().await;
}

/// `ClientConfig::unchecked_answers` (for test tools such as `frontdesk
/// audit`): its result goes to the server exactly as returned, without the
/// person being asked and without the form's validation; when it returns
/// `None` the request takes the normal path, where the same invalid answer
/// never leaves the client.
#[tokio::test]
async fn the_unchecked_answers_hook_sends_its_result_as_given() {
    let handler = TestHandler::new([Step::Accept(json!({"m": "not a number"})), Step::Decline]);
    let unchecked: frontdesk::client::UncheckedAnswers = Arc::new(|params| {
        let schema = match params {
            frontdesk_wire::ElicitRequestParams::Form(p) => &p.requested_schema,
            _ => return None,
        };
        schema["properties"].get("n").map(|_| {
            json!({"action": "accept", "content": {"n": "not a number"}})
                .as_object()
                .cloned()
                .unwrap_or_default()
        })
    });
    let config = ClientConfig {
        unchecked_answers: Some(unchecked),
        ..ClientConfig::default()
    };
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        handler.clone(),
        config,
        no_requests(),
    )
    .await;
    let number = json!({"type": "object", "properties": {"n": {"type": "integer"}},
        "required": ["n"]});
    peer.send(form_request(json!(1), number));
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": 1,
            "result": {"action": "accept", "content": {"n": "not a number"}}}))
    );
    assert!(
        handler.seen().is_empty(),
        "the hook's answer asked the person"
    );
    // Another form: the hook declines to answer, so the person is asked, the
    // invalid answer goes back to them, and their decline is sent.
    let other = json!({"type": "object", "properties": {"m": {"type": "integer"}},
        "required": ["m"]});
    peer.send(form_request(json!(2), other));
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": 2, "result": {"action": "decline"}}))
    );
    assert_eq!(handler.seen().len(), 2);
    client.close().await;
}

/// A relay's stricter rules: refuses every form with an object property
/// (a gateway holds forms to the elicitation subset), shows the rest.
struct NoNesting(Arc<TestHandler>);

impl ElicitationHandler for NoNesting {
    fn modes(&self) -> HandlerModes {
        self.0.modes()
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        self.0.elicit(request)
    }

    fn refusal(&self, params: &ElicitRequestParams) -> Option<String> {
        let ElicitRequestParams::Form(form) = params else {
            return None;
        };
        let nested = form.requested_schema["properties"]
            .as_object()
            .is_some_and(|p| p.values().any(|f| f["type"] == "object"));
        nested.then(|| "nested objects are not relayed".to_string())
    }
}

/// `ElicitationHandler::refusal`: 2025-11-25 answers `-32602` with the
/// handler's reason (the form the lenient reader would show, unseen);
/// 2026-07-28 ends the call, nothing sent back. (Were it shown, the person
/// here would accept it empty.)
#[tokio::test]
async fn a_request_the_handler_refuses_is_never_shown() {
    let nested = json!({"type": "object", "properties": {"address": {"type": "object"}}});
    let inner = TestHandler::new([Step::Accept(json!({})), Step::Decline]);
    let (config, notices) = noting();
    let (client, mut peer) = connect(
        Revision::V2025_11_25,
        Arc::new(NoNesting(inner.clone())),
        config,
        no_requests(),
    )
    .await;
    peer.send(form_request(json!(8), nested.clone()));
    assert_eq!(
        peer.reply().await,
        Some(json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32602,
            "message": "nested objects are not relayed"}}))
    );
    assert!(inner.seen().is_empty(), "a refused form reached the person");
    assert!(notices.lock().unwrap().iter().any(
        |n| matches!(n, Notice::FormRefused { reason, .. } if reason == "nested objects are not relayed")
    ));
    client.close().await;

    let on_request: OnRequest = Box::new(move |message| {
        if message["method"] != "tools/call" {
            return Vec::new();
        }
        vec![result(
            &message["id"],
            json!({"resultType": "input_required", "inputRequests": {"where": {
                "method": "elicitation/create", "params": {"mode": "form",
                "message": "Where?", "requestedSchema": nested.clone()}}}}),
        )]
    });
    let (client, _peer) = connect(
        Revision::V2026_07_28,
        Arc::new(NoNesting(inner.clone())),
        ClientConfig::default(),
        on_request,
    )
    .await;
    match client.call_tool("where", json!({})).await {
        Err(ClientError::Refused { request, reason }) => {
            assert_eq!(request, "elicitation/create");
            assert_eq!(reason, "nested objects are not relayed");
        }
        other => panic!("expected the call to be refused, got {other:?}"),
    }
    assert!(inner.seen().is_empty(), "a refused form reached the person");
    client.close().await;
}

/// A server that closes its output but keeps reading (a crashed writer, a
/// proxy that half-closed): a request made after the client saw the end of
/// its output fails at once with `Closed`, not after the request timeout.
#[tokio::test]
async fn a_request_after_the_server_closed_its_output_fails_at_once() {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_io);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["method"] == "initialize" {
                let reply = result(
                    &message["id"],
                    json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "half-closed", "version": "1"}}),
                );
                let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
                let _ = write.shutdown().await;
            }
        }
    });
    let (r, w) = tokio::io::split(client_io);
    let config = ClientConfig::default().protocol(ProtocolChoice::Only(Revision::V2025_11_25));
    let client = Client::connect_io(r, w, config, TestHandler::new([]))
        .await
        .unwrap();
    // Let the client read the end of the server's output first.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let outcome = tokio::time::timeout(Duration::from_secs(5), client.list_tools()).await;
    assert!(
        matches!(outcome, Ok(Err(ClientError::Closed))),
        "{outcome:?}"
    );
}
