//! The HTTP listener's caps as `frontdesk serve` and `frontdesk gateway`
//! take them (`--max-connections`, `--max-connections-per-client`,
//! `--max-sessions-per-client`, and the same keys in a config file), and
//! the gateway's cap on calls in progress (`--max-calls`): the cap given is
//! the one the running server enforces, on real connections.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use frontdesk_testkit::TestClient;
use serde_json::json;

use crate::serve_restart::{Serve, generate_key, http, temp_dir};
use crate::support::{BIN, Running, legacy_post};

/// `host:port` of an endpoint URL.
fn addr_of(mcp: &str) -> String {
    mcp.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string()
}

/// A connection that is open and says nothing: it holds its place.
fn hold(addr: &str) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
}

/// `GET /healthz` on `stream`, kept alive: the status line.
fn healthz(stream: &mut TcpStream, addr: &str) -> String {
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut reply = [0u8; 512];
    let n = stream.read(&mut reply).unwrap();
    let text = String::from_utf8_lossy(&reply[..n]);
    text.lines().next().unwrap_or_default().to_string()
}

/// What a new connection is told before it sends anything: the refusal's
/// status line, or nothing when it was let in (and waits for a request).
fn refusal_of_new(addr: &str) -> Option<String> {
    let mut stream = hold(addr);
    let mut reply = String::new();
    match stream.read_to_string(&mut reply) {
        Ok(_) if !reply.is_empty() => reply.lines().next().map(str::to_string),
        _ => None,
    }
}

/// `cap` connections from one address are let in and served; the next is
/// refused with `status`; when one closes, a new one is let in again.
fn only_cap_connections_from_here(addr: &str, cap: usize, status: &str) {
    let mut held: Vec<TcpStream> = (0..cap).map(|_| hold(addr)).collect();
    for stream in &mut held {
        assert_eq!(healthz(stream, addr), "HTTP/1.1 200 OK");
    }
    assert_eq!(refusal_of_new(addr).as_deref(), Some(status));
    drop(held.pop());
    // The server notices the close when it reads the connection again.
    std::thread::sleep(Duration::from_millis(200));
    let mut again = hold(addr);
    assert_eq!(healthz(&mut again, addr), "HTTP/1.1 200 OK");
}

#[test]
fn serve_takes_the_connection_cap_per_address_from_its_flag() {
    let keys = generate_key("k1");
    let serve = Serve::start(
        &keys,
        &["--store", "memory", "--max-connections-per-client", "3"],
    );
    only_cap_connections_from_here(&addr_of(&serve.mcp), 3, "HTTP/1.1 429 Too Many Requests");
}

#[test]
fn serve_takes_the_connection_cap_from_its_config_file() {
    let dir = temp_dir("limits-config");
    let file = dir.join("serve.toml");
    std::fs::write(&file, "store = \"memory\"\nmax-connections = 2\n").unwrap();
    let keys = generate_key("k1");
    let serve = Serve::start(&keys, &["--config", file.to_str().unwrap()]);
    only_cap_connections_from_here(&addr_of(&serve.mcp), 2, "HTTP/1.1 503 Service Unavailable");
}

