//! Notifications of an extra connection to a 2025-11-25 upstream
//! (`Gateway::connect_more`, each lane's client connected with
//! `Lane::config` as documented) are handled as the attached one's are: a
//! `notifications/tools/list_changed` sent while a call runs on the extra
//! lane makes the gateway read the tools again, and the client in front is
//! told. The logs and progress of a call on an extra lane reach its client
//! as the attached connection's do.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{CallOptions, Client, ClientConfig};
use frontdesk::wire::{LoggingLevel, Revision};
use frontdesk_gateway::{Gateway, GatewayOptions};
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// One connection to a 2025-11-25 server whose state every connection
/// shares (`grown`): `hold` is never answered (it keeps its lane busy);
/// `grow` adds the tool `second` and sends
/// `notifications/tools/list_changed` on this connection. Each connection
/// that sends the notification is counted in `announced`.
fn shared_upstream(grown: Arc<AtomicBool>, announced: Arc<AtomicUsize>) -> tokio::io::DuplexStream {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let result = match m.get("method").and_then(Value::as_str) {
                Some("initialize") => json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                    "serverInfo": {"name": "shared", "version": "1"}
                }),
                Some("logging/setLevel") => json!({}),
                Some("tools/list") => {
                    let mut tools = vec![tool("hold"), tool("grow")];
                    if grown.load(Ordering::SeqCst) {
                        tools.push(tool("second"));
                    }
                    json!({"tools": tools})
                }
                Some("tools/call") => match m["params"]["name"].as_str() {
                    Some("grow") => {
                        grown.store(true, Ordering::SeqCst);
                        announced.fetch_add(1, Ordering::SeqCst);
                        let mut notes = vec![
                            json!({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "error", "logger": "lane",
                                    "data": "growing"}}),
                            json!({"jsonrpc": "2.0",
                                "method": "notifications/tools/list_changed"}),
                        ];
                        if let Some(token) = m["params"]["_meta"].get("progressToken") {
                            notes.push(json!({"jsonrpc": "2.0",
                                "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": 1,
                                    "total": 2}}));
                        }
                        for note in notes {
                            write
                                .write_all(format!("{note}\n").as_bytes())
                                .await
                                .unwrap();
                        }
                        json!({"content": [{"type": "text", "text": "grown"}]})
                    }
                    _ => continue,
                },
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

/// What a test sees: the gateway before connections to the shared
/// upstream (an extra one busy with `hold`: the client in front declares
/// less than the attached one did, so its calls run on connections of
/// their own), a 2025-11-25 client in front whose notifications are kept,
/// the number of extra connections opened and of list changes the
/// upstream told.
struct Front {
    gateway: Gateway,
    down: Client,
    heard: Arc<Mutex<Vec<Value>>>,
    opened: Arc<AtomicUsize>,
    announced: Arc<AtomicUsize>,
    holding: tokio::task::JoinHandle<()>,
}

async fn front() -> Front {
    let grown = Arc::new(AtomicBool::new(false));
    let announced = Arc::new(AtomicUsize::new(0));
    let opened = Arc::new(AtomicUsize::new(0));
    let gateway = Gateway::new(GatewayOptions::default());
    let connect = |config: ClientConfig, handler| {
        let (read, write) =
            tokio::io::split(shared_upstream(Arc::clone(&grown), Arc::clone(&announced)));
        Client::connect_io(read, write, config, handler)
    };
    let up = connect(
        gateway.upstream_config(ClientConfig::default().protocol(Revision::V2025_11_25)),
        gateway.upstream_handler(),
    )
    .await
    .unwrap();
    {
        let (grown, announced, opened) = (
            Arc::clone(&grown),
            Arc::clone(&announced),
            Arc::clone(&opened),
        );
        gateway.connect_more(2, move |lane| {
            opened.fetch_add(1, Ordering::SeqCst);
            let (read, write) =
                tokio::io::split(shared_upstream(Arc::clone(&grown), Arc::clone(&announced)));
            Box::pin(async move {
                let config = lane.config(ClientConfig::default().protocol(Revision::V2025_11_25));
                Ok(Client::connect_io(read, write, config, lane.handler()).await?)
            })
        });
    }
    let server = gateway.attach(up).await.unwrap().build();
    gateway.notify_through(&server);
    let heard: Arc<Mutex<Vec<Value>>> = Arc::default();
    let mut config = ClientConfig::default().protocol(Revision::V2025_11_25);
    {
        let heard = Arc::clone(&heard);
        config.on_notification = Some(Arc::new(move |n| {
            heard.lock().unwrap().push(serde_json::to_value(n).unwrap());
        }));
    }
    let down = client_of(server, config, Script::new(vec![])).await;

    // `hold` takes an extra connection and keeps it.
    let holding = {
        let down = down.clone();
        tokio::spawn(async move {
            let _ = down.call_tool("hold", json!({})).await;
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        opened.load(Ordering::SeqCst),
        1,
        "hold ran on an extra lane"
    );
    Front {
        gateway,
        down,
        heard,
        opened,
        announced,
        holding,
    }
}

#[tokio::test]
async fn a_list_change_told_on_an_extra_lane_reaches_the_client_in_front() {
    let Front {
        gateway,
        down,
        heard,
        opened,
        announced,
        holding,
    } = front().await;
    // So `grow` runs on a new connection, which tells of the change.
    let result = down.call_tool("grow", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("grown"));
    assert_eq!(
        opened.load(Ordering::SeqCst),
        2,
        "grow ran on another extra lane"
    );
    assert_eq!(announced.load(Ordering::SeqCst), 1);

    let told = || {
        heard
            .lock()
            .unwrap()
            .iter()
            .filter(|n| n["method"] == "notifications/tools/list_changed")
            .count()
    };
    for _ in 0..200 {
        if told() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(told(), 1, "the client in front was told of the change");
    let names: Vec<String> = down
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["hold", "grow", "second"]);
    holding.abort();
    down.close().await;
    gateway.close_extra_connections().await;
}

#[tokio::test]
async fn logs_and_progress_of_a_call_on_an_extra_lane_reach_its_client() {
    let Front {
        gateway,
        down,
        heard,
        opened,
        holding,
        ..
    } = front().await;
    down.set_log_level(LoggingLevel::Info).await.unwrap();
    let progress: Arc<Mutex<Vec<Value>>> = Arc::default();
    let options = {
        let p = Arc::clone(&progress);
        CallOptions::default()
            .on_progress(move |n| p.lock().unwrap().push(serde_json::to_value(n).unwrap()))
    };
    let result = down
        .call_tool_with("grow", json!({}), options)
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("grown"));
    assert_eq!(
        opened.load(Ordering::SeqCst),
        2,
        "grow ran on another extra lane"
    );
    // Heard on the connection (the client in front has two calls in
    // flight, so its runtime gives a log message to neither call's hook).
    let logs: Vec<Value> = heard
        .lock()
        .unwrap()
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"].clone())
        .collect();
    assert_eq!(
        logs,
        [json!({"level": "error", "logger": "lane", "data": "growing"})]
    );
    let progress = progress.lock().unwrap().clone();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0]["progress"], json!(1));
    assert_eq!(progress[0]["total"], json!(2));
    holding.abort();
    down.close().await;
    gateway.close_extra_connections().await;
}
