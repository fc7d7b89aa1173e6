//! What every `FlowStore` and `NonceStore` must do, on the system clock (a
//! Redis server expires keys by its own clock). Run against each store.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use frontdesk::flows::{FlowError, FlowId, FlowStatus, FlowStore, NewFlow};
use frontdesk::state::{NonceStore, Redemption, StateId};
use frontdesk::tasks::{Inbox, MAX_INBOX, TaskRecord, TaskStore};
use frontdesk::wire::{GetTaskResult, Task, TaskStatus};
use serde_json::json;

const MIN: Duration = Duration::from_secs(60);

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The flow store contract.
pub async fn flows(store: Arc<dyn FlowStore>) {
    let flow = store
        .create(NewFlow::new("alice", Duration::from_secs(600)).purpose("connect"))
        .await
        .unwrap();
    assert_eq!(flow.status, FlowStatus::Pending);
    assert_eq!(store.get(&flow.id).await.unwrap(), Some(flow.clone()));
    assert_eq!(store.get_for(&flow.id, "bob").await.unwrap(), None);
    assert_eq!(store.get(&FlowId::random()).await.unwrap(), None);

    // Connect tokens: only the owner can issue; another principal is told so
    // and does not burn the token; the owner redeems it once.
    assert!(matches!(
        store.issue_connect_token(&flow.id, "bob", MIN).await,
        Err(FlowError::NotFound)
    ));
    let token = store
        .issue_connect_token(&flow.id, "alice", MIN)
        .await
        .unwrap();
    assert!(matches!(
        store.redeem_connect_token(&token, Some("bob")).await,
        Err(FlowError::OtherPrincipal)
    ));
    assert_eq!(
        store
            .redeem_connect_token(&token, Some("alice"))
            .await
            .unwrap(),
        flow.id
    );
    assert!(matches!(
        store.redeem_connect_token(&token, Some("alice")).await,
        Err(FlowError::ConnectRejected)
    ));
    assert!(matches!(
        store.redeem_connect_token("made-up", None).await,
        Err(FlowError::ConnectRejected)
    ));

    // Completion wakes a waiter and is announced once.
    let mut events = store.subscribe();
    let waiter = {
        let store = Arc::clone(&store);
        let id = flow.id.clone();
        tokio::spawn(async move {
            store
                .wait_for_completion(&id, Duration::from_secs(10))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(store.complete(&flow.id).await.unwrap().status.is_complete());
    assert!(waiter.await.unwrap().unwrap().status.is_complete());
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(event.id, flow.id);
    assert_eq!(event.principal, "alice");
    assert_eq!(event.status, FlowStatus::Complete);
    // Idempotent, and no second event.
    assert!(store.complete(&flow.id).await.unwrap().status.is_complete());
    assert!(matches!(
        store.fail(&flow.id, "late".into()).await,
        Err(FlowError::NotPending)
    ));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(events.try_recv().is_err());
    // A token for a finished flow is refused.
    let other = store.create(NewFlow::new("alice", MIN)).await.unwrap();
    let t = store
        .issue_connect_token(&other.id, "alice", MIN)
        .await
        .unwrap();
    let failed = store.fail(&other.id, "declined".into()).await.unwrap();
    assert_eq!(
        failed.status,
        FlowStatus::Failed {
            reason: "declined".into()
        }
    );
    assert!(matches!(
        store.redeem_connect_token(&t, None).await,
        Err(FlowError::ConnectRejected)
    ));
    // Waiting is bounded.
    let slow = store.create(NewFlow::new("", MIN)).await.unwrap();
    let start = std::time::Instant::now();
    let still = store
        .wait_for_completion(&slow.id, Duration::from_millis(300))
        .await
        .unwrap();
    assert!(still.status.is_pending());
    assert!(start.elapsed() >= Duration::from_millis(300));
}

/// The nonce store contract.
pub async fn nonces(store: Arc<dyn NonceStore>) {
    // The readiness check (`/readyz`) reaches the backend and finds it up.
    store.ready().await.expect("the store is ready");
    let id = StateId::random();
    let exp = now() + 60;
    assert!(store.redeem(id, exp).await.unwrap());
    assert!(!store.redeem(id, exp).await.unwrap());
    assert!(store.redeem(StateId::random(), exp).await.unwrap());
    // Already expired: never accepted.
    assert!(!store.redeem(StateId::random(), now() - 1).await.unwrap());
}

/// The share contract, for a store whose share per owner is [`SHARE`]: a
/// flooding owner's earliest state is forgotten and its floor rises over
/// it; a replay is refused whoever presents it; nobody else is affected.
pub async fn shares(store: Arc<dyn NonceStore>) {
    let now = now();
    let at = |id: StateId, issued_at: u64, owner: &'static str| {
        Redemption::of_parts(id, issued_at, issued_at + 600).owner(owner)
    };
    let flood: Vec<StateId> = (0..SHARE + 1).map(|_| StateId::random()).collect();
    for (n, id) in flood.iter().take(SHARE).enumerate() {
        let issued = now - 100 + n as u64;
        assert!(store.redeem_for(at(*id, issued, "flood")).await.unwrap());
    }
    let good = StateId::random();
    assert!(store.redeem_for(at(good, now - 50, "good")).await.unwrap());
    // Over the share: "flood"'s earliest (issued at now - 100) is forgotten,
    // and everything of "flood" issued up to then is refused…
    assert!(
        store
            .redeem_for(at(flood[SHARE], now - 10, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(flood[0], now - 100, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(StateId::random(), now - 100, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(StateId::random(), now - 200, "flood"))
            .await
            .unwrap()
    );
    // …while its later states go on (this one pushes out the next
    // earliest, issued at now - 99), replays stay refused whoever presents
    // them, and "good" is not affected.
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 20, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(flood[1], now - 99, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(flood[2], now - 98, "flood"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(flood[2], now - 98, "good"))
            .await
            .unwrap()
    );
    assert!(!store.redeem_for(at(good, now - 50, "good")).await.unwrap());
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 300, "good"))
            .await
            .unwrap()
    );
    // An owner that fills its share with states issued in one second
    // refuses that second once it is full.
    let same: Vec<StateId> = (0..SHARE + 1).map(|_| StateId::random()).collect();
    for id in &same[..SHARE] {
        assert!(store.redeem_for(at(*id, now - 5, "burst")).await.unwrap());
    }
    assert!(
        !store
            .redeem_for(at(same[SHARE], now - 5, "burst"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(same[SHARE], now - 5, "burst"))
            .await
            .unwrap()
    );
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 4, "burst"))
            .await
            .unwrap()
    );
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A working task of "alice" run by `instance`, expiring in `ttl_ms`.
pub fn task_record(instance: &str, ttl_ms: u64) -> TaskRecord {
    let id = FlowId::random().as_str().to_string();
    let task = Task::new(id.clone(), TaskStatus::Working, "2026-12-04T10:00:00.000Z")
        .with_ttl_ms(Some(ttl_ms));
    let now = now_ms();
    TaskRecord::new(
        id,
        "alice",
        "10.0.0.1",
        instance,
        GetTaskResult::new(task),
        now + ttl_ms,
        now + 15_000,
    )
}

/// The task store contract.
pub async fn tasks(store: Arc<dyn TaskStore>) {
    let mut record = task_record("instance-a", 600_000);
    assert!(store.put(&record).await.unwrap());
    assert_eq!(
        store.get_task(&record.id).await.unwrap(),
        Some(record.clone())
    );
    assert_eq!(store.get_task("no-such-task").await.unwrap(), None);
    // The snapshot round-trips as the wire JSON.
    let read = store.get_task(&record.id).await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(&read.snapshot).unwrap(),
        json!({"resultType": "complete", "taskId": record.id, "status": "working",
            "createdAt": "2026-12-04T10:00:00.000Z", "lastUpdatedAt": "2026-12-04T10:00:00.000Z",
            "ttlMs": 600_000})
    );

    // The owner renews its lease; nobody else can.
    assert!(store.renew(&record.id, "instance-a", 42).await.unwrap());
    assert_eq!(
        store
            .get_task(&record.id)
            .await
            .unwrap()
            .unwrap()
            .lease_until_ms,
        42
    );
    assert!(!store.renew(&record.id, "instance-b", 43).await.unwrap());
    assert!(!store.renew("no-such-task", "instance-a", 43).await.unwrap());
    assert_eq!(
        store
            .get_task(&record.id)
            .await
            .unwrap()
            .unwrap()
            .lease_until_ms,
        42
    );

    // A change replaces the record.
    record.snapshot.task.status = TaskStatus::InputRequired;
    record.snapshot.task.status_message = Some("asking".into());
    assert!(store.put(&record).await.unwrap());
    assert_eq!(
        store.get_task(&record.id).await.unwrap(),
        Some(record.clone())
    );

    // Answers wait in the inbox, in order, until taken once.
    let answer = |n: usize| {
        (
            format!("k{n}"),
            json!({"action": "accept", "content": {"n": n}}),
        )
    };
    store
        .push_answers(&record.id, vec![answer(1), answer(2)])
        .await
        .unwrap();
    store
        .push_answers(&record.id, vec![answer(3)])
        .await
        .unwrap();
    assert_eq!(
        store.take_inbox(&record.id).await.unwrap(),
        Inbox::new(vec![answer(1), answer(2), answer(3)], false)
    );
    assert_eq!(
        store.take_inbox(&record.id).await.unwrap(),
        Inbox::new(vec![], false)
    );
    // Bounded: the newest MAX_INBOX are kept.
    let many: Vec<_> = (0..MAX_INBOX + 6).map(answer).collect();
    store.push_answers(&record.id, many.clone()).await.unwrap();
    assert_eq!(
        store.take_inbox(&record.id).await.unwrap().answers,
        many[6..].to_vec()
    );
    // No record, no inbox: the answers go nowhere, and the owner is told.
    store
        .push_answers("no-such-task", vec![answer(1)])
        .await
        .unwrap();
    assert_eq!(
        store.take_inbox("no-such-task").await.unwrap(),
        Inbox::new(vec![], true)
    );

    // A finished record is final: not overwritten, not renewed.
    let mut cancelled = record.clone();
    cancelled.snapshot.task.status = TaskStatus::Cancelled;
    cancelled.snapshot.input_requests = None;
    assert!(store.put(&cancelled).await.unwrap());
    record.snapshot.task.status = TaskStatus::Completed;
    assert!(!store.put(&record).await.unwrap());
    assert_eq!(
        store.get_task(&record.id).await.unwrap(),
        Some(cancelled.clone())
    );
    assert!(!store.renew(&record.id, "instance-a", 99).await.unwrap());
    assert!(store.take_inbox(&record.id).await.unwrap().finished);

    // Removed: gone, inbox and all.
    store.remove(&record.id).await.unwrap();
    assert_eq!(store.get_task(&record.id).await.unwrap(), None);

    // Expired: gone.
    let short = task_record("instance-a", 300);
    assert!(store.put(&short).await.unwrap());
    assert!(store.get_task(&short.id).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(store.get_task(&short.id).await.unwrap(), None);
    assert!(store.take_inbox(&short.id).await.unwrap().finished);
    store.purge_expired_tasks().await.unwrap();
    assert_eq!(store.get_task(&short.id).await.unwrap(), None);
}

/// The share per owner the stores get for [`shares`].
pub const SHARE: usize = 3;

#[tokio::test]
async fn the_memory_stores_keep_the_contract() {
    flows(Arc::new(frontdesk::flows::InMemoryFlowStore::new())).await;
    nonces(Arc::new(frontdesk::state::InMemoryNonceStore::new())).await;
    tasks(Arc::new(frontdesk::tasks::InMemoryTaskStore::new())).await;
    shares(Arc::new(
        frontdesk::state::InMemoryNonceStore::new().with_max_per_owner(SHARE),
    ))
    .await;
}
