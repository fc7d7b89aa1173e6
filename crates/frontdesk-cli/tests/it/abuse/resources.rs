//! Rows about resources (issue 24): reads of huge hostile URIs, which once
//! sent the template matcher into quadratic work on a runtime worker.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::harness::{
    ATTACKER, GoodClient, LEGACY, MODERN, Tally, Target, client_from, initialize, meta, report,
};

/// A URI of `bytes` bytes the conformance template `test://template/{id}/data`
/// does not match, worst case for a backtracking matcher: a value with no
/// `/` (every position a candidate end) and a tail that is never `/data`.
fn hostile_uri(bytes: usize) -> String {
    let prefix = "test://template/";
    format!("{prefix}{}x", "a".repeat(bytes - prefix.len() - 1))
}

/// What one read got: the JSON-RPC error the bound gives, or what else came.
async fn read(http: &reqwest::Client, mcp: &str, session: &str, i: usize, uri: &str) -> String {
    let modern = i.is_multiple_of(2);
    let size = match uri.len() / 1024 {
        k if k >= 1024 => format!("{} MiB", k.div_ceil(1024)),
        k => format!("{k} KB"),
    };
    let mut body = json!({"jsonrpc": "2.0", "id": i + 1, "method": "resources/read",
        "params": {"uri": uri}});
    let mut request = http
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    request = if modern {
        body["params"]["_meta"] = meta();
        // Mcp-Name mirrors the URI, as the revision asks.
        request
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "resources/read")
            .header("mcp-name", uri)
    } else {
        request
            .header("mcp-protocol-version", LEGACY)
            .header("mcp-session-id", session)
    };
    let revision = format!("{} {size}", if modern { MODERN } else { LEGACY });
    let response = match request.body(body.to_string()).send().await {
        Ok(r) => r,
        Err(_) => return format!("{revision}: connection closed while sending"),
    };
    let status = response.status().as_u16();
    if status == 431 {
        return format!("{revision}: 431, headers too large");
    }
    let reply: Value = response
        .text()
        .await
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    if reply["error"]["code"] == -32602 && message.contains("(ServerConfig::max_uri_bytes)") {
        format!("{revision}: {status}, -32602 over the URI bound")
    } else {
        let shown: String = reply.to_string().chars().take(80).collect();
        format!("{revision}: {status} {shown}")
    }
}

/// Concurrent `resources/read` of hostile URIs from 200 KB to the body
/// limit, on both revisions (2026-07-28 with the URI mirrored in
/// `Mcp-Name`, 2025-11-25 in a session).
#[tokio::test]
async fn abuse_huge_resource_uris() {
    let count = super::harness::scale(400, 40);
    let sizes = [200 * 1024, 400 * 1024, 1024 * 1024, 4 * 1024 * 1024 - 512];
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
    let uris: Arc<Vec<String>> = Arc::new(sizes.iter().map(|&n| hostile_uri(n)).collect());
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    // Two waves of the same reads: the second must find the memory the
    // first used (bodies in flight) free again.
    let mut rss_after_wave = Vec::new();
    for wave in [count / 2, count] {
        let mut workers = Vec::new();
        for _ in 0..8 {
            let (http, mcp, session) = (http.clone(), target.mcp.clone(), session.clone());
            let (tally, next, uris) = (Arc::clone(&tally), Arc::clone(&next), Arc::clone(&uris));
            workers.push(tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= wave {
                        break;
                    }
                    // Both revisions for every size: i / 2 picks the size.
                    let uri = &uris[(i / 2) % uris.len()];
                    let label = read(&http, &mcp, &session, i, uri).await;
                    tally.lock().await.add(label);
                }
            }));
        }
        for w in workers {
            w.await.unwrap();
        }
        next.store(wave, Ordering::SeqCst);
        rss_after_wave.push(target.rss_kib());
    }
    let took = started.elapsed();
    let (mid, after) = (rss_after_wave[0], rss_after_wave[1]);
    let good = good.finish().await;
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "huge resource URIs",
        &format!("{count} resources/read of 200 KB to 4 MiB URIs, both revisions"),
        took,
        &tally,
        (before, after),
        &good,
    );
    // None reached the matcher: each was refused for its length or, a
    // 2026-07-28 one whose Mcp-Name is too large for the HTTP reader (from
    // 1 MiB), before its body was read.
    let mut refused_for_length = 0;
    for (label, n) in &tally.0 {
        if label.ends_with("-32602 over the URI bound") {
            refused_for_length += n;
        } else {
            assert!(
                label.starts_with("2026-07-28") && label.contains("MiB:"),
                "{n} × {label}"
            );
        }
    }
    // Every 2025-11-25 read, and every 2026-07-28 one of 200 and 400 KB.
    assert_eq!(refused_for_length, count / 2 + count / 4, "{tally:?}");
    // The bodies in flight (8 of up to 4 MiB, each held as bytes, as JSON
    // and as typed params) are memory the second wave uses again.
    assert!(
        after.saturating_sub(mid) < 32 * 1024,
        "server memory grew by {} KiB in the second wave",
        after.saturating_sub(mid)
    );
}
