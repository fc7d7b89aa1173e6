//! The client against the brightgrid demo (and tiny test servers), both
//! revisions, in-process and over Streamable HTTP, with scripted answers.

use std::sync::Arc;
use std::time::Duration;

use crate::support::client::{self as support, Step, TestHandler, Wire};
use crate::support::url_required_server;
use frontdesk::client::{
    Client, ClientError, ElicitationKind, HandlerModes, HeadlessHandler, ProtocolChoice, Round,
};
use frontdesk::form::FormSchema;
use frontdesk::server::{Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolOutput};
use frontdesk::wire::RetryFields;
use frontdesk::wire::Revision;
use frontdesk_demo::{self as demo, DemoOptions};
use frontdesk_wire::CallToolResult;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy)]
enum Via {
    InProcess,
    Http,
}

struct Conn {
    client: Client,
    _http: Option<support::HttpServer>,
}

async fn connect(
    via: Via,
    protocol: ProtocolChoice,
    wire: &Wire,
    handler: Arc<TestHandler>,
) -> Conn {
    let config = wire.config(protocol);
    match via {
        Via::InProcess => Conn {
            client: support::in_process(support::brightgrid().await, config, handler).await,
            _http: None,
        },
        Via::Http => {
            let server = support::http_demo().await;
            let client = Client::connect_http(&server.mcp, config, handler)
                .await
                .unwrap();
            Conn {
                client,
                _http: Some(server),
            }
        }
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| b.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

fn good_return() -> Step {
    Step::Accept(json!({
        "reason": "damaged",
        "pickup_date": "2026-09-01",
        "contact_email": "ada@example.com"
    }))
}

async fn book_return_accepted(via: Via, protocol: ProtocolChoice, expect: Revision) {
    let wire = Wire::default();
    let handler = TestHandler::new([good_return(), Step::Accept(json!({"confirm": true}))]);
    let c = connect(via, protocol, &wire, handler.clone()).await;
    assert_eq!(c.client.revision(), expect);
    assert!(c.client.server_info().name.starts_with("brightgrid"));
    let tools = c.client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "book_return"));
    let result = c
        .client
        .call_tool("book_return", json!({"order_id": "A-1001"}))
        .await
        .unwrap();
    let s = result.structured_content.clone().unwrap();
    assert_eq!(s["orderId"], "A-1001");
    assert_eq!(s["reason"], "damaged");
    assert_eq!(s["boxes"], 1, "the default was applied before sending");
    assert_eq!(s["contactEmail"], "ada@example.com");
    assert_eq!(s["status"], "booked");
    let seen = handler.seen();
    assert_eq!(seen.len(), 2);
    assert!(seen[0].message.contains("A-1001"));
    assert_eq!(
        seen[0].origin.request.as_deref(),
        Some("tools/call book_return")
    );
    let ElicitationKind::Form { form, prefill } = &seen[0].kind else {
        panic!("form expected");
    };
    assert!(form.schema.field("pickup_date").is_some());
    assert_eq!(prefill["boxes"], 1);
    c.client.close().await;
}

#[tokio::test]
async fn legacy_in_process_book_return() {
    book_return_accepted(
        Via::InProcess,
        ProtocolChoice::Only(Revision::V2025_11_25),
        Revision::V2025_11_25,
    )
    .await;
}

#[tokio::test]
async fn modern_in_process_book_return_by_discovery() {
    book_return_accepted(Via::InProcess, ProtocolChoice::Auto, Revision::V2026_07_28).await;
}

#[tokio::test]
async fn legacy_http_book_return() {
    book_return_accepted(
        Via::Http,
        ProtocolChoice::Only(Revision::V2025_11_25),
        Revision::V2025_11_25,
    )
    .await;
}

#[tokio::test]
async fn modern_http_book_return_by_discovery() {
    book_return_accepted(Via::Http, ProtocolChoice::Auto, Revision::V2026_07_28).await;
}

async fn refusal(via: Via, protocol: ProtocolChoice, step: Step, expect: &str) {
    let wire = Wire::default();
    let handler = TestHandler::new([step]);
    let c = connect(via, protocol, &wire, handler).await;
    let result = c
        .client
        .call_tool("book_return", json!({"order_id": "A-7"}))
        .await
        .unwrap();
    assert_eq!(text(&result), expect);
    c.client.close().await;
}

#[tokio::test]
async fn decline_reaches_the_server_in_both_eras() {
    let declined = "No return was booked: the person declined.";
    refusal(
        Via::InProcess,
        ProtocolChoice::Only(Revision::V2025_11_25),
        Step::Decline,
        declined,
    )
    .await;
    refusal(
        Via::Http,
        ProtocolChoice::Only(Revision::V2026_07_28),
        Step::Decline,
        declined,
    )
    .await;
}

