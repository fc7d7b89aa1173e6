//! The one place the CLI writes to stdout and stderr. Everything goes through
//! [`terminal_safe`] (JSON through [`json_for_terminal`]), so text a server controls
//! cannot act on the terminal even when a caller forgot to escape it; the rest of the
//! crate may not print (`clippy::print_stdout` / `print_stderr` are denied).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

use frontdesk_host::sanitize::{json_for_terminal, terminal_safe};
use serde_json::Value;

/// One line of text on stdout.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", terminal_safe(text));
    let _ = out.flush();
}

/// A JSON value on stdout (pretty), unsafe characters as `\u` escapes.
pub fn json(value: &Value) {
    line(&json_for_terminal(value, true));
}

/// One line on stderr: `frontdesk COMMAND: text`.
pub fn error(command: &str, text: &str) {
    note(&format!("frontdesk {command}: {text}"));
}

/// One line on stderr (wrapped to the terminal's width when it is one).
pub fn note(text: &str) {
    let text = frontdesk_host::layout::fit_stderr(&terminal_safe(text));
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
    let _ = err.flush();
}

/// One line on stderr, never wrapped (`--show-wire`: one message per line).
pub fn note_unwrapped(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", terminal_safe(text));
    let _ = err.flush();
}
