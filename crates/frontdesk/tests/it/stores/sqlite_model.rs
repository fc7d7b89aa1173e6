//! `SqliteStore`'s shares against the in-memory store's, as a model: the
//! same states redeemed in the same (random) order, replays among them and
//! the SQLite store reopened now and then, are accepted and refused alike.
//!
//! The SQLite store keeps the owners' counts and floors in memory and the
//! owners' order partly in a list written in bulk (see its `shares`
//! module); the memory store keeps everything in one structure. Whatever
//! the batching, what a client sees must not differ.

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use frontdesk::clock::unix_secs;
use frontdesk::state::{InMemoryNonceStore, NonceStore, Redemption, StateId};
use frontdesk::stores::sqlite::SqliteStore;
use proptest::prelude::*;

use super::sqlite::file;

/// Each owner's share: small enough that most redemptions evict.
const PER_OWNER: usize = 4;
/// The store's total in the model comparison: never reached there (the
/// two stores break ties between owners of one size differently, see
/// [`no_state_is_accepted_twice_with_a_full_store`]).
const UNBOUNDED: usize = 100_000;
/// The store's total in the replay test: reached after a few redemptions.
const TOTAL: usize = 9;
const OWNERS: [&str; 3] = ["a", "b", "c"];

/// What happens next.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A new state of `owner`, issued about when the step before was
    /// (`jitter` seconds earlier: several share a second, and some come
    /// after later-issued ones, as answers do).
    Fresh { owner: usize, jitter: u64 },
    /// A state presented before, again (the `n`th, modulo how many there are).
    Replay(usize),
    /// The SQLite store closed and opened again on its file.
    Reopen,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => (0..OWNERS.len(), 0..6u64).prop_map(|(owner, jitter)| Step::Fresh { owner, jitter }),
        8 => any::<usize>().prop_map(Step::Replay),
        1 => Just(Step::Reopen),
    ]
}

/// Enough steps that the owners' order is written in bulk (every 256
/// redemptions) in most runs, and read back after reopening in many.
fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..900)
}

fn open(path: &Path, total: usize) -> SqliteStore {
    SqliteStore::open(path)
        .unwrap()
        .with_max_per_owner(PER_OWNER)
        .with_max_entries(total)
}

/// One state a client may present: whose, and when it was issued.
#[derive(Debug, Clone, Copy)]
struct State {
    id: StateId,
    owner: usize,
    issued_at: u64,
}

/// Run `steps` against the SQLite store and, when given, the memory store
/// as the model: each presentation's state and both answers, up to the
/// first where they differ.
async fn run(
    steps: &[Step],
    total: usize,
    model: Option<InMemoryNonceStore>,
) -> Vec<(State, bool, Option<bool>)> {
    let path = file("model");
    let now = unix_secs(SystemTime::now());
    // Issue times start 1,000 s back and move a second every 4 steps.
    let start = now - 1_000;
    let mut sqlite = Arc::new(open(&path, total));
    let mut presented: Vec<State> = Vec::new();
    let mut answers = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let state = match *step {
            Step::Reopen => {
                // Closing writes what was listed; the next store reads the
                // counts, floors and order back from the file.
                drop(sqlite);
                sqlite = Arc::new(open(&path, total));
                continue;
            }
            Step::Fresh { owner, jitter } => {
                let state = State {
                    id: StateId::random(),
                    owner,
                    issued_at: start + (n as u64 / 4) - jitter,
                };
                presented.push(state);
                state
            }
            Step::Replay(_) if presented.is_empty() => continue,
            Step::Replay(i) => presented[i % presented.len()],
        };
        let redemption = || {
            Redemption::of_parts(state.id, state.issued_at, now + 600).owner(OWNERS[state.owner])
        };
        let got = sqlite.redeem_for(redemption()).await.unwrap();
        let expected = match &model {
            Some(model) => Some(model.redeem_for(redemption()).await.unwrap()),
            None => None,
        };
        answers.push((state, got, expected));
        if expected.is_some_and(|e| e != got) {
            break;
        }
    }
    drop(sqlite);
    let _ = std::fs::remove_file(&path);
    answers
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Every answer as the memory store's, owners' shares full.
    #[test]
    fn sqlite_shares_refuse_and_accept_as_the_memory_store_does(steps in steps()) {
        let model = InMemoryNonceStore::new()
            .with_max_per_owner(PER_OWNER)
            .with_max_entries(UNBOUNDED);
        let answers = runtime().block_on(run(&steps, UNBOUNDED, Some(model)));
        let differing = answers.iter().position(|(_, got, expected)| Some(*got) != *expected);
        prop_assert_eq!(differing, None, "answers (state, SQLite, memory): {:?}", answers);
    }

    /// With the store's total full as well, no state is ever accepted
    /// twice, across reopening too.
    ///
    /// The answers are not compared with the memory store's here: both
    /// evict from the owner holding the most, but the memory store counts
    /// before the new state and breaks a tie by the owner's name, the
    /// SQLite store counts the new state in and breaks a tie by the owner
    /// it added last (see `InMemoryNonceStore`'s documentation); which
    /// owner's floor rises then differs.
    #[test]
    fn no_state_is_accepted_twice_with_a_full_store(steps in steps()) {
        let answers = runtime().block_on(run(&steps, TOTAL, None));
        let mut accepted = std::collections::HashSet::new();
        for (at, (state, got, _)) in answers.iter().enumerate() {
            prop_assert!(!*got || accepted.insert(state.id), "accepted twice at {}: {:?}", at, state);
        }
        // And the store did accept states after it filled up.
        prop_assert!(answers.len() < 2 * TOTAL || accepted.len() > TOTAL / 2);
    }
}
