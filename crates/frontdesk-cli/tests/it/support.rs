//! What the tests share: the binaries and running a command to completion.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// A process under test whose stderr is read line by line on a thread of
/// its own (so it never blocks on a full pipe); killed when dropped.
pub struct Running {
    child: Child,
    stderr: mpsc::Receiver<String>,
}

impl Running {
    /// Start `command` with stdout discarded and stderr read (stdin as the
    /// command set it).
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the process starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stderr: lines,
        }
    }

    /// The first stderr line from now on for which `pick` gives a value,
    /// within `within`; `None` when the time is up or the process closed
    /// stderr first.
    pub fn first<T>(&self, within: Duration, mut pick: impl FnMut(&str) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.stderr.recv_timeout(left).ok()?;
            if let Some(found) = pick(&line) {
                return Some(found);
            }
        }
    }

    /// The process id (to send it a signal).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The process's exit status once it has exited, waiting at most
    /// `within`; `None` while it still runs.
    pub fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kill the process now (no graceful shutdown) and wait for it.
    pub fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Sign in on the demo's loopback page, as the person would in a browser: POST
/// its form with the link's token.
pub fn sign_in(url: &str) {
    use std::io::{Read, Write};
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .expect("the demo's page");
    let (port, path) = rest.split_once('/').expect("a path");
    let token = path
        .split_once("token=")
        .map(|(_, t)| t.split('&').next().unwrap_or(t))
        .expect("a token");
    let body = format!("token={token}&email=ann%40example.com&password=pw");
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    write!(
        stream,
        "POST /signin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
}

/// A 2025-11-25 POST of the JSON-RPC message `body` to `mcp`, on session
/// `sid` when given (its id and the revision's header; without one, an
/// `initialize`); add more headers, then send.
pub fn legacy_post(
    client: &reqwest::Client,
    mcp: &str,
    sid: Option<&str>,
    body: &serde_json::Value,
) -> reqwest::RequestBuilder {
    let mut request = client
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(sid) = sid {
        request = request
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request
}

/// A 2026-07-28 POST of the JSON-RPC request `body` (of `method`, about
/// `name`: a tool, a task, or empty) to `mcp` with the headers the revision
/// asks for; add more headers, then send.
pub fn modern_post(
    client: &reqwest::Client,
    mcp: &str,
    method: &str,
    name: &str,
    body: &serde_json::Value,
) -> reqwest::RequestBuilder {
    client
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
}
