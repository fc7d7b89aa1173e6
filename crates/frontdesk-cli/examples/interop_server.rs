//! frontdesk's side of the interop matrix (`scripts/interop.sh`): the three
//! tools every peer server of the matrix offers, answered the same way, for
//! the official SDKs' clients to call.
//!
//! - `ask_form` asks a form (`name`); returns `form:<action>:<name or ->`;
//! - `ask_url` asks the person to open a URL (a URL flow: `GET` on it is the
//!   person finishing in the browser); returns `url:<action>`;
//! - `ask_twice` asks two forms in one call, each field with a default
//!   (`name` "Grace", then `go` true); returns
//!   `twice:<action1>:<name or ->:<action2>:<go or ->` (`twice:<action1>:-:-:-`
//!   when the first is not accepted). On 2026-07-28 that is two
//!   `input_required` rounds, the name kept in the sealed `requestState`.
//!
//! `interop_server stdio` or `interop_server http` (prints `listening <url>`).

#![allow(clippy::print_stdout)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::extract::{Query, State};
use axum::routing::get;
use frontdesk::form::FormSchema;
use frontdesk::http::HttpOptions;
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};

async fn ask_form(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let form = FormSchema::builder()
        .string("name", |f| f.title("Your name").required())
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))?;
    let text = match cx
        .ask(Question::schema("What is your name?", form).key("name"))
        .await?
    {
        Answer::Accepted(c) => format!(
            "form:accept:{}",
            c.get("name").and_then(|v| v.as_str()).unwrap_or("-")
        ),
        Answer::Declined => "form:decline:-".to_owned(),
        Answer::Cancelled => "form:cancel:-".to_owned(),
    };
    Ok(ToolOutput::text(text))
}

/// Two questions in one call: the library keeps the first answer across the
/// 2026-07-28 rounds itself.
async fn ask_twice(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let invalid = |e: frontdesk::form::BuildError| ToolError::execution(e.to_string());
    let name_form = FormSchema::builder()
        .string("name", |f| f.title("Your name").default("Grace").required())
        .build()
        .map_err(invalid)?;
    let go_form = FormSchema::builder()
        .boolean("go", |f| f.title("Go ahead?").default(true).required())
        .build()
        .map_err(invalid)?;
    let first = cx
        .ask(Question::schema("What is your name?", name_form).key("name"))
        .await?;
    let name = match &first {
        Answer::Accepted(c) => c.get("name").and_then(|v| v.as_str()).unwrap_or("-"),
        _ => return Ok(ToolOutput::text(format!("twice:{}:-:-:-", first.action()))),
    };
    let second = cx
        .ask(Question::schema("Go ahead?", go_form).key("go"))
        .await?;
    let go = match &second {
        Answer::Accepted(c) => c.get("go").map_or("-".to_owned(), |v| v.to_string()),
        _ => "-".to_owned(),
    };
    Ok(ToolOutput::text(format!(
        "twice:accept:{name}:{}:{go}",
        second.action()
    )))
}

/// The `/done?token=…` page: finishing a URL flow.
async fn done(
    State(server): State<Arc<OnceLock<Server>>>,
    Query(q): Query<HashMap<String, String>>,
) -> &'static str {
    let (Some(server), Some(token)) = (server.get(), q.get("token")) else {
        return "unknown";
    };
    match server.complete_flow(token, None).await {
        Ok(_) => "done",
        Err(_) => "unknown",
    }
}

fn build(base: &str) -> Server {
    let base = base.to_owned();
    Server::builder("frontdesk-interop", env!("CARGO_PKG_VERSION"))
        .tool(ToolDef::new("ask_form", "Asks your name", ask_form))
        .tool(ToolDef::new(
            "ask_twice",
            "Asks your name, then whether to go ahead",
            ask_twice,
        ))
        .tool(ToolDef::new(
            "ask_url",
            "Asks you to open a page",
            move |cx: ToolContext, _: NoArgs| {
                let base = base.clone();
                async move {
                    let question = Question::url("Verify your account", move |t| {
                        format!("{base}/done?token={}", t.connect_token)
                    });
                    Ok::<_, ToolError>(ToolOutput::text(
                        match cx.ask(question.key("verify")).await? {
                            Answer::Accepted(()) => "url:accept",
                            Answer::Declined => "url:decline",
                            Answer::Cancelled => "url:cancel",
                        },
                    ))
                }
            },
        ))
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let slot: Arc<OnceLock<Server>> = Arc::default();
    let pages = axum::Router::new()
        .route("/done", get(done))
        .with_state(slot.clone());
    match mode.as_str() {
        "http" => {
            let addr: SocketAddr = "127.0.0.1:0".parse()?;
            let listener = frontdesk::http::bind(addr, HttpOptions::new()).await?;
            let server = build(&listener.base_url());
            let _ = slot.set(server.clone());
            println!("listening {}", listener.endpoint_url());
            listener.routes(pages).serve(server).await?;
        }
        "stdio" => {
            let pages_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let base = format!("http://{}", pages_listener.local_addr()?);
            let server = build(&base);
            let _ = slot.set(server.clone());
            tokio::spawn(async move { axum::serve(pages_listener, pages).await });
            frontdesk::server::stdio::serve(server, tokio::io::stdin(), tokio::io::stdout())
                .await?;
        }
        _ => return Err("usage: interop_server stdio|http".into()),
    }
    Ok(())
}
