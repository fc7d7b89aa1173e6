//! Helpers for every test that talks to a server over Streamable HTTP:
//! starting one on 127.0.0.1:0, raw POSTs of both revisions, SSE reading,
//! the sign-in page.

use std::pin::Pin;
use std::time::Duration;

use frontdesk::http::{self, HttpOptions};
use frontdesk::server::Server;
use frontdesk_demo::{self as demo, DemoOptions};
use frontdesk_wire::header::encode_value;

use super::token_of;
use frontdesk_testkit::TestClient;
use futures::{Stream, StreamExt};
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub const MODERN: &str = "2026-07-28";
pub const LEGACY: &str = "2025-11-25";
pub const ACCEPT: &str = "application/json, text/event-stream";

/// The body of a JSON response, after checking its status and content type.
pub async fn json_of(r: reqwest::Response, status: u16) -> Value {
    assert_eq!(r.status(), status);
    assert!(content_type(&r).starts_with("application/json"));
    r.json().await.unwrap()
}

pub struct TestServer {
    pub base: String,
    pub mcp: String,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// The demo (with conformance fixtures) on 127.0.0.1:0, sign-in links
/// pointing at itself; `tweak` adjusts the options.
pub async fn start(tweak: impl FnOnce(&mut HttpOptions)) -> TestServer {
    start_with(|base| demo_server(base, true), tweak).await
}

/// The demo whose sign-in links point at `base`.
pub fn demo_server(base: &str, conformance_fixtures: bool) -> Server {
    demo::register(
        Server::builder("brightgrid-test", "0.0.1"),
        base,
        &DemoOptions {
            conformance_fixtures,
        },
    )
    .build()
}

/// Any server on 127.0.0.1:0; `build` gets the listener's base URL.
pub async fn start_with(
    build: impl FnOnce(&str) -> Server,
    tweak: impl FnOnce(&mut HttpOptions),
) -> TestServer {
    let mut options = HttpOptions::default();
    options.keepalive = Duration::from_millis(100);
    tweak(&mut options);
    let listener = http::bind("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    assert!(listener.local_addr().ip().is_loopback());
    let base = listener.base_url();
    let mcp = listener.endpoint_url();
    let server = build(&base);
    let (tx, rx) = oneshot::channel::<()>();
    // The demo's sign-in page next to the endpoint, as `frontdesk serve` mounts it.
    let listener = listener.routes(demo::signin::router(server.clone()));
    let served = tokio::spawn(listener.serve_with_shutdown(server, async {
        let _ = rx.await;
    }));
    TestServer {
        base,
        mcp,
        http: reqwest::Client::new(),
        stop: Some(tx),
        served: Some(served),
    }
}

/// Who the test client is: `http-test` 1.0.0, with form and URL elicitation.
pub fn test_client() -> TestClient {
    TestClient::new("http-test", "1.0.0")
}

/// `_meta` of a 2026-07-28 request.
pub fn meta() -> Value {
    test_client().meta()
}

pub fn modern_call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta()}})
}

/// A POST to `url` by `http` with the usual headers (JSON body, both media
/// types accepted).
fn usual_post(http: &reqwest::Client, url: &str) -> reqwest::RequestBuilder {
    http.post(url)
        .header(CONTENT_TYPE, "application/json")
        .header("accept", ACCEPT)
}

impl TestServer {
    /// Give the listener its shutdown signal (as SIGTERM does).
    pub fn shut_down(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }

    /// Wait (at most `within`) for the listener to return after
    /// [`shut_down`](Self::shut_down).
    pub async fn stopped(&mut self, within: Duration) {
        let served = self.served.take().expect("serving");
        tokio::time::timeout(within, served)
            .await
            .expect("the listener stops in time")
            .expect("the listener's task")
            .expect("the listener's result");
    }

    /// A POST with the usual headers and no session or version headers.
    pub fn post(&self) -> reqwest::RequestBuilder {
        self.post_to(&self.mcp)
    }

    /// [`post`](Self::post) to `url` instead of the endpoint.
    pub fn post_to(&self, url: &str) -> reqwest::RequestBuilder {
        usual_post(&self.http, url)
    }

    /// Send `body` with exactly `headers` (none of the usual ones added).
    pub async fn post_raw(
        &self,
        headers: &[(&str, &str)],
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let mut req = self.http.post(&self.mcp);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req.body(body).send().await.unwrap()
    }

    /// Send `body` with the usual headers plus `headers`.
    pub async fn post_with(
        &self,
        headers: &[(&str, &str)],
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let usual = [
            (CONTENT_TYPE.as_str(), "application/json"),
            ("accept", ACCEPT),
        ];
        let all: Vec<_> = usual.iter().chain(headers).copied().collect();
        self.post_raw(&all, body).await
    }

    /// GET the session's stream (`Accept: text/event-stream`), resuming
    /// after `last_event_id` when given.
    pub async fn get_stream(&self, sid: &str, last_event_id: Option<&str>) -> reqwest::Response {
        let mut req = self
            .http
            .get(&self.mcp)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", sid);
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        req.send().await.unwrap()
    }

    /// DELETE session `sid`.
    pub async fn delete_session(&self, sid: &str) -> reqwest::Response {
        self.http
            .delete(&self.mcp)
            .header("mcp-session-id", sid)
            .send()
            .await
            .unwrap()
    }

