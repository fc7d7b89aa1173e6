//! Command-line errors (issue 13, item 10): each one clear line saying what went
//! wrong and what to do, and the same exit status for the same kind of failure.

use std::io::{Read, Write};
use std::net::TcpListener;

use crate::support::{BIN, Running, frontdesk, texts};
use crate::tmux::Tmux;

/// A web server that answers every request with a 404 HTML page.
fn html_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(20) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = format!(
                "<!DOCTYPE html><html><head><title>Not Found</title></head><body>{}</body></html>",
                "<p>nothing here</p>".repeat(40)
            );
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/mcp")
}

/// Ports nobody listens on: connecting is refused at once.
const NOBODY: &str = "http://127.0.0.1:9/mcp";

#[test]
fn each_command_line_error_is_one_clear_line_with_a_consistent_status() {
    let html = html_server();
    let missing = std::env::temp_dir().join("frontdesk-no-such-answers.json");
    let missing = missing.to_string_lossy().into_owned();
    // (arguments, what the one error line says, exit status)
    let table: Vec<(Vec<&str>, String, i32)> = vec![
        (
            vec!["call", "nosuchcmd-frontdesk", "x"],
            "`nosuchcmd-frontdesk` was not found on PATH".into(),
            2,
        ),
        (
            vec!["call", "sh -c 'exit 1'", "x"],
            "the server command `sh -c 'exit 1'` exited with status 1 before it answered".into(),
            2,
        ),
        (
            vec!["call", "sleep 200", "x", "--timeout", "1"],
            "`sleep 200` did not answer within 1 s: is it an MCP server on stdio? (--timeout SECS to wait longer)".into(),
            2,
        ),
        (
            vec!["call", "ftp://example/mcp", "x"],
            "ftp:// is not a way to reach an MCP server: give an http(s):// URL, a command line, or `demo`".into(),
            2,
        ),
        (
            vec!["call", &html, "x"],
            "the server answered with a web page, not MCP: is this its MCP endpoint".into(),
            2,
        ),
        (
            vec!["call", "demo", "book_return", "--answers", &missing],
            format!("cannot read the answers file {missing}: No such file or directory"),
            2,
        ),
        (
            vec!["call", NOBODY, "x"],
            // One line, the cause in a few words (it was four levels of wrappers).
            format!("cannot connect to {NOBODY}: connection refused (is the server running, on that port?)"),
            2,
        ),
        (
            vec!["respond", "0badc0de.1", "cancel"],
            "no parked call 0badc0de here: it finished, expired, or was never parked".into(),
            2,
        ),
        (
            vec!["respond", "../../etc.1", "cancel"],
            "`../../etc.1` is not a parked question id".into(),
            2,
        ),
    ];
    for (args, says, status) in &table {
        let out = frontdesk(args, &[("FRONTDESK_PARK_DIR", &park_dir())]);
        let (_, stderr) = texts(&out);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("frontdesk call:") || l.starts_with("frontdesk respond:"))
            .collect();
        assert_eq!(errors.len(), 1, "{args:?}: one error line, got:\n{stderr}");
        assert!(
            errors[0].contains(says.as_str()),
            "{args:?}: {says:?} in\n{stderr}"
        );
        assert!(!stderr.contains("<html"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(*status), "{args:?}: {stderr}");
    }
}

fn park_dir() -> String {
    std::env::temp_dir()
        .join(format!("fd-park-{}-errors", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn connect_reports_the_same_failures_with_the_same_status_as_call() {
    for (name, args, says) in [
        (
            "nocmd",
            "-- nosuchcmd-frontdesk",
            "`nosuchcmd-frontdesk` was not found on PATH",
        ),
        (
            "exit1",
            "-- sh -c 'exit 1'",
            "the server command `sh -c 'exit 1'` exited with status 1 before it answered",
        ),
        (
            "nourl",
            &format!("--url {NOBODY}"),
            "cannot connect to http://127.0.0.1:9/mcp",
        ),
    ] {
        let Some(tmux) = Tmux::start(name, 100, &format!("{BIN} connect {args}"), &[]) else {
            return;
        };
        let screen = tmux.wait_for("EXITED");
        assert!(screen.contains(says), "{args}: {screen}");
        assert!(screen.contains("EXITED 2"), "{args}: {screen}");
    }
}

#[test]
fn a_bad_worker_thread_count_is_an_error_line_not_a_panic() {
    // tokio reads `TOKIO_WORKER_THREADS` itself and panics on a value it
    // cannot use; every async command builds its runtime from it.
    for value in ["abc", "0", "-2", "", "5000"] {
        let out = frontdesk(
            &["serve", "--http", "127.0.0.1:0", "--store", "memory"],
            &[("TOKIO_WORKER_THREADS", value)],
        );
        let (_, stderr) = texts(&out);
        assert!(!stderr.contains("panicked"), "{value:?}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "frontdesk serve: TOKIO_WORKER_THREADS is `{value}`: give the number of runtime worker threads, from 1 to 1024 (unset: one per CPU)"
            ),
            "{value:?}"
        );
        assert_eq!(out.status.code(), Some(2), "{value:?}: {stderr}");
    }
    // A count it can use is used: the server starts and serves.
    let mut command = std::process::Command::new(BIN);
    command
        .args(["serve", "--http", "127.0.0.1:0", "--store", "memory"])
        .env("TOKIO_WORKER_THREADS", "1")
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::null());
    let serving = Running::spawn(command);
    let endpoint = serving.first(std::time::Duration::from_secs(20), |l| {
        l.strip_prefix("frontdesk: MCP endpoint at ")
            .map(str::to_owned)
    });
    assert!(
        endpoint.is_some(),
        "serve with one worker thread did not start"
    );
    serving.kill();
}
