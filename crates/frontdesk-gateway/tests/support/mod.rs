//! The harness the gateway's tests share: a scripted person, a server on
//! an in-memory pipe, the gateway in front of the demo on each pairing of
//! revisions, and a hand-written hostile upstream.
#![allow(dead_code, unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Direction, Elicitation, ElicitationHandler, ElicitationKind,
    ElicitationResponse, HandlerModes,
};
use frontdesk::server::Server;
use frontdesk::wire::Revision;
use frontdesk_demo::DemoOptions;
use frontdesk_gateway::{Gateway, GatewayOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answers in order; records what it was shown (message, schema; for a
/// URL question, the URL and its `elicitationId`).
#[derive(Default)]
pub struct Script {
    pub answers: Mutex<VecDeque<ElicitationResponse>>,
    pub seen: Mutex<Vec<(String, Value)>>,
    /// How long the "person" takes.
    pub delay: std::time::Duration,
    /// Declares URL mode; a URL question's page is this server's sign-in
    /// page: the person finishes there (the flow named by the URL's token
    /// is completed), then answers.
    pub page: Option<Server>,
}

impl Script {
    pub fn new(answers: Vec<ElicitationResponse>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            ..Self::default()
        })
    }

    /// A person who can open links; the sign-in pages are `page`'s.
    pub fn with_url(answers: Vec<ElicitationResponse>, page: Server) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            page: Some(page),
            ..Self::default()
        })
    }

    pub fn seen(&self) -> Vec<(String, Value)> {
        self.seen.lock().unwrap().clone()
    }
}

impl ElicitationHandler for Script {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: self.page.is_some(),
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let mut visit = None;
        let shown = match &request.kind {
            ElicitationKind::Form { form, .. } => form.schema.to_json(),
            ElicitationKind::Url {
                review,
                elicitation_id,
            } => {
                let url = review.url().expect("a URL that may be opened").to_string();
                visit = url.split_once("token=").map(|(_, token)| token.to_string());
                json!({"url": url, "elicitationId": elicitation_id})
            }
            _ => panic!("forms and URLs only"),
        };
        self.seen
            .lock()
            .unwrap()
            .push((request.message.clone(), shown));
        let page = self.page.clone();
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .expect("a scripted answer");
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            if let (Some(page), Some(token), ElicitationResponse::Accept(_)) =
                (page, visit, &answer)
            {
                page.complete_flow(&token, None)
                    .await
                    .expect("the sign-in page completes the flow");
            }
            answer
        })
    }
}

pub fn accept(content: Value) -> ElicitationResponse {
    let Value::Object(map) = content else {
        panic!("content is an object")
    };
    ElicitationResponse::Accept(map)
}

pub fn return_form() -> Value {
    json!({
        "reason": "damaged",
        "boxes": 2,
        "pickup_date": "2026-12-10",
        "contact_email": "ada@example.com"
    })
}

/// `server` served on one end of an in-memory pipe; a client on the other.
pub async fn client_of(
    server: Server,
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let _ = frontdesk::server::stdio::serve(server, read, write).await;
    });
    let (read, write) = tokio::io::split(client_end);
    Client::connect_io(read, write, config, handler)
        .await
        .expect("connected")
}

pub fn brightgrid() -> Server {
    frontdesk_demo::register(
        Server::builder("brightgrid", "1.0.0"),
        "http://127.0.0.1:9",
        &DemoOptions::default(),
    )
    .build()
}

/// The demo with the conformance suite's fixtures.
pub fn fixtures() -> Server {
    frontdesk_demo::register(
        Server::builder("brightgrid", "1.0.0"),
        "http://127.0.0.1:9",
        &DemoOptions {
            conformance_fixtures: true,
        },
    )
    .build()
}

/// A gateway in front of a 2025-11-25 server reached over `pipe`, and the
/// server it offers downstream.
pub async fn gateway_over(pipe: tokio::io::DuplexStream) -> (Gateway, Server) {
    let gateway = Gateway::new(GatewayOptions::default());
    let (read, write) = tokio::io::split(pipe);
    let up = Client::connect_io(
        read,
        write,
        gateway.upstream_config(ClientConfig::default().protocol(Revision::V2025_11_25)),
        gateway.upstream_handler(),
    )
    .await
    .unwrap();
    let server = gateway.attach(up).await.unwrap().build();
    (gateway, server)
}

/// A gateway in front of `upstream_server` (spoken to in `upstream`), and the
/// server it offers downstream.
pub async fn gateway_before(upstream_server: Server, upstream: Revision) -> (Gateway, Server) {
    let gateway = Gateway::new(GatewayOptions::default());
    let up = client_of(
        upstream_server,
        gateway.upstream_config(ClientConfig::default().protocol(upstream)),
        gateway.upstream_handler(),
    )
    .await;
    assert_eq!(up.revision(), upstream);
    let server = gateway.attach(up).await.expect("attached").build();
    (gateway, server)
}

