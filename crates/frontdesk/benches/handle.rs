//! `Server::handle` in process, for the load benchmark's call (issue 14):
//! `bench_confirm` on 2026-07-28 with the default server configuration
//! (state sealed with XChaCha20-Poly1305, single use through the in-memory
//! nonce store).
//!
//! - `round 1`: the first `tools/call` → `input_required` with a sealed state;
//! - `round 2`: the retry with `inputResponses` and that state → complete
//!   (each iteration gets a fresh state from an unmeasured round 1, as a
//!   state opens once).
//!
//! Each is measured twice: `handle` alone on a parsed message, and `bytes`:
//! what the HTTP transport does around it (`parse_message` of the body,
//! `handle`, the response written as JSON).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use frontdesk::server::transport::Handled;

mod bench_call;
use bench_call::{Bench, round1, round2};

fn check_complete(handled: &Handled) {
    assert!(handled.failure.is_none(), "{:?}", handled.response);
}

fn handle(c: &mut Criterion) {
    let b = Bench::new();
    // The contract, once, before timing it.
    let done = b.handle(b.parse(&round2(&b.state())));
    let text = &done.response_value().unwrap()["result"]["content"][0]["text"];
    assert_eq!(text, "confirmed 7");

    let first = b.parse(&round1());
    c.bench_function("handle round 1 (input_required)", |bench| {
        bench.iter_batched(
            || first.clone(),
            |m| check_complete(&b.handle(black_box(m))),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("handle round 2 (complete)", |bench| {
        bench.iter_batched(
            || b.parse(&round2(&b.state())),
            |m| check_complete(&b.handle(black_box(m))),
            BatchSize::SmallInput,
        )
    });
    let first = round1();
    c.bench_function("bytes round 1 (parse + handle + write)", |bench| {
        bench.iter(|| b.bytes(black_box(&first)))
    });
    c.bench_function("bytes round 2 (parse + handle + write)", |bench| {
        bench.iter_batched(
            || round2(&b.state()),
            |body| b.bytes(black_box(&body)),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, handle);
criterion_main!(benches);
