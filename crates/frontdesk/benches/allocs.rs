//! Heap allocations per `bench_confirm` round on 2026-07-28 (issue 14), the
//! transport's part included (`parse_message` of the body, `handle`, the
//! response written as JSON), with the default server configuration.
//!
//! ```text
//! cargo bench -p frontdesk --bench allocs
//! ```
//!
//! Unlike a time, the count is the same from run to run (it moves only with
//! the code and its dependencies): a change that copies a value tree more
//! or less shows here exactly. Round 2's body is prepared (from an unmeasured round 1) outside
//! the count. Nothing here asserts a count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::System;
use std::hint::black_box;

use frontdesk::server::{OutboundSink, RequestInfo, Revision, Server};
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Rounds counted per line.
const ROUNDS: usize = 2_000;

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "frontdesk-bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    })
}

fn round1() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "bench_confirm", "arguments": {"n": 7}, "_meta": meta()
    }})
    .to_string()
    .into_bytes()
}

fn round2(state: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "bench_confirm", "arguments": {"n": 7}, "_meta": meta(),
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
        "requestState": state
    }})
    .to_string()
    .into_bytes()
}

struct Bench {
    runtime: tokio::runtime::Runtime,
    server: Server,
    info: RequestInfo,
    sink: OutboundSink,
}

impl Bench {
    /// Parse, handle, write: what the HTTP transport does with a body.
    fn bytes(&self, body: &[u8]) -> Vec<u8> {
        let message = self.server.parse_message(body).unwrap();
        let handled = self
            .runtime
            .block_on(self.server.handle(None, message, &self.sink, &self.info));
        serde_json::to_vec(&handled.response).unwrap()
    }

    /// A round 2 body, from a fresh round 1.
    fn retry(&self) -> Vec<u8> {
        let reply: Value = serde_json::from_slice(&self.bytes(&round1())).unwrap();
        round2(
            reply["result"]["requestState"]
                .as_str()
                .expect("round 1 asks"),
        )
    }
}

/// Count `ROUNDS` runs of `run` on bodies from `prepare` (not counted).
fn count(prepare: impl Fn() -> Vec<u8>, run: impl Fn(&[u8]) -> Vec<u8>) -> Stats {
    let mut total = Stats::default();
    for _ in 0..ROUNDS {
        let body = prepare();
        let region = Region::new(GLOBAL);
        drop(black_box(run(black_box(&body))));
        let change = region.change();
        total.allocations += change.allocations;
        total.reallocations += change.reallocations;
        total.bytes_allocated += change.bytes_allocated;
    }
    total
}

fn report(name: &str, stats: &Stats) {
    #[allow(clippy::cast_precision_loss)]
    let per = |n: usize| n as f64 / ROUNDS as f64;
    println!(
        "{name:<42} {:>6.1} allocations {:>5.1} reallocations {:>8.0} bytes per round",
        per(stats.allocations),
        per(stats.reallocations),
        per(stats.bytes_allocated),
    );
}

fn main() {
    let b = Bench {
        runtime: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        server: frontdesk_demo::fixtures::bench::register(Server::builder("bench", "0")).build(),
        info: RequestInfo::new().revision(Revision::V2026_07_28),
        sink: OutboundSink::discard(),
    };
    // The contract, once, before counting it.
    let done: Value = serde_json::from_slice(&b.bytes(&b.retry())).unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "confirmed 7");

    report(
        "parse_message, round 1 body",
        &count(round1, |body| {
            drop(b.server.parse_message(body).unwrap());
            Vec::new()
        }),
    );
    report(
        "round 1 (parse + handle + write)",
        &count(round1, |body| b.bytes(body)),
    );
    report(
        "round 2 (parse + handle + write)",
        &count(|| b.retry(), |body| b.bytes(body)),
    );
}
