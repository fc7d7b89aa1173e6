//! `ServerBuilder::only_revision`: a server limited to one revision answers
//! the other's requests with the unsupported-version error listing the one
//! it serves (`-32022`), as a server written for one revision would, and
//! `server/discover` lists one version.

use frontdesk::server::{Server, ToolDef, ToolOutput};
use frontdesk::wire::Revision;
use serde_json::json;

use crate::support::stdio::{Client, call, meta};

fn server(only: Revision) -> Server {
    Server::builder("one", "1.0.0")
        .tool(ToolDef::raw(
            "hi",
            "Says hi",
            json!({}),
            |_cx, _args| async { Ok(ToolOutput::text("hi")) },
        ))
        .only_revision(only)
        .build()
}

#[tokio::test]
async fn a_2025_only_server_refuses_2026_requests_and_serves_2025() {
    let mut c = Client::start(server(Revision::V2025_11_25));
    let r = c
        .request(
            json!(1),
            "server/discover",
            json!({"_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}
        }})
    );
    let r = c
        .request(json!(2), "tools/call", call("hi", json!({}), json!({})))
        .await;
    assert_eq!(r["error"]["data"]["supported"], json!(["2025-11-25"]));
    let init = c.initialize(json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let r = c
        .request(
            json!(3),
            "tools/call",
            json!({"name": "hi", "arguments": {}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn a_2026_only_server_refuses_initialize_and_lists_one_version() {
    let mut c = Client::start(server(Revision::V2026_07_28));
    let r = c
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "old", "version": "1"}}),
        )
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}
        }})
    );
    let r = c
        .request(
            json!(2),
            "server/discover",
            json!({"_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(r["result"]["supportedVersions"], json!(["2026-07-28"]));
    let r = c
        .request(json!(3), "tools/call", call("hi", json!({}), json!({})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "hi");
}