    /// POST the sign-in page's form.
    pub async fn sign_in(&self, form: &[(&str, &str)]) -> reqwest::Response {
        sign_in(&self.http, &self.base, form).await
    }

    /// A 2026-07-28 POST with the mirrored headers derived from `body`.
    pub async fn modern(&self, body: &Value) -> reqwest::Response {
        Self::modern_on(&self.http, &self.mcp, body).await
    }

    /// [`modern`](Self::modern) sent from the local address `from` (a
    /// loopback address other than 127.0.0.1 is another client to the
    /// server's per-client caps), on a connection of its own.
    pub async fn modern_from(&self, from: std::net::IpAddr, body: &Value) -> reqwest::Response {
        let client = reqwest::Client::builder()
            .local_address(from)
            .build()
            .unwrap();
        Self::modern_on(&client, &self.mcp, body).await
    }

    async fn modern_on(http: &reqwest::Client, mcp: &str, body: &Value) -> reqwest::Response {
        let mut req = usual_post(http, mcp).header("mcp-protocol-version", MODERN);
        if let Some(m) = body["method"].as_str() {
            req = req.header("mcp-method", m);
        }
        let name = body["params"]["name"]
            .as_str()
            .or(body["params"]["uri"].as_str())
            .or(body["params"]["taskId"].as_str());
        if let Some(n) = name {
            req = req.header("mcp-name", encode_value(n));
        }
        req.body(body.to_string()).send().await.unwrap()
    }

    /// A 2025-11-25 POST on session `sid`.
    pub async fn legacy(&self, sid: &str, body: &Value) -> reqwest::Response {
        self.post()
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", LEGACY)
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    /// `initialize` + `notifications/initialized`; the session id.
    pub async fn initialize(&self, capabilities: Value) -> String {
        let r = self
            .post()
            .body(
                test_client()
                    .capabilities(capabilities)
                    .initialize(json!(0))
                    .to_string(),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        assert!(sid.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["result"]["protocolVersion"], LEGACY);
        let r = self.legacy(&sid, &frontdesk_testkit::initialized()).await;
        assert_eq!(r.status(), 202);
        sid
    }

    /// POST our answer to the server's request `id`; expects `202`.
    pub async fn answer(&self, sid: &str, id: &Value, result: Value) {
        let r = self
            .legacy(sid, &json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
        assert_eq!(r.status(), 202);
        assert!(r.bytes().await.unwrap().is_empty());
    }
}

pub fn content_type(r: &reqwest::Response) -> String {
    r.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<String>,
    pub data: String,
}

impl SseEvent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<axum::body::Bytes>> + Send>>;

/// Reads SSE events one by one, line by line as the conformance harness
/// does: every `data:` line must be a whole compact JSON value.
pub struct SseReader {
    stream: ByteStream,
    buf: String,
}

impl SseReader {
    pub fn new(r: reqwest::Response) -> Self {
        assert!(content_type(&r).starts_with("text/event-stream"));
        assert_eq!(r.headers()["x-accel-buffering"], "no");
        Self {
            stream: Box::pin(r.bytes_stream()),
            buf: String::new(),
        }
    }

    /// The next event with an id or data (comments skipped); `None` at end.
    pub async fn next(&mut self) -> Option<SseEvent> {
        tokio::time::timeout(Duration::from_secs(10), self.next_inner())
            .await
            .expect("no SSE event within 10 s")
    }

    async fn next_inner(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(i) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..i + 2).collect();
                let mut ev = SseEvent {
                    id: None,
                    data: String::new(),
                };
                let mut any = false;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        ev.id = Some(v.to_string());
                        any = true;
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        assert!(ev.data.is_empty(), "one data line per event");
                        if !v.is_empty() {
                            let _: Value = serde_json::from_str(v).expect("compact JSON data line");
                        }
                        ev.data = v.to_string();
                        any = true;
                    } else {
                        assert!(
                            line.is_empty() || line.starts_with(':'),
                            "odd line {line:?}"
                        );
                    }
                }
                if any {
                    return Some(ev);
                }
                continue;
            }
            match self.stream.next().await {
                Some(Ok(chunk)) => self.buf.push_str(std::str::from_utf8(&chunk).unwrap()),
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// The next event carrying a JSON message (priming events skipped).
    pub async fn message(&mut self) -> Option<Value> {
        loop {
            let ev = self.next().await?;
            if !ev.data.is_empty() {
                return Some(ev.json());
            }
        }
    }
}

/// Every JSON message of a finished SSE response.
pub async fn all_messages(r: reqwest::Response) -> Vec<Value> {
    let mut reader = SseReader::new(r);
    let mut out = Vec::new();
    while let Some(m) = reader.message().await {
        out.push(m);
    }
    out
}

/// POST `form` to the sign-in page under `base`.
pub async fn sign_in(
    http: &reqwest::Client,
    base: &str,
    form: &[(&str, &str)],
) -> reqwest::Response {
    http.post(format!("{base}/signin"))
        .form(form)
        .send()
        .await
        .unwrap()
}

/// Finish the sign-in that `url` (`…/signin?token=…`) starts; expects `200`.
pub async fn complete_sign_in(http: &reqwest::Client, url: &str) {
    let (base, _) = url.split_once("/signin?").unwrap();
    let r = sign_in(http, base, &[("token", &token_of(url))]).await;
    assert_eq!(r.status(), 200);
}