#[tokio::test]
async fn cancel_reaches_the_server_in_both_eras() {
    let dismissed = "No return was booked: the question was dismissed.";
    refusal(
        Via::InProcess,
        ProtocolChoice::Only(Revision::V2026_07_28),
        Step::Cancel,
        dismissed,
    )
    .await;
    refusal(
        Via::Http,
        ProtocolChoice::Only(Revision::V2025_11_25),
        Step::Cancel,
        dismissed,
    )
    .await;
}

async fn invalid_goes_back_to_the_person(via: Via, protocol: ProtocolChoice) {
    let wire = Wire::default();
    let handler = TestHandler::new([
        Step::Accept(json!({"reason": "bogus-reason", "pickup_date": "2026-09-01", "boxes": 9})),
        good_return(),
        Step::Accept(json!({"confirm": true})),
    ]);
    let c = connect(via, protocol, &wire, handler.clone()).await;
    let result = c
        .client
        .call_tool("book_return", json!({"order_id": "B-2"}))
        .await
        .unwrap();
    assert_eq!(result.structured_content.unwrap()["status"], "booked");
    let seen = handler.seen();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].previous_errors.is_none());
    let errors = seen[1]
        .previous_errors
        .clone()
        .expect("the problems came back");
    assert!(errors.for_field("reason").next().is_some());
    assert!(errors.for_field("boxes").next().is_some());
    assert!(
        !wire.sent_text().contains("bogus-reason"),
        "the server never saw it"
    );
    c.client.close().await;
}

#[tokio::test]
async fn invalid_answer_modern_in_process() {
    invalid_goes_back_to_the_person(Via::InProcess, ProtocolChoice::Only(Revision::V2026_07_28))
        .await;
}

#[tokio::test]
async fn invalid_answer_legacy_http() {
    invalid_goes_back_to_the_person(Via::Http, ProtocolChoice::Only(Revision::V2025_11_25)).await;
}

async fn url_sign_in(via: Via, protocol: ProtocolChoice) {
    let wire = Wire::default();
    let handler = TestHandler::new([Step::SignIn]);
    let c = connect(via, protocol, &wire, handler.clone()).await;
    let result = c
        .client
        .call_tool("connect_store_account", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&result), "Your store account is connected.");
    let seen = handler.seen();
    let ElicitationKind::Url {
        review,
        elicitation_id,
    } = &seen[0].kind
    else {
        panic!("URL expected");
    };
    assert!(review.may_open());
    assert_eq!(
        elicitation_id.is_some(),
        protocol == ProtocolChoice::Only(Revision::V2025_11_25)
    );
    c.client.close().await;
}

#[tokio::test]
async fn url_mode_modern_in_process() {
    url_sign_in(Via::InProcess, ProtocolChoice::Only(Revision::V2026_07_28)).await;
}

#[tokio::test]
async fn url_mode_legacy_http() {
    url_sign_in(Via::Http, ProtocolChoice::Only(Revision::V2025_11_25)).await;
}

#[tokio::test]
async fn url_mode_legacy_in_process() {
    url_sign_in(Via::InProcess, ProtocolChoice::Only(Revision::V2025_11_25)).await;
}

#[tokio::test]
async fn legacy_32042_runs_the_url_flow_and_retries() {
    let server = support::http_server(url_required_server).await;
    let wire = Wire::default();
    let handler = TestHandler::new([Step::SignIn]);
    let client = Client::connect_http(
        &server.mcp,
        wire.config(ProtocolChoice::Only(Revision::V2025_11_25)),
        handler.clone(),
    )
    .await
    .unwrap();
    let result = client.call_tool("needs_sign_in", json!({})).await.unwrap();
    assert_eq!(text(&result), "signed in; here are your orders");
    let seen = handler.seen();
    assert_eq!(seen.len(), 1);
    assert!(matches!(
        &seen[0].kind,
        ElicitationKind::Url {
            elicitation_id: Some(_),
            ..
        }
    ));
    let calls = wire
        .sent()
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .count();
    assert_eq!(calls, 2, "the original call was retried once");
    client.close().await;
}

#[tokio::test]
async fn legacy_32042_declined_returns_the_error() {
    let server = support::http_server(url_required_server).await;
    let handler = TestHandler::new([Step::Decline]);
    let client = Client::connect_http(
        &server.mcp,
        Wire::default().config(ProtocolChoice::Only(Revision::V2025_11_25)),
        handler,
    )
    .await
    .unwrap();
    let err = client
        .call_tool("needs_sign_in", json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.rpc().unwrap().code.0, -32042);
    client.close().await;
}

