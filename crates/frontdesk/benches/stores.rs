//! The nonce stores alone (issue 27): what one redemption costs in each
//! store, without HTTP or the server around it.
//!
//! ```text
//! cargo bench -p frontdesk --features sqlite,redis --bench stores
//! cargo bench -p frontdesk --features sqlite,redis --bench stores -- \
//!     --store memory,sqlite --concurrency 16 --redemptions 20000 --owners 8
//! cargo bench -p frontdesk --features sqlite,redis --bench stores -- \
//!     --store memory,sqlite --redemptions 200000 --max-entries 400000
//! ```
//!
//! C tasks on a two-worker tokio runtime redeem fresh states in a closed
//! loop (each a time-ordered id, issued now, living 30 minutes, charged to
//! one of `--owners` owners), N redemptions in all, every one checked to be
//! accepted. Per store it prints the redemptions per second, the process's
//! CPU per redemption (user and system, every thread, from `/proc`), and
//! the context switches per redemption (summed over the threads alive at
//! the end). `--max-entries M` keeps at most M redeemed states (and as many
//! per owner) in the memory and SQLite stores (the Redis store has no such
//! bound): past M every redemption evicts one, as in a store that filled up
//! (the store is filled first, not measured, with M states of another owner
//! issued an hour earlier; N must be at most M / 2). The SQLite store writes
//! a fresh file in an owner-only directory under the target directory
//! (`$TMPDIR` is usually `/tmp`, which the store refuses: others can write
//! there), with the durability `--sqlite-durability` (default `process`);
//! the Redis store needs `FRONTDESK_REDIS_URL` (or `--redis-url`) and is
//! skipped without it.
//!
//! Under `valgrind --tool=callgrind` (one store, `--redemptions 0` for the
//! baseline), the difference of the instruction counts divided by N is the
//! store's instructions per redemption, repeatable on a loaded machine.
//! Nothing here asserts a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use frontdesk::clock::unix_secs;
use frontdesk::state::{InMemoryNonceStore, NonceStore, Redemption, StateId};
use frontdesk::stores::redis::RedisStore;
use frontdesk::stores::sqlite::{Durability, SqliteStore};

struct Options {
    stores: Vec<String>,
    concurrency: usize,
    redemptions: usize,
    owners: usize,
    /// Most redeemed states kept (memory and SQLite), so that a run can
    /// measure a full store, where every redemption evicts one.
    max_entries: Option<usize>,
    durability: Durability,
    redis_url: Option<String>,
}

fn options() -> Options {
    let mut o = Options {
        stores: vec!["memory".into(), "sqlite".into(), "redis".into()],
        concurrency: 16,
        redemptions: 20_000,
        owners: 8,
        max_entries: None,
        durability: Durability::default(),
        redis_url: std::env::var("FRONTDESK_REDIS_URL")
            .ok()
            .filter(|u| !u.is_empty()),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().expect("a value after the flag").clone();
        match arg.as_str() {
            "--bench" => {}
            "--store" => o.stores = value().split(',').map(str::to_owned).collect(),
            "--concurrency" => o.concurrency = value().parse().expect("a number"),
            "--redemptions" => o.redemptions = value().parse().expect("a number"),
            "--owners" => o.owners = value().parse::<usize>().expect("a number").max(1),
            "--max-entries" => o.max_entries = Some(value().parse().expect("a number")),
            "--redis-url" => o.redis_url = Some(value()),
            "--sqlite-durability" => {
                o.durability = match value().as_str() {
                    "process" => Durability::Process,
                    _ => Durability::Full,
                }
            }
            other => panic!(
                "unknown argument {other:?}; usage: stores [--store memory,sqlite,redis] \
                 [--concurrency C] [--redemptions N] [--owners K] \
                 [--max-entries M] [--sqlite-durability full|process] [--redis-url URL]"
            ),
        }
    }
    if let Some(m) = o.max_entries {
        // The owner of the M states filled first must stay the largest, so
        // that the states evicted are those and never fresh ones (whose
        // owner's floor would then refuse the next fresh state).
        assert!(
            o.redemptions <= m / 2,
            "--redemptions must be at most half --max-entries (every measured redemption evicts one of the M states filled first)"
        );
    }
    o
}

/// This process's CPU time (user + system, every thread) in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // After the command's closing parenthesis: state is field 3; utime and
    // stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Voluntary and involuntary context switches of the threads alive now.
fn context_switches() -> (u64, u64) {
    let mut total = (0, 0);
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            let value = |l: &str| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap();
            if line.starts_with("voluntary_ctxt_switches") {
                total.0 += value(line);
            } else if line.starts_with("nonvoluntary_ctxt_switches") {
                total.1 += value(line);
            }
        }
    }
    total
}

