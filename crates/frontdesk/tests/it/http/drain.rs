//! Shutting down over Streamable HTTP: a 2025-11-25 question a person is
//! answering is withdrawn with a reason and its call answered before the
//! streams end; `/healthz` and `/readyz` for load balancers.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::Reason;
use frontdesk::state::{NonceStore, StateId};
use frontdesk::store::StoreError;
use serde_json::{Value, json};

use frontdesk::server::Server;
use frontdesk_demo::DemoOptions;

use crate::support::http::{SseReader, TestServer, start, start_with};

const CALL_AGAIN: &str =
    "The server is shutting down before the question was answered; call the tool again.";

fn book_return(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A-17"}}})
}

/// The first question of `book_return`, asked on a new session's POST
/// stream (left open).
async fn question_waiting(s: &TestServer) -> (SseReader, Value) {
    let sid = s.initialize(json!({"elicitation": {}})).await;
    let r = s.legacy(&sid, &book_return(2)).await;
    assert_eq!(r.status(), 200);
    let mut reader = SseReader::new(r);
    let question = reader.message().await.expect("a question");
    assert_eq!(question["method"], "elicitation/create");
    (reader, question)
}

#[tokio::test]
async fn a_shutdown_withdraws_the_waiting_question_and_answers_its_call() {
    let mut s = start(|o| o.shutdown_grace = Duration::from_secs(5)).await;
    let (mut reader, question) = question_waiting(&s).await;
    s.shut_down();
    assert_eq!(
        reader.message().await.expect("the question withdrawn"),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": question["id"], "reason": "The server is shutting down."}})
    );
    assert_eq!(
        reader.message().await.expect("the call answered"),
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": CALL_AGAIN}], "isError": true}})
    );
    assert!(reader.next().await.is_none(), "the stream ends");
    // Nothing else runs: the listener returns well before its grace time.
    s.stopped(Duration::from_secs(2)).await;
}

#[tokio::test]
async fn health_and_readiness_answer_beside_the_endpoint() {
    let s = start(|_| {}).await;
    for (path, body) in [("/healthz", "alive\n"), ("/readyz", "ready\n")] {
        let r = s
            .http
            .get(format!("{}{path}", s.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["content-type"], "text/plain; charset=utf-8");
        assert_eq!(r.headers()["cache-control"], "no-store");
        assert_eq!(r.text().await.unwrap(), body);
    }
}

#[tokio::test]
async fn health_routes_can_be_left_to_the_application() {
    let s = start(|o| o.health = false).await;
    let r = s
        .http
        .get(format!("{}/readyz", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

/// A nonce store whose backend is down.
struct Down;

impl NonceStore for Down {
    fn redeem(&self, _: StateId, _: u64) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async { Err(StoreError::Backend(Reason::new("connection refused"))) })
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError::Backend(Reason::new("connection refused"))) })
    }
}

#[tokio::test]
async fn not_ready_while_the_store_is_down_and_alive_all_the_same() {
    let s = start_with(
        |base| {
            frontdesk_demo::register(
                Server::builder("down-store", "0.0.1"),
                base,
                &DemoOptions::default(),
            )
            .nonce_store(Some(Arc::new(Down)))
            .build()
        },
        |_| {},
    )
    .await;
    let r = s
        .http
        .get(format!("{}/readyz", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    // What failed goes to the log, not to whoever asks.
    assert_eq!(r.text().await.unwrap(), "the state store is unavailable\n");
    let r = s
        .http
        .get(format!("{}/healthz", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}