#[tokio::test]
async fn a_server_cancelled_request_closes_the_form() {
    let server = demo::register(
        Server::builder("impatient", "0.0.1").human_wait(Duration::from_millis(300)),
        "http://127.0.0.1:9",
        &DemoOptions::default(),
    )
    .build();
    let handler = TestHandler::new([Step::AwaitWithdrawal]);
    let client = support::in_process(
        server,
        Wire::default().config(ProtocolChoice::Only(Revision::V2025_11_25)),
        handler.clone(),
    )
    .await;
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("book_return", json!({"order_id": "C-3"})),
    )
    .await
    .expect("the call ends")
    .unwrap();
    assert!(
        handler.was_withdrawn(),
        "the handler's cancelled token fired"
    );
    assert_eq!(result.is_error, Some(true));
    client.close().await;
}

/// A tool that asks a new question every round, forever.
fn endless_server() -> Server {
    let schema = FormSchema::builder()
        .boolean("ok", |f| f.title("OK?").required())
        .build()
        .unwrap();
    Server::builder("endless", "0.0.1")
        .tool(ToolDef::new(
            "endless",
            "Never satisfied",
            move |cx: ToolContext, _: NoArgs| {
                let schema = schema.clone();
                async move {
                    for i in 0.. {
                        let question = Question::schema("Again?", schema.clone());
                        match cx.ask(question.key(format!("q{i}"))).await? {
                            Answer::Accepted(_) => continue,
                            _ => break,
                        }
                    }
                    Ok(ToolOutput::text("done"))
                }
            },
        ))
        .build()
}

#[tokio::test]
async fn the_round_cap_stops_an_endless_server() {
    let handler = TestHandler::new((0..20).map(|_| Step::Accept(json!({"ok": true}))));
    let mut config = Wire::default().config(ProtocolChoice::Only(Revision::V2026_07_28));
    config.max_rounds = 3;
    let client = support::in_process(endless_server(), config, handler.clone()).await;
    let err = client.call_tool("endless", json!({})).await.unwrap_err();
    assert!(
        matches!(err, ClientError::TooManyRounds { rounds: 3 }),
        "{err:?}"
    );
    assert_eq!(handler.seen().len(), 2);
    client.close().await;
}

#[tokio::test]
async fn one_round_at_a_time_for_callers_who_persist() {
    let wire = Wire::default();
    let handler = TestHandler::new([good_return(), Step::Accept(json!({"confirm": true}))]);
    let client = support::in_process(
        support::brightgrid().await,
        wire.config(ProtocolChoice::Only(Revision::V2026_07_28)),
        handler,
    )
    .await;
    let args = json!({"order_id": "D-4"});
    let mut state: Option<RetryFields> = None;
    let mut rounds = 0;
    let result = loop {
        rounds += 1;
        match client
            .call_tool_round("book_return", args.clone(), state.take())
            .await
            .unwrap()
        {
            Round::Complete(r) => break r,
            Round::InputRequired { requests, state: s } => {
                let answers = client.fulfil(&requests).await.unwrap();
                state = Some(RetryFields {
                    input_responses: Some(answers),
                    request_state: s,
                });
            }
            other => panic!("not a round this test knows: {other:?}"),
        }
    };
    assert_eq!(rounds, 3);
    assert_eq!(result.structured_content.unwrap()["orderId"], "D-4");
    // Every retry echoes the state it got, with a fresh id.
    let sent = wire.sent();
    let ids: Vec<&Value> = sent.iter().map(|m| &m["id"]).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids.len(), unique.len());
    client.close().await;
}

#[tokio::test]
async fn headless_declares_nothing() {
    let wire = Wire::default();
    let client = support::in_process(
        support::brightgrid().await,
        wire.config(ProtocolChoice::Only(Revision::V2026_07_28)),
        Arc::new(HeadlessHandler::new("no terminal")),
    )
    .await;
    assert!(client.capabilities().elicitation.is_none());
    let err = client
        .call_tool("book_return", json!({"order_id": "E-5"}))
        .await;
    // The server cannot ask: a -32021 or a tool error, never an invented answer.
    match err {
        Err(e) => assert_eq!(e.rpc().unwrap().code.0, -32021),
        Ok(r) => assert_eq!(r.is_error, Some(true)),
    }
    assert!(!wire.sent_text().contains("\"decline\""));
    client.close().await;
}

