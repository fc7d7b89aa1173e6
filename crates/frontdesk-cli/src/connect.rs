//! `frontdesk connect`: an interactive session with any MCP server: list its tools,
//! call one with arguments, answer its questions in the terminal.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use frontdesk::client::{Client, ClientConfig};
use frontdesk_host::screen::{LineQuestion, ListQuestion, Screen};
use frontdesk_host::terminal::TtyScreen;
use frontdesk_host::terminal_available;
use frontdesk_wire::Tool;
use serde_json::{Map, Value};

use crate::hosting::{ProtocolArg, Target, answerer, connect, wire_printer};

/// Arguments of `frontdesk connect`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  frontdesk connect -- frontdesk serve --stdio      # spawn a stdio server
  frontdesk connect --url http://127.0.0.1:8080/mcp  # a Streamable HTTP endpoint
  frontdesk connect --demo --protocol 2025-11-25     # the demo, in this process

Pick a tool, give its arguments as JSON (a skeleton from its input schema is
pre-filled), and answer the server's questions in the terminal form. The result
is printed after each call. Esc or Ctrl-C in the tool list ends the session.
Needs a terminal (exit status 2 without one); for scripts use `frontdesk call`.")]
pub struct ConnectArgs {
    /// Streamable HTTP endpoint of the server.
    #[arg(long, value_name = "URL", conflicts_with_all = ["demo", "command"])]
    url: Option<String>,
    /// Host the brightgrid demo server, in this process.
    #[arg(long, conflicts_with = "command")]
    demo: bool,
    /// Protocol revision.
    #[arg(long, value_enum, default_value = "auto")]
    protocol: ProtocolArg,
    /// Answer questions from this JSON file (see `frontdesk call --help`).
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    show_wire: bool,
    #[command(flatten)]
    web: crate::web::WebFlags,
    /// The command that starts a stdio server (after `--`).
    #[arg(last = true, value_name = "SERVER COMMAND")]
    command: Vec<String>,
}

/// Run `frontdesk connect`.
pub fn run(args: &ConnectArgs) -> ExitCode {
    let target = match (&args.url, args.demo, args.command.is_empty()) {
        (Some(url), _, _) => Target::Url(url.clone()),
        (None, true, _) => Target::Demo,
        (None, false, false) => Target::Command(args.command.clone()),
        (None, false, true) => {
            eprintln!(
                "frontdesk connect: say which server: `-- <command…>`, `--url URL` or `--demo`"
            );
            return ExitCode::from(2);
        }
    };
    if args.web.web {
        let answers = args.answers.is_some();
        return crate::web::connect(&args.web, &target, args.protocol, args.show_wire, answers);
    }
    if !terminal_available() {
        eprintln!(
            "frontdesk connect: is interactive and needs a terminal (none here); use `frontdesk call` in scripts."
        );
        return ExitCode::from(2);
    }
    crate::run::block_on("connect", session(args, &target))
}

async fn session(args: &ConnectArgs, target: &Target) -> anyhow::Result<()> {
    let answerer = answerer(args.answers.as_ref())?;
    let mut config = ClientConfig::default().protocol(args.protocol.choice());
    if args.show_wire {
        config = config.on_wire(wire_printer);
    }
    eprintln!("frontdesk: connecting to {} …", target.describe());
    let client = connect(target, config, answerer.handler.clone()).await?;
    let info = client.server_info();
    eprintln!(
        "frontdesk: connected to {} {} ({})",
        frontdesk_host::sanitize::display_line(&info.name, 80),
        frontdesk_host::sanitize::display_line(&info.version, 40),
        client.revision()
    );
    let result = calls(&client).await;
    client.close().await;
    result
}

async fn calls(client: &Client) -> anyhow::Result<()> {
    loop {
        let tools = client.list_tools().await?;
        if tools.is_empty() {
            eprintln!("frontdesk: this server offers no tools.");
            return Ok(());
        }
        let listed = tools.clone();
        let picked =
            tokio::task::spawn_blocking(move || pick_call(&mut TtyScreen::new(), &listed)).await?;
        let Some((name, arguments)) = picked else {
            return Ok(());
        };
        eprintln!("Calling {name} …");
        match client.call_tool(&name, arguments).await {
            Ok(result) => println!("{}", serde_json::to_string_pretty(&result)?),
            Err(e) => eprintln!("The call failed: {e}"),
        }
    }
}

/// The tool list, then the arguments as JSON. `None` to end the session.
fn pick_call(screen: &mut dyn Screen, tools: &[Tool]) -> Option<(String, Value)> {
    let mut items: Vec<String> = tools
        .iter()
        .map(|t| {
            let about = t
                .description
                .as_deref()
                .or(t.title.as_deref())
                .unwrap_or("");
            frontdesk_host::sanitize::display_line(&format!("{} — {about}", t.name), 160)
        })
        .collect();
    items.push("(quit)".to_owned());
    let index = screen
        .choose_one(&ListQuestion {
            label: "Call which tool?".to_owned(),
            help: Some("↑/↓ and Enter; Esc quits".to_owned()),
            items,
            chosen: vec![0],
            validator: None,
        })
        .ok()?;
    let tool = tools.get(index)?;
    let typed = screen
        .line(&LineQuestion {
            label: format!("Arguments of {} (JSON)", tool.name),
            help: Some("a JSON object".to_owned()),
            initial: skeleton(tool),
            masked: false,
            validator: Arc::new(|t: &str| match serde_json::from_str::<Value>(t) {
                Ok(Value::Object(_)) => Ok(()),
                Ok(_) => Err("The arguments must be a JSON object".to_owned()),
                Err(e) => Err(format!("Not JSON: {e}")),
            }),
        })
        .ok()?;
    let args = serde_json::from_str(&typed).ok()?;
    Some((tool.name.clone(), args))
}

/// `{"order_id": ""}`: every property of the input schema with an empty value of
/// its type, so the person only fills in the blanks.
fn skeleton(tool: &Tool) -> String {
    let mut out = Map::new();
    if let Some(props) = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    {
        for (key, schema) in props {
            let empty = match schema.get("type").and_then(Value::as_str) {
                Some("integer" | "number") => Value::from(0),
                Some("boolean") => Value::Bool(false),
                Some("array") => Value::Array(Vec::new()),
                Some("object") => Value::Object(Map::new()),
                _ => Value::String(String::new()),
            };
            out.insert(key.clone(), empty);
        }
    }
    Value::Object(out).to_string()
}
