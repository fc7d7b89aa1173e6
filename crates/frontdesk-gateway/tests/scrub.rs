//! A hostile upstream whose strings carry terminal escapes, a bell, C1
//! controls and bidirectional overrides (its name, instructions, tool
//! titles and descriptions, a question's message and field labels): none
//! of them reaches the client in front; newlines, tabs and the data (an
//! enum's values) are left as they are.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use frontdesk::client::{Client, ClientConfig, ElicitationHandler};
use frontdesk::wire::Revision;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// ESC [2J (clear screen), BEL, CSI (C1), RLO, LRI, CR.
const DIRT: &str = "\u{1b}[2J\u{7}\u{9b}\u{202e}\u{2066}\r";

fn dirty(text: &str) -> String {
    format!("{DIRT}{text}")
}

/// A 2025-11-25 server on a pipe, dirty everywhere; what came back for its
/// question is kept in `seen`.
fn dirty_upstream(seen: Arc<Mutex<Option<Value>>>) -> tokio::io::DuplexStream {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        let mut call_id = Value::Null;
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let reply = match m.get("method").and_then(Value::as_str) {
                Some("initialize") => Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": dirty("dirty"), "version": "0.0.1"},
                    "instructions": dirty("Be careful.\n\tReally.")
                }})),
                Some("tools/list") => Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "tools": [{
                        "name": "pay",
                        "title": dirty("Pay"),
                        "description": dirty("Pays an invoice\nof yours"),
                        "annotations": {"title": dirty("Payment")},
                        "inputSchema": {"type": "object", "properties": {
                            "amount": {"type": "number", "description": dirty("How much")}
                        }}
                    }]
                }})),
                Some("tools/call") => {
                    call_id = m["id"].clone();
                    Some(
                        json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create",
                        "params": {"mode": "form", "message": dirty("Pay 10 EUR to\nexe.pdf"),
                        "requestedSchema": {"type": "object", "properties": {
                            "ok": {"type": "boolean", "title": dirty("Confirm"),
                                "description": dirty("Say yes")},
                            "how": {"type": "string", "enum": ["card", "bank"],
                                "enumNames": [dirty("Card"), "Bank"]}
                        }, "required": ["ok"]}}}),
                    )
                }
                Some(_) => None,
                None if m["id"] == "q1" => {
                    *seen.lock().unwrap() = Some(m.get("result").cloned().unwrap_or(m.clone()));
                    Some(json!({"jsonrpc": "2.0", "id": call_id, "result": {
                        "content": [{"type": "text", "text": "paid"}]
                    }}))
                }
                None => None,
            };
            if let Some(reply) = reply {
                let mut text = reply.to_string();
                text.push('\n');
                write.write_all(text.as_bytes()).await.unwrap();
            }
        }
    });
    client_end
}

#[tokio::test]
async fn no_control_character_of_the_upstream_reaches_the_client() {
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let seen = Arc::new(Mutex::new(None));
        let (read, write) = tokio::io::split(dirty_upstream(Arc::clone(&seen)));
        let gateway = frontdesk_gateway::Gateway::new(Default::default());
        let up = Client::connect_io(
            read,
            write,
            ClientConfig::default().protocol(Revision::V2025_11_25),
            gateway.upstream_handler(),
        )
        .await
        .unwrap();
        let server = gateway.attach(up).await.unwrap().build();
        let script = Script::new(vec![accept(json!({"ok": true, "how": "card"}))]);
        let down = client_of(
            server,
            ClientConfig::default().protocol(downstream),
            Arc::clone(&script) as Arc<dyn ElicitationHandler>,
        )
        .await;
        assert_eq!(down.server_info().name, "[2Jdirty", "{downstream}");
        assert_eq!(
            down.instructions().as_deref(),
            Some("[2JBe careful.\n\tReally.")
        );
        let tools = serde_json::to_value(down.list_tools().await.unwrap()).unwrap();
        assert_eq!(
            tools,
            json!([{
                "name": "pay",
                "title": "[2JPay",
                "description": "[2JPays an invoice\nof yours",
                "annotations": {"title": "[2JPayment"},
                "inputSchema": {"type": "object", "properties": {
                    "amount": {"type": "number", "description": "[2JHow much"}
                }}
            }]),
            "{downstream}"
        );
        let result = down.call_tool("pay", json!({"amount": 10})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("paid"));
        let shown = script.seen();
        assert_eq!(shown[0].0, "[2JPay 10 EUR to\nexe.pdf", "{downstream}");
        assert_eq!(
            shown[0].1["properties"],
            json!({
                "ok": {"type": "boolean", "title": "[2JConfirm", "description": "[2JSay yes"},
                "how": {"type": "string", "enum": ["card", "bank"],
                    "enumNames": ["[2JCard", "Bank"]}
            }),
            "{downstream}"
        );
        // Nothing of it anywhere the client saw.
        let everything = format!("{tools} {shown:?}");
        assert!(!everything.contains('\u{1b}') && !everything.contains('\u{202e}'));
        assert_eq!(
            seen.lock().unwrap().clone(),
            Some(json!({"action": "accept", "content": {"ok": true, "how": "card"}}))
        );
    }
}
