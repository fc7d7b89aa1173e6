//! The event archive (issue 28): two HTTP servers sharing a real
//! `redis-server` (`FRONTDESK_REDIS_URL`; skipped without one unless
//! `FRONTDESK_REQUIRE_REDIS=1`); a 2025-11-25 stream broken on A is resumed
//! with `Last-Event-ID` on B. And an archive that stalls: its writer's
//! queue fills, records are dropped and counted, requests are served.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::http::archive::{
    Archive, ArchiveReader, ArchivedSession, EventArchive, Keep, Record,
};
use frontdesk::store::StoreError;
use serde_json::{Value, json};

use crate::support::http::{SseReader, TestServer, start};

fn book_return(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "book_return", "arguments": {"order_id": "A-17"}}})
}

fn return_form() -> Value {
    json!({"action": "accept", "content": {"reason": "damaged", "boxes": 2,
        "pickup_date": "2026-08-03", "contact_email": "ana@example.com"}})
}

/// The tool's result once both questions are accepted.
fn booked(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": "Return booked for order A-17: 2 box(es) collected on \
            2026-08-03 (It arrived damaged); the label goes to ana@example.com."}],
        "structuredContent": {"orderId": "A-17", "reason": "damaged", "boxes": 2,
            "pickupDate": "2026-08-03", "contactEmail": "ana@example.com", "notes": null,
            "status": "booked"},
        "isError": false}})
}

/// The confirmation `book_return` asks after the form, as request `id`.
fn confirm_question(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "form",
        "message": "Book a pickup of 2 box(es) on 2026-08-03 for order A-17?",
        "requestedSchema": {"type": "object", "properties": {
            "confirm": {"type": "boolean", "title": "Book this pickup", "default": true}},
            "required": ["confirm"]}}})
}

/// A new session's `book_return` call on `s`, its POST stream read up to
/// the first question: the question's event (the reader is dropped: the
/// stream broke). Only the Redis tests use it.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
async fn call_broken_after_question(s: &TestServer, sid: &str) -> (String, Value) {
    let r = s.legacy(sid, &book_return(2)).await;
    assert_eq!(r.status(), 200);
    let mut reader = SseReader::new(r);
    let priming = reader.next().await.unwrap();
    assert_eq!(priming.data, "");
    let question = reader.next().await.unwrap();
    let q = question.json();
    assert_eq!(q["method"], "elicitation/create");
    drop(reader);
    (question.id.unwrap(), q)
}

/// An archive whose writes never finish (a Redis that stopped answering).
struct Stalled;

impl EventArchive for Stalled {
    fn write<'a>(&'a self, _: &'a [Record], _: Keep) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(std::future::pending())
    }

    fn session<'a>(
        &'a self,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Option<ArchivedSession>, StoreError>> {
        Box::pin(async { Ok(None) })
    }

    fn heartbeat<'a>(
        &'a self,
        _: &'a str,
        _: Option<Duration>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    fn alive<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async { Ok(true) })
    }

    fn reader<'a>(
        &'a self,
        _: &'a str,
        _: u64,
    ) -> BoxFuture<'a, Result<Option<Box<dyn ArchiveReader>>, StoreError>> {
        Box::pin(async { Ok(None) })
    }
}

