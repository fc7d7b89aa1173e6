//! What the tests share: the binaries and running a command to completion.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The `frontdesk` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_frontdesk");

/// The test servers (`examples/scenario_server.rs`, built by `cargo test`).
pub fn scenario_server(scenario: &str) -> String {
    let bin = PathBuf::from(BIN);
    let path = bin
        .parent()
        .map(|d| d.join("examples").join("scenario_server"))
        .unwrap_or_default();
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p frontdesk-cli` (it builds the examples)",
        path.display()
    );
    format!("{} {scenario}", path.display())
}

/// Run `frontdesk ARGS` without a terminal (stdin closed) and wait for it.
pub fn frontdesk(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("frontdesk runs")
}

/// stdout and stderr as text.
pub fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
