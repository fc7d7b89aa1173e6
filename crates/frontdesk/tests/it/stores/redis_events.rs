//! `RedisEventArchive` against a real `redis-server` (issue 28): what it
//! keeps (trimmed to the replay capacity, expiring with the session), who
//! may read it, following a stream live, and its bound on readers.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::flows::FlowId;
use frontdesk::http::archive::{Archived, EventArchive, Keep, Owner, Record};
use frontdesk::store::StoreError;
use frontdesk::stores::redis::RedisEventArchive;

const KEEP: Keep = Keep {
    events: 4,
    idle: Duration::from_secs(120),
};

async fn archive(url: &str, prefix: &str) -> RedisEventArchive {
    tokio::time::timeout(
        Duration::from_secs(10),
        RedisEventArchive::connect(url, prefix),
    )
    .await
    .expect("Redis connect timed out")
    .expect("Redis connect failed")
}

fn event(session: &Arc<str>, stream: u64, seq: u64) -> Record {
    Record::Event {
        session: Arc::clone(session),
        stream,
        seq,
        data: format!("{{\"n\":{seq}}}"),
    }
}

fn archived(seq: u64) -> Archived {
    Archived::Event {
        seq,
        data: format!("{{\"n\":{seq}}}"),
    }
}

#[tokio::test]
async fn keeps_the_last_events_and_the_end_for_the_session_s_owner() {
    let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
        return;
    };
    let prefix = format!("frontdesk-test:{}:", FlowId::random());
    let a = archive(&url, &prefix).await;
    let sid: Arc<str> = Arc::from("session-one");
    let mut batch = vec![Record::Session {
        session: Arc::clone(&sid),
        owner: Owner::of(Some("alice")),
        instance: Arc::from("instance-a"),
    }];
    batch.extend((1..=10).map(|seq| event(&sid, 1, seq)));
    batch.push(Record::End {
        session: Arc::clone(&sid),
        stream: 1,
        seq: 11,
    });
    a.write(&batch, KEEP).await.unwrap();

    // Another instance reads it.
    let b = archive(&url, &prefix).await;
    let session = b.session(&sid).await.unwrap().expect("known");
    assert_eq!(session.owner, Owner::of(Some("alice")));
    assert_eq!(session.instance, "instance-a");
    assert!(b.session("session-two").await.unwrap().is_none());
    assert!(b.reader(&sid, 2).await.unwrap().is_none(), "no such stream");
    let mut reader = b.reader(&sid, 1).await.unwrap().expect("stream 1");
    // Four entries kept: the last three events and the end mark.
    assert_eq!(
        reader.read(0, Duration::ZERO).await.unwrap(),
        vec![archived(8), archived(9), archived(10), Archived::End]
    );
    assert_eq!(
        reader.read(9, Duration::ZERO).await.unwrap(),
        vec![archived(10), Archived::End]
    );
    // Past the last event, even past every number: only the end.
    for after in [10, 11, 500, u64::MAX] {
        assert_eq!(
            reader.read(after, Duration::ZERO).await.unwrap(),
            vec![Archived::End],
            "after {after}"
        );
    }

    // Neither the session id nor the principal is in a key or a value;
    // every key expires with the session.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys.len(), 2, "{keys:?}");
    for key in &keys {
        assert!(!key.contains("session-one"), "{key}");
        let ttl: i64 = redis::cmd("TTL")
            .arg(key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(ttl > 100 && ttl <= 120, "{key}: {ttl}");
    }
    let owner: String = redis::cmd("HGET")
        .arg(keys.iter().find(|k| !k.ends_with(":1")).unwrap())
        .arg("owner")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(!owner.contains("alice"));

    // The client ended the session: the archive no longer knows it.
    a.write(
        &[Record::Forget {
            session: Arc::clone(&sid),
        }],
        KEEP,
    )
    .await
    .unwrap();
    assert!(b.session(&sid).await.unwrap().is_none());
}

#[tokio::test]
async fn a_reader_follows_the_stream_and_readers_are_bounded() {
    let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
        return;
    };
    let prefix = format!("frontdesk-test:{}:", FlowId::random());
    let a = Arc::new(archive(&url, &prefix).await);
    let b = archive(&url, &prefix).await.with_max_readers(1);
    let sid: Arc<str> = Arc::from("session-follow");
    a.write(&[event(&sid, 0, 1)], KEEP).await.unwrap();
    let mut reader = b.reader(&sid, 0).await.unwrap().expect("stream 0");
    // One reader at a time here: the second is refused, not queued.
    match b.reader(&sid, 0).await {
        Err(StoreError::Full { limit: 1 }) => {}
        other => panic!("a second reader: {:?}", other.map(|r| r.is_some())),
    }
    // Nothing new within the wait: an empty answer.
    let started = std::time::Instant::now();
    assert!(
        reader
            .read(1, Duration::from_millis(300))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(started.elapsed() >= Duration::from_millis(250));
    // An event written while the reader waits wakes it.
    let writer = {
        let (a, sid) = (Arc::clone(&a), Arc::clone(&sid));
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            a.write(&[event(&sid, 0, 2)], KEEP).await.unwrap();
        })
    };
    let started = std::time::Instant::now();
    let got = reader.read(1, Duration::from_secs(5)).await.unwrap();
    assert_eq!(got, vec![archived(2)]);
    assert!(started.elapsed() < Duration::from_secs(2));
    writer.await.unwrap();
    // Dropping the reader frees its place.
    drop(reader);
    assert!(b.reader(&sid, 0).await.unwrap().is_some());
}

#[tokio::test]
async fn an_instance_is_alive_while_it_beats_and_gone_when_it_says_so() {
    let Some(url) = frontdesk_testkit::redis_url("event archive test") else {
        return;
    };
    let prefix = format!("frontdesk-test:{}:", FlowId::random());
    let (a, b) = (archive(&url, &prefix).await, archive(&url, &prefix).await);
    assert!(!b.alive("instance-a").await.unwrap(), "never beat");
    a.heartbeat("instance-a", Some(Duration::from_millis(300)))
        .await
        .unwrap();
    assert!(b.alive("instance-a").await.unwrap());
    assert!(!b.alive("instance-b").await.unwrap());
    // A heartbeat runs out (a killed instance)…
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!b.alive("instance-a").await.unwrap());
    // …or the instance says it stopped.
    a.heartbeat("instance-a", Some(Duration::from_secs(60)))
        .await
        .unwrap();
    assert!(b.alive("instance-a").await.unwrap());
    a.heartbeat("instance-a", None).await.unwrap();
    assert!(!b.alive("instance-a").await.unwrap());
}
