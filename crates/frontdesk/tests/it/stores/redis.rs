//! `RedisStore` against a real `redis-server` at `FRONTDESK_REDIS_URL`
//! (`.ci/run` starts one). Without it these tests skip with a note, unless
//! `FRONTDESK_REQUIRE_REDIS=1`, when they fail.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::flows::{FlowId, FlowStore, NewFlow};
use frontdesk::state::{NonceStore, Redemption, SharedReply, StateId};
use frontdesk::stores::redis::RedisStore;

use super::{contract, tasks};

/// The Redis URL, or `None` (skip) when none is configured.
pub fn redis_url() -> Option<String> {
    frontdesk_testkit::redis_url("Redis test")
}

/// A prefix no other test run uses.
fn prefix() -> String {
    format!("frontdesk-test:{}:", FlowId::random())
}

async fn store(url: &str, prefix: &str) -> Arc<RedisStore> {
    Arc::new(
        tokio::time::timeout(Duration::from_secs(10), RedisStore::connect(url, prefix))
            .await
            .expect("Redis connect timed out")
            .expect("Redis connect failed"),
    )
}

#[tokio::test]
async fn keeps_the_contract() {
    let Some(url) = redis_url() else { return };
    let s = store(&url, &prefix()).await;
    contract::flows(s.clone()).await;
    contract::nonces(s).await;
}

#[tokio::test]
async fn keeps_the_task_contract() {
    let Some(url) = redis_url() else { return };
    contract::tasks(store(&url, &prefix()).await).await;
}

/// Issue 28: two servers on one Redis serve one task.
#[tokio::test]
async fn two_servers_share_tasks() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    tasks::one_task_two_servers(store(&url, &p).await).await;
    // Each server with a connection of its own, as two processes have.
    let (a, b) = (store(&url, &p).await, store(&url, &p).await);
    let id = tasks::start(&tasks::server(a), "quick").await;
    tasks::wait_for(&tasks::server(b.clone()), &id, "completed").await;
    tasks::cancelled_on_another_server(b.clone()).await;
    tasks::drained(b).await;
}

/// Issue 28: a server started again on the same Redis reports a task that
/// was running as failed with the reason, a completed one as it was.
#[test]
fn tasks_survive_a_restart() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    let before = tasks::in_a_runtime(async { tasks::first_life(store(&url, &p).await).await });
    tasks::in_a_runtime(async { tasks::second_life(store(&url, &p).await, &before).await });
}

#[tokio::test]
async fn keeps_the_share_contract() {
    let Some(url) = redis_url() else { return };
    let s = Arc::try_unwrap(store(&url, &prefix()).await)
        .expect("one owner")
        .with_max_per_owner(contract::SHARE);
    contract::shares(Arc::new(s)).await;
}

