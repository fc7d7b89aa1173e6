//! `frontdesk serve --otlp-endpoint URL`: the request spans reach an OTLP/HTTP
//! collector (an in-process one here, decoding the protobuf as any collector
//! does). A 2025-11-25 `tools/call` of `book_return` is one trace: its request
//! span with the MCP attributes and each wait for the person a span of its own
//! inside it, as long as the person took. A 2026-07-28 call's three rounds are
//! one trace too: the state carries the trace context, and each wait between
//! two rounds is a span from the question to the retry. No attribute carries an
//! answer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::routing::post;
use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::wire::Revision;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::{Value, json};

use crate::serve_restart::{Serve, generate_key};

/// Every span the collector was sent.
#[derive(Clone, Default)]
struct Collector(Arc<Mutex<Vec<Span>>>);

impl Collector {
    async fn start(&self) -> String {
        let spans = self.clone();
        let app = Router::new().route(
            "/v1/traces",
            post(move |body: Bytes| {
                let spans = spans.clone();
                async move {
                    let request = ExportTraceServiceRequest::decode(body).expect("OTLP protobuf");
                    let mut all = spans.0.lock().unwrap();
                    for resource in request.resource_spans {
                        for scope in resource.scope_spans {
                            all.extend(scope.spans);
                        }
                    }
                    ""
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }

    fn spans(&self) -> Vec<Span> {
        self.0.lock().unwrap().clone()
    }
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref())
        .and_then(|v| v.value.as_ref())
        .map(|v| match v {
            AnyValue::StringValue(s) => s.clone(),
            AnyValue::IntValue(i) => i.to_string(),
            other => format!("{other:?}"),
        })
}

/// A person who takes 300 ms for each question of `book_return`.
struct Thoughtful(Mutex<Vec<Value>>);

impl Thoughtful {
    /// The return's details, then the confirmation.
    fn booking() -> Arc<Self> {
        Arc::new(Self(Mutex::new(vec![
            json!({"confirm": true}),
            json!({"reason": "damaged", "pickup_date": "2026-12-11",
                "contact_email": "trace@example.com"}),
        ])))
    }
}

impl ElicitationHandler for Thoughtful {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let next = self.0.lock().unwrap().pop();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            match next {
                Some(Value::Object(content)) => ElicitationResponse::Accept(content),
                _ => ElicitationResponse::Cancel,
            }
        })
    }
}

/// Book a return over `revision` against a server exporting to a collector;
/// the spans it was sent once the server stopped.
async fn traced_booking(revision: Revision) -> Vec<Span> {
    let collector = Collector::default();
    let endpoint = collector.start().await;
    let mut serve = Serve::start(
        &generate_key("t"),
        &["--store", "memory", "--otlp-endpoint", &endpoint],
    );
    let client = Client::connect_http(
        &serve.mcp,
        ClientConfig::default().protocol(revision),
        Thoughtful::booking() as _,
    )
    .await
    .unwrap();
    let booked = client
        .call_tool("book_return", json!({"order_id": "T-1"}))
        .await
        .unwrap();
    assert!(booked.structured_content.is_some(), "{booked:?}");
    client.close().await;
    // The spans go out in batches; the last one when the server stops.
    let status = std::process::Command::new("kill")
        .args(["-TERM", &serve.process.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        serve
            .process
            .exited_within(Duration::from_secs(15))
            .is_some()
    );
    let spans = collector.spans();
    for span in &spans {
        for a in &span.attributes {
            let text = format!("{:?}", a.value);
            assert!(
                !text.contains("trace@example.com") && !text.contains("damaged"),
                "an answer in an attribute: {text}"
            );
        }
    }
    spans
}

fn assert_call_attributes(call: &Span, revision: &str) {
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", revision),
        ("gen_ai.tool.name", "book_return"),
    ] {
        assert_eq!(attribute(call, key).as_deref(), Some(value), "{key}");
    }
    assert!(attribute(call, "jsonrpc.request.id").is_some());
}

fn took(span: &Span) -> Duration {
    Duration::from_nanos(span.end_time_unix_nano - span.start_time_unix_nano)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_call_and_the_persons_waits_are_one_trace() {
    let spans = traced_booking(Revision::V2025_11_25).await;
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call book_return")
        .unwrap_or_else(|| panic!("a span for the call among {:?}", names(&spans)));
    assert_call_attributes(call, "2025-11-25");
    let session = attribute(call, "mcp.session.id").expect("the session, as a fingerprint");
    assert!(
        session.len() < 32,
        "a fingerprint, not the session id: {session}"
    );
    let waits: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "elicitation wait" && s.trace_id == call.trace_id)
        .collect();
    assert_eq!(waits.len(), 2, "one wait per question: {:?}", names(&spans));
    for wait in waits {
        assert_eq!(wait.parent_span_id, call.span_id, "inside the call's span");
        assert!(
            took(wait) >= Duration::from_millis(300),
            "as long as the person took"
        );
        assert_eq!(
            attribute(wait, "mcp.elicitation.mode").as_deref(),
            Some("form")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_calls_rounds_and_the_waits_between_them_are_one_trace() {
    let spans = traced_booking(Revision::V2026_07_28).await;
    let mut rounds: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "tools/call book_return")
        .collect();
    rounds.sort_by_key(|s| s.start_time_unix_nano);
    assert_eq!(
        rounds.len(),
        3,
        "details, confirmation, result: {:?}",
        names(&spans)
    );
    let trace = &rounds[0].trace_id;
    assert!(
        rounds[0].parent_span_id.is_empty(),
        "the first round starts the trace"
    );
    for round in &rounds {
        assert_call_attributes(round, "2026-07-28");
        assert_eq!(&round.trace_id, trace, "every round in the call's trace");
    }
    for pair in rounds.windows(2) {
        let (asking, retry) = (pair[0], pair[1]);
        let wait = spans
            .iter()
            .find(|s| s.span_id == retry.parent_span_id)
            .unwrap_or_else(|| panic!("the retry's parent among {:?}", names(&spans)));
        assert_eq!(wait.name, "elicitation wait");
        assert_eq!(
            wait.parent_span_id, asking.span_id,
            "the wait follows the asking round"
        );
        assert!(
            took(wait) >= Duration::from_millis(300),
            "as long as the person took"
        );
    }
}

fn names(spans: &[Span]) -> Vec<&str> {
    spans.iter().map(|s| s.name.as_str()).collect()
}
