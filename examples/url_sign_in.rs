//! URL mode: a tool that needs the person to sign in somewhere the client must not
//! see (a password, an OAuth consent, a payment) sends them to a page instead of
//! asking a form. The server serves that page next to its Streamable HTTP endpoint;
//! the page completes the flow with `Server::complete_flow`, and the tool's
//! question is answered `Accepted(())`. On 2025-11-25 the client then gets
//! `notifications/elicitation/complete`; on 2026-07-28 its next retry sees the flow
//! done.
//!
//! ```sh
//! cargo run -p frontdesk-examples --example url_sign_in
//! # in another terminal:
//! cargo run -- connect --url http://127.0.0.1:3000/mcp
//! ```
//!
//! Call `connect_account`: the consent screen shows the page's address for review;
//! open it ([o]) and press "Sign in" on the page, and the call finishes with "Your
//! account is connected" (until the page was used, the tool asks again). Decline
//! instead and the tool says so. Step by step, without a browser:
//!
//! ```sh
//! cargo run -- call http://127.0.0.1:3000/mcp connect_account --park   # prints the URL
//! curl -d token=TOKEN-FROM-THE-URL http://127.0.0.1:3000/sign-in       # "Signed in"
//! cargo run -- respond ID accept                                       # "Your account is connected."
//! ```
//!
//! The page here trusts the single-use link alone, which is only acceptable where
//! nobody else can reach it (loopback). A real page first identifies the person
//! (its own session cookie, an OAuth callback) and passes that principal to
//! `complete_flow`, so a forwarded link cannot complete someone else's flow.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::response::Html;
use axum::routing::get;
use frontdesk::http::{self, HttpOptions};
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};

/// Asks the person to sign in on the page; `base` is where the page is served.
async fn connect_account(cx: ToolContext, base: String) -> Result<ToolOutput, ToolError> {
    // The link carries the flow's connect token, never a secret.
    let question = Question::url("Sign in to connect your account.", move |ticket| {
        format!("{base}/sign-in?token={}", ticket.connect_token)
    });
    Ok(match cx.ask(question.key("sign_in")).await? {
        Answer::Accepted(()) => ToolOutput::text("Your account is connected."),
        Answer::Declined => ToolOutput::text("Not connected: you declined to sign in."),
        Answer::Cancelled => ToolOutput::text("Not connected."),
    })
}

#[derive(frontdesk::serde::Deserialize)]
#[serde(crate = "frontdesk::serde")]
struct Link {
    token: String,
}

/// `GET /sign-in?token=…`: the page, with a button that posts the token back.
async fn sign_in_page(Query(link): Query<Link>) -> Html<String> {
    let token: String = link
        .token
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    Html(format!(
        "<!doctype html><title>Sign in</title><h1>Sign in</h1>\
         <form method=post action=/sign-in><input type=hidden name=token value=\"{token}\">\
         <button>Sign in</button></form>"
    ))
}

/// `POST /sign-in`: complete the flow the token names.
async fn sign_in(State(server): State<Server>, Form(link): Form<Link>) -> Html<&'static str> {
    // `None`: this page cannot tell who is in the browser (see the file's docs).
    match server.complete_flow(&link.token, None).await {
        Ok(()) => Html("<h1>Signed in</h1><p>You can close this tab.</p>"),
        Err(_) => Html("<h1>This link is not valid</h1><p>It was used, or it expired.</p>"),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = http::bind(SocketAddr::from(([127, 0, 0, 1], 3000)), HttpOptions::new()).await?;
    let base = listener.base_url();
    let server = Server::builder("sign-in-example", "1.0.0")
        .tool(ToolDef::new(
            "connect_account",
            "Connect your account (you sign in on a web page)",
            move |cx: ToolContext, _: NoArgs| connect_account(cx, base.clone()),
        ))
        .build();
    let pages = Router::new()
        .route("/sign-in", get(sign_in_page).post(sign_in))
        .with_state(server.clone());
    println!("MCP endpoint: {}", listener.endpoint_url());
    listener.routes(pages).serve(server).await
}
