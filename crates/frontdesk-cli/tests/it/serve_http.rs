//! Issue 27: `frontdesk serve` over HTTP/2 and TLS, real processes on
//! loopback.
//!
//! - h2c with prior knowledge on the plain listener: a 2026-07-28 round trip,
//!   and a 2025-11-25 session whose pending question is answered on the same
//!   HTTP/2 connection that carries the call's open stream;
//! - `--tls-cert`/`--tls-key` with a self-signed certificate made here: HTTPS,
//!   HTTP/2 by ALPN; after the files change and `SIGHUP`, new handshakes get
//!   the new certificate while an open connection keeps working.

use std::path::Path;
use std::time::{Duration, Instant};

use frontdesk_testkit::{TestClient, take_sse_data};
use reqwest::{Certificate, Client, Version};
use serde_json::{Value, json};

use super::serve_restart::{Serve, generate_key, meta, state_of, temp_dir};
use crate::support::{legacy_post, modern_post};

const TOOL: &str = "bench_confirm";

fn h2c() -> Client {
    frontdesk::client::install_default_tls_provider();
    Client::builder()
        .http2_prior_knowledge()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// A client trusting `cert` (PEM) alone.
fn trusting(cert: &str) -> Client {
    frontdesk::client::install_default_tls_provider();
    Client::builder()
        .tls_certs_only([Certificate::from_pem(cert.as_bytes()).unwrap()])
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

/// A 2026-07-28 `bench_confirm` round; its HTTP version and reply.
async fn round(
    client: &Client,
    mcp: &str,
    n: u64,
    retry: Option<&str>,
) -> reqwest::Result<(Version, Value)> {
    let mut body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": TOOL, "arguments": {"n": n}, "_meta": meta()}});
    if let Some(state) = retry {
        body["params"]["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        body["params"]["requestState"] = json!(state);
    }
    let r = modern_post(client, mcp, "tools/call", TOOL, &body)
        .send()
        .await?;
    let version = r.version();
    let text = r.text().await?;
    Ok((version, serde_json::from_str(&text).unwrap()))
}

/// Round 1 and the retry: both over HTTP/2, ending in `confirmed n`.
async fn round_trip(client: &Client, mcp: &str, n: u64) {
    let (version, first) = round(client, mcp, n, None).await.unwrap();
    assert_eq!(version, Version::HTTP_2);
    let state = state_of(&first);
    let (version, last) = round(client, mcp, n, Some(&state)).await.unwrap();
    assert_eq!(version, Version::HTTP_2);
    assert_eq!(
        last["result"]["content"][0]["text"],
        format!("confirmed {n}"),
        "{last}"
    );
}

fn memory_store() -> [&'static str; 3] {
    ["--conformance-fixtures", "--store", "memory"]
}

#[tokio::test]
async fn a_2026_call_round_trips_over_h2c() {
    let server = Serve::start(&generate_key("k1"), &memory_store());
    round_trip(&h2c(), &server.mcp, 7).await;
}

/// The next JSON-RPC message of an SSE body being read chunk by chunk.
async fn next_message(r: &mut reqwest::Response, buffer: &mut String) -> Value {
    loop {
        if let Some(data) = take_sse_data(buffer) {
            return serde_json::from_str(&data).unwrap();
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), r.chunk())
            .await
            .expect("the stream went quiet")
            .unwrap()
            .expect("the stream ended");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test]
async fn a_2025_session_answers_its_pending_question_over_h2c() {
    let server = Serve::start(&generate_key("k1"), &memory_store());
    let client = h2c();
    let post = |body: Value, session: Option<&str>| {
        legacy_post(&client, &server.mcp, session, &body).send()
    };
    let init = post(
        TestClient::new("h2c-test", "1")
            .capabilities(json!({"elicitation": {"form": {}}}))
            .initialize(json!(1)),
        None,
    )
    .await
    .unwrap();
    assert_eq!(init.version(), Version::HTTP_2);
    assert_eq!(init.status(), 200);
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let s = Some(session.as_str());
    let r = post(frontdesk_testkit::initialized(), s).await.unwrap();
    assert_eq!(r.status(), 202);
    let mut stream = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": TOOL, "arguments": {"n": 5}}}),
        s,
    )
    .await
    .unwrap();
    assert_eq!(stream.version(), Version::HTTP_2);
    let mut buffer = String::new();
    let question = loop {
        let m = next_message(&mut stream, &mut buffer).await;
        if m["method"] == "elicitation/create" {
            break m;
        }
    };
    // The answer shares the HTTP/2 connection with the open stream.
    let r = post(
        json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": {"ok": true}}}),
        s,
    )
    .await
    .unwrap();
    assert_eq!(r.version(), Version::HTTP_2);
    assert_eq!(r.status(), 202);
    let result = loop {
        let m = next_message(&mut stream, &mut buffer).await;
        if m["id"] == 2 {
            break m;
        }
    };
    assert_eq!(
        result["result"]["content"][0]["text"], "confirmed 5",
        "{result}"
    );
}

/// A self-signed certificate for 127.0.0.1 written to `dir`: the PEM of
/// the certificate (what a client trusts).
fn write_certificate(dir: &Path) -> String {
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let cert = made.cert.pem();
    // Written next to the files and renamed over them, as a renewal would.
    std::fs::write(dir.join("cert.pem.new"), &cert).unwrap();
    std::fs::write(dir.join("key.pem.new"), made.signing_key.serialize_pem()).unwrap();
    std::fs::rename(dir.join("cert.pem.new"), dir.join("cert.pem")).unwrap();
    std::fs::rename(dir.join("key.pem.new"), dir.join("key.pem")).unwrap();
    cert
}

#[tokio::test]
async fn https_with_a_certificate_reloaded_on_sighup() {
    let dir = temp_dir("tls");
    let old = write_certificate(&dir);
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let mut args = memory_store().to_vec();
    args.extend([
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    let server = Serve::start(&generate_key("k1"), &args);
    assert!(
        server.mcp.starts_with("https://127.0.0.1:"),
        "{}",
        server.mcp
    );
    let open = trusting(&old);
    round_trip(&open, &server.mcp, 1).await;
    // Plain HTTP on the TLS port gets nothing usable.
    assert!(
        round(&h2c(), &server.mcp.replace("https://", "http://"), 2, None)
            .await
            .is_err()
    );

    let new = write_certificate(&dir);
    let hup = std::process::Command::new("kill")
        .args(["-HUP", &server.process.id().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    // New handshakes get the new certificate (the reload is asynchronous).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if round(&trusting(&new), &server.mcp, 3, None).await.is_ok() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new certificate was not served"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    round_trip(&trusting(&new), &server.mcp, 4).await;
    assert!(
        round(&trusting(&old), &server.mcp, 5, None).await.is_err(),
        "a new connection still got the old certificate"
    );
    // The connection opened before the reload was not dropped: `open`
    // trusts only the old certificate, so it could not have reconnected.
    round_trip(&open, &server.mcp, 6).await;

    // A reload that fails (a key that does not match) keeps the current pair.
    std::fs::write(&key, rcgen::KeyPair::generate().unwrap().serialize_pem()).unwrap();
    let hup = std::process::Command::new("kill")
        .args(["-HUP", &server.process.id().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    tokio::time::sleep(Duration::from_millis(300)).await;
    round_trip(&trusting(&new), &server.mcp, 8).await;
}
