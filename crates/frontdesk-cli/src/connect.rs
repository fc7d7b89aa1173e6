//! `frontdesk connect`: an interactive session with any MCP server: list its tools,
//! call one with arguments asked as a form, answer its questions in the terminal, read
//! the result as text (or JSON on demand).

use std::process::ExitCode;

use clap::Args;
use frontdesk::client::Client;
use frontdesk::wire::CallToolResult;
use frontdesk_host::result::{result_json, result_lines};
use frontdesk_host::sanitize::{display_line, server_label};
use frontdesk_host::screen::{ListQuestion, Screen};
use frontdesk_host::terminal::TtyScreen;
use frontdesk_host::terminal::arguments::ask_arguments;
use frontdesk_host::terminal_available;
use frontdesk_host::widgets::tool_items;
use frontdesk_wire::Tool;
use serde_json::{Map, Value};

use crate::client_args::ClientArgs;
use crate::exit;
use crate::hosting::{Target, client_error};
use crate::output;

/// Arguments of `frontdesk connect`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  frontdesk connect -- frontdesk serve --stdio      # spawn a stdio server
  frontdesk connect --url http://127.0.0.1:8080/mcp  # a Streamable HTTP endpoint
  frontdesk connect --demo --protocol 2025-11-25     # the demo, in this process

Pick a tool; its arguments are asked as a form built from its input schema (or as
JSON when the schema does not fit a form); answer the server's questions in the
terminal form. Each result is shown as text; [j] shows it as JSON (--json: always).
Esc or Ctrl-C in the tool list ends the session.

A server that wants a sign-in (OAuth) shows its sign-in page's URL for review,
as a URL question is; after [o] the browser opens and comes back to a listener
on 127.0.0.1. Tokens are kept for that server in an owner-only file (--token-file)
and used again, refreshed when they expire. Sampling requests are shown with
their whole prompt; frontdesk has no model and tells the server so. --root DIR
offers a directory as a root.

Exit status:
  0   the session ended
  1   the connection was lost during the session
  2   nothing was done: bad arguments, no terminal, or no connection to the server
For scripts use `frontdesk call`.")]
pub struct ConnectArgs {
    /// Streamable HTTP endpoint of the server.
    #[arg(long, value_name = "URL", conflicts_with_all = ["demo", "command"])]
    url: Option<String>,
    /// Host the brightgrid demo server, in this process.
    #[arg(long, conflicts_with = "command")]
    demo: bool,
    /// Show every result as JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    web: crate::web::WebFlags,
    #[command(flatten)]
    client: ClientArgs,
    /// The command that starts a stdio server (after `--`).
    #[arg(last = true, value_name = "SERVER COMMAND")]
    command: Vec<String>,
}

/// Run `frontdesk connect`.
pub fn run(args: &ConnectArgs) -> ExitCode {
    let target = match (&args.url, args.demo, args.command.is_empty()) {
        (Some(url), _, _) => Target::url_flag(url),
        (None, true, _) => Ok(Target::Demo),
        (None, false, false) => Ok(Target::Command(args.command.clone())),
        (None, false, true) => Err(anyhow::anyhow!(
            "say which server: `-- <command…>`, `--url URL` or `--demo`"
        )),
    };
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            return exit::cannot_start("connect", &e);
        }
    };
    if args.web.web {
        return crate::web::connect(&args.web, &target, &args.client);
    }
    if !terminal_available() {
        return exit::cannot_start(
            "connect",
            "is interactive and needs a terminal (none here); use `frontdesk call` in scripts.",
        );
    }
    crate::run::block_on_exit("connect", session(args, target))
}

async fn session(args: &ConnectArgs, target: Target) -> ExitCode {
    let (connection, _answerer) = match args.client.connect("connect", target).await {
        Ok(c) => c,
        Err(status) => return status,
    };
    let client = &connection.client;
    output::note(&format!(
        "frontdesk: connected to {} ({})",
        server_label(&client.server_info()),
        client.revision()
    ));
    let status = match calls(client, args.json).await {
        Ok(()) => exit::OK,
        Err(e) => {
            output::error("connect", &format!("{e:#}"));
            exit::FAILED
        }
    };
    connection.close().await;
    exit::code(status)
}

/// Run `f` on the terminal, off the async threads, with log lines held meanwhile.
async fn on_screen<T: Send + 'static>(
    f: impl FnOnce(&mut TtyScreen) -> T + Send + 'static,
) -> anyhow::Result<T> {
    Ok(tokio::task::spawn_blocking(move || {
        let _quiet = frontdesk_host::logs::hold();
        f(&mut TtyScreen::new())
    })
    .await?)
}

async fn calls(client: &Client, json: bool) -> anyhow::Result<()> {
    loop {
        let tools = client
            .list_tools()
            .await
            .map_err(|e| anyhow::anyhow!("cannot list the tools: {}", client_error(&e)))?;
        if tools.is_empty() {
            output::note("frontdesk: this server offers no tools.");
            return Ok(());
        }
        let picked = on_screen(move |s| pick_call(s, &tools)).await?;
        let Some((name, arguments)) = picked else {
            return Ok(());
        };
        output::note(&format!("Calling {} …", display_line(&name, 120)));
        let outcome = client.call_tool(&name, Value::Object(arguments)).await;
        let go_on = on_screen(move |s| show_outcome(s, &name, outcome, json)).await?;
        if !go_on {
            return Ok(());
        }
    }
}

/// The tool list, then the arguments. `None` to end the session.
fn pick_call(screen: &mut dyn Screen, tools: &[Tool]) -> Option<(String, Map<String, Value>)> {
    loop {
        let mut items = tool_items(tools);
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
        if let Some(arguments) = ask_arguments(screen, tool) {
            return Some((tool.name.clone(), arguments));
        }
    }
}

/// Show a call's outcome; `false` when the person wants to quit.
fn show_outcome(
    screen: &mut dyn Screen,
    tool: &str,
    outcome: Result<CallToolResult, frontdesk::client::ClientError>,
    json: bool,
) -> bool {
    let result = match outcome {
        Ok(result) => result,
        Err(e) => {
            screen.show(&format!("The call failed: {}", client_error(&e)));
            return true;
        }
    };
    screen.show("");
    if json {
        screen.show_verbatim(&result_json(&result));
    } else {
        for line in result_lines(tool, &result) {
            screen.show(&line);
        }
    }
    screen.show("");
    loop {
        let keys: &[(char, &str)] = if json {
            &[('n', "call another tool"), ('q', "quit")]
        } else {
            &[
                ('n', "call another tool"),
                ('j', "show it as JSON"),
                ('q', "quit"),
            ]
        };
        match screen.key("Next:", keys) {
            Ok('j') => screen.show_verbatim(&result_json(&result)),
            Ok('q') => return false,
            Ok(_) => return true,
            Err(_) => return false,
        }
    }
}
