//! frontdesk's client in the interop matrix (`scripts/interop.sh`): against a
//! peer server of the official SDKs it calls `ask_form` and `ask_url` once per
//! answer (accept, decline, cancel) and `ask_twice` (two forms in one call)
//! accepted, all in this one process, and checks the tool's report. An accepted
//! form is answered with each field's `default`, and `name` "Ann" when it has
//! none: `ask_twice` reports `twice:accept:Grace:accept:true` only when the
//! defaults arrived intact. One line per case: `PASS|FAIL <case> [why]`; exit 1
//! on a failure.
//!
//! `interop_client PEER REVISION stdio COMMAND…` or
//! `interop_client PEER REVISION http URL`.

#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::Duration;

use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse,
    HandlerModes, ServerStderr,
};

use frontdesk::BoxFuture;

use frontdesk::wire::Revision;
use serde_json::{Map, json};

/// Answers every question with one planned action.
struct Planned(&'static str);

impl ElicitationHandler for Planned {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            match (self.0, &request.kind) {
                // Each field's `default` as the schema gave it, else "Ann" for `name`.
                ("accept", ElicitationKind::Form { form, .. }) => {
                    let mut content = Map::new();
                    for field in form.schema.fields() {
                        if let Some(value) = field.default_value() {
                            content.insert(field.key().to_owned(), value.clone());
                        } else if field.key() == "name" {
                            content.insert("name".into(), json!("Ann"));
                        }
                    }
                    ElicitationResponse::Accept(content)
                }
                // URL: accept is the person's consent (nothing is opened here).
                ("accept", ElicitationKind::Url { .. }) => ElicitationResponse::Accept(Map::new()),
                ("decline", _) => ElicitationResponse::Decline,
                _ => ElicitationResponse::Cancel,
            }
        })
    }
}

async fn run_case(
    revision: Revision,
    transport: &str,
    target: &[String],
    tool: &str,
    action: &'static str,
) -> Result<String, String> {
    let mut config = ClientConfig::default().protocol(revision);
    config.server_stderr = ServerStderr::Discard;
    let handler = Arc::new(Planned(action));
    let client = match transport {
        "stdio" => {
            let mut command = tokio::process::Command::new(&target[0]);
            command.args(&target[1..]);
            Client::connect_stdio(command, config, handler).await
        }
        _ => Client::connect_http(&target[0], config, handler).await,
    }
    .map_err(|e| format!("connect: {e}"))?;
    let outcome = client.call_tool(tool, json!({})).await;
    client.close().await;
    let result = outcome.map_err(|e| e.to_string())?;
    let content = serde_json::to_value(&result.content).map_err(|e| e.to_string())?;
    Ok(content[0]["text"].as_str().unwrap_or("").to_owned())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(peer), Some(revision), Some(transport)) = (args.first(), args.get(1), args.get(2))
    else {
        println!("usage: interop_client PEER REVISION stdio COMMAND… | http URL");
        return std::process::ExitCode::from(2);
    };
    let target = &args[3..];
    let rev = match revision.as_str() {
        "2025-11-25" => Revision::V2025_11_25,
        _ => Revision::V2026_07_28,
    };
    let mut cases = Vec::new();
    for tool in ["ask_form", "ask_url"] {
        for action in ["accept", "decline", "cancel"] {
            let expected = match tool {
                "ask_form" if action == "accept" => "form:accept:Ann".to_owned(),
                "ask_form" => format!("form:{action}:-"),
                _ => format!("url:{action}"),
            };
            cases.push((tool, action, expected));
        }
    }
    // Two questions in one call, each answered with its default.
    cases.push((
        "ask_twice",
        "accept",
        "twice:accept:Grace:accept:true".to_owned(),
    ));
    let mut failed = 0;
    for (tool, action, expected) in cases {
        let name = format!("frontdesk-client->{peer} {revision} {transport} {tool} {action}");
        let got = tokio::time::timeout(
            Duration::from_secs(20),
            run_case(rev, transport, target, tool, action),
        )
        .await
        .unwrap_or_else(|_| Err("timed out".to_owned()));
        match got {
            Ok(text) if text == expected => println!("PASS {name}"),
            Ok(text) => {
                failed += 1;
                println!("FAIL {name}: got {text:?}, want {expected}");
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {name}: {}", why.lines().next().unwrap_or(""));
            }
        }
    }
    if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
