//! Rows about the shares of issue 24: tasks created as fast as the attacker
//! can, resource subscriptions with long URIs from many sessions, and
//! 2026-07-28 retries of a handler slow after its answer whose connections
//! are closed at once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpSocket;
use tokio::sync::Mutex;

use super::harness::{
    ATTACKER, GOOD, GoodClient, GoodReport, LEGACY, MODERN, Reply, Tally, Target, client_from,
    initialize, meta, modern_call, post_legacy, report,
};

/// The `_meta` of a 2026-07-28 request whose client declares the Tasks
/// extension.
fn tasks_meta() -> Value {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
        json!({"io.modelcontextprotocol/tasks": {}});
    meta
}

/// POST a 2026-07-28 request, its `Mcp-Name` taken from the tool name or
/// task id.
async fn post(http: &reqwest::Client, mcp: &str, body: &Value) -> Result<Reply, String> {
    let method = body["method"].as_str().unwrap_or_default();
    let params = &body["params"];
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .unwrap_or_default();
    let response = http
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let text = response.text().await.map_err(|e| e.to_string())?;
    let message = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l.strip_prefix("data: ").unwrap_or(l)).ok())
        .unwrap_or(Value::Null);
    Ok(Reply {
        status,
        message,
        session: None,
    })
}

/// What a `tools/call` of a tool that may become a task got.
fn task_outcome(reply: &Result<Reply, String>) -> String {
    let r = match reply {
        Ok(r) => r,
        Err(e) => return format!("error: {e}"),
    };
    let result = &r.message["result"];
    if result["taskId"].is_string() {
        "task created".into()
    } else if result["resultType"] == "input_required" {
        "continued within the call (input_required)".into()
    } else {
        match r.message["error"]["code"].as_i64() {
            Some(code) => format!("HTTP {}, error {code}", r.status),
            None => format!("HTTP {}: {}", r.status, r.message),
        }
    }
}

fn confirm_delete(n: usize) -> Value {
    let mut body = modern_call(
        "confirm_delete",
        json!({"filename": format!("file-{n}.txt")}),
        None,
    );
    body["params"]["_meta"] = tasks_meta();
    body
}

fn cancel(task: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/cancel",
        "params": {"taskId": task, "_meta": tasks_meta()}})
}

