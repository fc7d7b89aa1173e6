//! No session id or task id in any log line, at any level (issue 24, row
//! 7): on an anonymous server they are the only credential for a session or
//! a task. A `frontdesk serve` child logs at `debug` while a 2025-11-25
//! session opens, streams, resumes and ends, and 2026-07-28 tasks are
//! created, answered, cancelled and followed by `frontdesk call`; the ids
//! never appear, and lines about them carry the same short fingerprint on
//! the server and the client.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use frontdesk_testkit::TestClient;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{BIN, modern_post};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// `frontdesk serve` on 127.0.0.1:0 logging at `debug`; every stderr line kept.
struct LoggedServe {
    child: Child,
    mcp: String,
    lines: Arc<Mutex<Vec<String>>>,
    reader: Option<JoinHandle<()>>,
}

impl LoggedServe {
    fn start() -> Self {
        let mut child = Command::new(BIN)
            .args([
                "serve",
                "--conformance-fixtures",
                "--store",
                "memory",
                "--http",
                "127.0.0.1:0",
            ])
            .env("RUST_LOG", "debug")
            .env_remove("FRONTDESK_STATE_KEYS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("frontdesk serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let kept = Arc::clone(&lines);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("frontdesk: MCP endpoint at ") {
                    let _ = tx.send(url.to_string());
                }
                kept.lock().unwrap().push(line);
            }
        });
        let mcp = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("serve prints its endpoint within 30 s");
        Self {
            child,
            mcp,
            lines,
            reader: Some(reader),
        }
    }

    /// Stop the server; every line it logged.
    fn stop(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        std::mem::take(&mut *self.lines.lock().unwrap())
    }
}

impl Drop for LoggedServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the logs show instead of an id: the first 8 hex digits of its SHA-256.
fn fingerprint(id: &str) -> String {
    Sha256::digest(id.as_bytes())[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn tasks_meta() -> Value {
    TestClient::new("log-test", "1")
        .capabilities(json!({"elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}}))
        .meta()
}

async fn modern(http: &reqwest::Client, mcp: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = tasks_meta();
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .unwrap_or_default()
        .to_string();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let r = modern_post(http, mcp, method, &name, &body)
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

fn legacy(http: &reqwest::Client, mcp: &str, sid: Option<&str>) -> reqwest::RequestBuilder {
    let mut r = http
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LEGACY);
    if let Some(sid) = sid {
        r = r.header("mcp-session-id", sid);
    }
    r
}

fn get_stream(
    http: &reqwest::Client,
    mcp: &str,
    sid: &str,
    last_event_id: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut r = http
        .get(mcp)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", LEGACY)
        .header("mcp-session-id", sid);
    if let Some(id) = last_event_id {
        r = r.header("last-event-id", id);
    }
    r
}

/// The id of the first SSE event of `response`.
async fn first_event_id(mut response: reqwest::Response) -> String {
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("an event within 10 s")
            .unwrap()
            .expect("the stream is open");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text.lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("the priming event has an id")
        .to_string()
}

/// A 2025-11-25 session through its life: initialize, the GET stream,
/// resuming it (refused while live, then accepted), DELETE. Its id.
async fn session_life(http: &reqwest::Client, mcp: &str) -> String {
    let init = TestClient::new("log-test", "1")
        .capabilities(json!({}))
        .initialize(json!(0));
    let r = legacy(http, mcp, None)
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let r = legacy(http, mcp, Some(&sid))
        .body(frontdesk_testkit::initialized().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let live = get_stream(http, mcp, &sid, None).send().await.unwrap();
    assert_eq!(live.status(), 200);
    let priming = first_event_id(live).await;
    // Dropped by now; resuming is refused until the server notices, then accepted.
    let mut resumed = false;
    for _ in 0..50 {
        let r = get_stream(http, mcp, &sid, Some(&priming))
            .send()
            .await
            .unwrap();
        if r.status() == 200 {
            resumed = true;
            break;
        }
        assert_eq!(r.status(), 409);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(resumed, "the stream was never resumed");
    let r = http
        .delete(mcp)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    sid
}

/// 2026-07-28 tasks: one answered, one cancelled, and updates for a task
/// that asks nothing and for one that does not exist. Their ids.
async fn task_lives(http: &reqwest::Client, mcp: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let created = modern(
        http,
        mcp,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 30}}),
    )
    .await;
    let slow = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_string();
    let got = modern(http, mcp, "tasks/get", json!({"taskId": slow})).await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    // An answer for a question nobody asked, then the cancel.
    let update = json!({"taskId": slow,
        "inputResponses": {"nothing": {"action": "accept", "content": {}}}});
    modern(http, mcp, "tasks/update", update).await;
    let cancelled = modern(http, mcp, "tasks/cancel", json!({"taskId": slow})).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    ids.push(slow);

    let unknown = "no-such-task-0123456789abcdef".to_string();
    let update = json!({"taskId": unknown,
        "inputResponses": {"x": {"action": "accept", "content": {}}}});
    modern(http, mcp, "tasks/update", update).await;
    ids.push(unknown);
    ids
}

#[tokio::test]
async fn session_and_task_ids_never_reach_the_log() {
    let server = LoggedServe::start();
    frontdesk::client::install_default_tls_provider();
    let http = reqwest::Client::new();
    let sid = session_life(&http, &server.mcp).await;
    let tasks = task_lives(&http, &server.mcp).await;
    // The client side: `frontdesk call` follows a task to its end.
    let call = Command::new(BIN)
        .args([
            "call",
            &server.mcp,
            "slow_compute",
            "--args",
            r#"{"seconds":1}"#,
        ])
        .args(["--protocol", MODERN])
        .env("RUST_LOG", "debug")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let client_log = String::from_utf8_lossy(&call.stderr).into_owned();
    assert!(call.status.success(), "{client_log}");
    let server_log = server.stop();

    let secrets: Vec<&str> = std::iter::once(sid.as_str())
        .chain(tasks.iter().map(String::as_str))
        .collect();
    for line in server_log
        .iter()
        .map(String::as_str)
        .chain(client_log.lines())
    {
        for secret in &secrets {
            assert!(!line.contains(secret), "an id in the log: {line}");
        }
    }
    // Lines about the session and the tasks still correlate, by fingerprint.
    let with = |needle: &str, fp: &str| {
        server_log
            .iter()
            .any(|l| l.contains(needle) && l.contains(fp))
    };
    let session = fingerprint(&sid);
    for event in [
        "session started",
        "GET stream opened",
        "stream resumed",
        "session ended by the client",
    ] {
        assert!(with(event, &session), "no {event:?} line with {session}");
    }
    let slow = fingerprint(&tasks[0]);
    for event in ["task created", "task cancelled"] {
        assert!(with(event, &slow), "no {event:?} line with {slow}");
    }
    // The client's task, followed by `frontdesk call`: named by the same
    // fingerprint as in the server's "task created" line, never by its id.
    let followed = client_log
        .lines()
        .find(|l| l.contains("the call became a task"))
        .unwrap_or_else(|| panic!("no task line in the client's log: {client_log}"));
    let fp = followed
        .split_whitespace()
        .find_map(|field| field.strip_prefix("task="))
        .unwrap_or_else(|| panic!("no task field: {followed}"));
    assert!(
        fp.len() == 8 && fp.bytes().all(|b| b.is_ascii_hexdigit()),
        "not a fingerprint: {followed}"
    );
    assert!(
        with("task created", fp),
        "{fp} is not a task the server created"
    );
}