/// A host without a terminal that keeps declaring its modes (as `frontdesk
/// call` does with no --answers): the server asks and hears `cancel`, in both
/// revisions; never a decline.
#[tokio::test]
async fn headless_declaring_its_modes_answers_cancel() {
    for protocol in [
        ProtocolChoice::Only(Revision::V2025_11_25),
        ProtocolChoice::Only(Revision::V2026_07_28),
    ] {
        let wire = Wire::default();
        let handler = HeadlessHandler::new("no terminal").declaring(HandlerModes {
            form: true,
            url: true,
        });
        assert_eq!(handler.reason(), "no terminal");
        let client = support::in_process(
            support::brightgrid().await,
            wire.config(protocol),
            Arc::new(handler),
        )
        .await;
        assert!(client.capabilities().elicitation.is_some());
        let result = client
            .call_tool("book_return", json!({"order_id": "E-6"}))
            .await
            .unwrap();
        assert_eq!(
            text(&result),
            "No return was booked: the question was dismissed.",
            "{protocol:?}"
        );
        assert!(!wire.sent_text().contains("\"decline\""));
        client.close().await;
    }
}

#[tokio::test]
async fn over_the_rate_limit_the_runtime_cancels_and_says_why() {
    let notices = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = notices.clone();
    let mut config = Wire::default()
        .config(ProtocolChoice::Only(Revision::V2026_07_28))
        .on_notice(move |n| seen.lock().unwrap().push(n.clone()));
    config.rate_limit_per_minute = 1;
    let handler = TestHandler::new([good_return(), Step::Accept(json!({"confirm": true}))]);
    let client = support::in_process(support::brightgrid().await, config, handler.clone()).await;
    let result = client
        .call_tool("book_return", json!({"order_id": "F-6"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "No return was booked: not confirmed.");
    assert_eq!(
        handler.seen().len(),
        1,
        "the second question never reached the person"
    );
    assert!(notices.lock().unwrap().iter().any(|n| matches!(
        n,
        frontdesk::client::Notice::AutoCancelled { reason, .. } if reason.contains("in a minute")
    )));
    client.close().await;
}

/// `https://` to a server that speaks plain HTTP: a TLS error at once, not a
/// hang and not a panic.
#[tokio::test]
async fn https_to_a_plain_http_server_fails_fast_with_a_tls_error() {
    let server = support::http_demo().await;
    let url = server.mcp.replacen("http://", "https://", 1);
    let started = std::time::Instant::now();
    let outcome = tokio::time::timeout(
        Duration::from_secs(15),
        Client::connect_http(
            &url,
            Wire::default().config(ProtocolChoice::Auto),
            TestHandler::new([]),
        ),
    )
    .await
    .expect("connecting gave up in time");
    let Err(err) = outcome else {
        panic!("an https URL to a plain HTTP server connected");
    };
    let said = err.to_string();
    assert!(matches!(err, ClientError::Transport(_)), "{said}");
    assert!(said.contains("TLS"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(5), "{said}");
}

/// A TLS front for `upstream` on a loopback port, with a fresh self-signed
/// certificate for 127.0.0.1; returns its address and the certificate (DER).
async fn tls_front(upstream: std::net::SocketAddr) -> (std::net::SocketAddr, Vec<u8>) {
    use tokio_rustls::rustls;
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let der = cert.der().to_vec();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap(),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    (addr, der)
}

/// A real TLS round trip: the demo behind a TLS front whose certificate is
/// trusted through `extra_root_certificates`; without it the certificate is
/// refused.
#[tokio::test]
async fn https_round_trip_with_a_trusted_self_signed_certificate() {
    let server = support::http_demo().await;
    let upstream: std::net::SocketAddr = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let (front, der) = tls_front(upstream).await;
    let url = format!("https://{front}/mcp");

    let refused = Client::connect_http(
        &url,
        Wire::default().config(ProtocolChoice::Auto),
        TestHandler::new([]),
    )
    .await;
    let said = refused.expect_err("an untrusted certificate").to_string();
    assert!(said.contains("TLS"), "{said}");
    assert!(said.contains("certificate"), "{said}");

    for protocol in [
        ProtocolChoice::Only(Revision::V2025_11_25),
        ProtocolChoice::Only(Revision::V2026_07_28),
    ] {
        let wire = Wire::default();
        let mut config = wire.config(protocol);
        config.extra_root_certificates = vec![der.clone()];
        let handler = TestHandler::new([good_return(), Step::Accept(json!({"confirm": true}))]);
        let client = Client::connect_http(&url, config, handler.clone())
            .await
            .unwrap();
        let result = client
            .call_tool("book_return", json!({"order_id": "T-1"}))
            .await
            .unwrap();
        let s = result.structured_content.unwrap();
        assert_eq!(s["status"], "booked", "{protocol:?}");
        assert_eq!(s["orderId"], "T-1", "{protocol:?}");
        assert_eq!(handler.seen().len(), 2, "{protocol:?}");
        client.close().await;
    }
}
