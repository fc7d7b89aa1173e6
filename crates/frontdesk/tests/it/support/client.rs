//! Helpers for the client end-to-end tests: a scripted person, the wire
//! recorder, servers in process or over HTTP (from [`super::http`]).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{
    Client, ClientConfig, Direction, Elicitation, ElicitationHandler, ElicitationKind,
    ElicitationResponse, HandlerModes, ProtocolChoice,
};

use frontdesk::BoxFuture;
use frontdesk::server::Server;
use frontdesk_demo::{self as demo, DemoOptions};
use serde_json::{Map, Value};

use super::http;

/// What the scripted person does with the next question.
#[derive(Debug, Clone)]
pub enum Step {
    Accept(Value),
    Decline,
    Cancel,
    /// Complete the sign-in page of a URL question, then accept.
    SignIn,
    /// Wait until the request is withdrawn, then say cancel.
    AwaitWithdrawal,
}

pub struct TestHandler {
    pub modes: HandlerModes,
    steps: Mutex<VecDeque<Step>>,
    pub seen: Mutex<Vec<Elicitation>>,
    pub withdrawn: AtomicBool,
}

impl TestHandler {
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Arc<Self> {
        Arc::new(Self {
            modes: HandlerModes {
                form: true,
                url: true,
            },
            steps: Mutex::new(steps.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
            withdrawn: AtomicBool::new(false),
        })
    }

    pub fn seen(&self) -> Vec<Elicitation> {
        self.seen.lock().unwrap().clone()
    }

    pub fn was_withdrawn(&self) -> bool {
        self.withdrawn.load(Ordering::SeqCst)
    }
}

/// POST the demo's sign-in page for `url` (`…/signin?token=…`).
pub async fn complete_sign_in(url: &str) {
    http::complete_sign_in(&reqwest::Client::new(), url).await;
}

impl ElicitationHandler for TestHandler {
    fn modes(&self) -> HandlerModes {
        self.modes
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            self.seen.lock().unwrap().push(request.clone());
            let step = self
                .steps
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or(Step::Cancel);
            match step {
                Step::Accept(v) => ElicitationResponse::Accept(v.as_object().cloned().unwrap()),
                Step::Decline => ElicitationResponse::Decline,
                Step::Cancel => ElicitationResponse::Cancel,
                Step::SignIn => {
                    let ElicitationKind::Url { review, .. } = &request.kind else {
                        panic!("expected a URL question, got {:?}", request.kind);
                    };
                    complete_sign_in(review.url().unwrap()).await;
                    ElicitationResponse::Accept(Map::new())
                }
                Step::AwaitWithdrawal => {
                    request.cancelled.cancelled().await;
                    self.withdrawn.store(true, Ordering::SeqCst);
                    ElicitationResponse::Cancel
                }
            }
        })
    }
}

/// Everything the client sent, for "the server never saw it" checks.
#[derive(Clone, Default)]
pub struct Wire(pub Arc<Mutex<Vec<(Direction, Value)>>>);

impl Wire {
    pub fn config(&self, protocol: ProtocolChoice) -> ClientConfig {
        let log = self.0.clone();
        let mut config = ClientConfig::default()
            .protocol(protocol)
            .on_wire(move |d, v| log.lock().unwrap().push((d, v.clone())));
        config.request_timeout = Duration::from_secs(20);
        config
    }

    pub fn sent_text(&self) -> String {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(d, _)| *d == Direction::Outgoing)
            .map(|(_, v)| v.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn sent(&self) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(d, _)| *d == Direction::Outgoing)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The last request of `method` the client sent.
    pub fn last_sent(&self, method: &str) -> Option<Value> {
        self.sent()
            .into_iter()
            .rev()
            .find(|m| m["method"] == method)
    }
}

/// Connect to `server` in-process over a duplex pair.
pub async fn in_process(
    server: Server,
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_io);
    tokio::spawn(frontdesk::server::stdio::serve(server, sr, sw));
    let (cr, cw) = tokio::io::split(client_io);
    Client::connect_io(cr, cw, config, handler).await.unwrap()
}

/// The brightgrid demo with its own sign-in page.
pub async fn brightgrid() -> Server {
    demo::brightgrid(&DemoOptions::default()).await.unwrap()
}

/// A server over Streamable HTTP (stopped when dropped).
pub type HttpServer = http::TestServer;

/// Any server over Streamable HTTP on 127.0.0.1:0 (sign-in page included).
pub async fn http_server(build: impl FnOnce(&str) -> Server) -> HttpServer {
    http::start_with(build, |o| o.keepalive = Duration::from_millis(200)).await
}

/// The demo over HTTP.
pub async fn http_demo() -> HttpServer {
    http_server(|base| http::demo_server(base, false)).await
}
