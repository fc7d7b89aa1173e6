//! Tests of the in-memory flow store through the `FlowStore` trait.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::clock::ManualClock;
use crate::store::StoreError;

const T0: u64 = 1_800_000_000;
const MIN: Duration = Duration::from_secs(60);

fn store() -> (Arc<InMemoryFlowStore>, ManualClock) {
    let clock = ManualClock::new(T0);
    (
        Arc::new(InMemoryFlowStore::with_clock(Arc::new(clock.clone()))),
        clock,
    )
}

async fn flow_of(store: &dyn FlowStore, principal: &str) -> Flow {
    store
        .create(
            NewFlow::new(principal, Duration::from_secs(600))
                .purpose("connect GitHub")
                .data(json!({"provider": "github"})),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn create_and_get() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    assert_eq!(f.status, FlowStatus::Pending);
    assert_eq!(f.created_at, T0);
    assert_eq!(f.expires_at, T0 + 600);
    assert_eq!(f.id.as_str().len(), 22);
    assert!(
        f.id.as_str()
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    assert_eq!(s.get(&f.id).await.unwrap(), Some(f.clone()));
    assert_eq!(s.get_for(&f.id, "alice").await.unwrap(), Some(f.clone()));
    assert_eq!(s.get_for(&f.id, "bob").await.unwrap(), None);
    assert_eq!(s.get(&FlowId::from_string("nope")).await.unwrap(), None);
    let other = flow_of(&*s, "alice").await;
    assert_ne!(f.id, other.id);
}

#[tokio::test]
async fn completion_wakes_waiters_and_subscribers() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    let mut events = s.subscribe();
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let s = Arc::clone(&s);
            let id = f.id.clone();
            tokio::spawn(async move { s.wait_for_completion(&id, Duration::from_secs(30)).await })
        })
        .collect();
    tokio::task::yield_now().await;
    let done = s.complete(&f.id).await.unwrap();
    assert_eq!(done.status, FlowStatus::Complete);
    for w in waiters {
        assert_eq!(w.await.unwrap().unwrap().status, FlowStatus::Complete);
    }
    let event = events.recv().await.unwrap();
    assert_eq!(
        event,
        FlowEvent {
            id: f.id.clone(),
            principal: "alice".into(),
            status: FlowStatus::Complete
        }
    );
    // Already complete: waiting returns at once.
    let again = s.wait_for_completion(&f.id, Duration::ZERO).await.unwrap();
    assert!(again.status.is_complete());
}

#[tokio::test(start_paused = true)]
async fn waiting_is_bounded() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    // Events about other flows do not end the wait early.
    let other = flow_of(&*s, "bob").await;
    let waiter = {
        let s = Arc::clone(&s);
        let id = f.id.clone();
        tokio::spawn(async move { s.wait_for_completion(&id, Duration::from_secs(5)).await })
    };
    tokio::task::yield_now().await;
    s.complete(&other.id).await.unwrap();
    let start = tokio::time::Instant::now();
    let flow = waiter.await.unwrap().unwrap();
    assert_eq!(flow.status, FlowStatus::Pending);
    assert!(start.elapsed() >= Duration::from_secs(4));
    assert!(matches!(
        s.wait_for_completion(&FlowId::from_string("nope"), MIN)
            .await,
        Err(FlowError::NotFound)
    ));
}

