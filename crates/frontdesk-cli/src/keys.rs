//! `frontdesk keys`: request-state keys for `FRONTDESK_STATE_KEYS`.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use frontdesk::state::{KEYS_ENV, StateKey};

/// Arguments of `frontdesk keys`.
#[derive(Debug, Args)]
#[command(after_help = "\
Rotation: put the new entry first and keep the old one after it until every state it
sealed has expired (30 minutes by default), then drop it:

  FRONTDESK_STATE_KEYS=\"$(frontdesk keys generate),$FRONTDESK_STATE_KEYS\"")]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Print a new random key as one `kid:key` entry of FRONTDESK_STATE_KEYS.
    Generate {
        /// The key id (1 to 32 of A-Z a-z 0-9 _ -); default: `k` and the unix time.
        #[arg(long)]
        kid: Option<String>,
    },
}

/// Run `frontdesk keys`.
pub fn run(args: &KeysArgs) -> ExitCode {
    match &args.command {
        KeysCommand::Generate { kid } => {
            let kid = kid.clone().unwrap_or_else(default_kid);
            match StateKey::generate_entry(&kid) {
                Ok(entry) => {
                    crate::output::line(entry.as_str());
                    crate::output::note(&format!(
                        "frontdesk keys: put it first in {KEYS_ENV} (it seals; later keys only open)"
                    ));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    crate::output::error("keys generate", &e.to_string());
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// `k` and the unix time: unique enough for keys made by hand, and the
/// newest sorts last.
fn default_kid() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("k{secs}")
}
