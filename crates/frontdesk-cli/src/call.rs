//! `frontdesk call`: one tool call, its result as JSON on stdout; or, with `--park`,
//! the call kept open by a small local process while its questions are relayed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use frontdesk_host::sanitize::server_label;
use serde_json::{Map, Value};

use crate::exit;
use crate::hosting::{
    ProtocolArg, Target, answerer, client_config, client_error, connect, person_side, wire_printer,
};
use crate::output;
use crate::signin::RemoteArgs;

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
With no terminal, no --answers and no --park, every question is answered cancel.

--park is for agents and scripts that relay questions to a person: the call stays
open in a small background process (reachable only by you, through a socket in a
directory only you can open: $FRONTDESK_PARK_DIR, $XDG_RUNTIME_DIR/frontdesk or
$TMPDIR/frontdesk-UID, or a private one beside it when that one is not yours; the
arguments are never on its command line; it ends after --park-ttl seconds without an
answer),
and each pending question is printed as JSON: its id, the server, the message, and
the form's fields (key, label, type, required, default, options with value and
title, limits) or the URL with its full review. Answer with
  frontdesk respond ID accept --content '{...}' | decline | cancel
which validates like a typed answer and prints the next question or the result.

Exit status:
  0   the tool succeeded (the result is on stdout)
  1   the call failed, or the tool reported an error (isError)
  2   nothing was called: bad arguments, or no connection to the server
  3   a scripted answer was missing or invalid; it was not sent
  10  (--park) a question waits: answer it with `frontdesk respond`

Examples:
  frontdesk call demo book_return --args '{\"order_id\":\"A-1001\"}' --answers answers.json
  frontdesk call 'frontdesk serve --stdio' connect_store_account --protocol 2025-11-25
  frontdesk call http://127.0.0.1:8080/mcp book_return --args '{\"order_id\":\"A-1\"}'
  frontdesk call demo book_return --args '{\"order_id\":\"A-1\"}' --park")]
pub struct CallArgs {
    /// The server: `demo`, a URL, or a command line.
    pub server: String,
    /// The tool to call.
    pub tool: String,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub args: String,
    /// Answer the server's questions from this JSON file instead of the terminal.
    #[arg(long, value_name = "FILE", conflicts_with = "park")]
    pub answers: Option<PathBuf>,
    /// Protocol revision.
    #[arg(long, value_enum, default_value = "auto")]
    pub protocol: ProtocolArg,
    /// Seconds to wait for the server to connect and to answer each request (the
    /// person's time to answer a question is not counted).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Keep the call open in the background and print its questions as JSON, to be
    /// answered with `frontdesk respond`.
    #[arg(long)]
    pub park: bool,
    /// With --park: seconds the parked call waits for an answer before it cancels.
    #[arg(long, value_name = "SECS", default_value_t = 600, requires = "park")]
    pub park_ttl: u64,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    pub show_wire: bool,
    /// Offer this directory to the server as a root (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// `--timeout` as a duration (at least 0.1 s).
pub fn timeout(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.1)).unwrap_or(Duration::from_secs(30))
}

/// `--args`: a JSON object.
pub fn arguments(text: &str) -> anyhow::Result<Map<String, Value>> {
    match serde_json::from_str::<Value>(text).context("--args is not valid JSON")? {
        Value::Object(m) => Ok(m),
        _ => anyhow::bail!("--args must be a JSON object"),
    }
}

/// Run `frontdesk call`.
pub fn run(args: &CallArgs) -> ExitCode {
    if args.park {
        return crate::park::start(args);
    }
    crate::run::block_on_exit("call", call(args))
}

async fn call(args: &CallArgs) -> ExitCode {
    let prepared = (|| -> anyhow::Result<_> {
        let arguments = arguments(&args.args)?;
        let target = Target::parse(&args.server)?;
        let answerer = answerer(args.answers.as_ref())?;
        Ok((arguments, target, answerer))
    })();
    let (arguments, target, answerer) = match prepared {
        Ok(p) => p,
        Err(e) => {
            output::error("call", &format!("{e:#}"));
            return exit::code(exit::CANNOT_START);
        }
    };
    let mut config = client_config(args.protocol, timeout(args.timeout));
    if args.show_wire {
        config = config.on_wire(wire_printer);
    }
    if let Err(e) = person_side(&mut config, &answerer, &args.roots) {
        output::error("call", &format!("{e:#}"));
        return exit::code(exit::CANNOT_START);
    }
    if matches!(target, Target::Url(_))
        && let Err(e) = args.remote.apply(&mut config)
    {
        output::error("call", &format!("{e:#}"));
        return exit::code(exit::CANNOT_START);
    }
    output::note(&format!("frontdesk: connecting to {} …", target.describe()));
    let connection = match connect(
        &target,
        config,
        answerer.handler.clone(),
        timeout(args.timeout),
    )
    .await
    {
        Ok(c) => c,
        Err(e) => {
            output::error("call", &format!("{e:#}"));
            return exit::code(exit::CANNOT_START);
        }
    };
    let client = &connection.client;
    output::note(&format!(
        "frontdesk: {} speaks {}; calling {} …",
        server_label(&client.server_info()),
        client.revision(),
        args.tool
    ));
    let outcome = client.call_tool(&args.tool, Value::Object(arguments)).await;
    connection.close().await;
    let problems = answerer
        .scripted
        .as_ref()
        .map(|s| s.problems())
        .unwrap_or_default();
    let status = match &outcome {
        Ok(result) => {
            output::json(&serde_json::to_value(result).unwrap_or(Value::Null));
            if result.is_error == Some(true) {
                output::error(
                    "call",
                    "the tool reported an error (isError); its result is on stdout",
                );
                exit::FAILED
            } else {
                exit::OK
            }
        }
        Err(e) => {
            output::error("call", &format!("the call failed: {}", client_error(e)));
            if let Some(rpc) = e.rpc() {
                output::json(&serde_json::to_value(rpc).unwrap_or(Value::Null));
            }
            exit::FAILED
        }
    };
    if !problems.is_empty() {
        for p in &problems {
            output::error("call", p);
        }
        return exit::code(exit::ANSWER_REFUSED);
    }
    exit::code(status)
}
