//! `Last-Event-ID` at the edge of the numbering (issue 24, row 16):
//! `<stream>-18446744073709551615` once overflowed `from + 1` while the
//! stream's lock was held (a panic in a debug build, which poisoned the lock
//! and left the session's stream unusable; a wrapped number in release).

use std::time::Duration;

use serde_json::json;

use crate::support::http::{SseReader, start};

/// Resume with `id` until the server has noticed the previous reader is
/// gone (it refuses with `409` while one is attached).
async fn resume(s: &crate::support::http::TestServer, sid: &str, id: &str) -> reqwest::Response {
    for _ in 0..50 {
        let r = s.get_stream(sid, Some(id)).await;
        if r.status() != 409 {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the stream kept a reader for 5 s");
}

#[tokio::test]
async fn the_largest_event_number_resumes_nothing_and_breaks_nothing() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({"elicitation": {"form": {}}})).await;
    let r = s
        .legacy(
            &sid,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "book_return", "arguments": {"order_id": "B-2"}}}),
        )
        .await;
    let mut reader = SseReader::new(r);
    let priming = reader.next().await.unwrap().id.unwrap();
    let question = reader.next().await.unwrap();
    assert_eq!(question.json()["method"], "elicitation/create");
    drop(reader); // Gone mid-question; the stream's events stay buffered.

    let stream = priming.split_once('-').unwrap().0;
    let last = format!("{stream}-{}", u64::MAX);
    // Past every event the stream will ever have: like any id past its
    // last event, nothing is replayed and the stream is attached.
    let r = resume(&s, &sid, &last).await;
    assert_eq!(r.status(), 200);
    let mut after_max = SseReader::new(r);
    let nothing = tokio::time::timeout(Duration::from_millis(300), after_max.next()).await;
    assert!(nothing.is_err(), "replayed after u64::MAX: {nothing:?}");
    drop(after_max);

    // The stream is intact: resuming after the priming event replays the
    // question.
    let mut again = SseReader::new(resume(&s, &sid, &priming).await);
    let replayed = again.next().await.unwrap();
    assert_eq!(replayed.id, question.id);
    // One past u64::MAX is not an event id at all: 400.
    let r = s
        .get_stream(&sid, Some(&format!("{stream}-18446744073709551616")))
        .await;
    assert_eq!(r.status(), 400);
}