fn ticks_per_second() -> f64 {
    // Linux's USER_HZ is 100 on every architecture we run on.
    100.0
}

async fn open(name: &str, o: &Options, dir: &std::path::Path) -> Option<Arc<dyn NonceStore>> {
    Some(match name {
        "memory" => {
            let store = InMemoryNonceStore::new();
            Arc::new(match o.max_entries {
                Some(m) => store.with_max_entries(m).with_max_per_owner(m),
                None => store,
            })
        }
        "sqlite" => {
            let path = dir.join(format!("stores-{}.sqlite3", StateId::random()));
            let store = SqliteStore::open_with(&path, o.durability).unwrap();
            Arc::new(match o.max_entries {
                Some(m) => store.with_max_entries(m).with_max_per_owner(m),
                None => store,
            })
        }
        "redis" => {
            let Some(url) = &o.redis_url else {
                println!("redis: skipped (no FRONTDESK_REDIS_URL / --redis-url)");
                return None;
            };
            let prefix = format!("frontdesk-bench:{}:", StateId::random());
            Arc::new(RedisStore::connect(url, &prefix).await.unwrap())
        }
        other => panic!("unknown store {other:?}"),
    })
}

/// Redeem `n` fresh states with `o.concurrency` tasks, each issued `age`
/// seconds ago and charged to one of `owners`: how long it took.
async fn run(
    store: Arc<dyn NonceStore>,
    o: &Options,
    n: usize,
    age: u64,
    owners: Vec<String>,
) -> Duration {
    let owners = Arc::new(owners);
    let left = Arc::new(AtomicUsize::new(n));
    let started = Instant::now();
    let tasks: Vec<_> = (0..o.concurrency)
        .map(|task| {
            let (store, owners, left) =
                (Arc::clone(&store), Arc::clone(&owners), Arc::clone(&left));
            tokio::spawn(async move {
                let owner = &owners[task % owners.len()];
                while left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    let now = SystemTime::now();
                    let issued = unix_secs(now).saturating_sub(age);
                    let expires = unix_secs(now) + 1800;
                    let r =
                        Redemption::of_parts(StateId::ordered(now), issued, expires).owner(owner);
                    assert!(store.redeem_for(r).await.unwrap(), "a fresh state refused");
                    // The memory store never makes a task wait: without
                    // this the first task would redeem everything for one
                    // owner, past its share.
                    tokio::task::consume_budget().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    started.elapsed()
}

fn main() {
    let o = options();
    // The SQLite store refuses a directory others can write to (`/tmp`):
    // a directory of the benchmark's own, owner-only, under the target dir.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stores-bench");
    std::fs::create_dir_all(&dir).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "stores: {} redemptions, {} tasks, {} owners, 2 tokio workers",
        o.redemptions, o.concurrency, o.owners
    );
    for name in &o.stores {
        let Some(store) = runtime.block_on(open(name, &o, &dir)) else {
            continue;
        };
        if let Some(full) = o.max_entries {
            // Fill the store first (not measured), with states issued an
            // hour ago: those are the ones evicted, and the floors they
            // raise refuse nothing redeemed now.
            // One owner holds them all and stays the largest, so every
            // eviction takes one of these.
            let filler = vec!["10.0.0.0".to_owned()];
            runtime.block_on(run(Arc::clone(&store), &o, full, 3600, filler));
        }
        let owners = (0..o.owners).map(|n| format!("10.0.0.{}", n + 1)).collect();
        let (cpu0, cs0) = (cpu_ticks(), context_switches());
        let took = runtime.block_on(run(Arc::clone(&store), &o, o.redemptions, 0, owners));
        let (cpu1, cs1) = (cpu_ticks(), context_switches());
        drop(store);
        for file in std::fs::read_dir(&dir).unwrap().flatten() {
            if file.file_name().to_string_lossy().starts_with("stores-") {
                let _ = std::fs::remove_file(file.path());
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let n = o.redemptions.max(1) as f64;
        #[allow(clippy::cast_precision_loss)]
        let cpu_us = (cpu1 - cpu0) as f64 / ticks_per_second() * 1e6 / n;
        #[allow(clippy::cast_precision_loss)]
        let (vol, invol) = ((cs1.0 - cs0.0) as f64 / n, (cs1.1 - cs0.1) as f64 / n);
        println!(
            "{name:<7} {:>9.0} redemptions/s  {cpu_us:>7.1} CPU-µs each  {vol:>5.2} voluntary + {invol:>5.2} involuntary context switches each",
            n / took.as_secs_f64()
        );
    }
}
