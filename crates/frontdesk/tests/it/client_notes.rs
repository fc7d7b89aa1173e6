//! A call's progress and log messages reach the hooks of its
//! [`CallOptions`] on both revisions, in process and over Streamable HTTP:
//! the progress token is the client's own, every notification the server
//! sent before its result has arrived when the call returns, and a call
//! without hooks sends no token.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::client::{self as support, TestHandler, Wire};
use frontdesk::client::{CallOptions, Client, ProtocolChoice};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::{LoggingLevel, Revision};
use serde_json::{Value, json};

/// Reports three steps of progress and logs at two levels, with no pause
/// before its result (the notifications must still come first).
async fn busy(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.report_progress(0.0, Some(2.0), Some("starting"));
    cx.log_as(LoggingLevel::Debug, "busy", json!("too chatty"));
    cx.report_progress(1.0, Some(2.0), None);
    cx.log_as(
        LoggingLevel::Warning,
        "busy",
        json!({"disk": "almost full"}),
    );
    tokio::time::sleep(Duration::from_millis(10)).await;
    cx.report_progress(2.0, Some(2.0), Some("done"));
    Ok(ToolOutput::text("busy done"))
}

fn server(_: &str) -> Server {
    Server::builder("notes-test", "1")
        .tool(ToolDef::new("busy", "Reports progress and logs", busy))
        .build()
}

type Heard = Arc<Mutex<Vec<Value>>>;

fn options(progress: &Heard, logs: &Heard) -> CallOptions {
    let (p, l) = (progress.clone(), logs.clone());
    CallOptions::default()
        .on_progress(move |n| p.lock().unwrap().push(serde_json::to_value(n).unwrap()))
        .on_log(move |n| l.lock().unwrap().push(serde_json::to_value(n).unwrap()))
        .log_level(LoggingLevel::Info)
}

#[tokio::test]
async fn a_calls_progress_and_logs_reach_its_hooks_on_both_revisions() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        for http in [false, true] {
            let wire = Wire::default();
            let config = wire.config(ProtocolChoice::Only(revision));
            let (client, _server) = if http {
                let s = support::http_server(server).await;
                let client = Client::connect_http(&s.mcp, config, TestHandler::new([]))
                    .await
                    .unwrap();
                (client, Some(s))
            } else {
                let c = support::in_process(server(""), config, TestHandler::new([])).await;
                (c, None)
            };
            client.set_log_level(LoggingLevel::Info).await.unwrap();
            let (progress, logs) = (Heard::default(), Heard::default());
            for _ in 0..2 {
                progress.lock().unwrap().clear();
                logs.lock().unwrap().clear();
                let result = client
                    .call_tool_with("busy", json!({}), options(&progress, &logs))
                    .await
                    .unwrap();
                assert_ne!(result.is_error, Some(true), "{revision} {http}");
                let call = wire.last_sent("tools/call").unwrap();
                let token = call["params"]["_meta"]["progressToken"].clone();
                assert!(token.as_str().is_some_and(|t| t.starts_with("frontdesk-")));
                assert_eq!(
                    *progress.lock().unwrap(),
                    vec![
                        json!({"progressToken": token, "progress": 0, "total": 2, "message": "starting"}),
                        json!({"progressToken": token, "progress": 1, "total": 2}),
                        json!({"progressToken": token, "progress": 2, "total": 2, "message": "done"}),
                    ],
                    "{revision} http={http}"
                );
                assert_eq!(
                    *logs.lock().unwrap(),
                    vec![
                        json!({"level": "warning", "logger": "busy", "data": {"disk": "almost full"}})
                    ],
                    "{revision} http={http}"
                );
                if revision == Revision::V2026_07_28 {
                    assert_eq!(
                        call["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
                        "info"
                    );
                }
            }
            // Without hooks: no token, and nothing asked of the server.
            client.call_tool("busy", json!({})).await.unwrap();
            let sent = wire.sent();
            let call = wire.last_sent("tools/call").unwrap();
            assert!(
                call["params"]["_meta"].get("progressToken").is_none(),
                "{call}"
            );
            let set_level = sent
                .iter()
                .filter(|m| m["method"] == "logging/setLevel")
                .count();
            assert_eq!(
                set_level,
                usize::from(revision == Revision::V2025_11_25),
                "{revision}"
            );
            client.close().await;
        }
    }
}

/// A slow hook does not let the call return first: the notifications the
/// server sent before its result have all been heard when the call returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_returns_after_its_notifications_were_heard() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let wire = Wire::default();
        let client = support::in_process(
            server(""),
            wire.config(ProtocolChoice::Only(revision)),
            TestHandler::new([]),
        )
        .await;
        let heard = Heard::default();
        let keep = heard.clone();
        let options = CallOptions::default().on_progress(move |n| {
            std::thread::sleep(Duration::from_millis(30));
            keep.lock().unwrap().push(serde_json::to_value(n).unwrap());
        });
        client
            .call_tool_with("busy", json!({}), options)
            .await
            .unwrap();
        assert_eq!(heard.lock().unwrap().len(), 3, "{revision}");
        client.close().await;
    }
}

/// Logs `tag` twice, a pause between, so two calls overlap.
async fn chatty(
    cx: ToolContext,
    args: serde_json::Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let tag = args
        .get("tag")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    cx.log_as(LoggingLevel::Warning, "chatty", json!(format!("{tag} one")));
    tokio::time::sleep(Duration::from_millis(300)).await;
    cx.log_as(LoggingLevel::Warning, "chatty", json!(format!("{tag} two")));
    Ok(ToolOutput::text(tag))
}

fn chatty_server(_: &str) -> Server {
    Server::builder("notes-test", "1")
        .tool(ToolDef::raw(
            "chatty",
            "Logs its tag twice",
            json!({"type": "object", "properties": {"tag": {"type": "string"}}}),
            chatty,
        ))
        .build()
}

/// Over Streamable HTTP a log message comes on the response stream of the
/// request it belongs to: two calls side by side each hear their own (in
/// process, with two calls in flight, neither would).
#[tokio::test]
async fn side_by_side_calls_over_http_each_hear_their_own_logs() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let wire = Wire::default();
        let s = support::http_server(chatty_server).await;
        let client = Client::connect_http(
            &s.mcp,
            wire.config(ProtocolChoice::Only(revision)),
            TestHandler::new([]),
        )
        .await
        .unwrap();
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        let (a, b) = (Heard::default(), Heard::default());
        let call = |tag: &'static str, heard: &Heard| {
            let heard = heard.clone();
            let options = CallOptions::default()
                .on_log(move |n| heard.lock().unwrap().push(n.data.clone()))
                .log_level(LoggingLevel::Info);
            client.call_tool_with("chatty", json!({"tag": tag}), options)
        };
        let (ra, rb) = tokio::join!(call("a", &a), call("b", &b));
        ra.unwrap();
        rb.unwrap();
        assert_eq!(
            *a.lock().unwrap(),
            [json!("a one"), json!("a two")],
            "{revision}"
        );
        assert_eq!(
            *b.lock().unwrap(),
            [json!("b one"), json!("b two")],
            "{revision}"
        );
    }
}
