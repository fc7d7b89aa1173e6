//! A hostile server (`scenario_server hostile`) puts escape sequences in its name,
//! version, tool names and descriptions, a form's title, field titles, defaults and
//! option titles, the result, a JSON-RPC error message and its stderr. None of them
//! reaches the terminal: not through `call`'s stdout or stderr, not through
//! `connect`'s screen (the pty's raw bytes are checked: no window title, no link, no
//! clear screen, no 8-bit CSI, no bidi override).

use crate::support::{BIN, frontdesk, scenario_server, texts};
use crate::tmux::{Tmux, flat};

/// The raw forms of what the hostile server sends, none of which may be written.
const RAW: &[&[u8]] = &[
    b"\x1b]0;PWNED",
    b"\x1b]8;;https://evil.example/",
    b"\x1b[2J",
    "\u{9b}31m".as_bytes(),
    "\u{202e}".as_bytes(),
];

fn assert_clean(what: &str, bytes: &[u8]) {
    for raw in RAW {
        assert!(
            !bytes.windows(raw.len()).any(|w| w == *raw),
            "{what}: {raw:?} reached the terminal raw:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn call_prints_nothing_raw_from_a_hostile_server() {
    let server = scenario_server("hostile");
    let out = frontdesk(&["call", &server, "fail"], &[("RUST_LOG", "info")]);
    assert_eq!(out.status.code(), Some(1));
    assert_clean("call fail stdout", &out.stdout);
    assert_clean("call fail stderr", &out.stderr);
    let (stdout, stderr) = texts(&out);
    // The name, the error and the server's own stderr are shown, escaped.
    assert!(
        stderr.contains(r"evil \u{001B}]0;PWNED\u{0007}"),
        "{stderr}"
    );
    assert!(
        stderr.contains(r"error message \u{001B}]0;PWNED"),
        "{stderr}"
    );
    assert!(
        stderr.contains(r"about to fail \u{001B}]0;PWNED"),
        "{stderr}"
    );
    assert!(
        stdout.contains(r"\u001b]0;PWNED"),
        "the error as JSON, escaped: {stdout}"
    );

    let tool = "ask\u{1b}]0;PWNED\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\\u{1b}[2J\u{9b}31m\u{202e}";
    let out = frontdesk(&["call", &server, tool], &[("RUST_LOG", "info")]);
    assert_clean("call ask stdout", &out.stdout);
    assert_clean("call ask stderr", &out.stderr);
    let (stdout, _) = texts(&out);
    assert!(
        stdout.contains(r"answered cancel \u001b]0;PWNED"),
        "{stdout}"
    );
}

#[test]
fn connect_shows_a_hostile_server_escaped_and_writes_none_of_it_raw() {
    let server = scenario_server("hostile");
    let Some(tmux) = Tmux::start("hostile", 120, &format!("{BIN} connect -- {server}"), &[]) else {
        return;
    };
    let screen = tmux.prompt("Call which tool?");
    assert!(
        flat(&screen).contains(r"connected to evil \u{001B}]0;PWNED\u{0007}"),
        "{screen}"
    );
    assert!(
        screen.contains(r"ask\u{001B}]0;PWNED"),
        "the tool name, escaped:\n{screen}"
    );
    tmux.keys(&["Enter"]); // the hostile `ask`
    let screen = tmux.prompt("? Name");
    assert!(screen.contains("── evil"), "{screen}");
    assert!(
        screen.contains(r"│ \u{001B}]0;PWNED\u{0007}"),
        "the message:\n{screen}"
    );
    assert!(
        flat(&screen).contains(r"› default \u{001B}]0;PWNED"),
        "the default, pre-filled as shown:\n{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.prompt("? Size");
    tmux.keys(&["Enter"]);
    tmux.prompt("Review:");
    tmux.keys(&["a"]);
    let screen = tmux.prompt("Next: [n] call another tool");
    assert!(
        flat(&screen).contains(r"result text \u{001B}]0;PWNED"),
        "{screen}"
    );
    assert!(screen.contains("reported an error"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
    assert_clean("connect's terminal output", &tmux.raw_output());
}