#[tokio::test]
async fn transitions_only_from_pending() {
    let (s, _) = store();
    let a = flow_of(&*s, "alice").await;
    s.complete(&a.id).await.unwrap();
    assert!(s.complete(&a.id).await.unwrap().status.is_complete());
    assert!(matches!(
        s.fail(&a.id, "x".into()).await,
        Err(FlowError::NotPending)
    ));

    let b = flow_of(&*s, "alice").await;
    let failed = s.fail(&b.id, "user closed the page".into()).await.unwrap();
    assert_eq!(
        failed.status,
        FlowStatus::Failed {
            reason: "user closed the page".into()
        }
    );
    // Failing again keeps the first reason.
    assert_eq!(s.fail(&b.id, "other".into()).await.unwrap(), failed);
    assert!(matches!(
        s.complete(&b.id).await,
        Err(FlowError::NotPending)
    ));
    assert!(matches!(
        s.complete(&FlowId::from_string("nope")).await,
        Err(FlowError::NotFound)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_completes_publish_once() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    let mut events = s.subscribe();
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let s = Arc::clone(&s);
            let id = f.id.clone();
            tokio::spawn(async move {
                if i % 4 == 0 {
                    s.fail(&id, "racing".into()).await.map(|f| f.status)
                } else {
                    s.complete(&id).await.map(|f| f.status)
                }
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.unwrap());
    }
    let first = events.recv().await.unwrap();
    assert!(matches!(
        events.try_recv(),
        Err(tokio::sync::broadcast::error::TryRecvError::Empty)
    ));
    // Whoever won, every call agrees with the final status or was refused.
    let final_status = s.get(&f.id).await.unwrap().unwrap().status;
    assert_eq!(first.status, final_status);
    for o in outcomes {
        match o {
            Ok(status) => assert_eq!(status, final_status),
            Err(FlowError::NotPending) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
}

#[tokio::test]
async fn expired_flows_are_gone() {
    let (s, clock) = store();
    let f = flow_of(&*s, "alice").await;
    let done = flow_of(&*s, "alice").await;
    s.complete(&done.id).await.unwrap();
    let mut events = s.subscribe();
    clock.advance(599);
    assert!(s.get(&f.id).await.unwrap().is_some());
    clock.advance(1);
    assert_eq!(s.get(&f.id).await.unwrap(), None);
    assert!(matches!(s.complete(&f.id).await, Err(FlowError::NotFound)));
    assert_eq!(s.len(), 2);
    assert_eq!(s.purge_expired().await.unwrap(), 2);
    assert!(s.is_empty());
    // Only the pending one is announced as failed.
    let event = events.recv().await.unwrap();
    assert_eq!(event.id, f.id);
    assert_eq!(
        event.status,
        FlowStatus::Failed {
            reason: "expired".into()
        }
    );
    assert!(events.try_recv().is_err());
}

#[tokio::test]
async fn connect_tokens_are_single_use_and_bound() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    let token = s.issue_connect_token(&f.id, "alice", MIN).await.unwrap();
    assert!(token.len() >= 43);

    // Another principal: refused as such, and the token survives for its owner.
    assert!(matches!(
        s.redeem_connect_token(&token, Some("bob")).await,
        Err(FlowError::OtherPrincipal)
    ));
    assert_eq!(
        s.redeem_connect_token(&token, Some("alice")).await.unwrap(),
        f.id
    );
    // Used.
    assert!(matches!(
        s.redeem_connect_token(&token, Some("alice")).await,
        Err(FlowError::ConnectRejected)
    ));
    // Unknown.
    assert!(matches!(
        s.redeem_connect_token("made-up", None).await,
        Err(FlowError::ConnectRejected)
    ));
    // Without an identified principal, the token alone works (once).
    let t2 = s.issue_connect_token(&f.id, "alice", MIN).await.unwrap();
    assert_eq!(s.redeem_connect_token(&t2, None).await.unwrap(), f.id);
}

#[tokio::test]
async fn connect_tokens_only_for_own_pending_flows() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    assert!(matches!(
        s.issue_connect_token(&f.id, "bob", MIN).await,
        Err(FlowError::NotFound)
    ));
    let token = s.issue_connect_token(&f.id, "alice", MIN).await.unwrap();
    s.complete(&f.id).await.unwrap();
    assert!(matches!(
        s.redeem_connect_token(&token, Some("alice")).await,
        Err(FlowError::ConnectRejected)
    ));
    assert!(matches!(
        s.issue_connect_token(&f.id, "alice", MIN).await,
        Err(FlowError::NotFound)
    ));
}

#[tokio::test]
async fn connect_tokens_expire_with_ttl_or_flow() {
    let (s, clock) = store();
    let f = flow_of(&*s, "alice").await; // lives 600 s
    let short = s.issue_connect_token(&f.id, "alice", MIN).await.unwrap();
    let long = s
        .issue_connect_token(&f.id, "alice", Duration::from_secs(3600))
        .await
        .unwrap();
    clock.advance(60);
    assert!(matches!(
        s.redeem_connect_token(&short, Some("alice")).await,
        Err(FlowError::ConnectRejected)
    ));
    clock.advance(540);
    // Capped at the flow's expiry.
    assert!(matches!(
        s.redeem_connect_token(&long, Some("alice")).await,
        Err(FlowError::ConnectRejected)
    ));
}

#[tokio::test]
async fn tokens_are_stored_hashed() {
    let (s, _) = store();
    let f = flow_of(&*s, "alice").await;
    let token = s.issue_connect_token(&f.id, "alice", MIN).await.unwrap();
    let dump = format!("{s:?}");
    assert!(!dump.contains(&token));
    let hashes: Vec<[u8; 32]> = s.lock_for_tests().tokens.keys().copied().collect();
    assert_eq!(hashes, vec![super::model::token_hash(&token)]);
}

#[tokio::test]
async fn bounded_number_of_flows() {
    let clock = ManualClock::new(T0);
    let s = InMemoryFlowStore::with_clock(Arc::new(clock.clone())).with_max_flows(2);
    flow_of(&s, "a").await;
    flow_of(&s, "b").await;
    assert!(matches!(
        s.create(NewFlow::new("c", MIN)).await,
        Err(FlowError::Store(StoreError::Full { limit: 2 }))
    ));
    // Once the old ones expire there is room again.
    clock.advance(600);
    assert!(s.create(NewFlow::new("c", MIN)).await.is_ok());
}

#[tokio::test]
async fn usable_as_a_trait_object() {
    let s: Arc<dyn FlowStore> = Arc::new(InMemoryFlowStore::new());
    let f = flow_of(&*s, "").await;
    assert!(s.get_for(&f.id, "").await.unwrap().is_some());
    assert_eq!(
        s.complete(&f.id).await.unwrap().status,
        FlowStatus::Complete
    );
}
