//! `frontdesk respond`: answer a parked question, wait for a parked call, or print
//! the agent contract's schema.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value};

use super::{ask_keeper, call_of, dir, print_reply, protocol};
use crate::exit;
use crate::output;

/// The answer to a parked question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Action {
    /// Send the form's values (`--content`; fields left out get their defaults), or
    /// consent to a URL (the person opens it themselves); for a URL in progress that
    /// the server found not finished yet: the person says they are done, check again.
    Accept,
    /// Tell the server no.
    Decline,
    /// Dismiss the question, or stop a URL flow in progress.
    Cancel,
    /// Answer nothing: wait (at most --wait seconds) for the next question or the
    /// result.
    Wait,
}

/// Arguments of `frontdesk respond`.
#[derive(Debug, Args)]
#[command(after_help = "\
Answers a question that `frontdesk call --park` printed. An accepted form answer is
completed with the form's defaults and validated exactly like a typed one: when it
does not fit, nothing is sent, the problems are printed keyed by field, and the
question stays parked (answer it again). A URL `accept` means the person consents to
open the URL; frontdesk opens nothing, and the reply says `waiting` at once while
they finish in the browser (`respond ID wait` waits for it; `respond ID cancel`
stops it at any time).

Prints one JSON object (the agent contract, `frontdesk respond --schema`; every key
camelCase): status `parked` (questions need answers), `waiting` (a URL flow is in
progress, or the server is working), `complete` (the result), `failed`,
`cancelled`, `invalid` (the answer was refused; `problems` [{field, message}]) or
`error`.

Exit status:
  0   the call is complete and the tool succeeded (the result is printed)
  1   the call failed, was cancelled, or the tool reported an error
  2   nothing was done: no such parked call, or bad arguments
  3   the answer does not fit the form (or accepts a refused URL); it was not sent
  10  a question waits: answer it with `frontdesk respond`
  11  nothing to answer now: a URL flow is in progress (`respond ID wait`)

Examples:
  frontdesk respond 1a2b3c4d.1 accept --content '{\"reason\":\"damaged\",\"pickup_date\":\"2026-12-01\",\"contact_email\":\"ann@example.com\"}'
  frontdesk respond 1a2b3c4d.2 decline
  frontdesk respond 1a2b3c4d wait --wait 120
  frontdesk respond --schema > park.v1.json")]
pub struct RespondArgs {
    /// The question's id, as `frontdesk call --park` printed it (`1a2b3c4d.1`; the
    /// call's id alone is enough for wait).
    #[arg(required_unless_present = "schema")]
    id: Option<String>,
    /// accept, decline, cancel or wait.
    #[arg(value_enum, required_unless_present = "schema")]
    action: Option<Action>,
    /// With accept: the form's values, a JSON object.
    #[arg(long, value_name = "JSON")]
    content: Option<String>,
    /// With wait: the most seconds to wait.
    #[arg(long = "wait", value_name = "SECS", default_value_t = 60)]
    wait_secs: u64,
    /// Print the agent contract's JSON Schema (what `call --park` and `respond`
    /// print) and exit.
    #[arg(long, exclusive = true)]
    schema: bool,
}

/// Run `frontdesk respond`.
pub fn respond(args: &RespondArgs) -> ExitCode {
    if args.schema {
        output::line(protocol::SCHEMA.trim_end());
        return exit::code(exit::OK);
    }
    match prepare(args) {
        Ok((dir, call, request)) => match ask_keeper(&dir, &call, &request) {
            Ok(reply) => print_reply("respond", &reply),
            Err(e) => exit::cannot_start("respond", &e),
        },
        Err(e) => exit::cannot_start("respond", &e),
    }
}

fn prepare(args: &RespondArgs) -> anyhow::Result<(std::path::PathBuf, String, Value)> {
    let (Some(id), Some(action)) = (args.id.as_deref(), args.action) else {
        anyhow::bail!("say which question and what to do: `frontdesk respond ID accept`");
    };
    let call = call_of(id)?.to_owned();
    let content: Option<Map<String, Value>> = match &args.content {
        None => None,
        Some(_) if action != Action::Accept => {
            anyhow::bail!("--content goes with accept only")
        }
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Some(m),
            Ok(_) => anyhow::bail!("--content must be a JSON object"),
            Err(e) => anyhow::bail!("--content is not valid JSON: {e}"),
        },
    };
    let request = match action {
        Action::Accept => protocol::respond(id, "accept", content.as_ref()),
        Action::Decline => protocol::respond(id, "decline", None),
        Action::Cancel => protocol::respond(id, "cancel", None),
        Action::Wait => protocol::wait(args.wait_secs),
    };
    let dir = dir::of_call(&call)?;
    Ok((dir, call, request))
}
