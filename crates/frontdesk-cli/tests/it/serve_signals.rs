//! `frontdesk serve --stdio` ends on SIGTERM even while the host keeps its input
//! open (a host that stops a server with a signal does not close the pipe first).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::BIN;

#[test]
fn serve_stdio_exits_on_sigterm_while_its_input_stays_open() {
    let mut server = Command::new(BIN)
        .args(["serve", "--stdio", "--store", "memory"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("frontdesk serve starts");
    let mut input = server.stdin.take().expect("stdin is piped");
    let mut output = BufReader::new(server.stdout.take().expect("stdout is piped"));
    // Up and serving: it answers an initialize.
    writeln!(
        input,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .expect("initialize is written");
    let mut line = String::new();
    output.read_line(&mut line).expect("a reply");
    assert!(line.contains(r#""id":1"#), "{line}");

    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    // `input` stays open on purpose until the server has gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    let exited = loop {
        if let Some(status) = server.try_wait().expect("try_wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(input);
    if exited.is_none() {
        let _ = server.kill();
    }
    let status = exited.expect("frontdesk serve --stdio exits on SIGTERM with its input open");
    assert!(status.success(), "{status}");
}