/// Issue 28: an owner's share and floor are in Redis, so they hold across
/// the instances sharing it; what the share pushes out is deleted from
/// Redis, not only forgotten.
#[tokio::test]
async fn a_share_holds_across_instances() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    let share = |s: Arc<RedisStore>| Arc::try_unwrap(s).expect("one owner").with_max_per_owner(2);
    let (a, b) = (share(store(&url, &p).await), share(store(&url, &p).await));
    let now = frontdesk::clock::unix_secs(std::time::SystemTime::now());
    let at = |id: StateId, issued_at: u64| {
        Redemption::of_parts(id, issued_at, issued_at + 600).owner("10.0.0.7")
    };
    let ids: Vec<StateId> = (0..3).map(|_| StateId::random()).collect();
    assert!(a.redeem_for(at(ids[0], now - 20)).await.unwrap());
    assert!(b.redeem_for(at(ids[1], now - 19)).await.unwrap());
    assert!(a.redeem_for(at(ids[2], now - 18)).await.unwrap());
    // ids[0] went on a: b refuses it and everything of the owner up to then.
    assert!(!b.redeem_for(at(ids[0], now - 20)).await.unwrap());
    assert!(!b.redeem_for(at(StateId::random(), now - 25)).await.unwrap());
    assert!(!b.redeem_for(at(ids[1], now - 19)).await.unwrap());
    // Its key is gone: the owner's set and the remembered states are all
    // that is kept.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let state_keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{p}state:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(state_keys.len(), 2, "{state_keys:?}");
    let owned: usize = redis::cmd("ZCARD")
        .arg(format!("{p}owned:10.0.0.7"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(owned, 2);
    let ttl: i64 = redis::cmd("TTL")
        .arg(format!("{p}owner:10.0.0.7"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(ttl > 0, "the owner's hash expires ({ttl})");
}

#[tokio::test]
async fn a_completion_on_one_instance_wakes_the_other() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    let (a, b) = (store(&url, &p).await, store(&url, &p).await);
    let flow = a
        .create(NewFlow::new("alice", Duration::from_secs(600)))
        .await
        .unwrap();
    let token = a
        .issue_connect_token(&flow.id, "alice", Duration::from_secs(60))
        .await
        .unwrap();
    let mut events = a.subscribe();
    let waiter = {
        let a = Arc::clone(&a);
        let id = flow.id.clone();
        tokio::spawn(async move { a.wait_for_completion(&id, Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    // B redeems A's token (another principal first: refused, not burned) and completes.
    assert!(b.redeem_connect_token(&token, Some("bob")).await.is_err());
    let id = b.redeem_connect_token(&token, Some("alice")).await.unwrap();
    let started = std::time::Instant::now();
    b.complete(&id).await.unwrap();
    let done = waiter.await.unwrap().unwrap();
    assert!(done.status.is_complete());
    // Woken by the published event, not by the once-a-second recheck alone.
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event.id, flow.id);
    assert!(started.elapsed() < Duration::from_secs(5));
    // An instance with another prefix hears nothing.
    let other = store(&url, &prefix()).await;
    let mut elsewhere = other.subscribe();
    let f2 = a
        .create(NewFlow::new("alice", Duration::from_secs(60)))
        .await
        .unwrap();
    a.complete(&f2.id).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(elsewhere.try_recv().is_err());
    assert_eq!(other.get(&f2.id).await.unwrap(), None);
}

#[tokio::test]
async fn a_state_redeems_on_exactly_one_instance() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    let (a, b) = (store(&url, &p).await, store(&url, &p).await);
    let exp = frontdesk::clock::unix_secs(std::time::SystemTime::now()) + 60;
    let id = StateId::random();
    assert!(a.redeem(id, exp).await.unwrap());
    assert!(!b.redeem(id, exp).await.unwrap());
    assert!(!a.redeem(id, exp).await.unwrap());
    // Racing: one winner among many.
    let id = StateId::random();
    let tries: Vec<_> = (0..8)
        .map(|i| {
            let s: Arc<dyn NonceStore> = if i % 2 == 0 { a.clone() } else { b.clone() };
            tokio::spawn(async move { s.redeem(id, exp).await.unwrap() })
        })
        .collect();
    let mut wins = 0;
    for t in tries {
        wins += usize::from(t.await.unwrap());
    }
    assert_eq!(wins, 1);
}

/// A reply kept by one instance is read by another: unknown before the
/// state is redeemed, then when it was redeemed, "running" while its round
/// runs, the reply once kept, and forgotten after its time.
#[tokio::test]
async fn a_kept_reply_is_read_on_another_instance() {
    let Some(url) = redis_url() else { return };
    let p = prefix();
    let (a, b) = (store(&url, &p).await, store(&url, &p).await);
    assert!(a.shares_replies());
    let now = frontdesk::clock::unix_secs(std::time::SystemTime::now());
    let id = StateId::random();
    assert_eq!(b.kept_reply(id).await.unwrap(), SharedReply::Unknown);
    assert!(a.redeem(id, now + 60).await.unwrap());
    match b.kept_reply(id).await.unwrap() {
        SharedReply::Redeemed(at) => assert!(at.abs_diff(now) <= 1, "{at} against {now}"),
        other => panic!("expected the redemption time, got {other:?}"),
    }
    let keep = Duration::from_millis(400);
    a.keep_reply(id, None, keep).await.unwrap();
    assert_eq!(b.kept_reply(id).await.unwrap(), SharedReply::Running);
    let text = r#"{"result":{"content":[]}}"#;
    a.keep_reply(id, Some(text), keep).await.unwrap();
    assert_eq!(
        b.kept_reply(id).await.unwrap(),
        SharedReply::Kept(text.into())
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(matches!(
        b.kept_reply(id).await.unwrap(),
        SharedReply::Redeemed(_)
    ));
}
