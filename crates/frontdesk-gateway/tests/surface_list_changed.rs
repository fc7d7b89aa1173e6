//! A 2025-11-25 upstream whose prompts and resources change: its
//! `notifications/prompts/list_changed` and
//! `notifications/resources/list_changed` make the gateway read them again,
//! and a client in front hears each change once, lists the new prompt and
//! resource, gets the one and reads the other.
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

fn resource(name: &str) -> Value {
    json!({"uri": format!("test://{name}"), "name": name, "mimeType": "text/plain"})
}

/// A 2025-11-25 server on a pipe with the prompt and resource `first` and
/// the tool `grow`; calling it adds the prompt and resource `second` and
/// sends `notifications/prompts/list_changed` and
/// `notifications/resources/list_changed`.
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
                    "capabilities": {"tools": {}, "prompts": {"listChanged": true},
                        "resources": {"listChanged": true}},
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
                Some("resources/list") => {
                    let mut resources = vec![resource("first")];
                    if grown.load(Ordering::SeqCst) {
                        resources.push(resource("second"));
                    }
                    json!({"resources": resources})
                }
                Some("resources/templates/list") => json!({"resourceTemplates": []}),
                Some("resources/read") => {
                    let uri = m["params"]["uri"].as_str().unwrap_or_default();
                    json!({"contents": [{"uri": uri, "text": format!("the text of {uri}")}]})
                }
                Some("prompts/get") => {
                    let name = m["params"]["name"].as_str().unwrap_or_default();
                    json!({"messages": [{"role": "user",
                        "content": {"type": "text", "text": format!("the {name} prompt")}}]})
                }
                Some("tools/call") => {
                    grown.store(true, Ordering::SeqCst);
                    for list in ["prompts", "resources"] {
                        let note = json!({"jsonrpc": "2.0",
                            "method": format!("notifications/{list}/list_changed")});
                        write
                            .write_all(format!("{note}\n").as_bytes())
                            .await
                            .unwrap();
                    }
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
async fn changed_prompt_and_resource_lists_are_read_again_and_told() {
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
    let told = |what: &str| {
        heard
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == &format!("notifications/{what}/list_changed"))
            .count()
    };
    for _ in 0..200 {
        if told("prompts") > 0 && told("resources") > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Rereads that find nothing new tell nobody.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!((told("prompts"), told("resources")), (1, 1));
    let listed = down.request("prompts/list", Map::new()).await.unwrap();
    assert_eq!(
        listed["prompts"],
        json!([prompt("first"), prompt("second")])
    );
    let got = down.get_prompt("second", Some(Map::new())).await.unwrap();
    let text = serde_json::to_value(&got.messages[0].content).unwrap();
    assert_eq!(text["text"], "the second prompt");
    let listed = down.request("resources/list", Map::new()).await.unwrap();
    assert_eq!(
        listed["resources"],
        json!([resource("first"), resource("second")])
    );
    let read = down.read_resource("test://second").await.unwrap();
    let contents = serde_json::to_value(&read.contents).unwrap();
    assert_eq!(contents[0]["text"], "the text of test://second");
    down.close().await;
}