/// The gateway in front of the demo (spoken to in `upstream`), its server
/// reached by a client on `downstream` answering with `script`; the
/// downstream wire recorded.
pub async fn through_gateway(
    upstream: Revision,
    downstream: Revision,
    script: Arc<Script>,
) -> (Gateway, Client, Arc<Mutex<Vec<(Direction, Value)>>>) {
    through_gateway_to(brightgrid(), upstream, downstream, script).await
}

/// [`through_gateway`] in front of `upstream_server`.
pub async fn through_gateway_to(
    upstream_server: Server,
    upstream: Revision,
    downstream: Revision,
    script: Arc<Script>,
) -> (Gateway, Client, Arc<Mutex<Vec<(Direction, Value)>>>) {
    let (gateway, server) = gateway_before(upstream_server, upstream).await;
    let wire: Arc<Mutex<Vec<(Direction, Value)>>> = Arc::default();
    let tap = Arc::clone(&wire);
    let config = ClientConfig::default()
        .protocol(downstream)
        .on_wire(move |d, m| tap.lock().unwrap().push((d, m.clone())));
    let down = client_of(server, config, script).await;
    assert_eq!(down.revision(), downstream);
    (gateway, down, wire)
}

pub const PAIRINGS: [(Revision, Revision); 4] = [
    (Revision::V2025_11_25, Revision::V2025_11_25),
    (Revision::V2025_11_25, Revision::V2026_07_28),
    (Revision::V2026_07_28, Revision::V2025_11_25),
    (Revision::V2026_07_28, Revision::V2026_07_28),
];
/// A hand-written 2025-11-25 server on stdio whose one tool asks `params`
/// (something that must not reach the person); it records what came back
/// for its question and answers the call.
pub async fn hostile_upstream(
    seen: Arc<Mutex<Option<Value>>>,
    method: &'static str,
    params: Value,
) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<()>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        let mut call_id = Value::Null;
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let reply = match m.get("method").and_then(Value::as_str) {
                Some("initialize") => Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "0.0.1"}
                }})),
                Some("tools/list") => Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "tools": [{"name": "nested", "inputSchema": {"type": "object"}}]
                }})),
                Some("tools/call") => {
                    call_id = m["id"].clone();
                    Some(json!({"jsonrpc": "2.0", "id": "q1", "method": method,
                        "params": params}))
                }
                Some(_) => None,
                None if m["id"] == "q1" => {
                    *seen.lock().unwrap() = Some(m.clone());
                    Some(json!({"jsonrpc": "2.0", "id": call_id, "result": {
                        "content": [{"type": "text", "text": "refused, as it should be"}]
                    }}))
                }
                None => None,
            };
            if let Some(reply) = reply {
                let mut text = reply.to_string();
                text.push('\n');
                write.write_all(text.as_bytes()).await.unwrap();
            }
        }
    });
    (client_end, task)
}

/// What the hostile upstream got back for `params`, through the gateway
/// to a `downstream` client that would accept anything it were shown.
pub async fn refused_upstream(params: Value, downstream: Revision) -> Value {
    refused_upstream_request("elicitation/create", params, downstream).await
}

/// What the hostile upstream got back for its request `method` with
/// `params` (answered by nobody the person sees), through the gateway to a
/// `downstream` client that declared form elicitation only.
pub async fn refused_upstream_request(
    method: &'static str,
    params: Value,
    downstream: Revision,
) -> Value {
    let (seen, result) = refused_upstream_call(method, params, downstream).await;
    assert_eq!(
        result.unwrap().content[0].as_text(),
        Some("refused, as it should be")
    );
    seen
}

/// As [`refused_upstream_request`]: what the upstream got back, and what
/// the call gave the client in front.
pub async fn refused_upstream_call(
    method: &'static str,
    params: Value,
    downstream: Revision,
) -> (
    Value,
    Result<frontdesk::wire::CallToolResult, frontdesk::client::ClientError>,
) {
    let seen = Arc::new(Mutex::new(None));
    let (pipe, _task) = hostile_upstream(Arc::clone(&seen), method, params).await;
    let (_gateway, server) = gateway_over(pipe).await;
    let script = Script::new(vec![]);
    let down = client_of(
        server,
        ClientConfig::default().protocol(downstream),
        Arc::clone(&script) as Arc<dyn ElicitationHandler>,
    )
    .await;
    let result = down.call_tool("nested", json!({})).await;
    assert!(script.seen().is_empty(), "the person saw nothing");
    let answer = seen.lock().unwrap().clone();
    (answer.expect("the upstream got an answer"), result)
}
