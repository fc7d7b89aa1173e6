//! Single-use redemption of sealed states through a nonce store.
//!
//! Binding and expiry bound replay but do not stop it: within its lifetime the
//! same token opens every time it is presented. When a state must be consumed at
//! most once (MRTR A.4 §5), the server records each [`StateId`] it accepts, until
//! the state would have expired anyway.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use super::binding::Binding;
use super::sealer::{OpenedState, StateId, StateRejected, StateSealer};
use crate::clock::{Clock, SystemClock};
use crate::store::{BoxFuture, StoreError};

/// Remembers redeemed state ids until they expire.
///
/// Dyn-compatible (methods return [`BoxFuture`]) so a server can hold
/// `Arc<dyn NonceStore>` and swap in a shared store (SQLite, Redis) for several
/// instances.
pub trait NonceStore: Send + Sync {
    /// Record `state_id`, which stops mattering at `expires_at` (unix seconds).
    ///
    /// `Ok(true)` the first time an id is redeemed, `Ok(false)` on every later
    /// attempt (a replay) and for an id already past `expires_at`.
    fn redeem(&self, state_id: StateId, expires_at: u64)
    -> BoxFuture<'_, Result<bool, StoreError>>;
}

/// Open a state and redeem it in one step: it opens at most once.
///
/// A replay is the same [`StateRejected`] as any other bad state; only a failing
/// store is a different error.
pub async fn open_single_use(
    sealer: &StateSealer,
    store: &dyn NonceStore,
    token: &str,
    binding: &Binding,
    now: SystemTime,
) -> Result<OpenedState, RedeemError> {
    let opened = sealer.open(token, binding, now)?;
    if store.redeem(opened.state_id(), opened.expires_at()).await? {
        Ok(opened)
    } else {
        tracing::debug!(reason = "replayed", "request state rejected");
        Err(RedeemError::Rejected(StateRejected))
    }
}

/// Why [`open_single_use`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedeemError {
    /// The state is not acceptable (including: already redeemed).
    #[error(transparent)]
    Rejected(#[from] StateRejected),
    /// The nonce store failed; the state was not redeemed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A [`NonceStore`] in process memory: for one instance, or for tests.
///
/// Expired ids are forgotten as new ones arrive, so memory stays proportional to
/// the number of live states; past `max_entries` live ids it refuses new ones
/// ([`StoreError::Full`]) rather than forget live ones.
#[derive(Debug)]
pub struct InMemoryNonceStore {
    inner: Mutex<Seen>,
    clock: Arc<dyn Clock>,
    max_entries: usize,
}

#[derive(Debug, Default)]
struct Seen {
    ids: HashSet<StateId>,
    by_expiry: BTreeSet<(u64, StateId)>,
}

impl Seen {
    fn forget_expired(&mut self, now: u64) {
        while let Some(&(exp, id)) = self.by_expiry.first() {
            if exp > now {
                break;
            }
            self.by_expiry.pop_first();
            self.ids.remove(&id);
        }
    }
}

impl InMemoryNonceStore {
    /// Default bound on live entries.
    pub const DEFAULT_MAX_ENTRIES: usize = 1_000_000;

    /// A store on the system clock with the default bound.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A store on `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            inner: Mutex::new(Seen::default()),
            clock,
            max_entries: Self::DEFAULT_MAX_ENTRIES,
        }
    }

    /// Set the bound on live entries.
    pub fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }

    /// Number of ids remembered right now (expired ones included until the next
    /// redemption forgets them).
    pub fn len(&self) -> usize {
        self.lock().ids.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        // No code path panics while holding the lock; if one ever did, the set
        // is still consistent enough to keep refusing replays.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn redeem_now(&self, state_id: StateId, expires_at: u64) -> Result<bool, StoreError> {
        let now = self.clock.now_unix();
        let mut seen = self.lock();
        seen.forget_expired(now);
        if expires_at <= now || seen.ids.contains(&state_id) {
            return Ok(false);
        }
        if seen.ids.len() >= self.max_entries {
            return Err(StoreError::Full {
                limit: self.max_entries,
            });
        }
        seen.ids.insert(state_id);
        seen.by_expiry.insert((expires_at, state_id));
        Ok(true)
    }
}

impl Default for InMemoryNonceStore {
    fn default() -> Self {
        Self::new()
    }
}

impl NonceStore for InMemoryNonceStore {
    fn redeem(
        &self,
        state_id: StateId,
        expires_at: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let result = self.redeem_now(state_id, expires_at);
        Box::pin(async move { result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::state::RequestDigest;
    use serde_json::json;
    use std::time::{Duration, UNIX_EPOCH};

    fn id(n: u8) -> StateId {
        StateId::from_bytes([n; 16])
    }

    #[tokio::test]
    async fn first_redemption_wins_replays_lose() {
        let store = InMemoryNonceStore::with_clock(Arc::new(ManualClock::new(1000)));
        assert!(store.redeem(id(1), 1100).await.unwrap());
        assert!(!store.redeem(id(1), 1100).await.unwrap());
        assert!(store.redeem(id(2), 1100).await.unwrap());
    }

    #[tokio::test]
    async fn expired_ids_are_forgotten() {
        let clock = ManualClock::new(1000);
        let store = InMemoryNonceStore::with_clock(Arc::new(clock.clone()));
        for n in 0..10 {
            assert!(store.redeem(id(n), 1010).await.unwrap());
        }
        assert!(store.redeem(id(100), 2000).await.unwrap());
        assert_eq!(store.len(), 11);
        clock.advance(10);
        assert!(store.redeem(id(101), 2000).await.unwrap());
        assert_eq!(store.len(), 2);
        // An id already past its expiry is never accepted.
        assert!(!store.redeem(id(102), 1010).await.unwrap());
    }

    #[tokio::test]
    async fn refuses_new_ids_when_full() {
        let store =
            InMemoryNonceStore::with_clock(Arc::new(ManualClock::new(0))).with_max_entries(2);
        assert!(store.redeem(id(1), 10).await.unwrap());
        assert!(store.redeem(id(2), 10).await.unwrap());
        assert!(matches!(
            store.redeem(id(3), 10).await,
            Err(StoreError::Full { limit: 2 })
        ));
        // A replay is still a plain "no", not an error.
        assert!(!store.redeem(id(1), 10).await.unwrap());
    }

    #[tokio::test]
    async fn open_single_use_opens_once() {
        let sealer = StateSealer::development();
        let store: Arc<dyn NonceStore> = Arc::new(InMemoryNonceStore::new());
        let binding = Binding::anonymous(RequestDigest::new("tools/call", Some("t"), None));
        let token = sealer
            .seal(&binding, &json!({"a": 1}), Duration::from_secs(60))
            .unwrap();
        let now = SystemTime::now();
        let opened = open_single_use(&sealer, &*store, &token, &binding, now)
            .await
            .unwrap();
        assert_eq!(opened.payload(), &json!({"a": 1}));
        let again = open_single_use(&sealer, &*store, &token, &binding, now).await;
        assert!(matches!(again, Err(RedeemError::Rejected(StateRejected))));
        // The replay error reads exactly like any other rejection.
        let tampered = open_single_use(&sealer, &*store, "fd1.x.y", &binding, now).await;
        assert_eq!(
            again.unwrap_err().to_string(),
            tampered.unwrap_err().to_string()
        );
        let _ = UNIX_EPOCH;
    }
}
