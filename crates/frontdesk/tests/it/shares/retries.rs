//! A 2026-07-28 retry whose request goes away (its connection dropped) goes
//! on by itself, so its reply is kept for the same retry sent again; the
//! places it holds in the server's and the client's count of requests in
//! flight go with it, and come back only when it ends. Otherwise sending
//! retries and closing at once would get around both caps.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use frontdesk::form::FormSchema;
use frontdesk::server::transport::{OutboundSink, RequestInfo};
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ServerBuilder, ServerConfig, ToolContext, ToolDef, ToolOutput,
};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::support::HandleJson;
use crate::support::http::{ACCEPT, MODERN, json_of, meta, modern_call, start_with};

/// How long the tool works after its answer.
const SLOW: Duration = Duration::from_secs(3);

/// How far the tool got, counted over all its calls.
#[derive(Default)]
struct Progress {
    answered: AtomicUsize,
    finished: AtomicUsize,
}

/// `slow_after_answer`: one yes/no question, then [`SLOW`] of work.
fn slow_server(progress: &Arc<Progress>, config: ServerConfig) -> Server {
    slow_builder(progress).config(config).build()
}

/// The builder of [`slow_server`], for stores and keys of a test's own.
fn slow_builder(progress: &Arc<Progress>) -> ServerBuilder {
    let progress = Arc::clone(progress);
    let schema = FormSchema::builder()
        .boolean("ok", |f| f.title("Go ahead?").required())
        .build()
        .unwrap();
    Server::builder("slow-after-answer", "0.0.1").tool(ToolDef::new(
        "slow_after_answer",
        "Asks, then works a while",
        move |cx: ToolContext, _: NoArgs| {
            let (schema, progress) = (schema.clone(), Arc::clone(&progress));
            async move {
                let answer = cx
                    .ask(Question::schema("Go ahead?", schema).key("ok"))
                    .await?;
                progress.answered.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(SLOW).await;
                progress.finished.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::text(match answer {
                    Answer::Accepted(_) => "done",
                    _ => "not done",
                }))
            }
        },
    ))
}

/// Wait (5 s at most) until `counter` reaches 1.
async fn until_one(counter: &AtomicUsize, what: &str) {
    for _ in 0..500 {
        if counter.load(Ordering::SeqCst) >= 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} never happened");
}

fn retry_body(id: i64, state: &str) -> Value {
    let mut body = modern_call(id, "slow_after_answer", json!({}));
    body["params"]["inputResponses"] = json!({"ok": {"action": "accept", "content": {"ok": true}}});
    body["params"]["requestState"] = json!(state);
    body
}

fn discover(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": {"_meta": meta()}})
}

/// Over HTTP: the client may have one request in flight. Its retry is sent
/// on a connection closed at once; while the round works on, the client's
/// next request is refused `429`, and once the round is done it is served.
#[tokio::test]
async fn a_dropped_retry_keeps_the_clients_slot_until_it_finishes() {
    let progress = Arc::new(Progress::default());
    let p = Arc::clone(&progress);
    let s = start_with(
        move |_| slow_server(&p, ServerConfig::new()),
        |o| o.max_requests_per_client = 1,
    )
    .await;
    let first = json_of(
        s.modern(&modern_call(1, "slow_after_answer", json!({})))
            .await,
        200,
    )
    .await;
    let state = first["result"]["requestState"].as_str().unwrap();

    let body = retry_body(2, state).to_string();
    let authority = s.mcp.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut raw = tokio::net::TcpStream::connect(authority).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: {ACCEPT}\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/call\r\n\
         Mcp-Name: slow_after_answer\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw.write_all(request.as_bytes()).await.unwrap();
    until_one(&progress.answered, "the retry's answer reaching the tool").await;
    drop(raw);
    // The server sees the connection close and drops the request; the round
    // goes on by itself.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(progress.finished.load(Ordering::SeqCst), 0);

    let refused = json_of(s.modern(&discover(3)).await, 429).await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    // The cap is the client's: another address is served meanwhile.
    let other = s.modern_from([127, 0, 0, 2].into(), &discover(5)).await;
    assert_eq!(other.status(), 200);

    until_one(&progress.finished, "the dropped round finishing").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let served = json_of(s.modern(&discover(4)).await, 200).await;
    assert!(served["result"]["supportedVersions"].is_array(), "{served}");
}

