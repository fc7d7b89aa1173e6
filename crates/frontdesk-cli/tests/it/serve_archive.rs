//! Issue 28, the event archive through the binary: two `frontdesk serve
//! --store redis` processes sharing one `redis-server` (at
//! `FRONTDESK_REDIS_URL`; skipped with a note without it, failed with
//! `FRONTDESK_REQUIRE_REDIS=1`). A 2025-11-25 call's stream breaks on A,
//! A is drained with SIGTERM and exits; the client resumes with
//! `Last-Event-ID` on B and gets the withdrawal and the "call again" answer
//! A wrote on its way out, then the end of the stream. Killed with SIGKILL
//! instead, A never ends the stream: B ends it once A's heartbeat runs out,
//! and a resume after that is `404`.

use std::process::Command;
use std::time::Duration;

use frontdesk_testkit::TestClient;
use serde_json::{Value, json};

use crate::serve_restart::{Serve, generate_key, http, temp_dir};

const TOKEN: &str = "carol-token-0123456789";
const CALL_AGAIN: &str =
    "The server is shutting down before the question was answered; call the tool again.";

/// One SSE event: its id and data.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: String,
}

/// Reads the events of one SSE response.
struct Events {
    response: reqwest::Response,
    buf: String,
}

impl Events {
    /// The next event with an id or data; `None` when the stream ends.
    async fn next(&mut self) -> Option<Event> {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                while let Some(end) = self.buf.find("\n\n") {
                    let block: String = self.buf.drain(..end + 2).collect();
                    let mut event = Event {
                        id: None,
                        data: String::new(),
                    };
                    let mut any = false;
                    for line in block.lines() {
                        if let Some(id) = line.strip_prefix("id: ") {
                            event.id = Some(id.to_string());
                            any = true;
                        } else if let Some(data) = line.strip_prefix("data: ") {
                            event.data = data.to_string();
                            any = true;
                        }
                    }
                    if any {
                        return Some(event);
                    }
                }
                match self.response.chunk().await.unwrap() {
                    Some(chunk) => self.buf.push_str(std::str::from_utf8(&chunk).unwrap()),
                    None => return None,
                }
            }
        })
        .await
        .expect("no SSE event within 20 s")
    }
}

fn post(s: &Serve, sid: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    crate::support::legacy_post(&http(), &s.mcp, sid, body)
        .header("authorization", format!("Bearer {TOKEN}"))
}

#[tokio::test]
async fn a_drained_instance_s_last_events_are_resumed_on_the_other() {
    let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
        return;
    };
    let (mut a, b) = two_instances(&url, "archive-drain");
    let (sid, asked, question) = question_then_break(&a).await;
    // A is drained and exits.
    let killed = Command::new("kill")
        .args(["-TERM", &a.process.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let exited = a.process.exited_within(Duration::from_secs(15));
    assert!(exited.is_some_and(|s| s.success()), "{exited:?}");

    let r = resume(&b, &sid, asked.id.as_deref().unwrap()).await;
    assert_eq!(r.status(), 200);
    let mut resumed = Events {
        response: r,
        buf: String::new(),
    };
    let mut got = Vec::new();
    while let Some(e) = resumed.next().await {
        got.push(serde_json::from_str::<Value>(&e.data).unwrap());
    }
    assert_eq!(
        got,
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": question["id"], "reason": "The server is shutting down."}}),
            json!({"jsonrpc": "2.0", "id": 2, "result": {
                "content": [{"type": "text", "text": CALL_AGAIN}], "isError": true}}),
        ]
    );
}

/// Two instances on one Redis prefix, with the token file.
fn two_instances(url: &str, name: &str) -> (Serve, Serve) {
    let keys = generate_key("k1");
    let dir = temp_dir(name);
    let tokens = dir.join("tokens.txt");
    std::fs::write(&tokens, format!("carol {TOKEN}\n")).unwrap();
    let prefix = format!("{name}-{}:", dir.file_name().unwrap().to_str().unwrap());
    let args = [
        "--store",
        "redis",
        "--redis-url",
        url,
        "--redis-prefix",
        &prefix,
        "--auth-tokens",
        tokens.to_str().unwrap(),
    ];
    (Serve::start(&keys, &args), Serve::start(&keys, &args))
}

/// GET the session's stream on `s` after event `last`.
async fn resume(s: &Serve, sid: &str, last: &str) -> reqwest::Response {
    http()
        .get(&s.mcp)
        .header("authorization", format!("Bearer {TOKEN}"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("last-event-id", last)
        .send()
        .await
        .unwrap()
}

/// A session on `a` whose `book_return` call's stream breaks after the
/// first question: the session id, the question's event and the question.
async fn question_then_break(a: &Serve) -> (String, Event, Value) {
    let init = TestClient::new("serve-archive", "1")
        .capabilities(json!({"elicitation": {}}))
        .initialize(json!(0));
    let r = post(a, None, &init).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let r = post(a, Some(&sid), &frontdesk_testkit::initialized())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A-17"}}});
    let r = post(a, Some(&sid), &call).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let mut events = Events {
        response: r,
        buf: String::new(),
    };
    let priming = events.next().await.unwrap();
    assert_eq!(priming.data, "");
    let asked = events.next().await.unwrap();
    let question: Value = serde_json::from_str(&asked.data).unwrap();
    assert_eq!(question["method"], "elicitation/create");
    // The connection to A breaks.
    drop(events);
    (sid, asked, question)
}

/// A killed instance never ends its streams: a stream followed on B ends
/// once A's heartbeat runs out, and a resume after that is `404` (the
/// session is gone), as without an archive; the client is never left
/// waiting.
#[tokio::test]
async fn a_killed_instance_s_stream_ends_on_the_other_and_then_is_gone() {
    let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
        return;
    };
    let (a, b) = two_instances(&url, "archive-kill");
    let (sid, asked, _) = question_then_break(&a).await;
    let last = asked.id.unwrap();
    a.kill();
    let started = std::time::Instant::now();
    let r = resume(&b, &sid, &last).await;
    if r.status() == 200 {
        let mut resumed = Events {
            response: r,
            buf: String::new(),
        };
        let next = resumed.next().await;
        assert!(next.is_none(), "nothing after the question: {next:?}");
        // Within the heartbeat's time to live (4 s) and one wait (1 s).
        assert!(
            started.elapsed() < Duration::from_secs(7),
            "{:?}",
            started.elapsed()
        );
    }
    let r = resume(&b, &sid, &last).await;
    assert_eq!(r.status(), 404);
}
