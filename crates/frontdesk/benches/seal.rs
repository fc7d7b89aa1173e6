//! Sealing + opening a typical request state (two answers, ~200 bytes of JSON).
//! Budget (DESIGN.md): ≤ 5 µs for both together, release build.
#![allow(clippy::unwrap_used)]
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, criterion_group, criterion_main};
use frontdesk::state::{Binding, RequestDigest, StateSealer};
use serde_json::json;

fn seal_open(c: &mut Criterion) {
    let sealer = StateSealer::from_spec(
        "bench:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    )
    .unwrap();
    let args = json!({"city": "Oslo", "nights": 2});
    let binding = Binding::new(
        "user-42",
        RequestDigest::new("tools/call", Some("book_hotel"), Some(&args)),
    );
    let payload = json!({
        "answers": {
            "dates": {"q": "3f9a1c2b", "action": "accept", "content": {"from": "2026-12-01", "to": "2026-12-03"}},
            "room": {"q": "77e0a4d1", "action": "accept", "content": {"type": "double", "breakfast": true}}
        },
        "round": 2
    });
    assert!((150..=260).contains(&serde_json::to_vec(&payload).unwrap().len()));
    let ttl = Duration::from_secs(600);
    let now = SystemTime::now();

    c.bench_function("seal+open ~200 B state", |b| {
        b.iter(|| {
            let token = sealer
                .seal(black_box(&binding), black_box(&payload), ttl)
                .unwrap();
            sealer.open(black_box(&token), &binding, now).unwrap()
        })
    });
    let token = sealer.seal(&binding, &payload, ttl).unwrap();
    c.bench_function("open ~200 B state", |b| {
        b.iter(|| sealer.open(black_box(&token), &binding, now).unwrap())
    });
    c.bench_function("request digest", |b| {
        b.iter(|| RequestDigest::new("tools/call", Some("book_hotel"), Some(black_box(&args))))
    });
}

criterion_group!(benches, seal_open);
criterion_main!(benches);
