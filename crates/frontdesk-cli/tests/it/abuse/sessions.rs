//! Rows about 2025-11-25 sessions: questions left pending in one session,
//! sessions never deleted, and a live GET stream taken over with
//! `Last-Event-ID`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Mutex;

use super::harness::{
    ATTACKER, GOOD, GoodClient, LEGACY, Tally, Target, client_from, initialize, report,
};

/// One `initialize`, then many `tools/call` that each leave a question
/// pending: the attacker keeps every response stream that carries a question
/// open (closing it would withdraw the question) and never answers.
#[tokio::test]
async fn abuse_pending_questions_in_one_session() {
    let count = super::harness::scale(20_000, 2_000);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let session = initialize(&http, &target.mcp)
        .await
        .unwrap()
        .session
        .unwrap();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let held = Arc::new(Mutex::new(Vec::new()));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let (http, mcp, session) = (http.clone(), target.mcp.clone(), session.clone());
        let (tally, next, held) = (Arc::clone(&tally), Arc::clone(&next), Arc::clone(&held));
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= count {
                    break;
                }
                let body = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                    "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}});
                let sent = http
                    .post(&mcp)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", LEGACY)
                    .header("mcp-session-id", &session)
                    .body(body.to_string())
                    .send()
                    .await;
                let label = match sent {
                    Ok(mut r) if r.status() == 200 => {
                        // The first message says whether a question is waiting
                        // (after the priming event, which carries no data).
                        let mut text = String::new();
                        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
                        while !text.contains("data: {") {
                            match tokio::time::timeout_at(deadline, r.chunk()).await {
                                Ok(Ok(Some(bytes))) => text.push_str(&String::from_utf8_lossy(&bytes)),
                                _ => break,
                            }
                        }
                        if text.contains("elicitation/create") {
                            held.lock().await.push(r);
                            "200, question pending".to_string()
                        } else if text.contains("could not be asked now") {
                            "200, refused: session's questions at their cap".to_string()
                        } else {
                            format!("200, {}", text.trim().chars().take(80).collect::<String>())
                        }
                    }
                    Ok(r) => r.status().as_u16().to_string(),
                    Err(e) => format!("error: {e}"),
                };
                tally.lock().await.add(label);
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    let took = started.elapsed();
    let after = target.rss_kib();
    let good = good.finish().await;
    let pending = held.lock().await.len();
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "pending questions in one session",
        &format!("{count} tools/call ({pending} questions held open at the end)"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert!(pending <= 16, "{pending} questions pending in one session");
    assert_eq!(
        tally.get("200, question pending")
            + tally.get("200, refused: session's questions at their cap")
            + tally.get("429"),
        count,
        "{tally:?}"
    );
    assert!(
        after.saturating_sub(before) < 64 * 1024,
        "server memory grew by {} KiB",
        after - before
    );
}

/// Many `initialize` without `DELETE`.
#[tokio::test]
async fn abuse_sessions_without_delete() {
    let count = super::harness::scale(10_000, 2_000);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..8 {
        let (http, mcp) = (http.clone(), target.mcp.clone());
        let (tally, next) = (Arc::clone(&tally), Arc::clone(&next));
        workers.push(tokio::spawn(async move {
            while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < count {
                let label = match initialize(&http, &mcp).await {
                    Ok(r) => r.status.to_string(),
                    Err(e) => format!("error: {e}"),
                };
                tally.lock().await.add(label);
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    let took = started.elapsed();
    // After the flood, a new client still gets a session at once.
    let fresh = initialize(&client_from(GOOD), &target.mcp).await.unwrap();
    assert_eq!(fresh.status, 200, "{}", fresh.message);
    let after = target.rss_kib();
    let good = good.finish().await;
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "sessions without DELETE",
        &format!("{count} initialize"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert!(
        after.saturating_sub(before) < 64 * 1024,
        "server memory grew by {} KiB",
        after - before
    );
}

/// A GET stream is live; another request on the session tries to take it
/// over with `Last-Event-ID: 0-0`, and with a plain GET.
#[tokio::test]
async fn abuse_get_stream_takeover() {
    let count = super::harness::scale(1_000, 100);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let owner = client_from(GOOD);
    let session = initialize(&owner, &target.mcp)
        .await
        .unwrap()
        .session
        .unwrap();
    let get = |http: &reqwest::Client| {
        http.get(&target.mcp)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", LEGACY)
            .header("mcp-session-id", &session)
    };
    let mut live = get(&owner).send().await.unwrap();
    assert_eq!(live.status(), 200);
    let started = Instant::now();
    let attacker = client_from(ATTACKER);
    let mut tally = Tally::default();
    for i in 0..count {
        let mut request = get(&attacker);
        if i % 2 == 0 {
            request = request.header("last-event-id", "0-0");
        }
        let status = request.send().await.unwrap().status().as_u16();
        tally.add(status.to_string());
    }
    let took = started.elapsed();
    // The first stream is still attached: not ended, nothing taken from it.
    let still_open = tokio::time::timeout(Duration::from_millis(300), live.chunk()).await;
    assert!(
        still_open.is_err() || matches!(still_open, Ok(Ok(Some(_)))),
        "the live stream was ended: {still_open:?}"
    );
    let after = target.rss_kib();
    let good = good.finish().await;
    report(
        "GET stream takeover",
        &format!("{count} GET (half with Last-Event-ID: 0-0)"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert_eq!(tally.get("409"), count, "{tally:?}");
}
