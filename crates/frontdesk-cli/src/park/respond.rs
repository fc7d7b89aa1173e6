//! `frontdesk respond`: answer a parked question.

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
    /// consent to a URL (the person opens it themselves).
    Accept,
    /// Tell the server no.
    Decline,
    /// Dismiss the question.
    Cancel,
}

/// Arguments of `frontdesk respond`.
#[derive(Debug, Args)]
#[command(after_help = "\
Answers a question that `frontdesk call --park` printed. An accepted form answer is
completed with the form's defaults and validated exactly like a typed one: when it
does not fit, nothing is sent, the problems are printed, and the question stays
parked (answer it again). A URL `accept` means the person consents to open the URL;
frontdesk opens nothing.

Prints, as one JSON object, the call's next question(s) (status parked), its result
(status complete), or why the answer was refused (status invalid).

Exit status:
  0   the call is complete and the tool succeeded (the result is printed)
  1   the call failed, or the tool reported an error
  2   nothing was done: no such parked call, or bad arguments
  3   the answer does not fit the form (or accepts a refused URL); it was not sent
  10  another question waits: answer it with `frontdesk respond`

Examples:
  frontdesk respond 1a2b3c4d.1 accept --content '{\"reason\":\"damaged\",\"pickup_date\":\"2026-12-01\",\"contact_email\":\"ann@example.com\"}'
  frontdesk respond 1a2b3c4d.2 decline")]
pub struct RespondArgs {
    /// The question's id, as `frontdesk call --park` printed it (`1a2b3c4d.1`).
    id: String,
    /// accept, decline or cancel.
    #[arg(value_enum)]
    action: Action,
    /// With accept: the form's values, a JSON object.
    #[arg(long, value_name = "JSON")]
    content: Option<String>,
}

/// Run `frontdesk respond`.
pub fn respond(args: &RespondArgs) -> ExitCode {
    match prepare(args) {
        Ok((dir, call, request)) => match ask_keeper(&dir, &call, &request) {
            Ok(reply) => print_reply("respond", &reply),
            Err(e) => {
                output::error("respond", &format!("{e:#}"));
                exit::code(exit::CANNOT_START)
            }
        },
        Err(e) => {
            output::error("respond", &format!("{e:#}"));
            exit::code(exit::CANNOT_START)
        }
    }
}

fn prepare(args: &RespondArgs) -> anyhow::Result<(std::path::PathBuf, String, Value)> {
    let call = call_of(&args.id)?.to_owned();
    let content: Option<Map<String, Value>> = match &args.content {
        None => None,
        Some(_) if args.action != Action::Accept => {
            anyhow::bail!("--content goes with accept only")
        }
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Some(m),
            Ok(_) => anyhow::bail!("--content must be a JSON object"),
            Err(e) => anyhow::bail!("--content is not valid JSON: {e}"),
        },
    };
    let answer = match args.action {
        Action::Accept => "accept",
        Action::Decline => "decline",
        Action::Cancel => "cancel",
    };
    let dir = dir::of_call(&call)?;
    Ok((
        dir,
        call,
        protocol::respond(&args.id, answer, content.as_ref()),
    ))
}
