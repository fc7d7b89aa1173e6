//! `frontdesk call`: one tool call, its result as JSON on stdout; or, with `--park`,
//! the call kept open by a small local process while its questions are relayed.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use frontdesk_host::sanitize::server_label;
use serde_json::{Map, Value};

use crate::client_args::ClientArgs;
use crate::exit;
use crate::hosting::{Target, check_tool, client_error};
use crate::output;

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
With no terminal, no --answers and no --park, every question is answered cancel and
the command exits 4. A tool the server does not have is refused (exit 2) with the
list of its tools; `frontdesk tools SERVER` lists them with their arguments.

--park is for agents and scripts that relay questions to a person: the call stays
open in a small background process (reachable only by you, through a socket in a
directory only you can open: $FRONTDESK_PARK_DIR, $XDG_RUNTIME_DIR/frontdesk or
$TMPDIR/frontdesk-UID, or a private one beside it when that one is not yours; the
arguments are never on its command line; it ends after --park-ttl seconds without an
answer),
and each pending question is printed as JSON (the agent contract, versioned:
`frontdesk respond --schema`, docs/agents.md; every key camelCase): its id, the
server, the message, and the form's fields (key, label, type, required, format,
example, default, options with value and title, limits) or the URL with its full
review. Answer with
  frontdesk respond ID accept --content '{...}' | decline | cancel | wait
which validates like a typed answer and prints the next question or the result. A
URL question, once accepted, reports status `waiting` at once while the person
finishes in the browser; `respond ID cancel` stops it at any time. --show-wire,
--root and the remote flags apply to the parked call too (the wire on stderr of
each command).

Exit status:
  0   the tool succeeded (the result is on stdout)
  1   the call failed, or the tool reported an error (isError)
  2   nothing was called: bad arguments, or no connection to the server
  3   a scripted answer was missing or invalid; it was not sent
  4   the server asked questions nobody could answer (no terminal, no --answers,
      no --park); each was answered cancel
  10  (--park) a question waits: answer it with `frontdesk respond`
  11  (--park) nothing to answer now: a URL flow is in progress

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
    /// Keep the call open in the background and print its questions as JSON, to be
    /// answered with `frontdesk respond`.
    #[arg(long, conflicts_with = "answers")]
    pub park: bool,
    /// With --park: seconds the parked call waits for an answer before it cancels.
    #[arg(long, value_name = "SECS", default_value_t = 600, requires = "park")]
    pub park_ttl: u64,
    #[command(flatten)]
    pub client: ClientArgs,
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
    let prepared = arguments(&args.args).and_then(|a| Ok((a, Target::parse(&args.server)?)));
    let (arguments, target) = match prepared {
        Ok(p) => p,
        Err(e) => {
            return exit::cannot_start("call", &e);
        }
    };
    let (connection, answerer) = match args.client.connect("call", target).await {
        Ok(c) => c,
        Err(status) => return status,
    };
    let client = &connection.client;
    if let Err(e) = check_tool(client, &args.tool).await {
        connection.close().await;
        return exit::cannot_start("call", &e);
    }
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
    let unanswered = answerer.unanswered.as_ref().map_or(0, |u| u.count());
    if unanswered > 0 {
        output::error(
            "call",
            &format!(
                "the server asked {unanswered} question(s) and nobody could answer (no \
                 terminal here, no --answers file, no --park): each was answered cancel, so \
                 the result above is not what a person chose"
            ),
        );
        return exit::code(exit::UNANSWERED);
    }
    exit::code(status)
}
