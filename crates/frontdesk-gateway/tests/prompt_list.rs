//! A 2025-11-25 upstream whose prompts change: its
//! `notifications/prompts/list_changed` makes the gateway read the prompts
//! again, and a client in front hears `notifications/prompts/list_changed`
//! once, lists the new prompt and gets it.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::ClientConfig;
use frontdesk::wire::Revision;
use serde_json::{Map, Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn prompt(name: &str) -> Value {
    json!({"name": name, "title": format!("The {name} prompt"), "description": "A prompt"})
}

/// A 2025-11-25 server on a pipe with the prompt `first` and the tool
/// `grow`; calling it adds the prompt `second` and sends
/// `notifications/prompts/list_changed`.
fn growing_upstream() -> tokio::io::DuplexStream {
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
                    "capabilities": {"tools": {}, "prompts": {"listChanged": true}},
                    "serverInfo": {"name": "growing", "version": "1"}
                }),
                Some("tools/list") => {
                    json!({"tools": [{"name": "grow", "inputSchema": {"type": "object"}}]})
                }
                Some("prompts/list") => {
                    let mut prompts = vec![prompt("first")];
                    if grown.load(Ordering::SeqCst) {
                        prompts.push(prompt("second"));
                    }
                    json!({"prompts": prompts})
                }
                Some("prompts/get") => {
                    let name = m["params"]["name"].as_str().unwrap_or_default();
                    json!({"messages": [{"role": "user",
                        "content": {"type": "text", "text": format!("the {name} prompt")}}]})
                }
                Some("tools/call") => {
                    grown.store(true, Ordering::SeqCst);
                    let note =
                        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"});
                    write
                        .write_all(format!("{note}\n").as_bytes())
                        .await
                        .unwrap();
                    json!({"content": [{"type": "text", "text": "grown"}]})
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

#[tokio::test]
async fn a_changed_prompt_list_is_read_again_and_told() {
    let (gateway, server) = gateway_over(growing_upstream()).await;
    gateway.notify_through(&server);
    let heard: Arc<Mutex<Vec<String>>> = Arc::default();
    let keep = Arc::clone(&heard);
    let mut config = ClientConfig::default().protocol(Revision::V2025_11_25);
    config.on_notification = Some(Arc::new(move |n| {
        keep.lock().unwrap().push(n.method.clone());
    }));
    let down = client_of(server, config, Script::new(vec![])).await;
    let caps = down.server_capabilities().unwrap();
    assert_eq!(caps.prompts.unwrap().list_changed, Some(true));
    let listed = down.request("prompts/list", Map::new()).await.unwrap();
    assert_eq!(
        listed["prompts"],
        json!([prompt("first")]),
        "listed as upstream"
    );

    down.call_tool("grow", json!({})).await.unwrap();
    let told = || {
        heard
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == "notifications/prompts/list_changed")
            .count()
    };
    for _ in 0..200 {
        if told() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(told(), 1);
    let listed = down.request("prompts/list", Map::new()).await.unwrap();
    assert_eq!(
        listed["prompts"],
        json!([prompt("first"), prompt("second")])
    );
    let got = down.get_prompt("second", Some(Map::new())).await.unwrap();
    let text = serde_json::to_value(&got.messages[0].content).unwrap();
    assert_eq!(text["text"], "the second prompt");
    down.close().await;
}
