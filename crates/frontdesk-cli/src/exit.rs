//! Exit statuses, the same for every command (each `--help` lists the ones it uses).

use std::process::ExitCode;

/// The command did what was asked (the tool succeeded, the session ended).
pub const OK: u8 = 0;
/// The call failed or the tool reported an error (`isError`); `check` found problems.
pub const FAILED: u8 = 1;
/// Nothing was done: bad arguments, no terminal for an interactive command, no
/// connection to the server, no such parked call.
pub const CANNOT_START: u8 = 2;
/// A scripted or relayed answer was missing or invalid; it was not sent.
pub const ANSWER_REFUSED: u8 = 3;
/// Questions could not be asked (no terminal, no `--answers`, no `--park`): each
/// was answered `cancel`, so the result is not what a person chose.
pub const UNANSWERED: u8 = 4;
/// A question waits for `frontdesk respond` (`call --park`, `respond`).
pub const PARKED: u8 = 10;
/// No question needs an answer, and the parked call is not over: a URL flow is in
/// progress (the person finishes in the browser), or the server is working
/// (`frontdesk respond ID wait`).
pub const WAITING: u8 = 11;

/// The status as an [`ExitCode`].
pub fn code(status: u8) -> ExitCode {
    ExitCode::from(status)
}

/// Say why nothing was done, as one line `frontdesk COMMAND: …` on stderr (an
/// `anyhow` error with its causes), and return [`CANNOT_START`].
pub fn cannot_start(command: &str, why: impl std::fmt::Display) -> ExitCode {
    crate::output::error(command, &format!("{why:#}"));
    code(CANNOT_START)
}
