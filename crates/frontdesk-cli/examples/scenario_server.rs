//! A stdio MCP server for the CLI's tests (built by `cargo test` with the examples):
//!
//! - `scenario_server reask`: `book_pickup` asks a form, then says the day is full and
//!   asks the same form again, then echoes the second answer.
//! - `scenario_server hostile`: everything a server controls carries escape
//!   sequences (OSC title, OSC 8 link, clear screen, C1 CSI, bidi): its name, tool
//!   names and descriptions, a form's title, field titles and defaults, a result, a
//!   JSON-RPC error message, and lines on its stderr.
//! - `scenario_server noisy`: `ask` asks a form; its stderr gets a line every 50 ms.

use std::time::Duration;

use frontdesk::server::{
    Answer, Question, RpcError, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};

use frontdesk::form::FormSchema;
use serde_json::{Map, Value, json};

/// What the hostile server puts into every string it controls.
const EVIL: &str = "\u{1b}]0;PWNED\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\\u{1b}[2J\u{9b}31m\u{202e}";

fn pickup_form() -> Result<FormSchema, ToolError> {
    FormSchema::builder()
        .string("name", |f| f.title("Your name").required())
        .string("pickup_date", |f| f.title("Pickup date").date().required())
        .string("contact_email", |f| {
            f.title("Contact email").email().required()
        })
        .string("notes", |f| f.title("Notes").max_length(500))
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))
}

async fn book_pickup(cx: ToolContext, _: Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let form = pickup_form()?;
    let first = match cx
        .ask(Question::schema("When should we collect?", form.clone()).key("pickup"))
        .await?
    {
        Answer::Accepted(c) => c,
        other => {
            return Ok(ToolOutput::text(format!(
                "Not booked ({}).",
                other.action()
            )));
        }
    };
    let day = first
        .get("pickup_date")
        .and_then(Value::as_str)
        .unwrap_or("");
    let message = format!("{day} is full. Choose another day; the rest is kept.");
    match cx
        .ask(Question::schema(message, form).key("pickup-again"))
        .await?
    {
        Answer::Accepted(c) => {
            let lines: Vec<String> = c.iter().map(|(k, v)| format!("{k}={v}")).collect();
            Ok(ToolOutput::text(format!("Booked:\n{}", lines.join("\n"))))
        }
        other => Ok(ToolOutput::text(format!(
            "Not booked ({}).",
            other.action()
        ))),
    }
}

fn reask() -> Server {
    Server::builder("pickups", "1.0")
        .tool(ToolDef::raw(
            "book_pickup",
            "Book a pickup; asks twice",
            json!({"type": "object", "properties": {}}),
            book_pickup,
        ))
        .build()
}

async fn hostile_ask(cx: ToolContext, _: Map<String, Value>) -> Result<ToolOutput, ToolError> {
    eprintln!("server log line {EVIL}");
    // Read leniently: a hostile server does not go through frontdesk's strict
    // builder (which refuses control characters in titles), so neither does this one.
    let schema = FormSchema::parse(&json!({
        "type": "object",
        "title": format!("Form {EVIL}"),
        "properties": {
            "name": {"type": "string", "title": format!("Name {EVIL}"), "default": format!("default {EVIL}")},
            "size": {"type": "string", "title": "Size", "oneOf": [
                {"const": "s", "title": format!("Small {EVIL}")}, {"const": "l", "title": "Large"}
            ]}
        },
        "required": ["name"]
    }))
    .map(|parsed| parsed.schema)
    .map_err(|e| ToolError::execution(e.to_string()))?;
    match cx
        .ask(Question::schema(format!("Message {EVIL}"), schema).key("evil"))
        .await?
    {
        Answer::Accepted(_) => Ok(ToolOutput::error(format!("result text {EVIL}"))),
        other => Ok(ToolOutput::text(format!(
            "answered {} {EVIL}",
            other.action()
        ))),
    }
}

fn hostile() -> Server {
    Server::builder(format!("evil {EVIL}"), format!("6.6 {EVIL}"))
        .tool(ToolDef::raw(
            format!("ask{EVIL}"),
            format!("asks {EVIL}"),
            json!({"type": "object", "properties": {}}),
            hostile_ask,
        ))
        .tool(ToolDef::raw(
            "fail",
            "fails",
            json!({"type": "object", "properties": {}}),
            |_cx: ToolContext, _: Map<String, Value>| async move {
                eprintln!("about to fail {EVIL}");
                Err::<ToolOutput, _>(ToolError::Rpc(RpcError::invalid_params(format!(
                    "error message {EVIL}"
                ))))
            },
        ))
        .build()
}

async fn noisy_ask(cx: ToolContext, _: Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let form = FormSchema::builder()
        .string("name", |f| f.title("Your name").required())
        .string("city", |f| f.title("City"))
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))?;
    Ok(
        match cx
            .ask(Question::schema("Who are you?", form).key("who"))
            .await?
        {
            Answer::Accepted(c) => ToolOutput::text(format!("Hello {}", Value::Object(c))),
            other => ToolOutput::text(format!("No answer ({}).", other.action())),
        },
    )
}

fn noisy() -> Server {
    Server::builder("noisy", "1.0")
        .tool(ToolDef::raw(
            "ask",
            "Asks while logging",
            json!({"type": "object", "properties": {}}),
            noisy_ask,
        ))
        .build()
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = match std::env::args().nth(1).as_deref() {
        Some("reask") => reask(),
        Some("hostile") => hostile(),
        Some("noisy") => {
            // A line on stderr every 50 ms, whatever the server is doing.
            tokio::spawn(async {
                for n in 0..1200 {
                    eprintln!("tick {n}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
            noisy()
        }
        _ => {
            eprintln!("usage: scenario_server reask|hostile|noisy");
            return std::process::ExitCode::from(2);
        }
    };
    match frontdesk::server::stdio::serve_stdio(server).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scenario_server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
