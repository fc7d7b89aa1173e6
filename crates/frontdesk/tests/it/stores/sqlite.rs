//! `SqliteStore` on a real file under the target directory.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use frontdesk::clock::ManualClock;
use frontdesk::flows::{FlowId, FlowStatus, FlowStore, NewFlow};
use frontdesk::state::{NonceStore, Redemption, StateId};
use frontdesk::stores::sqlite::SqliteStore;

use super::{contract, tasks};

/// A fresh file path for one test.
pub(super) fn file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sqlite-stores");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.sqlite3", FlowId::random()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test]
async fn keeps_the_contract() {
    let store = Arc::new(SqliteStore::open(&file("contract")).unwrap());
    contract::flows(store.clone()).await;
    contract::nonces(store).await;
}

#[tokio::test]
async fn keeps_the_task_contract() {
    contract::tasks(Arc::new(SqliteStore::open(&file("tasks")).unwrap())).await;
}

/// Task records are deleted from the file at expiry (the writer's sweep,
/// on the store's clock), their inboxes with them.
#[tokio::test]
async fn expired_task_records_are_deleted() {
    use frontdesk::tasks::TaskStore;
    let now = frontdesk::clock::unix_secs(std::time::SystemTime::now());
    let clock = ManualClock::new(now);
    let store = SqliteStore::open(&file("tasks-expiry"))
        .unwrap()
        .with_clock(Arc::new(clock.clone()));
    let record = contract::task_record("instance-a", 600_000);
    assert!(store.put(&record).await.unwrap());
    store
        .push_answers(
            &record.id,
            vec![("k".into(), serde_json::json!({"action": "decline"}))],
        )
        .await
        .unwrap();
    assert_eq!(store.purge_expired_tasks().await.unwrap(), 0);
    clock.advance(599);
    assert_eq!(store.purge_expired_tasks().await.unwrap(), 0);
    assert!(store.get_task(&record.id).await.unwrap().is_some());
    clock.advance(2);
    assert_eq!(store.purge_expired_tasks().await.unwrap(), 1);
    assert_eq!(store.get_task(&record.id).await.unwrap(), None);
    assert!(
        store
            .take_inbox(&record.id)
            .await
            .unwrap()
            .answers
            .is_empty()
    );
}

/// Issue 28: two servers on one SQLite file serve one task.
#[tokio::test]
async fn two_servers_share_tasks() {
    let store = Arc::new(SqliteStore::open(&file("tasks-shared")).unwrap());
    tasks::one_task_two_servers(store.clone()).await;
    tasks::cancelled_on_another_server(store.clone()).await;
    tasks::drained(store).await;
}

/// Issue 28: after a restart on the same file, a task that was running is
/// failed with the reason and a completed one is still readable.
#[test]
fn tasks_survive_a_restart() {
    let path = file("tasks-restart");
    let open = || Arc::new(SqliteStore::open(&path).unwrap());
    let before = tasks::in_a_runtime(tasks::first_life(open()));
    tasks::in_a_runtime(async { tasks::second_life(open(), &before).await });
}

#[tokio::test]
async fn keeps_the_share_contract() {
    let store = SqliteStore::open(&file("shares"))
        .unwrap()
        .with_max_per_owner(contract::SHARE);
    contract::shares(Arc::new(store)).await;
}

/// Issue 28: the floors and counts of the shares are on disk. After a
/// restart a flooding owner's floor still refuses what it forgot, and its
/// share is still full (the next redemption pushes out its next earliest).
#[tokio::test]
async fn shares_and_floors_survive_reopening_the_file() {
    let path = file("shares-reopen");
    let now = frontdesk::clock::unix_secs(std::time::SystemTime::now());
    let at = |id: StateId, issued_at: u64| {
        Redemption::of_parts(id, issued_at, issued_at + 600).owner("10.0.0.9")
    };
    let ids: Vec<StateId> = (0..4).map(|_| StateId::random()).collect();
    {
        let store = SqliteStore::open(&path).unwrap().with_max_per_owner(3);
        for (n, id) in ids.iter().enumerate() {
            assert!(
                store
                    .redeem_for(at(*id, now - 40 + n as u64))
                    .await
                    .unwrap()
            );
        }
    }
    let store = SqliteStore::open(&path).unwrap().with_max_per_owner(3);
    // ids[0] was forgotten: its floor refuses it and every earlier state.
    assert!(!store.redeem_for(at(ids[0], now - 40)).await.unwrap());
    assert!(
        !store
            .redeem_for(at(StateId::random(), now - 41))
            .await
            .unwrap()
    );
    // ids[1..] are remembered.
    for id in &ids[1..] {
        assert!(!store.redeem_for(at(*id, now - 30)).await.unwrap());
    }
    // The share is full: the next one pushes out ids[1] (issued at now - 39).
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 5))
            .await
            .unwrap()
    );
    assert!(
        !store
            .redeem_for(at(StateId::random(), now - 39))
            .await
            .unwrap()
    );
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 30))
            .await
            .unwrap()
    );
}