/// The well-behaved client's calls that may become tasks, every 100 ms
/// until stopped: each must become a task (then it is cancelled).
fn good_tasks(mcp: &str, stop: &Arc<AtomicBool>) -> tokio::task::JoinHandle<GoodReport> {
    let (mcp, stop) = (mcp.to_string(), Arc::clone(stop));
    tokio::spawn(async move {
        let http = client_from(GOOD);
        let mut report = GoodReport::default();
        let mut n = 0;
        while !stop.load(Ordering::SeqCst) {
            n += 1;
            let started = Instant::now();
            let reply = post(&http, &mcp, &confirm_delete(n)).await;
            match reply
                .as_ref()
                .map(|r| r.message["result"]["taskId"].clone())
            {
                Ok(Value::String(task)) => {
                    report.ok += 1;
                    report
                        .latencies_ms
                        .push(started.elapsed().as_secs_f64() * 1000.0);
                    if let Err(e) = post(&http, &mcp, &cancel(&task)).await {
                        report.failures.push(format!("tasks/cancel: {e}"));
                    }
                }
                _ => report.failures.push(format!(
                    "a call that becomes a task: {}",
                    task_outcome(&reply)
                )),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        report
    })
}

fn merge(mut a: GoodReport, b: GoodReport) -> GoodReport {
    a.ok += b.ok;
    a.failures.extend(b.failures);
    a.latencies_ms.extend(b.latencies_ms);
    a
}

/// Tasks created as fast as the attacker can: each `confirm_delete` is a
/// task waiting for an answer for ten minutes.
#[tokio::test]
async fn abuse_tasks_as_fast_as_possible() {
    let count = super::harness::scale(10_000, 1_000);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let stop = Arc::new(AtomicBool::new(false));
    let good_tasks = good_tasks(&target.mcp, &stop);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let (http, mcp) = (http.clone(), target.mcp.clone());
        let (tally, next) = (Arc::clone(&tally), Arc::clone(&next));
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= count {
                    break;
                }
                let label = task_outcome(&post(&http, &mcp, &confirm_delete(i)).await);
                tally.lock().await.add(label);
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    let took = started.elapsed();
    // With the attacker's share full, another client's call still becomes a
    // task at once.
    let mine = task_outcome(&post(&client_from(GOOD), &target.mcp, &confirm_delete(0)).await);
    assert_eq!(mine, "task created");
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::SeqCst);
    let after = target.rss_kib();
    let good = merge(good.finish().await, good_tasks.await.unwrap_or_default());
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "tasks as fast as possible",
        &format!("{count} tools/call of confirm_delete (a task waiting 10 min for its answer)"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert_eq!(tally.get("task created"), 256.min(count), "{tally:?}");
    assert_eq!(
        tally.get("task created") + tally.get("continued within the call (input_required)"),
        count,
        "{tally:?}"
    );
}

/// A URI of the fixtures' template, about 8 KB long.
fn long_uri(session: usize, n: usize) -> String {
    let id = format!("{session}-{n}-");
    format!("test://template/{id}{}/data", "a".repeat(8_000 - id.len()))
}

fn subscribe(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": uri}})
}

fn subscribe_outcome(reply: &Result<Reply, String>) -> String {
    let r = match reply {
        Ok(r) => r,
        Err(e) => return format!("error: {e}"),
    };
    if r.message["result"] == json!({}) {
        return "subscribed".into();
    }
    let message = r.message["error"]["message"].as_str().unwrap_or_default();
    let bound = [
        ("this session", "session"),
        ("this client", "client"),
        ("the server", "server"),
    ]
    .into_iter()
    .find_map(|(said, bound)| message.contains(said).then_some(bound));
    match (r.message["error"]["code"].as_i64(), bound) {
        (Some(code), Some(b)) => format!("HTTP {}, error {code} ({b}'s bound)", r.status),
        (Some(code), None) => format!("HTTP {}, error {code}: {message}", r.status),
        (None, _) => format!("HTTP {}", r.status),
    }
}

/// Many sessions, each subscribing to many 8 KB URIs; then every session
/// is deleted.
#[tokio::test]
async fn abuse_subscriptions_with_long_uris() {
    let sessions = super::harness::scale(256, 24);
    let per_session = 80;
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let ids = Arc::new(Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for _ in 0..8 {
        let (http, mcp) = (http.clone(), target.mcp.clone());
        let (tally, next, ids) = (Arc::clone(&tally), Arc::clone(&next), Arc::clone(&ids));
        workers.push(tokio::spawn(async move {
            loop {
                let s = next.fetch_add(1, Ordering::SeqCst);
                if s >= sessions {
                    break;
                }
                let Some(session) = initialize(&http, &mcp).await.ok().and_then(|r| r.session)
                else {
                    tally.lock().await.add("initialize failed");
                    continue;
                };
                for n in 0..per_session {
                    let reply =
                        post_legacy(&http, &mcp, Some(&session), &subscribe(&long_uri(s, n))).await;
                    tally.lock().await.add(subscribe_outcome(&reply));
                }
                ids.lock().await.push(session);
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    let took = started.elapsed();
    let during = target.rss_kib();
    // Another client subscribes as usual.
    let own = client_from(GOOD);
    let mine = initialize(&own, &target.mcp)
        .await
        .unwrap()
        .session
        .unwrap();
    let reply = post_legacy(&own, &target.mcp, Some(&mine), &subscribe(&long_uri(0, 0))).await;
    assert_eq!(subscribe_outcome(&reply), "subscribed");
    // The attacker's sessions end; its share comes back at once.
    for session in ids.lock().await.iter() {
        http.delete(&target.mcp)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY)
            .send()
            .await
            .unwrap();
    }
    let again = initialize(&http, &target.mcp)
        .await
        .unwrap()
        .session
        .unwrap();
    let reply = post_legacy(
        &http,
        &target.mcp,
        Some(&again),
        &subscribe(&long_uri(1, 1)),
    )
    .await;
    assert_eq!(subscribe_outcome(&reply), "subscribed");
    let after = target.rss_kib();
    let good = good.finish().await;
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "subscriptions with long URIs",
        &format!(
            "{sessions} sessions × {per_session} resources/subscribe of 8 KB URIs (RSS {during} KiB before the DELETEs)"
        ),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert_eq!(
        tally.get("subscribed"),
        (sessions * 64).min(1_024),
        "{tally:?}"
    );
    assert!(
        tally.get("HTTP 429, error -32000 (session's bound)") > 0
            && (sessions * 64 <= 1_024 || tally.get("HTTP 429, error -32000 (client's bound)") > 0),
        "{tally:?}"
    );
    assert!(
        during.saturating_sub(before) < 64 * 1024,
        "server memory grew by {} KiB",
        during - before
    );
}

/// Send a retry of `abuse_slow_after_answer` from the attacker's address
/// and close the connection as soon as it is written.
async fn send_and_close(addr: SocketAddr, authority: &str, state: &str) -> Result<(), String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(format!("{ATTACKER}:0").parse().map_err(|_| "address")?)
        .map_err(|e| e.to_string())?;
    let mut stream = socket.connect(addr).await.map_err(|e| e.to_string())?;
    let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let body = modern_call(
        "abuse_slow_after_answer",
        json!({"seconds": 5}),
        Some((answer, state)),
    )
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: abuse_slow_after_answer\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    // A moment for the round to start (a request closed before the server
    // reads it is never run), then the close.
    tokio::time::sleep(Duration::from_millis(20)).await;
    drop(stream);
    Ok(())
}

/// First rounds of a tool slow after its answer, each followed by its
/// retry on a connection closed at once: every round goes on by itself.
#[tokio::test]
async fn abuse_dropped_retries_of_a_slow_handler() {
    let count = super::harness::scale(5_000, 600);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let authority = target.authority();
    let addr: SocketAddr = authority.parse().unwrap();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let (http, mcp, authority) = (http.clone(), target.mcp.clone(), authority.clone());
        let (tally, next) = (Arc::clone(&tally), Arc::clone(&next));
        workers.push(tokio::spawn(async move {
            while next.fetch_add(1, Ordering::SeqCst) < count {
                let body = modern_call("abuse_slow_after_answer", json!({"seconds": 5}), None);
                let first = post(&http, &mcp, &body).await;
                let label = match &first {
                    Ok(r) => match r.message["result"]["requestState"].as_str() {
                        Some(state) => match send_and_close(addr, &authority, state).await {
                            Ok(()) => "retry sent and dropped".to_string(),
                            Err(e) => format!("retry not sent: {e}"),
                        },
                        None => match r.message["error"]["code"].as_i64() {
                            Some(code) => {
                                format!("first round refused: HTTP {}, error {code}", r.status)
                            }
                            None => format!("first round: HTTP {}", r.status),
                        },
                    },
                    Err(e) => format!("error: {e}"),
                };
                let refused = label.starts_with("first round refused");
                tally.lock().await.add(label);
                if refused {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    let took = started.elapsed();
    let during = target.rss_kib();
    // Once the dropped rounds are done, their places are back.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let body = modern_call("abuse_slow_after_answer", json!({"seconds": 0}), None);
    let later = post(&http, &target.mcp, &body).await.unwrap();
    assert!(
        later.message["result"]["requestState"].is_string(),
        "{}",
        later.message
    );
    let after = target.rss_kib();
    let good = good.finish().await;
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "dropped retries of a slow handler",
        &format!(
            "{count} first rounds of abuse_slow_after_answer (5 s after the answer), each retry's connection closed at once (RSS {during} KiB at the end of the attack)"
        ),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert!(
        tally.get("first round refused: HTTP 429, error -32000") > 0,
        "the per-client cap never applied: {tally:?}"
    );
}
