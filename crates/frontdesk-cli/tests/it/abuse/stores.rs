//! Rows about the stores: first rounds of a URL-mode tool that nobody
//! continues (the flow store), and retries that echo a state back without
//! answers (the nonce store).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::harness::{
    ATTACKER, GOOD, GoodClient, Store, Tally, Target, client_from, modern_call, post_modern, report,
};

/// What a 2026-07-28 tools/call reply was.
fn outcome(status: u16, message: &Value) -> String {
    let result = &message["result"];
    match result["resultType"].as_str() {
        Some("input_required") => "input_required".into(),
        Some("complete") if result["isError"] == true => {
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            if text.contains("could not be asked now") {
                "refused: over its own quota".into()
            } else {
                format!("tool error: {text}")
            }
        }
        Some("complete") => "complete".into(),
        _ => match message["error"]["code"].as_i64() {
            Some(code) => format!("HTTP {status}, error {code}"),
            None => format!("HTTP {status}"),
        },
    }
}

/// Many first rounds of a URL-mode tool (each starts a sign-in flow) that
/// the attacker never continues.
#[tokio::test]
async fn abuse_url_flows_nobody_continues() {
    let count = super::harness::scale(100_050, 3_000);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
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
            while next.fetch_add(1, Ordering::SeqCst) < count {
                let body = modern_call("connect_store_account", json!({}), None);
                let label = match post_modern(&http, &mcp, &body).await {
                    Ok(r) => outcome(r.status, &r.message),
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
    // With the attacker's flows still pending, another client's URL question
    // is asked as usual.
    let mine = post_modern(
        &client_from(GOOD),
        &target.mcp,
        &modern_call("connect_store_account", json!({}), None),
    )
    .await
    .unwrap();
    let url = &mine.message["result"]["inputRequests"]["signin"]["params"]["url"];
    assert!(url.is_string(), "{}", mine.message);
    let after = target.rss_kib();
    let good = good.finish().await;
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        "URL flows nobody continues",
        &format!("{count} first rounds of connect_store_account"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert!(
        tally.get("refused: over its own quota") > 0,
        "the flow quota never applied: {tally:?}"
    );
    assert_eq!(
        tally.get("input_required") + tally.get("refused: over its own quota"),
        count,
        "{tally:?}"
    );
}

/// Many retries that echo the state back without answers: each redeems a
/// state and gets a new one (the question asked again). Against the memory
/// store; the rows below do the same against SQLite and Redis.
#[tokio::test]
async fn abuse_retries_without_answers() {
    retries_without_answers(Store::Memory).await;
}

/// The redemption row against `--store sqlite` (the default of `frontdesk
/// serve`): its per-client share bounds the table as memory's does.
#[tokio::test]
async fn abuse_retries_without_answers_sqlite() {
    retries_without_answers(Store::sqlite()).await;
}

/// The redemption row against `--store redis` (`FRONTDESK_REDIS_URL`;
/// skipped with a note when unset, unless `FRONTDESK_REQUIRE_REDIS=1`).
#[tokio::test]
async fn abuse_retries_without_answers_redis() {
    let Some(store) = Store::redis("the redemption abuse row against --store redis") else {
        return;
    };
    retries_without_answers(store).await;
}

/// The redemption row against `store`.
async fn retries_without_answers(store: Store) {
    let count = super::harness::scale(1_000_000, 10_000);
    // In the short run the attacker's share of the nonce store is small, so
    // it fills many times over.
    let share = super::harness::scale(100_000, 1_000).to_string();
    let name = store.name();
    let target = Target::start_with(store, &["--redemptions-per-client", &share]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for chain in 0..8 {
        let (http, mcp) = (http.clone(), target.mcp.clone());
        let (tally, next) = (Arc::clone(&tally), Arc::clone(&next));
        workers.push(tokio::spawn(async move {
            let args = json!({"n": chain});
            let mut state: Option<String> = None;
            while next.fetch_add(1, Ordering::SeqCst) < count {
                let body = match &state {
                    None => modern_call("bench_confirm", args.clone(), None),
                    Some(s) => modern_call("bench_confirm", args.clone(), Some((Value::Null, s))),
                };
                let (label, fresh) = match post_modern(&http, &mcp, &body).await {
                    Ok(r) => (
                        outcome(r.status, &r.message),
                        r.message["result"]["requestState"]
                            .as_str()
                            .map(str::to_string),
                    ),
                    Err(e) => (format!("error: {e}"), None),
                };
                let label = match (&state, label.as_str()) {
                    (None, "input_required") => "first round".to_string(),
                    (Some(_), "input_required") => "asked again".to_string(),
                    _ => label,
                };
                // A refused state starts a new call.
                state = fresh;
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
    let tally = std::mem::take(&mut *tally.lock().await);
    report(
        &format!("retries without answers (--store {name})"),
        &format!("{count} tools/call retries (nonce share {share})"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert!(tally.get("asked again") > count / 2, "{tally:?}");
    for label in tally.0.keys() {
        assert!(
            ["first round", "asked again", "HTTP 200, error -32602"].contains(&label.as_str()),
            "unexpected outcome {label}: {tally:?}"
        );
    }
}