/// Over the store's total, the owner holding the most gives up its
/// earliest, not the owner redeeming.
#[tokio::test]
async fn a_full_store_takes_from_the_largest_owner() {
    let store = SqliteStore::open(&file("shares-total"))
        .unwrap()
        .with_max_per_owner(100)
        .with_max_entries(4);
    let now = frontdesk::clock::unix_secs(std::time::SystemTime::now());
    let at = |id: StateId, issued_at: u64, owner: &'static str| {
        Redemption::of_parts(id, issued_at, issued_at + 600).owner(owner)
    };
    let big: Vec<StateId> = (0..3).map(|_| StateId::random()).collect();
    for (n, id) in big.iter().enumerate() {
        assert!(
            store
                .redeem_for(at(*id, now - 30 + n as u64, "big"))
                .await
                .unwrap()
        );
    }
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 50, "small"))
            .await
            .unwrap()
    );
    // Full: the next one (from "small") pushes out "big"'s earliest.
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 49, "small"))
            .await
            .unwrap()
    );
    assert!(!store.redeem_for(at(big[0], now - 30, "big")).await.unwrap());
    assert!(
        !store
            .redeem_for(at(StateId::random(), now - 30, "big"))
            .await
            .unwrap()
    );
    assert!(
        store
            .redeem_for(at(StateId::random(), now - 20, "big"))
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn flows_tokens_and_redemptions_survive_reopening_the_file() {
    let path = file("reopen");
    let (flow, token, redeemed) = {
        let store = SqliteStore::open(&path).unwrap();
        let flow = store
            .create(
                NewFlow::new("alice", Duration::from_secs(600)).data(serde_json::json!({"n": 1})),
            )
            .await
            .unwrap();
        let token = store
            .issue_connect_token(&flow.id, "alice", Duration::from_secs(300))
            .await
            .unwrap();
        let redeemed = StateId::random();
        let exp = frontdesk::clock::unix_secs(std::time::SystemTime::now()) + 600;
        assert!(store.redeem(redeemed, exp).await.unwrap());
        (flow, token, (redeemed, exp))
    };
    // The process "restarts": a new store on the same file.
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.get(&flow.id).await.unwrap(), Some(flow.clone()));
    assert!(!store.redeem(redeemed.0, redeemed.1).await.unwrap());
    assert_eq!(
        store
            .redeem_connect_token(&token, Some("alice"))
            .await
            .unwrap(),
        flow.id
    );
    assert!(store.complete(&flow.id).await.unwrap().status.is_complete());
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert!(
        store
            .get(&flow.id)
            .await
            .unwrap()
            .unwrap()
            .status
            .is_complete()
    );
    // The file holds no connect token in clear, and is owner-only.
    let bytes = std::fs::read(&path).unwrap();
    assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        if wal.exists() {
            let mode = std::fs::metadata(&wal).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "wal {mode:o}");
        }
    }
}

#[tokio::test]
async fn expired_flows_go_and_pending_ones_are_announced() {
    let clock = ManualClock::new(1_800_000_000);
    let store = SqliteStore::open(&file("expiry"))
        .unwrap()
        .with_clock(Arc::new(clock.clone()));
    let pending = store
        .create(NewFlow::new("a", Duration::from_secs(60)))
        .await
        .unwrap();
    let done = store
        .create(NewFlow::new("a", Duration::from_secs(60)))
        .await
        .unwrap();
    store.complete(&done.id).await.unwrap();
    let token = store
        .issue_connect_token(&pending.id, "a", Duration::from_secs(600))
        .await
        .unwrap();
    let mut events = store.subscribe();
    clock.advance(60);
    assert_eq!(store.get(&pending.id).await.unwrap(), None);
    assert!(store.redeem_connect_token(&token, None).await.is_err());
    assert_eq!(store.purge_expired().await.unwrap(), 2);
    let event = events.recv().await.unwrap();
    assert_eq!(event.id, pending.id);
    assert_eq!(
        event.status,
        FlowStatus::Failed {
            reason: "expired".into()
        }
    );
    assert!(events.try_recv().is_err());
    // Redemptions expire too: the id may come back once its state is dead anyway.
    let id = StateId::random();
    assert!(store.redeem(id, 1_800_000_100).await.unwrap());
    clock.advance(100);
    assert!(!store.redeem(id, 1_800_000_100).await.unwrap());
}

