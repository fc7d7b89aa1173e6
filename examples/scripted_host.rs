//! Hosts without a person: scripted answers and headless cancel, for tests, CI and
//! batch jobs. A small server runs in this process (on an in-memory pipe); one
//! call is answered from a script (`ScriptedHandler`, the `--answers` file of
//! `frontdesk call`), validated exactly like a typed answer, and one by
//! `HeadlessHandler`, which declares the modes and answers every question `cancel`
//! (it never invents a decline or an empty accept).
//!
//! ```sh
//! cargo run -p frontdesk-examples --example scripted_host
//! ```
//!
//! It prints both results and exits non-zero if either is not what it should be.

use std::sync::Arc;

use frontdesk::Form;
use frontdesk::client::{Client, ClientConfig, ElicitationHandler, HandlerModes, HeadlessHandler};
use frontdesk::form::Email;
use frontdesk::serde_json::json;
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};
use frontdesk_host::scripted::{Answers, ScriptedHandler};

#[derive(Form)]
struct Newsletter {
    #[form(title = "Your email")]
    email: Email,
    #[form(title = "Weekly digest", default = true)]
    weekly: bool,
}

async fn subscribe(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let question = Question::form::<Newsletter>("Subscribe to the newsletter?").key("subscribe");
    Ok(match cx.ask(question).await? {
        Answer::Accepted(n) => ToolOutput::text(format!(
            "Subscribed {} ({}).",
            n.email,
            if n.weekly { "weekly" } else { "monthly" }
        )),
        Answer::Declined => ToolOutput::text("Not subscribed."),
        Answer::Cancelled => ToolOutput::text("Nobody answered; nothing done."),
    })
}

/// The server, in this process, and a client connected to it with `handler`.
async fn connect(
    handler: Arc<dyn ElicitationHandler>,
) -> Result<Client, Box<dyn std::error::Error>> {
    let server = Server::builder("newsletter", "1.0.0")
        .tool(ToolDef::new(
            "subscribe",
            "Subscribe to the newsletter",
            subscribe,
        ))
        .build();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(frontdesk::server::stdio::serve(
        server,
        server_read,
        server_write,
    ));
    let (client_read, client_write) = tokio::io::split(client_end);
    Ok(Client::connect_io(client_read, client_write, ClientConfig::default(), handler).await?)
}

async fn call(client: Client) -> Result<String, Box<dyn std::error::Error>> {
    let result = client.call_tool("subscribe", json!({})).await;
    client.close().await;
    Ok(result?.content[0].as_text().unwrap_or_default().to_owned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Scripted: the answer for the question key `subscribe`; `weekly` is left out, so
    // it takes the form's default (as if Enter was pressed on it).
    let answers = Answers::parse(
        r#"{"questions": {"subscribe": {"action": "accept", "content": {"email": "ann@example.com"}}}}"#,
    )?;
    let scripted = Arc::new(ScriptedHandler::new(answers));
    let said = call(connect(scripted.clone()).await?).await?;
    println!("scripted: {said}");
    // An answer that did not validate would not have been sent; it would be here.
    if said != "Subscribed ann@example.com (weekly)." || !scripted.problems().is_empty() {
        return Err(format!("unexpected: {said} {:?}", scripted.problems()).into());
    }

    // Headless: forms are declared, so the server asks, and hears `cancel`.
    let headless =
        HeadlessHandler::new("this batch job has nobody to ask").declaring(HandlerModes {
            form: true,
            url: true,
        });
    let said = call(connect(Arc::new(headless)).await?).await?;
    println!("headless: {said}");
    if said != "Nobody answered; nothing done." {
        return Err(format!("unexpected: {said}").into());
    }
    Ok(())
}
