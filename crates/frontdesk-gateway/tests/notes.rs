//! The upstream's progress notifications and log messages about a
//! forwarded call reach the client in front of that call, on each pairing
//! of revisions: progress under the client's own token with the upstream's
//! `progress`, `total` and `message`; log messages with their level, logger
//! and data, only at the level the client in front asked for, scrubbed of
//! control characters; nothing asked upstream that the client in front did
//! not ask for.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{CallOptions, Client, Direction};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::{LoggingLevel, Revision};
use serde_json::{Value, json};
use support::*;

type Heard = Arc<Mutex<Vec<Value>>>;
type Wire = Arc<Mutex<Vec<(Direction, Value)>>>;

/// Reports progress with a dirty message, logs below and at `info` (the
/// second with control characters in its logger and data), and says
/// whether its call carried a progress token.
async fn noisy(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.report_progress(1.0, None, Some("step\u{1b}[2J one\u{202e}"));
    cx.log_as(LoggingLevel::Debug, "noisy", json!("not for the client"));
    cx.log_as(
        LoggingLevel::Error,
        "noisy\u{7}",
        json!({"text": "disk\u{1b}[31m full", "lines": ["a\u{9b}b", 3]}),
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    cx.report_progress(1.5, Some(2.0), None);
    Ok(ToolOutput::text(format!(
        "wants_progress={}",
        cx.wants_progress()
    )))
}

fn noisy_server() -> Server {
    Server::builder("noisy", "1.0.0")
        .tool(ToolDef::new("noisy", "Reports progress and logs", noisy))
        .build()
}

fn hooks(progress: &Heard, logs: &Heard) -> CallOptions {
    let (p, l) = (progress.clone(), logs.clone());
    CallOptions::default()
        .on_progress(move |n| p.lock().unwrap().push(serde_json::to_value(n).unwrap()))
        .on_log(move |n| l.lock().unwrap().push(serde_json::to_value(n).unwrap()))
        .log_level(LoggingLevel::Info)
}

/// The progress token the client in front sent with its last call.
fn front_token(wire: &Wire) -> Value {
    let wire = wire.lock().unwrap();
    let call = wire
        .iter()
        .rev()
        .find(|(d, m)| *d == Direction::Outgoing && m["method"] == "tools/call")
        .unwrap();
    call.1["params"]["_meta"]["progressToken"].clone()
}

fn text(result: &frontdesk::wire::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn front(server: Server, upstream: Revision, downstream: Revision) -> (Client, Wire) {
    let (_gateway, down, wire) =
        through_gateway_to(server, upstream, downstream, Script::new(vec![])).await;
    down.set_log_level(LoggingLevel::Info).await.unwrap();
    (down, wire)
}

#[tokio::test]
async fn the_fixtures_progress_and_logs_reach_the_client_in_front() {
    for (upstream, downstream) in PAIRINGS {
        let (down, wire) = front(fixtures(), upstream, downstream).await;
        let (progress, logs) = (Heard::default(), Heard::default());
        let options = hooks(&progress, &logs);
        down.call_tool_with("test_tool_with_progress", json!({}), options.clone())
            .await
            .unwrap();
        let token = front_token(&wire);
        assert!(token.is_string(), "{token}");
        assert_eq!(
            *progress.lock().unwrap(),
            vec![
                json!({"progressToken": token, "progress": 0, "total": 100}),
                json!({"progressToken": token, "progress": 50, "total": 100}),
                json!({"progressToken": token, "progress": 100, "total": 100}),
            ],
            "{upstream} upstream, {downstream} in front"
        );
        assert!(logs.lock().unwrap().is_empty());
        progress.lock().unwrap().clear();
        down.call_tool_with("test_tool_with_logging", json!({}), options)
            .await
            .unwrap();
        let said = |data: &str| json!({"level": "info", "logger": "frontdesk", "data": data});
        assert_eq!(
            *logs.lock().unwrap(),
            vec![
                said("Tool execution started"),
                said("Tool processing data"),
                said("Tool execution completed"),
            ],
            "{upstream} upstream, {downstream} in front"
        );
        assert!(progress.lock().unwrap().is_empty());
        down.close().await;
    }
}

#[tokio::test]
async fn progress_and_logs_are_scrubbed_and_logs_filtered_at_the_clients_level() {
    for (upstream, downstream) in PAIRINGS {
        let (down, wire) = front(noisy_server(), upstream, downstream).await;
        let (progress, logs) = (Heard::default(), Heard::default());
        let result = down
            .call_tool_with("noisy", json!({}), hooks(&progress, &logs))
            .await
            .unwrap();
        assert_eq!(text(&result), "wants_progress=true");
        let token = front_token(&wire);
        assert_eq!(
            *progress.lock().unwrap(),
            vec![
                json!({"progressToken": token, "progress": 1, "message": "step[2J one"}),
                json!({"progressToken": token, "progress": 1.5, "total": 2}),
            ],
            "{upstream} upstream, {downstream} in front"
        );
        assert_eq!(
            *logs.lock().unwrap(),
            vec![json!({"level": "error", "logger": "noisy",
                        "data": {"text": "disk[31m full", "lines": ["ab", 3]}})],
            "{upstream} upstream, {downstream} in front"
        );
        down.close().await;
    }
}

#[tokio::test]
async fn nothing_is_passed_on_that_the_client_in_front_did_not_ask_for() {
    for (upstream, downstream) in PAIRINGS {
        // No logging/setLevel, no progressToken.
        let (_gateway, down, wire) =
            through_gateway_to(noisy_server(), upstream, downstream, Script::new(vec![])).await;
        let result = down.call_tool("noisy", json!({})).await.unwrap();
        assert_eq!(
            text(&result),
            "wants_progress=false",
            "{upstream} upstream, {downstream} in front"
        );
        let told: Vec<Value> = wire
            .lock()
            .unwrap()
            .iter()
            .filter(|(d, m)| {
                *d == Direction::Incoming
                    && m["method"]
                        .as_str()
                        .is_some_and(|n| n.starts_with("notifications/"))
            })
            .map(|(_, m)| m.clone())
            .collect();
        assert!(told.is_empty(), "{upstream} → {downstream}: {told:?}");
        down.close().await;
    }
}