#[tokio::test]
async fn a_newer_schema_is_refused() {
    let path = file("schema");
    drop(SqliteStore::open(&path).unwrap());
    // The store exposes no raw SQL; SQLite keeps `user_version` as a
    // big-endian u32 at byte 60 of the (checkpointed, closed) file.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[60..64].copy_from_slice(&99u32.to_be_bytes());
    std::fs::write(&path, bytes).unwrap();
    let err = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(err.contains("schema version 99"), "{err}");
}

/// Issue 24, row 14: a directory that other users can write to (they could
/// put a database, a `-wal` or a symlink there first) is refused with a
/// message saying what to do, and nothing is created in it.
#[cfg(unix)]
#[test]
fn a_directory_others_can_write_to_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sqlite-stores")
        .join(format!("open-{}", FlowId::random()));
    std::fs::create_dir_all(&dir).unwrap();
    for mode in [0o777, 0o770, 0o1777] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
        let path = dir.join("frontdesk.sqlite3");
        let err = SqliteStore::open(&path).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{} can be written by other users", dir.display())),
            "{mode:o}: {err}"
        );
        assert!(err.contains("chmod go-w"), "{mode:o}: {err}");
        assert!(!path.exists(), "{mode:o}: the file was created");
    }
    // Owner-only, or readable by others but not writable: opened.
    for mode in [0o700, 0o755] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
        drop(SqliteStore::open(&dir.join(format!("ok-{mode:o}.sqlite3"))).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 27: redemptions arriving together are committed together, each
/// answered once it is on disk: of many concurrent redemptions of one id
/// exactly one wins, every distinct id wins once, and all of them are
/// still redeemed when the file is opened again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_redemptions_share_commits_and_each_id_wins_once() {
    let path = file("group");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let exp = frontdesk::clock::unix_secs(std::time::SystemTime::now()) + 600;
    let contested = StateId::random();
    let distinct: Vec<StateId> = (0..200).map(|_| StateId::random()).collect();
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(
            async move { store.redeem(contested, exp).await },
        ));
    }
    for &id in &distinct {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move { store.redeem(id, exp).await }));
    }
    let mut wins = Vec::new();
    for t in tasks {
        wins.push(t.await.unwrap().unwrap());
    }
    assert_eq!(wins[..50].iter().filter(|w| **w).count(), 1);
    assert!(wins[50..].iter().all(|w| *w));
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert!(!store.redeem(contested, exp).await.unwrap());
    for id in distinct {
        assert!(!store.redeem(id, exp).await.unwrap());
    }
}

/// State ids sort by when they were made (the SQLite store's B-tree
/// inserts them side by side) and are still unique.
#[test]
fn ordered_state_ids_sort_by_time_and_differ() {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(1_800_000_000_123);
    let a = StateId::ordered(t);
    let b = StateId::ordered(t);
    let later = StateId::ordered(t + Duration::from_millis(1));
    assert_ne!(a, b);
    assert!(a < later && b < later);
    assert_eq!(a.as_bytes()[..6], 1_800_000_000_123u64.to_be_bytes()[2..]);
}

/// Issue 27: with the default durability redemptions commit on the runtime
/// and SQLite's own checkpoint (which would `fsync` there) is off; the
/// writer thread checkpoints instead, so the write-ahead log starts over
/// rather than growing with every commit: after 4,000 redemptions one
/// after another (a commit each, at least one page each; a checkpoint every
/// 1,000 commits) it holds fewer pages than that, and every one of them is
/// still refused after reopening.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_is_checkpointed_while_redemptions_commit_on_the_runtime() {
    const COMMITS: usize = 4_000;
    let path = file("checkpoint");
    let store = SqliteStore::open(&path).unwrap();
    let exp = frontdesk::clock::unix_secs(std::time::SystemTime::now()) + 600;
    let ids: Vec<StateId> = (0..COMMITS).map(|_| StateId::random()).collect();
    for (n, &id) in ids.iter().enumerate() {
        assert!(store.redeem(id, exp).await.unwrap());
        if n % 100 == 99 {
            // A moment for the writer thread (on a loaded machine it may
            // otherwise get no CPU until the loop is over).
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    let mut wal = path.clone().into_os_string();
    wal.push("-wal");
    let frames = std::fs::metadata(&wal).unwrap().len() / (4096 + 24);
    assert!(
        frames > 0 && frames < COMMITS as u64,
        "{frames} pages in the log after {COMMITS} commits"
    );
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    for id in ids {
        assert!(!store.redeem(id, exp).await.unwrap());
    }
}
