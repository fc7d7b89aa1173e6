//! Rows about connections: slowloris, slow bodies, silent and idle
//! keep-alive connections; and DNS rebinding (a foreign `Host`).

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

use super::harness::{ATTACKER, GoodClient, MODERN, Tally, Target, client_from, meta, report};

/// How long the attacker waits for the server to close a connection before
/// calling it held open.
const GIVE_UP: Duration = Duration::from_secs(30);

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Connects and says nothing.
    Silent,
    /// Sends its headers one byte every half second.
    Slowloris,
    /// Sends complete headers, then the body one byte every half second.
    SlowBody,
    /// Makes one request, then keeps the connection open and idle.
    IdleKeepAlive,
}

/// What happened to one attacking connection.
async fn hold(addr: std::net::SocketAddr, kind: Kind, authority: String) -> String {
    let socket = match TcpSocket::new_v4() {
        Ok(s) => s,
        Err(e) => return format!("socket error: {e}"),
    };
    if socket
        .bind("127.0.0.2:0".parse().expect("an address"))
        .is_err()
    {
        return "bind error".into();
    }
    let mut stream = match socket.connect(addr).await {
        Ok(s) => s,
        Err(e) => return format!("connect error: {}", e.kind()),
    };
    let started = Instant::now();
    let (mut read, mut write) = stream.split();
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
            .to_string();
    let headers = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: {MODERN}\r\nMcp-Method: tools/list\r\n"
    );
    let trickle = async {
        match kind {
            Kind::Silent => std::future::pending::<()>().await,
            Kind::Slowloris => {
                for b in headers.bytes().cycle() {
                    if write.write_all(&[b]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
            Kind::SlowBody => {
                let head = format!("{headers}Content-Length: 100000\r\n\r\n");
                if write.write_all(head.as_bytes()).await.is_ok() {
                    loop {
                        if write.write_all(b" ").await.is_err() {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
            Kind::IdleKeepAlive => {
                let request = format!("{headers}Content-Length: {}\r\n\r\n{body}", body.len());
                let _ = write.write_all(request.as_bytes()).await;
            }
        }
        std::future::pending::<()>().await;
    };
    let mut received = Vec::new();
    let closed = tokio::time::timeout(GIVE_UP, async {
        tokio::select! {
            () = trickle => {}
            () = async {
                let mut buf = [0u8; 4096];
                loop {
                    match read.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => received.extend_from_slice(&buf[..n]),
                    }
                }
            } => {}
        }
    })
    .await;
    if closed.is_err() {
        return "still open".into();
    }
    let answer = String::from_utf8_lossy(&received);
    let status = answer
        .split_whitespace()
        .nth(1)
        .unwrap_or("none")
        .to_string();
    match (kind, status.as_str()) {
        (_, "429") => "refused 429 (per-client cap)".into(),
        (_, "503") => "refused 503 (server cap)".into(),
        (Kind::IdleKeepAlive, "200") | (_, "408" | "none") => {
            format!("closed within {} s", started.elapsed().as_secs() + 1)
        }
        (_, other) => format!("closed with {other}"),
    }
}

/// Many slow and idle connections from one address.
#[tokio::test]
async fn abuse_slow_and_idle_connections() {
    let count = super::harness::scale(1_000, 300);
    let target = Target::start(&[]);
    let addr: std::net::SocketAddr = target.authority().parse().unwrap();
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let kinds = [
        Kind::Silent,
        Kind::Slowloris,
        Kind::SlowBody,
        Kind::IdleKeepAlive,
    ];
    let mut held = Vec::new();
    for i in 0..count {
        held.push(tokio::spawn(hold(
            addr,
            kinds[i % kinds.len()],
            target.authority(),
        )));
    }
    let mut tally = Tally::default();
    for h in held {
        tally.add(h.await.unwrap_or_else(|e| format!("task failed: {e}")));
    }
    let took = started.elapsed();
    let after = target.rss_kib();
    let good = good.finish().await;
    report(
        "slow and idle connections",
        &format!("{count} connections (silent, slowloris, slow body, idle keep-alive)"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert_eq!(tally.get("still open"), 0, "{tally:?}");
    for label in tally.0.keys() {
        assert!(
            label.starts_with("refused") || label.starts_with("closed within"),
            "unexpected outcome {label}: {tally:?}"
        );
        if let Some(secs) = label
            .strip_prefix("closed within ")
            .and_then(|s| s.trim_end_matches(" s").parse::<u64>().ok())
        {
            assert!(secs <= 15, "a connection was held {secs} s: {tally:?}");
        }
    }
}

/// Requests with a foreign `Host` and no `Origin` (DNS rebinding against a
/// loopback server).
#[tokio::test]
async fn abuse_dns_rebinding_host() {
    let count = super::harness::scale(1_000, 200);
    let target = Target::start(&[]);
    let good = GoodClient::start(&target.mcp);
    let before = target.rss_kib();
    let started = Instant::now();
    let http = client_from(ATTACKER);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let mut tally = Tally::default();
    for _ in 0..count {
        let status = http
            .post(&target.mcp)
            .header("host", "evil.example")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/list")
            .body(body.to_string())
            .send()
            .await
            .map(|r| r.status().as_u16().to_string())
            .unwrap_or_else(|e| format!("error: {e}"));
        tally.add(status);
    }
    let took = started.elapsed();
    let after = target.rss_kib();
    let good = good.finish().await;
    report(
        "DNS rebinding (Host: evil.example)",
        &format!("{count} POST"),
        took,
        &tally,
        (before, after),
        &good,
    );
    assert_eq!(tally.get("403"), count, "{tally:?}");
}
