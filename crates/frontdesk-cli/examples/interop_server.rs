//! frontdesk's side of the interop matrix (`scripts/interop.sh`): the two
//! tools every peer server of the matrix offers, answered the same way, for
//! the official SDKs' clients to call.
//!
//! - `ask_form` asks a form (`name`); returns `form:<action>:<name or ->`;
//! - `ask_url` asks the person to open a URL (a URL flow: `GET` on it is the
//!   person finishing in the browser); returns `url:<action>`.
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
