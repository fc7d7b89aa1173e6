//! `frontdesk call`: one tool call, its result as JSON on stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use frontdesk::client::ClientConfig;
use serde_json::Value;

use crate::hosting::{ProtocolArg, Target, answerer, connect, wire_printer};

/// Arguments of `frontdesk call`.
#[derive(Debug, Args)]
#[command(after_help = "\
SERVER is `demo` (the brightgrid demo, in this process), an http(s):// URL of a
Streamable HTTP endpoint, or a command line that starts a stdio server (quote it).

Questions the server asks are answered by the terminal form, or with --answers by
a JSON file:

  {
    \"questions\": { \"confirm\": { \"action\": \"accept\", \"content\": { \"confirm\": true } } },
    \"tools\": {
      \"book_return\": [
        { \"action\": \"accept\", \"content\": { \"reason\": \"damaged\", \"pickup_date\": \"2026-12-01\",
                                         \"contact_email\": \"ann@example.com\" } },
        { \"action\": \"accept\", \"content\": { \"confirm\": true } }
      ]
    },
    \"default\": { \"action\": \"cancel\" }
  }

Each question takes questions[KEY] (the 2026-07-28 question key), else the next
unused entry of tools[TOOL], else default. Fields left out get their defaults; the
answer is validated like a typed one. A URL `accept` is consent (nothing is opened).
With no terminal and no --answers, every question is answered cancel.

Exit status: 0 the tool succeeded; 1 the call failed or the tool reported an error
(isError); 2 bad arguments or no connection; 3 a scripted answer was missing or
invalid (it was not sent).

Examples:
  frontdesk call demo book_return --args '{\"order_id\":\"A-1001\"}' --answers answers.json
  frontdesk call 'frontdesk serve --stdio' connect_store_account --protocol 2025-11-25
  frontdesk call http://127.0.0.1:8080/mcp book_return --args '{\"order_id\":\"A-1\"}'")]
pub struct CallArgs {
    /// The server: `demo`, a URL, or a command line.
    server: String,
    /// The tool to call.
    tool: String,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    args: String,
    /// Answer the server's questions from this JSON file instead of the terminal.
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// Protocol revision.
    #[arg(long, value_enum, default_value = "auto")]
    protocol: ProtocolArg,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    show_wire: bool,
}

/// Run `frontdesk call`.
pub fn run(args: &CallArgs) -> ExitCode {
    crate::run::block_on_exit("call", call(args))
}

async fn call(args: &CallArgs) -> ExitCode {
    let prepared = (|| -> anyhow::Result<_> {
        let arguments: Value =
            serde_json::from_str(&args.args).context("--args is not valid JSON")?;
        anyhow::ensure!(arguments.is_object(), "--args must be a JSON object");
        let target = Target::parse(&args.server)?;
        let answerer = answerer(args.answers.as_ref())?;
        Ok((arguments, target, answerer))
    })();
    let (arguments, target, answerer) = match prepared {
        Ok(p) => p,
        Err(e) => {
            eprintln!("frontdesk call: {e:#}");
            return ExitCode::from(2);
        }
    };
    let mut config = ClientConfig::default().protocol(args.protocol.choice());
    if args.show_wire {
        config = config.on_wire(wire_printer);
    }
    eprintln!("frontdesk: connecting to {} …", target.describe());
    let client = match connect(&target, config, answerer.handler.clone()).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("frontdesk call: {e:#}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "frontdesk: {} speaks {}; calling {} …",
        client.server_info().name,
        client.revision(),
        args.tool
    );
    let outcome = client.call_tool(&args.tool, arguments).await;
    client.close().await;
    let problems = answerer
        .scripted
        .as_ref()
        .map(|s| s.problems())
        .unwrap_or_default();
    let code = match &outcome {
        Ok(result) => {
            match serde_json::to_string_pretty(result) {
                Ok(text) => println!("{text}"),
                Err(e) => eprintln!("frontdesk call: cannot print the result: {e}"),
            }
            if result.is_error == Some(true) {
                eprintln!("frontdesk call: the tool reported an error");
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("frontdesk call: {e}");
            if let Some(rpc) = e.rpc()
                && let Ok(text) = serde_json::to_string(rpc)
            {
                println!("{text}");
            }
            ExitCode::from(1)
        }
    };
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("frontdesk call: {p}");
        }
        return ExitCode::from(3);
    }
    code
}
