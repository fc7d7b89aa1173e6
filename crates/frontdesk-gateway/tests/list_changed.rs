//! A 2025-11-25 upstream whose tools change: its
//! `notifications/tools/list_changed` makes the gateway read the tools
//! again, and a client in front hears `notifications/tools/list_changed`
//! once, lists the new tool and calls it. A thousand notifications in a row
//! cost a bounded number of rereads.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{Client, ClientConfig};
use frontdesk::wire::Revision;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// A 2025-11-25 server on a pipe with the tool `grow`; calling it adds the
/// tool `second` and sends `notifications/tools/list_changed` `announce`
/// times. `lists` counts the `tools/list` requests.
fn growing_upstream(announce: usize, lists: Arc<AtomicUsize>) -> tokio::io::DuplexStream {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let grown = AtomicBool::new(false);
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let result = match m.get("method").and_then(Value::as_str) {
                Some("initialize") => json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {"listChanged": true}},
                    "serverInfo": {"name": "growing", "version": "1"}
                }),
                Some("tools/list") => {
                    lists.fetch_add(1, Ordering::SeqCst);
                    let mut tools = vec![tool("grow")];
                    if grown.load(Ordering::SeqCst) {
                        tools.push(tool("second"));
                    }
                    json!({"tools": tools})
                }
                Some("tools/call") => {
                    let name = m["params"]["name"].as_str().unwrap_or_default().to_owned();
                    if name == "grow" {
                        grown.store(true, Ordering::SeqCst);
                        let note = json!({"jsonrpc": "2.0",
                            "method": "notifications/tools/list_changed"});
                        for _ in 0..announce {
                            let text = format!("{note}\n");
                            write.write_all(text.as_bytes()).await.unwrap();
                        }
                    }
                    json!({"content": [{"type": "text", "text": format!("called {name}")}]})
                }
                _ => continue,
            };
            let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
            write
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
        }
    });
    client_end
}

/// The gateway before the growing upstream; a 2025-11-25 client in front
/// whose heard notifications are kept.
async fn front(announce: usize, lists: Arc<AtomicUsize>) -> (Client, Arc<Mutex<Vec<String>>>) {
    let (gateway, server) = gateway_over(growing_upstream(announce, lists)).await;
    gateway.notify_through(&server);
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let keep = Arc::clone(&heard);
    let mut config = ClientConfig::default().protocol(Revision::V2025_11_25);
    config.on_notification = Some(Arc::new(move |n| {
        keep.lock().unwrap().push(n.method.clone());
    }));
    let down = client_of(server, config, Script::new(vec![])).await;
    let caps = down.server_capabilities().unwrap();
    assert_eq!(caps.tools.unwrap().list_changed, Some(true));
    (down, heard)
}

fn names(tools: &[frontdesk::wire::Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

async fn told_once(heard: &Mutex<Vec<String>>) {
    let told = || {
        heard
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == "notifications/tools/list_changed")
            .count()
    };
    for _ in 0..200 {
        if told() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Rereads that find nothing new tell nobody.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(told(), 1);
}

#[tokio::test]
async fn a_changed_upstream_listing_is_read_again_and_told() {
    let lists = Arc::new(AtomicUsize::new(0));
    let (down, heard) = front(1, Arc::clone(&lists)).await;
    assert_eq!(names(&down.list_tools().await.unwrap()), ["grow"]);
    down.call_tool("grow", json!({})).await.unwrap();
    told_once(&heard).await;
    assert_eq!(names(&down.list_tools().await.unwrap()), ["grow", "second"]);
    let result = down.call_tool("second", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("called second"));
    assert_eq!(lists.load(Ordering::SeqCst), 2, "attach, then one reread");
    down.close().await;
}

#[tokio::test]
async fn a_thousand_notifications_cost_few_rereads() {
    let lists = Arc::new(AtomicUsize::new(0));
    let (down, heard) = front(1000, Arc::clone(&lists)).await;
    down.call_tool("grow", json!({})).await.unwrap();
    told_once(&heard).await;
    let rereads = lists.load(Ordering::SeqCst) - 1;
    assert!((1..=50).contains(&rereads), "{rereads} rereads");
    assert_eq!(names(&down.list_tools().await.unwrap()), ["grow", "second"]);
    down.close().await;
}
