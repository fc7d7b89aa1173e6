//! What a server may ask besides elicitation (`examples/requests_server.rs`):
//! `--root DIR` answers `roots/list`, and a sampling request is shown with its
//! whole prompt and refused (no model here), on both revisions.

use std::path::PathBuf;

use crate::support::{BIN, frontdesk, texts};
use crate::tmux::{Tmux, flat, keep};

fn server() -> String {
    let path = PathBuf::from(BIN)
        .parent()
        .map(|d| d.join("examples").join("requests_server"))
        .unwrap_or_default();
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p frontdesk-cli`",
        path.display()
    );
    path.display().to_string()
}

#[test]
fn roots_come_from_the_root_flag_on_both_revisions() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("roots")
        .join("my project");
    std::fs::create_dir_all(&dir).expect("a directory");
    let dir_text = dir.display().to_string();
    let server = server();
    for protocol in ["2025-11-25", "2026-07-28"] {
        let out = frontdesk(
            &[
                "call",
                &server,
                "list_roots",
                "--root",
                &dir_text,
                "--protocol",
                protocol,
            ],
            &[],
        );
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "{protocol}: {stderr}");
        assert!(stdout.contains("my%20project"), "{protocol}: {stdout}");
        assert!(
            stdout.contains(r#"\"name\":\"my project\""#),
            "{protocol}: {stdout}"
        );
    }
    let out = frontdesk(
        &["call", &server, "list_roots", "--root", "/no/such/dir"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", texts(&out));
}

#[test]
fn a_sampling_request_shows_its_prompt_and_is_refused_without_a_model() {
    let server = server();
    for (protocol, outcome) in [
        (
            "2025-11-25",
            "no summary: the client refused the request: this client has no language model",
        ),
        (
            "2026-07-28",
            "sampling/createMessage refused: this client has no language model",
        ),
    ] {
        let command = format!("{BIN} call {server} summarize --protocol {protocol}");
        let Some(tmux) = Tmux::start(&format!("sampling-{protocol}"), 100, &command, &[]) else {
            return;
        };
        let screen = tmux.prompt("[r] tell the server so");
        keep(&format!("sampling-{protocol}.txt"), &screen);
        for part in [
            "asks this client to run a prompt through a language model",
            "system prompt:",
            "│ You write short summaries.",
            "user:",
            "│ Summarize the release notes of version 2.4 in one sentence.",
            "at most 60 tokens",
            "frontdesk has no language model",
        ] {
            assert!(screen.contains(part), "{protocol}: {part}\n{screen}");
        }
        tmux.keys(&["r"]);
        let screen = tmux.wait_for("EXITED");
        assert!(flat(&screen).contains(outcome), "{protocol}:\n{screen}");
    }
}
