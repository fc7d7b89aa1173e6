//! A stdio server with a configured principal (`serve_with_principal`, what
//! `frontdesk serve --stdio --principal NAME` uses): handlers see it, and the
//! URL flows it starts complete only for it (`Server::complete_flow` with
//! another principal is refused and leaves the flow pending).

use std::time::Duration;

use frontdesk::flows::FlowError;
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput, stdio};
use frontdesk_demo::DemoOptions;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::token_of;

async fn whoami(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("you are {}", cx.principal())))
}

fn call(id: i64, tool: &str, extra: Value) -> String {
    let mut v = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
    if let Value::Object(m) = extra {
        for (k, val) in m {
            v["params"][k] = val;
        }
    }
    format!("{v}\n")
}

#[tokio::test]
async fn the_configured_principal_asks_and_only_it_completes() {
    let server = frontdesk_demo::register(
        Server::builder("stdio-principal", "1").tool(ToolDef::new("whoami", "Who", whoami)),
        "http://127.0.0.1:9",
        &DemoOptions::default(),
    )
    .build();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(theirs);
    let task = tokio::spawn(stdio::serve_with_principal(
        server.clone(),
        Some("alice".into()),
        sr,
        sw,
        std::future::pending(),
    ));
    let (r, mut w) = tokio::io::split(ours);
    let mut lines = BufReader::new(r).lines();
    let mut recv = async move || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    };

    w.write_all(call(1, "whoami", json!({})).as_bytes())
        .await
        .unwrap();
    let v = recv().await;
    assert_eq!(v["result"]["content"][0]["text"], "you are alice", "{v}");

    w.write_all(call(2, "connect_store_account", json!({})).as_bytes())
        .await
        .unwrap();
    let v = recv().await;
    let url = v["result"]["inputRequests"]["signin"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let state = v["result"]["requestState"].as_str().unwrap().to_string();
    let token = token_of(&url);
    assert!(matches!(
        server.complete_flow(&token, Some("bob")).await,
        Err(FlowError::OtherPrincipal)
    ));
    server.complete_flow(&token, Some("alice")).await.unwrap();
    let retry = call(
        3,
        "connect_store_account",
        json!({"inputResponses": {"signin": {"action": "accept"}}, "requestState": state}),
    );
    w.write_all(retry.as_bytes()).await.unwrap();
    let v = recv().await;
    assert_eq!(
        v["result"]["content"][0]["text"], "Your store account is connected.",
        "{v}"
    );
    // End of input (the read half stays open, so shut the write side down).
    w.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
