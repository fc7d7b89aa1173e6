//! `ServerBuilder::forward_tools`: tools the server does not define, listed
//! and served by a forwarder (a gateway's upstream), results sent as made.

use std::sync::Arc;

use frontdesk::server::tool::ToolForward;
use frontdesk::server::{Server, ToolDef, ToolOutput};
use frontdesk::wire::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};

use crate::support::stdio::{Client, call};

/// Forwards `remote_echo` (the server also has its own `local`, and the
/// forwarder also lists a `local`, which the server's own shadows).
struct Remote;

impl ToolForward for Remote {
    fn listing(&self) -> Vec<Tool> {
        let mut echo: Tool = serde_json::from_value(json!({
            "name": "remote_echo",
            "inputSchema": {"type": "object", "properties": {"say": {"type": "string"}}},
            "annotations": {"readOnlyHint": true},
            "x-vendor": 1
        }))
        .unwrap();
        echo.description = Some("Echo, over there".into());
        let shadowed = Tool::new("local", serde_json::Map::new());
        vec![echo, shadowed]
    }

    fn tool(&self, name: &str) -> Option<Arc<ToolDef>> {
        (name == "remote_echo").then(|| {
            Arc::new(ToolDef::raw(name, "", json!({}), |_cx, args| async move {
                let mut result = CallToolResult::new(vec![ContentBlock::text("echoed")]);
                result.structured_content = Some(Value::Object(args));
                result.extra.insert("x-upstream".into(), json!("kept"));
                Ok(ToolOutput::from_result(result))
            }))
        })
    }
}

fn server() -> Server {
    Server::builder("fwd", "1.0.0")
        .tool(ToolDef::raw(
            "local",
            "Mine",
            json!({}),
            |_cx, _args| async { Ok(ToolOutput::text("local")) },
        ))
        .forward_tools(Arc::new(Remote))
        .build()
}

#[tokio::test]
async fn listed_after_the_servers_own_and_called_as_made_on_2025_11_25() {
    let mut c = Client::start(server());
    c.initialize(json!({})).await;
    let list = c.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(
        list["result"]["tools"],
        json!([
            {"name": "local", "description": "Mine", "inputSchema": {"type": "object"}},
            {"name": "remote_echo", "description": "Echo, over there",
             "inputSchema": {"type": "object", "properties": {"say": {"type": "string"}}},
             "annotations": {"readOnlyHint": true}, "x-vendor": 1}
        ])
    );
    let r = c
        .request(
            json!(2),
            "tools/call",
            json!({"name": "remote_echo", "arguments": {"say": "hi"}}),
        )
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "echoed"}],
            "structuredContent": {"say": "hi"},
            "x-upstream": "kept"
        }})
    );
    let r = c
        .request(
            json!(3),
            "tools/call",
            json!({"name": "nowhere", "arguments": {}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["message"], "Unknown tool: nowhere");
}

#[tokio::test]
async fn called_with_the_revisions_decorations_on_2026_07_28() {
    let mut c = Client::start(server());
    let r = c
        .request(
            json!(1),
            "tools/call",
            call("remote_echo", json!({"say": "hi"}), json!({})),
        )
        .await;
    let result = r["result"].as_object().unwrap();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["structuredContent"], json!({"say": "hi"}));
    assert_eq!(result["x-upstream"], "kept");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "fwd"
    );
}