/// In process: the server may have one request in flight. A retry whose
/// request future is dropped mid-round keeps that place until the round is
/// done; meanwhile every request is refused `-32000`.
#[tokio::test]
async fn a_dropped_retry_keeps_the_servers_slot_until_it_finishes() {
    let progress = Arc::new(Progress::default());
    let server = slow_server(&progress, ServerConfig::new().max_requests(1));
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new();
    let first = server
        .handle_json(
            None,
            modern_call(1, "slow_after_answer", json!({})),
            &sink,
            &info,
        )
        .await;
    let first = first.response_value().unwrap();
    let state = first["result"]["requestState"].as_str().unwrap();
    let dropped = tokio::time::timeout(
        Duration::from_millis(200),
        server.handle_json(None, retry_body(2, state), &sink, &info),
    )
    .await;
    assert!(dropped.is_err(), "the round should still be running");
    assert_eq!(progress.answered.load(Ordering::SeqCst), 1);

    let refused = server.handle_json(None, discover(3), &sink, &info).await;
    let refused = refused.response_value().unwrap();
    assert_eq!(refused["error"]["code"], -32000, "{refused}");

    until_one(&progress.finished, "the dropped round finishing").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let served = server.handle_json(None, discover(4), &sink, &info).await;
    let served = served.response_value().unwrap();
    assert!(served["result"]["supportedVersions"].is_array(), "{served}");
}

/// Several instances behind a balancer that cuts the connections of an
/// instance it takes out of service (HAProxy's `on-marked-down
/// shutdown-sessions`, say): a retry the first instance redeemed and was
/// running loses its request, and the client sends it again, this time to
/// the second instance, where the state is already redeemed. The second
/// instance answers with the first one's reply once its round ends (the
/// round is longer than the wait for an instance to notice its loss, so the
/// "still running" mark is what it waits on), and the round ran once. A
/// retry that got its reply is still refused on another instance, at once.
#[cfg(feature = "redis")]
#[tokio::test]
async fn a_retry_cut_off_from_one_instance_gets_its_reply_from_another() {
    use frontdesk::state::{StateId, StateSealer};
    use frontdesk::stores::redis::RedisStore;
    let Some(url) = frontdesk_testkit::redis_url("the shared retry test") else {
        return;
    };
    let prefix = format!("frontdesk-test:{}:", StateId::random());
    let sealer = StateSealer::from_spec("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").unwrap();
    let progress = Arc::new(Progress::default());
    let instance = || async {
        let store = RedisStore::connect(&url, &prefix).await.unwrap();
        slow_builder(&progress)
            .state_sealer(sealer.clone())
            .nonce_store(Some(Arc::new(store)))
            .build()
    };
    let (a, b) = (instance().await, instance().await);
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new();
    let send = |server: &Server, body: Value| {
        let (server, sink, info) = (server.clone(), sink.clone(), info.clone());
        async move {
            let handled = server.handle_json(None, body, &sink, &info).await;
            handled.response_value().unwrap()
        }
    };
    let asked = |first: &Value| {
        first["result"]["requestState"]
            .as_str()
            .unwrap()
            .to_string()
    };

    let state = asked(&send(&a, modern_call(1, "slow_after_answer", json!({}))).await);
    let cut =
        tokio::time::timeout(Duration::from_millis(300), send(&a, retry_body(2, &state))).await;
    assert!(cut.is_err(), "the round should still be running");
    assert_eq!(progress.answered.load(Ordering::SeqCst), 1);
    let elsewhere = send(&b, retry_body(2, &state)).await;
    assert_eq!(
        elsewhere["result"]["content"][0]["text"], "done",
        "{elsewhere}"
    );
    assert_eq!(progress.finished.load(Ordering::SeqCst), 1);
    assert_eq!(
        progress.answered.load(Ordering::SeqCst),
        1,
        "the round ran once"
    );

    let state = asked(&send(&a, modern_call(3, "slow_after_answer", json!({}))).await);
    let served = send(&a, retry_body(4, &state)).await;
    assert_eq!(served["result"]["content"][0]["text"], "done", "{served}");
    let started = std::time::Instant::now();
    let replayed = send(&b, retry_body(4, &state)).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "a replay of a state redeemed long ago waits for nothing: {:?}",
        started.elapsed()
    );
}
