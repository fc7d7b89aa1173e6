//! `frontdesk call` end to end against the real demo server (a `frontdesk serve
//! --stdio` child, and the in-process demo): scripted accept, decline, cancel, an
//! invalid scripted answer (not sent), and `lab`/`connect` failing fast without a TTY.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support::BIN;

fn answers(name: &str, value: &Value) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("call");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

fn call(server: &str, tool: &str, answers: &PathBuf, protocol: &str) -> Output {
    Command::new(BIN)
        .args(["call", server, tool, "--args", r#"{"order_id":"A-1001"}"#])
        .arg("--answers")
        .arg(answers)
        .args(["--protocol", protocol])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdio_server() -> String {
    format!("{BIN} serve --stdio --store memory")
}

fn result(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[test]
fn scripted_accept_books_the_return_in_both_revisions() {
    let file = answers(
        "accept.json",
        &json!({"tools": {"book_return": [
            {"action": "accept", "content": {"reason": "wrong_item", "boxes": 2,
              "pickup_date": "2026-12-01", "contact_email": "ann@example.com"}},
            {"action": "accept", "content": {"confirm": true}}
        ]}}),
    );
    for protocol in ["2025-11-25", "2026-07-28"] {
        let out = call(&stdio_server(), "book_return", &file, protocol);
        assert!(
            out.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r = result(&out);
        assert_eq!(
            r["structuredContent"]["status"], "booked",
            "{protocol}: {r}"
        );
        assert_eq!(r["structuredContent"]["boxes"], 2, "{protocol}");
        assert_eq!(r["structuredContent"]["reason"], "wrong_item", "{protocol}");
        assert_eq!(
            r["structuredContent"]["contactEmail"], "ann@example.com",
            "{protocol}"
        );
    }
}

#[test]
fn scripted_decline_and_cancel_reach_the_server() {
    let decline = answers(
        "decline.json",
        &json!({"tools": {"book_return": [{"action": "decline"}]}}),
    );
    let cancel = answers("cancel.json", &json!({"default": {"action": "cancel"}}));
    for protocol in ["2025-11-25", "2026-07-28"] {
        let out = call("demo", "book_return", &decline, protocol);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = text(&result(&out));
        assert!(said.contains("declined"), "{protocol}: {said}");

        let out = call("demo", "book_return", &cancel, protocol);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = text(&result(&out));
        assert!(said.contains("dismissed"), "{protocol}: {said}");
    }
}

#[test]
fn invalid_scripted_answer_is_not_sent_and_exits_3() {
    let file = answers(
        "invalid.json",
        &json!({"tools": {"book_return": [
            {"action": "accept", "content": {"reason": "damaged", "pickup_date": "2026-12-01",
              "contact_email": "not-an-email"}}
        ]}}),
    );
    let out = call(&stdio_server(), "book_return", &file, "2026-07-28");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Contact email must be an email address"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("Contact email must be").count(),
        1,
        "said once: {stderr}"
    );
    assert!(stderr.contains("not sent"), "{stderr}");
    // What the server got instead: a cancel, so nothing was booked.
    let said = text(&result(&out));
    assert!(said.contains("No return was booked"), "{said}");
}

#[test]
fn bad_arguments_exit_2() {
    let out = Command::new(BIN)
        .args(["call", "demo", "book_return", "--args", "[1]"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be a JSON object"));
}

#[test]
fn interactive_commands_fail_fast_without_a_terminal() {
    for args in [vec!["lab"], vec!["connect", "--demo"]] {
        let started = std::time::Instant::now();
        let out = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("TERM")
            .output()
            .unwrap();
        if out.status.code() == Some(0) {
            // Only possible when the test itself runs with a controlling terminal.
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("terminal"),
            "{args:?}"
        );
        assert!(started.elapsed().as_secs() < 10);
    }
}

#[test]
fn a_choice_answered_with_its_title_is_refused_naming_the_values() {
    let file = answers(
        "by-title.json",
        &json!({"tools": {"book_return": [
            {"action": "accept", "content": {"reason": "Wrong item", "pickup_date": "2026-12-01",
              "contact_email": "ann@example.com"}}
        ]}}),
    );
    let out = call("demo", "book_return", &file, "2026-07-28");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "Reason must be one of these values: \"damaged\" (It arrived damaged), \"wrong_item\" (Wrong item), \"not_needed\" (No longer needed); \"Wrong item\" is not one of them"
        ),
        "{stderr}"
    );
}

#[test]
fn help_texts_name_each_revision_once_and_list_exit_statuses() {
    for command in ["call", "connect", "lab", "respond"] {
        let out = Command::new(BIN)
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            !help.contains("2025-11-25: 2025-11-25"),
            "{command}: {help}"
        );
        assert!(
            !help.contains("2026-07-28: 2026-07-28"),
            "{command}: {help}"
        );
        assert!(help.contains("Exit status"), "{command}: {help}");
    }
}

#[test]
fn log_file_takes_the_log_and_stderr_keeps_only_the_command_s_own_lines() {
    let file = answers(
        "decline-log.json",
        &json!({"default": {"action": "decline"}}),
    );
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("call-log.txt");
    let _ = std::fs::remove_file(&log);
    let out = Command::new(BIN)
        .args([
            "call",
            "demo",
            "book_return",
            "--args",
            r#"{"order_id":"A-1"}"#,
        ])
        .arg("--answers")
        .arg(&file)
        .arg("--log-file")
        .arg(&log)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains(" INFO "), "{stderr}");
    assert!(stderr.contains("frontdesk: connecting to"), "{stderr}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains(" INFO "), "{logged}");
    assert!(
        logged.contains("brightgrid sign-in page listening"),
        "{logged}"
    );
}

/// Issue 29: without a terminal, `--answers` or `--park` nobody can answer;
/// every question is answered cancel, and the command says so and fails (it
/// used to exit 0, so an agent took the dismissal for a result). The
/// in-process demo says nothing about its development key.
#[test]
fn questions_nobody_could_answer_make_the_call_fail() {
    let out = Command::new(BIN)
        .args([
            "call",
            "demo",
            "book_return",
            "--args",
            r#"{"order_id":"A-1"}"#,
        ])
        .stdin(Stdio::null())
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("the server asked 1 question(s) and nobody could answer"),
        "{stderr}"
    );
    assert!(!stderr.contains("development key"), "{stderr}");
    assert!(!stderr.contains(" INFO "), "quiet by default: {stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("dismissed")),
        "{result}"
    );
}

/// `frontdesk tools SERVER` lists the tools as JSON; `call` with a tool the
/// server does not have names the ones it has.
#[test]
fn tools_are_listed_and_a_wrong_tool_name_lists_them() {
    let out = Command::new(BIN)
        .args(["tools", "demo", "--protocol", "2025-11-25"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed["server"]["name"], "brightgrid");
    assert_eq!(listed["protocol"], "2025-11-25");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"book_return"), "{listed}");
    assert!(
        listed["tools"][0]["inputSchema"].is_object(),
        "camelCase, as MCP: {listed}"
    );

    let out = Command::new(BIN)
        .args(["call", "demo", "bookreturn"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("this server has no tool `bookreturn`; its tools: ")
            && stderr.contains("book_return"),
        "{stderr}"
    );
}
