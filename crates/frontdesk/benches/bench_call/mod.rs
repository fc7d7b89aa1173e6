//! What the in-process benchmarks (`handle`, `allocs`) share: the
//! `bench_confirm` server, the two rounds' bodies, and one way to run a
//! message through `Server::handle`.
#![allow(dead_code)] // each benchmark uses part of it

use frontdesk::server::Server;
use frontdesk::server::transport::{Handled, Incoming, OutboundSink, RequestInfo};
use frontdesk::wire::Revision;
use frontdesk_testkit::TestClient;
use serde_json::{Value, json};

/// The server: `bench_confirm` with the default configuration.
pub fn server() -> Server {
    frontdesk_demo::fixtures::bench::register(Server::builder("bench", "0")).build()
}

/// The `_meta` of every request: 2026-07-28, a form-capable client.
pub fn meta() -> Value {
    TestClient::new("frontdesk-bench", "0")
        .capabilities(json!({"elicitation": {"form": {}}}))
        .meta()
}

/// Round 1: the first `tools/call`.
pub fn round1() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "bench_confirm", "arguments": {"n": 7}, "_meta": meta()
    }})
    .to_string()
    .into_bytes()
}

/// Round 2: the retry answering `confirm` with `ok: true`, carrying `state`.
pub fn round2(state: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "bench_confirm", "arguments": {"n": 7}, "_meta": meta(),
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
        "requestState": state
    }})
    .to_string()
    .into_bytes()
}

/// A server and what `handle` needs beside the message.
pub struct Bench {
    pub runtime: tokio::runtime::Runtime,
    pub server: Server,
    pub info: RequestInfo,
    pub sink: OutboundSink,
}

impl Bench {
    /// The server on a current-thread runtime, as a 2026-07-28 transport calls it.
    pub fn new() -> Self {
        Self {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            server: server(),
            info: RequestInfo::new(),
            sink: OutboundSink::discard(),
        }
    }

    /// A body read as a 2026-07-28 transport reads it (the revision said
    /// by its headers).
    pub fn parse(&self, body: &[u8]) -> Incoming {
        self.server
            .parse_message_as(body, Revision::V2026_07_28)
            .unwrap()
    }

    /// `handle` on a parsed message.
    pub fn handle(&self, message: Incoming) -> Handled {
        self.runtime
            .block_on(self.server.handle(None, message, &self.sink, &self.info))
    }

    /// Parse, handle, and the response's bytes: the transport's part included.
    pub fn bytes(&self, body: &[u8]) -> Vec<u8> {
        let handled = self.handle(self.parse(body));
        // The transport takes the response's text as the body, uncopied.
        String::from(Box::<str>::from(handled.response.unwrap())).into_bytes()
    }

    /// A fresh state from round 1.
    pub fn state(&self) -> String {
        let handled = self.handle(self.parse(&round1()));
        let response = handled.response_value().unwrap();
        response["result"]["requestState"]
            .as_str()
            .expect("round 1 asks")
            .to_string()
    }
}
