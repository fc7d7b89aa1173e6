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
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::alloc::System;
use std::hint::black_box;

use serde_json::Value;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};

mod bench_call;
use bench_call::{Bench, round1, round2};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Rounds counted per line.
const ROUNDS: usize = 2_000;

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
    let b = Bench::new();
    // The contract, once, before counting it.
    let done: Value = serde_json::from_slice(&b.bytes(&round2(&b.state()))).unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "confirmed 7");

    report(
        "parse_message, round 1 body",
        &count(round1, |body| {
            drop(b.parse(body));
            Vec::new()
        }),
    );
    report(
        "round 1 (parse + handle + write)",
        &count(round1, |body| b.bytes(body)),
    );
    report(
        "round 2 (parse + handle + write)",
        &count(|| round2(&b.state()), |body| b.bytes(body)),
    );
}
