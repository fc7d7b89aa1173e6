//! The `frontdesk` command-line tool.

use std::process::ExitCode;

fn main() -> ExitCode {
    let command = std::env::args().nth(1).unwrap_or_default();
    eprintln!(
        "frontdesk: `{command}` is not built yet. Built so far: the form model \
         (frontdesk-form), the wire types (frontdesk-wire) and URL review (frontdesk-url)."
    );
    ExitCode::from(2)
}