#[tokio::test]
async fn a_full_archive_queue_drops_and_counts_and_the_call_is_served() {
    let archive = Archive::new(Arc::new(Stalled)).queue(1);
    let s = start({
        let archive = archive.clone();
        |o| o.event_archive = Some(archive)
    })
    .await;
    // The session's record: the writer takes it and stalls on it.
    let sid = s.initialize(json!({"elicitation": {}})).await;
    let r = s.legacy(&sid, &book_return(2)).await;
    assert_eq!(r.status(), 200);
    let mut reader = SseReader::new(r);
    let first = reader.message().await.unwrap();
    s.answer(&sid, &first["id"], return_form()).await;
    let confirm = reader.message().await.unwrap();
    assert_eq!(confirm, confirm_question(&confirm["id"]));
    s.answer(
        &sid,
        &confirm["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    )
    .await;
    assert_eq!(reader.message().await.unwrap(), booked(2));
    assert!(reader.next().await.is_none(), "the stream ends");
    // The priming event took the queue's one place; both questions, the
    // result and the end mark were dropped.
    assert_eq!(archive.dropped(), 4);
}

#[cfg(feature = "redis")]
mod redis {
    use super::*;

    use axum::http::HeaderMap;
    use frontdesk::flows::FlowId;
    use frontdesk::http::auth::{Authenticate, Unauthorized};
    use frontdesk::stores::redis::RedisEventArchive;

    use crate::support::http::{start_with, test_client};

    const CALL_AGAIN: &str =
        "The server is shutting down before the question was answered; call the tool again.";

    async fn archive(url: &str, prefix: &str) -> Arc<RedisEventArchive> {
        Arc::new(
            tokio::time::timeout(
                Duration::from_secs(10),
                RedisEventArchive::connect(url, prefix),
            )
            .await
            .expect("Redis connect timed out")
            .expect("Redis connect failed"),
        )
    }

    /// Two instances (A, B) archiving to one Redis under a prefix of their own.
    async fn pair(url: &str) -> (TestServer, TestServer, Arc<RedisEventArchive>) {
        let prefix = format!("frontdesk-test:{}:", FlowId::random());
        let a = archive(url, &prefix).await;
        let b = archive(url, &prefix).await;
        let events = Arc::clone(&a);
        let a = start(|o| o.event_archive = Some(Archive::new(a))).await;
        let b = start(|o| o.event_archive = Some(Archive::new(b))).await;
        (a, b, events)
    }

    /// Wait until the archive holds events of `sid`'s stream `stream` after `after`.
    async fn archived(events: &RedisEventArchive, sid: &str, stream: u64, after: u64) {
        for _ in 0..100 {
            if let Some(mut r) = events.reader(sid, stream).await.unwrap()
                && !r.read(after, Duration::ZERO).await.unwrap().is_empty()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("stream {stream} of the session not archived after event {after} within 2 s");
    }

    fn split(id: &str) -> (u64, u64) {
        let (s, n) = id.split_once('-').unwrap();
        (s.parse().unwrap(), n.parse().unwrap())
    }

    #[tokio::test]
    async fn a_stream_broken_on_a_resumes_on_b_with_exactly_what_it_missed() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let (a, b, events) = pair(&url).await;
        let sid = a.initialize(json!({"elicitation": {}})).await;
        let (question_id, first) = call_broken_after_question(&a, &sid).await;
        // The person answers on A (a POST of the session goes to A); the
        // confirmation is asked on the broken stream.
        a.answer(&sid, &first["id"], return_form()).await;
        let (stream, seq) = split(&question_id);
        archived(&events, &sid, stream, seq).await;

        let r = b.get_stream(&sid, Some(&question_id)).await;
        assert_eq!(r.status(), 200);
        let mut resumed = SseReader::new(r);
        let confirm = resumed.next().await.unwrap();
        assert_eq!(
            confirm.id.as_deref(),
            Some(&*format!("{stream}-{}", seq + 1))
        );
        let confirm = confirm.json();
        assert_eq!(confirm, confirm_question(&confirm["id"]));
        // Answered on A: B's stream follows the archive live.
        a.answer(
            &sid,
            &confirm["id"],
            json!({"action": "accept", "content": {"confirm": true}}),
        )
        .await;
        let result = resumed.next().await.unwrap();
        assert_eq!(
            result.id.as_deref(),
            Some(&*format!("{stream}-{}", seq + 2))
        );
        assert_eq!(result.json(), booked(2));
        assert!(
            resumed.next().await.is_none(),
            "the stream ends with its end mark"
        );

        // Exactly what A itself replays after the same id.
        let mut on_a = SseReader::new(a.get_stream(&sid, Some(&question_id)).await);
        assert_eq!(on_a.message().await.unwrap(), confirm);
        assert_eq!(on_a.message().await.unwrap(), booked(2));
        assert!(on_a.next().await.is_none());
    }

    #[tokio::test]
    async fn a_drained_instance_s_withdrawal_and_answer_reach_the_client_through_another() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let (mut a, b, _events) = pair(&url).await;
        let sid = a.initialize(json!({"elicitation": {}})).await;
        let (question_id, question) = call_broken_after_question(&a, &sid).await;
        // SIGTERM on A while nobody reads the stream.
        a.shut_down();
        a.stopped(Duration::from_secs(8)).await;
        let mut resumed = SseReader::new(b.get_stream(&sid, Some(&question_id)).await);
        assert_eq!(
            resumed.message().await.unwrap(),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": question["id"], "reason": "The server is shutting down."}})
        );
        assert_eq!(
            resumed.message().await.unwrap(),
            json!({"jsonrpc": "2.0", "id": 2, "result": {
                "content": [{"type": "text", "text": CALL_AGAIN}], "isError": true}})
        );
        assert!(resumed.next().await.is_none(), "the stream ends");
        // POSTs of the session still need A: B does not hold it.
        let r = b.legacy(&sid, &book_return(3)).await;
        assert_eq!(r.status(), 404);
    }

    #[tokio::test]
    async fn unknown_sessions_and_plain_gets_on_b_are_404_as_without_an_archive() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let (a, b, _events) = pair(&url).await;
        let plain = start(|_| {}).await;
        let refusal = |r: reqwest::Response| async move {
            let status = r.status().as_u16();
            (status, r.text().await.unwrap())
        };
        let today = refusal(plain.get_stream("no-such-session", Some("1-1")).await).await;
        assert_eq!(today.0, 404);
        assert_eq!(
            refusal(b.get_stream("no-such-session", Some("1-1")).await).await,
            today
        );
        // A session A holds: without Last-Event-ID there is nothing to
        // resume (a new GET stream belongs on A).
        let sid = a.initialize(json!({"elicitation": {}})).await;
        let (asked, _) = call_broken_after_question(&a, &sid).await;
        assert_eq!(refusal(b.get_stream(&sid, None).await).await, today);
        // A stream the archive never had.
        let r = b.get_stream(&sid, Some("99-1")).await;
        assert_eq!(r.status(), 400);
        // The client ends the session on A: B forgets it too (once A's
        // writer has written that).
        assert_eq!(a.delete_session(&sid).await.status(), 204);
        let mut last = None;
        for _ in 0..100 {
            let got = refusal(b.get_stream(&sid, Some(&asked)).await).await;
            if got == today {
                last = Some(got);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(last, Some(today), "B still resumes a deleted session");
    }

    /// A session of an instance that is gone (killed: no end marks), as it
    /// left the archive: B replays what it wrote and ends, and a resume
    /// with nothing left is `404`; a holder that stops while B follows its
    /// stream ends it after B read its last events.
    #[tokio::test]
    async fn streams_of_a_gone_instance_are_replayed_then_end() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let (_a, b, events) = pair(&url).await;
        let keep = Keep {
            events: 16,
            idle: Duration::from_secs(60),
        };
        let record = |sid: &Arc<str>, instance: &str| Record::Session {
            session: Arc::clone(sid),
            owner: frontdesk::http::archive::Owner::of(None),
            instance: Arc::from(instance),
        };
        let event = |sid: &Arc<str>, seq: u64, data: &str| Record::Event {
            session: Arc::clone(sid),
            stream: 1,
            seq,
            data: data.to_owned(),
        };
        let question = json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create",
            "params": {"mode": "form", "message": "Which size?", "requestedSchema":
                {"type": "object", "properties": {"size": {"type": "string"}}}}});
        let killed: Arc<str> = Arc::from(format!("killed-{}", FlowId::random()));
        events
            .write(
                &[
                    record(&killed, "never-beat"),
                    event(&killed, 1, ""),
                    event(&killed, 2, &question.to_string()),
                ],
                keep,
            )
            .await
            .unwrap();
        let mut resumed = SseReader::new(b.get_stream(&killed, Some("1-1")).await);
        let replayed = resumed.next().await.unwrap();
        assert_eq!(replayed.id.as_deref(), Some("1-2"));
        assert_eq!(replayed.json(), question);
        let end = tokio::time::timeout(Duration::from_millis(500), resumed.next()).await;
        assert!(matches!(end, Ok(None)), "ends at once: {end:?}");
        let r = b.get_stream(&killed, Some("1-2")).await;
        assert_eq!(r.status(), 404);
        assert_eq!(
            r.text().await.unwrap(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}"#
        );

        // A holder alive while B follows, that then stops.
        let holder = format!("holder-{}", FlowId::random());
        events
            .heartbeat(&holder, Some(Duration::from_secs(60)))
            .await
            .unwrap();
        let sid: Arc<str> = Arc::from(format!("followed-{}", FlowId::random()));
        events
            .write(&[record(&sid, &holder), event(&sid, 1, "")], keep)
            .await
            .unwrap();
        let mut followed = SseReader::new(b.get_stream(&sid, Some("1-1")).await);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let last = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": false}});
        events
            .write(&[event(&sid, 2, &last.to_string())], keep)
            .await
            .unwrap();
        events.heartbeat(&holder, None).await.unwrap();
        let got = followed.next().await.unwrap();
        assert_eq!(got.id.as_deref(), Some("1-2"));
        assert_eq!(got.json(), last);
        let end = tokio::time::timeout(Duration::from_secs(3), followed.next()).await;
        assert!(
            matches!(end, Ok(None)),
            "ends once the holder is gone: {end:?}"
        );
    }

    /// A session in use writes no events when its calls answer as JSON: its
    /// record is written again as it is used, so it does not expire in the
    /// archive while its instance holds it.
    #[tokio::test]
    async fn a_session_in_use_stays_known_without_events() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let prefix = format!("frontdesk-test:{}:", FlowId::random());
        let events = archive(&url, &prefix).await;
        let a = start({
            let e = Arc::clone(&events);
            |o| {
                o.event_archive = Some(Archive::new(e));
                o.session_idle = Duration::from_secs(2);
            }
        })
        .await;
        let sid = a.initialize(json!({"elicitation": {}})).await;
        // 3 s of quick JSON calls: past the record's 2 s time to live.
        for id in 0..6 {
            let list = json!({"jsonrpc": "2.0", "id": 10 + id, "method": "tools/list"});
            let r = a.legacy(&sid, &list).await;
            assert_eq!(r.status(), 200);
            assert!(crate::support::http::content_type(&r).starts_with("application/json"));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            events.session(&sid).await.unwrap().is_some(),
            "the archive forgot a session in use"
        );
    }

    /// `Bearer alice-token` is alice, `Bearer bob-token` is bob.
    struct TwoUsers;

    impl Authenticate for TwoUsers {
        fn authenticate<'a>(
            &'a self,
            headers: &'a HeaderMap,
        ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
            Box::pin(async move {
                match headers.get("authorization").and_then(|v| v.to_str().ok()) {
                    Some("Bearer alice-token") => Ok(Some("alice".into())),
                    Some("Bearer bob-token") => Ok(Some("bob".into())),
                    _ => Err(Unauthorized::bearer("invalid_token", "unknown token")),
                }
            })
        }
    }

    async fn get_as(
        s: &TestServer,
        who: &str,
        sid: &str,
        last: &str,
    ) -> (u16, String, Option<SseReader>) {
        let r = s
            .http
            .get(&s.mcp)
            .header("accept", "text/event-stream")
            .header("authorization", format!("Bearer {who}-token"))
            .header("mcp-session-id", sid)
            .header("last-event-id", last)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        if status == 200 {
            return (status, String::new(), Some(SseReader::new(r)));
        }
        (status, r.text().await.unwrap(), None)
    }

    #[tokio::test]
    async fn another_principal_is_refused_on_b_as_on_a() {
        let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
            return;
        };
        let prefix = format!("frontdesk-test:{}:", FlowId::random());
        let (ea, eb) = (archive(&url, &prefix).await, archive(&url, &prefix).await);
        let with = |e: Arc<RedisEventArchive>| {
            move |o: &mut frontdesk::http::HttpOptions| {
                o.event_archive = Some(Archive::new(e));
                o.authenticator = Some(Arc::new(TwoUsers));
            }
        };
        let a = start_with(
            |base| crate::support::http::demo_server(base, true),
            with(ea),
        )
        .await;
        let b = start_with(
            |base| crate::support::http::demo_server(base, true),
            with(Arc::clone(&eb)),
        )
        .await;
        let alice =
            |req: reqwest::RequestBuilder| req.header("authorization", "Bearer alice-token");
        let r = alice(a.post())
            .body(
                test_client()
                    .capabilities(json!({"elicitation": {}}))
                    .initialize(json!(0))
                    .to_string(),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let legacy = |body: Value| {
            alice(a.post())
                .header("mcp-session-id", &sid)
                .header("mcp-protocol-version", "2025-11-25")
                .body(body.to_string())
                .send()
        };
        assert_eq!(
            legacy(frontdesk_testkit::initialized())
                .await
                .unwrap()
                .status(),
            202
        );
        let mut reader = SseReader::new(legacy(book_return(2)).await.unwrap());
        let priming = reader.next().await.unwrap().id.unwrap();
        let question = reader.message().await.unwrap();
        drop(reader);
        let (stream, seq) = split(&priming);
        archived(&eb, &sid, stream, seq).await;

        let (status_a, body_a, _) = get_as(&a, "bob", &sid, &priming).await;
        assert_eq!(status_a, 404);
        assert_eq!(get_as(&b, "bob", &sid, &priming).await.0, status_a);
        assert_eq!(get_as(&b, "bob", &sid, &priming).await.1, body_a);
        // Alice resumes on B.
        let (status, _, reader) = get_as(&b, "alice", &sid, &priming).await;
        assert_eq!(status, 200);
        assert_eq!(reader.unwrap().message().await.unwrap(), question);
    }
}
