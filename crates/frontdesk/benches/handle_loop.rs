//! `bench_confirm`'s two rounds on 2026-07-28 in a plain loop, for counting
//! instructions under valgrind, which a loaded machine does not disturb as
//! it does a time:
//!
//! ```text
//! cargo bench -p frontdesk --bench handle_loop --no-run
//! valgrind --tool=callgrind --toggle-collect='*Bench*bytes*' \
//!     target/release/deps/handle_loop-HASH 200
//! ```
//!
//! Each round runs through `Bench::bytes` (the transport's part included:
//! the body parsed, `handle`, the response written), so the toggle counts
//! only that; round 2's states come from unmeasured round 1s. The argument
//! is the number of rounds of each kind (default 200).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::hint::black_box;

mod bench_call;
use bench_call::{Bench, round1, round2};

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let b = Bench::new();
    let first = round1();
    for _ in 0..rounds {
        black_box(b.bytes(black_box(&first)));
    }
    for _ in 0..rounds {
        let body = round2(&b.state());
        black_box(b.bytes(black_box(&body)));
    }
    println!("{rounds} rounds of each");
}
