//! A hostile server cannot grow the client without bound: it floods requests
//! and notifications over stdio; the client serves at most 32 of its
//! requests at once and answers the rest `-32000` at once, and keeps
//! working. (The SSE parser's bound is tested with the parser.)

use std::time::Duration;

use crate::support::client::{Step, TestHandler};
use frontdesk::client::{Client, ClientConfig, ProtocolChoice};
use frontdesk::wire::Revision;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const FLOOD: usize = 500;

#[tokio::test]
async fn a_flood_of_server_requests_is_bounded() {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (replies_tx, mut replies) = tokio::sync::mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_io);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            match message["method"].as_str() {
                Some("initialize") => {
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "flood", "version": "1"}}});
                    let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
                }
                Some("notifications/initialized") => {
                    let mut burst = String::new();
                    for i in 0..FLOOD {
                        let request = json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "elicitation/create",
                            "params": {"mode": "form", "message": "Again?", "requestedSchema": {
                                "type": "object", "properties": {"ok": {"type": "boolean"}}}}});
                        burst.push_str(&format!("{request}\n"));
                        let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "info", "data": "flood"}});
                        for _ in 0..20 {
                            burst.push_str(&format!("{note}\n"));
                        }
                    }
                    let _ = write.write_all(burst.as_bytes()).await;
                }
                Some("tools/list") => {
                    let reply =
                        json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}});
                    let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
                }
                _ if message.get("id").is_some() => {
                    let _ = replies_tx.send(message);
                }
                _ => {}
            }
        }
    });
    // The person never answers: every question the client shows stays open.
    let handler = TestHandler::new((0..FLOOD).map(|_| Step::AwaitWithdrawal));
    let mut config = ClientConfig::default().protocol(ProtocolChoice::Only(Revision::V2025_11_25));
    // No rate limit: every question would reach the person.
    config.rate_limit_per_minute = u32::MAX;
    let (r, w) = tokio::io::split(client_io);
    let client = Client::connect_io(r, w, config, handler.clone())
        .await
        .unwrap();

    let mut busy = 0;
    let mut other = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while busy + other < FLOOD - 32 {
        let Ok(Some(reply)) = tokio::time::timeout_at(deadline, replies.recv()).await else {
            break;
        };
        if reply["error"]["code"] == -32000 {
            busy += 1;
        } else {
            other += 1;
        }
    }
    let open = FLOOD - busy - other;
    eprintln!("{FLOOD} requests: {busy} refused busy, {other} answered, {open} open");
    assert!(open <= 32, "{open} requests still open");
    assert!(busy >= FLOOD - 32, "only {busy} refused");
    assert!(
        handler.seen().len() <= 32,
        "{} questions shown",
        handler.seen().len()
    );
    // The client still works.
    assert!(client.list_tools().await.unwrap().is_empty());
    client.close().await;
}
