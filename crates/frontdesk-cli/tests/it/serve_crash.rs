//! Issue 27: `frontdesk serve` on its default store (SQLite) killed with
//! `SIGKILL` under load, then started again on the same data directory and
//! keys: every request state whose final round was answered is refused when
//! replayed, and a state that was issued but never redeemed still opens
//! (so the refusals come from the redemptions on disk, not from the restart).
//!
//! Loopback only, bounded: 8 clients, at most [`MAX_ANSWERED`] calls or
//! [`LOAD_FOR`] of load before the kill.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::serve_restart::{Serve, generate_key, meta, refused, state_of, temp_dir};

const CLIENTS: usize = 8;
const MAX_ANSWERED: usize = 400;
const LOAD_FOR: Duration = Duration::from_secs(3);
const TOOL: &str = "bench_confirm";

fn answers() -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": true}}})
}

/// A 2026-07-28 `bench_confirm` round on `mcp`; the reply, or `None` when
/// none came (the server was killed mid-request).
async fn round(client: &reqwest::Client, mcp: &str, n: u64, retry: Option<&str>) -> Option<Value> {
    let mut body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": TOOL, "arguments": {"n": n}, "_meta": meta()}});
    if let Some(state) = retry {
        body["params"]["inputResponses"] = answers();
        body["params"]["requestState"] = json!(state);
    }
    let r = client
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", TOOL)
        .body(body.to_string())
        .send()
        .await
        .ok()?;
    let text = r.text().await.ok()?;
    serde_json::from_str(&text).ok()
}

fn completed(reply: &Value, n: u64) -> bool {
    reply["result"]["content"][0]["text"] == format!("confirmed {n}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answered_states_stay_redeemed_across_a_sigkill() {
    let dir = temp_dir("crash");
    let data = dir.join("data");
    let data = data.to_str().unwrap();
    let keys = generate_key("k1");
    let args = ["--conformance-fixtures", "--data-dir", data];
    let server = Serve::start(&keys, &args);
    let client = super::serve_restart::http();

    // A state issued before the crash and never redeemed: it must still open.
    let unused = round(&client, &server.mcp, 1, None).await.unwrap();
    let unused = state_of(&unused);

    // Load: each client runs calls to completion until told to stop; every
    // (n, state) whose final round came back complete is recorded.
    let answered: Arc<Mutex<Vec<(u64, String)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for c in 0..CLIENTS as u64 {
        let (client, mcp) = (client.clone(), server.mcp.clone());
        let (answered, stop) = (Arc::clone(&answered), Arc::clone(&stop));
        tasks.push(tokio::spawn(async move {
            let mut n = (c + 1) * 1_000_000;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let Some(first) = round(&client, &mcp, n, None).await else {
                    break;
                };
                let state = state_of(&first);
                let Some(last) = round(&client, &mcp, n, Some(&state)).await else {
                    break;
                };
                assert!(completed(&last, n), "{last}");
                let mut answered = answered.lock().await;
                answered.push((n, state));
                if answered.len() >= MAX_ANSWERED {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }));
    }
    // Kill while the clients are still calling (at least some calls done).
    let started = Instant::now();
    while answered.lock().await.len() < MAX_ANSWERED / 2 && started.elapsed() < LOAD_FOR {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.kill();
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }
    let answered = std::mem::take(&mut *answered.lock().await);
    assert!(
        answered.len() >= 10,
        "only {} calls completed before the kill",
        answered.len()
    );

    let server = Serve::start(&keys, &args);
    let client = super::serve_restart::http();
    for (n, state) in &answered {
        let reply = round(&client, &server.mcp, *n, Some(state)).await.unwrap();
        refused(&reply);
    }
    let reply = round(&client, &server.mcp, 1, Some(&unused)).await.unwrap();
    assert!(completed(&reply, 1), "{reply}");
    eprintln!(
        "crash: {} answered states refused after SIGKILL and restart",
        answered.len()
    );
}