/// A 2025-11-25 `initialize` over HTTP: the new session's id.
async fn new_session(client: &reqwest::Client, mcp: &str) -> String {
    let body = TestClient::new("limits", "1").initialize(json!(1));
    let r = legacy_post(client, mcp, None, &body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.headers()["mcp-session-id"].to_str().unwrap().to_string()
}

/// The status of `ping` in `session`.
async fn ping(client: &reqwest::Client, mcp: &str, session: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let r = legacy_post(client, mcp, Some(session), &body);
    r.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn serve_takes_the_session_cap_per_client_from_its_flag() {
    let keys = generate_key("k1");
    let serve = Serve::start(
        &keys,
        &["--store", "memory", "--max-sessions-per-client", "2"],
    );
    let client = http();
    let first = new_session(&client, &serve.mcp).await;
    let second = new_session(&client, &serve.mcp).await;
    assert_eq!(ping(&client, &serve.mcp, &first).await, 200);
    assert_eq!(ping(&client, &serve.mcp, &second).await, 200);
    // A third session from the same client ends its least recently used.
    let third = new_session(&client, &serve.mcp).await;
    assert_eq!(ping(&client, &serve.mcp, &third).await, 200);
    assert_eq!(ping(&client, &serve.mcp, &first).await, 404);
    assert_eq!(ping(&client, &serve.mcp, &second).await, 200);
}

#[test]
fn the_gateway_takes_the_connection_cap_per_address_from_its_flag() {
    let mut command = Command::new(BIN);
    command
        .args(["gateway", "--http", "127.0.0.1:0"])
        .args(["--max-connections-per-client", "2", "--"])
        .args([BIN, "serve", "--stdio", "--store", "memory"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    let gateway = Running::spawn(command);
    let mcp = crate::gateway::endpoint_of(&gateway);
    only_cap_connections_from_here(&addr_of(&mcp), 2, "HTTP/1.1 429 Too Many Requests");
    gateway.kill();
}

/// A new 2025-11-25 session's `tools/call` of the demo's `book_return`: the
/// session, and the response (its stream stays open while the call waits
/// for its answer).
async fn call_book_return(
    client: &reqwest::Client,
    mcp: &str,
    order: &str,
) -> (String, reqwest::Response) {
    let session = new_session(client, mcp).await;
    let initialized = frontdesk_testkit::initialized();
    let r = legacy_post(client, mcp, Some(&session), &initialized);
    assert_eq!(r.send().await.unwrap().status(), 202);
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": order}}});
    let r = legacy_post(client, mcp, Some(&session), &body);
    (session, r.send().await.unwrap())
}

/// `--max-calls 2`: two calls wait for their people's answers, a third is
/// refused as busy (`503`, `-32000`), and once one of them has ended (its
/// session deleted) a new call goes through. (The default, 256, was the
/// only value before the flag: a gateway in front of many people could hold
/// no more.)
#[tokio::test]
async fn the_gateway_takes_its_cap_on_calls_in_progress_from_its_flag() {
    let mut command = Command::new(BIN);
    command
        .args(["gateway", "--http", "127.0.0.1:0", "--max-calls", "2", "--"])
        .args([BIN, "serve", "--stdio", "--store", "memory"])
        .args(["--revision", "2026-07-28"])
        .env("RUST_LOG", "warn")
        .env_remove("FRONTDESK_STATE_KEYS")
        .stdin(Stdio::null());
    let gateway = Running::spawn(command);
    let mcp = crate::gateway::endpoint_of(&gateway);
    let client = http();
    let (first_session, first) = call_book_return(&client, &mcp, "A1").await;
    let (_, second) = call_book_return(&client, &mcp, "A2").await;
    assert_eq!(first.status(), 200);
    assert_eq!(second.status(), 200);
    let (_, third) = call_book_return(&client, &mcp, "A3").await;
    assert_eq!(third.status(), 503);
    let refusal: serde_json::Value = third.json().await.unwrap();
    assert_eq!(refusal["error"]["code"], -32000, "{refusal}");
    assert_eq!(
        refusal["error"]["message"],
        "The gateway holds its most upstream calls; try again later"
    );
    // The first person's session ends: its call with it, making room.
    let deleted = client
        .delete(&mcp)
        .header("mcp-session-id", &first_session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    drop(first);
    let mut fourth = None;
    for _ in 0..100 {
        let (_, r) = call_book_return(&client, &mcp, "A4").await;
        if r.status() == 200 {
            fourth = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(fourth.is_some(), "no room made when a call ended");
    drop(second);
    gateway.kill();
}

#[test]
fn a_cap_of_zero_is_refused_before_the_server_starts() {
    let out = Command::new(BIN)
        .args(["serve", "--http", "127.0.0.1:0", "--store", "memory"])
        .args(["--max-connections", "0"])
        .env_remove("FRONTDESK_DATA_DIR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid value '0' for '--max-connections <N>'")
            && stderr.contains("a cap of 0 would refuse every client"),
        "{stderr}"
    );
}
