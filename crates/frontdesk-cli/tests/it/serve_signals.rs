//! `frontdesk serve` on SIGTERM: `--stdio` ends even while the host keeps its
//! input open (a host that stops a server with a signal does not close the
//! pipe first); `--http`, as the README starts it, answers `/readyz`, and on
//! SIGTERM withdraws the question a person is answering, tells the call to
//! call again, and exits.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::sync::Arc;

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::wire::Revision;
use serde_json::json;

use crate::serve_restart::{Serve, generate_key, temp_dir};
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

/// A person who sees the question and never answers.
#[derive(Default)]
struct Away {
    asked: tokio::sync::Notify,
}

impl ElicitationHandler for Away {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        self.asked.notify_one();
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn serve_http_is_ready_and_drains_a_waiting_question_on_sigterm() {
    let dir = temp_dir("drain");
    let mut serve = Serve::start(
        &generate_key("drain"),
        &["--data-dir", dir.to_str().expect("a UTF-8 path")],
    );
    frontdesk::client::install_default_tls_provider();
    let ready = reqwest::get(format!("{}/readyz", serve.base))
        .await
        .unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(ready.text().await.unwrap(), "ready\n");

    let away = Arc::new(Away::default());
    let client = Client::connect_http(
        &serve.mcp,
        ClientConfig::default().protocol(Revision::V2025_11_25),
        Arc::clone(&away) as _,
    )
    .await
    .unwrap();
    let call = tokio::spawn(async move {
        client
            .call_tool("book_return", json!({"order_id": "D-1"}))
            .await
    });
    tokio::time::timeout(Duration::from_secs(10), away.asked.notified())
        .await
        .expect("the question is shown");

    let status = Command::new("kill")
        .args(["-TERM", &serve.process.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let result = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ends")
        .expect("the call's task")
        .expect("the call is answered");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text(),
        Some("The server is shutting down before the question was answered; call the tool again.")
    );
    let exited = serve.process.exited_within(Duration::from_secs(10));
    assert!(
        exited.is_some_and(|s| s.success()),
        "frontdesk serve exits cleanly after the drain: {exited:?}"
    );
}
