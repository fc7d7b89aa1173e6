//! Single-use redemption of sealed states through a nonce store.
//!
//! Binding and expiry bound replay but do not stop it: within its lifetime the
//! same token opens every time it is presented. When a state must be consumed at
//! most once (MRTR A.4 §5), the server records each [`StateId`] it accepts, until
//! the state would have expired anyway.
//!
//! See [`InMemoryNonceStore`] for how the memory store stays safe when full.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use super::binding::Binding;
use super::sealer::{IdHasher, OpenedState, StateId, StateRejected, StateSealer};
use super::shared_reply::SharedReply;
use crate::BoxFuture;
use crate::clock::{Clock, SystemClock};
use crate::store::StoreError;

/// One state being redeemed: its id, when it was issued and expires (unix
/// seconds), and who owns it (see [`InMemoryNonceStore`] for what the owner is for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Redemption<'a> {
    /// The state's id.
    pub state_id: StateId,
    /// When it was sealed.
    pub issued_at: u64,
    /// When it stops mattering.
    pub expires_at: u64,
    /// Whose share it is charged to (`""` when nobody's).
    pub owner: &'a str,
}

impl<'a> Redemption<'a> {
    /// The redemption of `opened`, charged to nobody in particular.
    pub fn of(opened: &OpenedState) -> Self {
        Self {
            state_id: opened.state_id(),
            issued_at: opened.issued_at(),
            expires_at: opened.expires_at(),
            owner: "",
        }
    }

    /// Charge it to `owner`.
    pub fn owner(mut self, owner: &'a str) -> Self {
        self.owner = owner;
        self
    }
}

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

    /// Redeem with what the server knows about the state: when it was issued
    /// and whose it is. `Ok(false)` also when the store can no longer tell
    /// whether the state was redeemed (it is refused rather than risk a
    /// replay). By default the same as [`redeem`](Self::redeem).
    fn redeem_for<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.redeem(redemption.state_id, redemption.expires_at)
    }

    /// Whether the store can be used now: the readiness check (`/readyz`
    /// of `frontdesk serve`) asks it. A store that reaches a database or a
    /// server makes a small round trip there; by default `Ok(())`.
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    /// Whether instances sharing this store see each other's kept replies
    /// ([`keep_reply`](Self::keep_reply)); by default `false`, and nothing
    /// is kept.
    fn shares_replies(&self) -> bool {
        false
    }

    /// Keep the reply to the redeemed `state_id` for `ttl`, for the same
    /// retry sent to another instance after its request went away (see
    /// [`SharedReply`]): `Some(text)` the reply, `None` while the round still
    /// runs. Only a store several instances share needs to keep anything
    /// (each instance remembers its own replies); by default nothing is kept.
    fn keep_reply<'a>(
        &'a self,
        state_id: StateId,
        reply: Option<&'a str>,
        ttl: std::time::Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (state_id, reply, ttl);
        Box::pin(async { Ok(()) })
    }

    /// What the store knows of the reply to `state_id`, which another
    /// instance redeemed; by default [`SharedReply::Unknown`].
    fn kept_reply(&self, state_id: StateId) -> BoxFuture<'_, Result<SharedReply, StoreError>> {
        let _ = state_id;
        Box::pin(async { Ok(SharedReply::Unknown) })
    }
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
    let opened = sealer
        .open_for_reason::<serde_json::Value>(token, binding, now)
        .map_err(|reason| {
            crate::metrics::state_refused(reason);
            StateRejected
        })?;
    if store.redeem_for(Redemption::of(&opened)).await? {
        Ok(opened)
    } else {
        tracing::debug!(reason = "replayed", "request state rejected");
        crate::metrics::state_refused("replayed");
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

impl RedeemError {
    /// Who must act to get past it: the caller for a state that is not
    /// acceptable (start the call again); the operator when the store
    /// failed.
    pub fn party(&self) -> crate::Party {
        match self {
            Self::Rejected(_) => crate::Party::Caller,
            Self::Store(_) => crate::Party::Operator,
        }
    }
}

crate::errors::party_predicates!(RedeemError);

/// A [`NonceStore`] in process memory, bounded, with a share per owner: for
/// one instance, or for tests.
///
/// # Why it never fills up for everyone
///
/// Remembering every redeemed id for its whole lifetime costs memory in
/// proportion to the rate of redemptions, and that rate is chosen by the
/// clients. A store that refuses new ids when full lets one client's flood
/// deny every other client's retries (the failure this design replaces). A
/// store that silently forgets old ids lets a forgotten state be replayed.
///
/// [`InMemoryNonceStore`] does neither. Each redemption is charged to the
/// *owner* of the state (the principal, or the client's address when
/// anonymous, an IPv6 address's /64 so one host is one owner, sealed into the
/// state when it was first issued, so presenting it from elsewhere does not
/// change who pays). Each owner has a share
/// ([`InMemoryNonceStore::with_max_per_owner`]); when a share is used up, the
/// owner's entry issued earliest is forgotten and the owner's *floor* rises to
/// that entry's issue time: from then on every state of that owner issued at
/// or before the floor is refused, redeemed or not. When the whole store is
/// full the same happens to the owner holding the most entries. So:
///
/// - replay protection holds for every state within its lifetime: an id is
///   only forgotten together with everything issued before it;
/// - the cost of a flood falls on the owner who floods: their oldest
///   unanswered states stop being accepted, nobody else's;
/// - a well-behaved owner is never affected unless it redeems more than its
///   share within the time a person takes to answer (100,000 by default).
///
/// The SQLite and Redis stores keep the same shares and floors, on disk or
/// in Redis. The SQLite store's total differs in two details: the new state
/// counts toward its owner's size when the largest is chosen, and of owners
/// holding as many the one it added last gives one up (this store chooses
/// before counting the new state, and by the owner's name). A store
/// without its own [`redeem_for`](NonceStore::redeem_for)
/// keeps every id until it expires, with no share per owner.
///
/// ```
/// use frontdesk::state::{InMemoryNonceStore, NonceStore, Redemption, StateId};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = InMemoryNonceStore::new().with_max_per_owner(1);
/// let now = std::time::SystemTime::now()
///     .duration_since(std::time::UNIX_EPOCH)
///     .unwrap()
///     .as_secs();
/// let first = Redemption::of_parts(StateId::random(), now - 10, now + 60).owner("10.0.0.1");
/// let second = Redemption::of_parts(StateId::random(), now - 5, now + 60).owner("10.0.0.1");
/// assert!(store.redeem_for(first).await.unwrap());
/// assert!(!store.redeem_for(first).await.unwrap()); // a replay
/// assert!(store.redeem_for(second).await.unwrap()); // the share is 1: `first` is forgotten…
/// assert!(!store.redeem_for(first).await.unwrap()); // …and still refused, below the floor
/// # }
/// ```
#[derive(Debug)]
pub struct InMemoryNonceStore {
    inner: Mutex<Seen>,
    clock: Arc<dyn Clock>,
    max_entries: usize,
    max_per_owner: usize,
}

/// One remembered id.
#[derive(Debug)]
struct Entry {
    owner: Arc<str>,
    issued_at: u64,
    expires_at: u64,
}

/// Ids by a second (their issue or expiry time), in the order they came.
///
/// A bucket may hold ids the store no longer remembers ("stale" copies: the
/// id was forgotten through its other index). They are skipped when met,
/// counted in [`Seen::stale`], and dropped by [`Seen::compact_if_stale`], so an
/// insertion costs a lookup among the few distinct seconds plus a push
/// instead of an ordered insert among every id.
type Buckets = BTreeMap<u64, VecDeque<StateId>>;

/// What the store keeps per owner.
#[derive(Debug, Default)]
struct Owner {
    /// The owner's ids by the second they were issued, earliest first.
    by_issue: Buckets,
    /// How many of the owner's ids are remembered (`by_issue` may also hold
    /// stale copies).
    live: usize,
    /// States of this owner issued at or before this time are refused.
    floor: Option<u64>,
}

#[derive(Debug, Default)]
struct Seen {
    ids: HashMap<StateId, Entry, IdHasher>,
    /// Every remembered id by the second it expires.
    by_expiry: Buckets,
    owners: HashMap<Arc<str>, Owner>,
    /// Owners by number of entries, to find the largest when full.
    by_size: BTreeSet<(usize, Arc<str>)>,
    /// Stale copies in `by_expiry` and the owners' `by_issue`.
    stale: usize,
    /// The longest lifetime seen: a floor older than this protects nothing.
    max_lifetime: u64,
    /// When owners left with nothing to protect were last looked for: once
    /// per clock second, not on every redemption (a scan of every owner per
    /// redemption made each one cost as much as the number of owners).
    owners_swept_at: u64,
}

/// Take `id` out of the bucket of `second`: at once when it is at the front
/// (the usual case: ids leave in about the order they came, through either
/// index), otherwise it stays as a stale copy and `false` says so.
fn take_front(buckets: &mut Buckets, second: u64, id: StateId) -> bool {
    let Some(bucket) = buckets.get_mut(&second) else {
        return false;
    };
    if bucket.front() != Some(&id) {
        return false;
    }
    bucket.pop_front();
    if bucket.is_empty() {
        buckets.remove(&second);
    }
    true
}

/// Move `owner` in the by-size index from `before` remembered ids to
/// `after` (an owner with none is not in it).
fn resize(
    by_size: &mut BTreeSet<(usize, Arc<str>)>,
    owner: &Arc<str>,
    before: usize,
    after: usize,
) {
    by_size.remove(&(before, Arc::clone(owner)));
    if after > 0 {
        by_size.insert((after, Arc::clone(owner)));
    }
}

impl Seen {
    /// Whether `id` is remembered with `second` as its issue (or, with
    /// `expiry`, its expiry) time: whether a copy met in a bucket is live.
    fn is_live(&self, id: &StateId, second: u64, expiry: bool) -> bool {
        self.ids.get(id).is_some_and(|e| {
            if expiry {
                e.expires_at == second
            } else {
                e.issued_at == second
            }
        })
    }

    fn forget_expired(&mut self, now: u64) {
        while let Some(entry) = self.by_expiry.first_entry() {
            if *entry.key() > now {
                break;
            }
            let (second, bucket) = entry.remove_entry();
            for id in bucket {
                if !self.is_live(&id, second, true) {
                    self.stale = self.stale.saturating_sub(1);
                    continue;
                }
                if let Some(entry) = self.ids.remove(&id) {
                    self.detach(&entry.owner, entry.issued_at, id);
                }
            }
        }
        if now > self.owners_swept_at {
            self.owners_swept_at = now;
            self.forget_idle_owners(now);
        }
        self.compact_if_stale();
    }

    /// Forget owners with no id left and no floor that still protects
    /// anything (their buckets hold only stale copies).
    fn forget_idle_owners(&mut self, now: u64) {
        let max_lifetime = self.max_lifetime;
        let stale: Vec<Arc<str>> = self
            .owners
            .iter()
            .filter(|(_, o)| {
                o.live == 0
                    && o.floor
                        .is_none_or(|f| f.saturating_add(max_lifetime) <= now)
            })
            .map(|(k, _)| Arc::clone(k))
            .collect();
        for key in stale {
            if let Some(o) = self.owners.remove(&key) {
                let copies: usize = o.by_issue.values().map(VecDeque::len).sum();
                self.stale = self.stale.saturating_sub(copies);
            }
        }
    }

    /// Remove `id` (already out of `ids`) from its owner's bookkeeping.
    fn detach(&mut self, owner: &Arc<str>, issued_at: u64, id: StateId) {
        if let Some(o) = self.owners.get_mut(owner) {
            if !take_front(&mut o.by_issue, issued_at, id) {
                self.stale += 1;
            }
            let before = o.live;
            o.live = before.saturating_sub(1);
            resize(&mut self.by_size, owner, before, o.live);
        }
    }

    /// Forget `owner`'s earliest-issued id and raise its floor over it.
    fn evict_oldest(&mut self, owner: &Arc<str>) {
        loop {
            let Some(mut first) = self
                .owners
                .get_mut(owner)
                .and_then(|o| o.by_issue.first_entry())
            else {
                return;
            };
            let issued_at = *first.key();
            let Some(id) = first.get_mut().pop_front() else {
                first.remove();
                continue;
            };
            if first.get().is_empty() {
                first.remove();
            }
            if !self.is_live(&id, issued_at, false) {
                self.stale = self.stale.saturating_sub(1);
                continue;
            }
            let Some(entry) = self.ids.remove(&id) else {
                continue;
            };
            if !take_front(&mut self.by_expiry, entry.expires_at, id) {
                self.stale += 1;
            }
            if let Some(o) = self.owners.get_mut(owner) {
                o.floor = Some(o.floor.map_or(issued_at, |f| f.max(issued_at)));
                let before = o.live;
                o.live = before.saturating_sub(1);
                resize(&mut self.by_size, owner, before, o.live);
            }
            tracing::debug!(owner = %owner, floor = issued_at, "nonce share full; floor raised");
            return;
        }
    }

    /// Remember `id` of `owner`.
    fn insert(&mut self, id: StateId, owner: Arc<str>, issued_at: u64, expires_at: u64) {
        self.by_expiry.entry(expires_at).or_default().push_back(id);
        let o = self.owners.entry(Arc::clone(&owner)).or_default();
        o.by_issue.entry(issued_at).or_default().push_back(id);
        o.live += 1;
        resize(&mut self.by_size, &owner, o.live - 1, o.live);
        self.ids.insert(
            id,
            Entry {
                owner,
                issued_at,
                expires_at,
            },
        );
    }

    /// Rebuild the buckets from the remembered ids once the stale copies
    /// outnumber them (and a floor of 1,024), so the buckets hold at most
    /// about three copies per remembered id (its two live ones and one
    /// stale); each rebuild follows at least as many operations as it costs.
    fn compact_if_stale(&mut self) {
        if self.stale <= self.ids.len().max(1024) {
            return;
        }
        self.by_expiry.clear();
        for o in self.owners.values_mut() {
            o.by_issue.clear();
        }
        for (id, e) in &self.ids {
            self.by_expiry
                .entry(e.expires_at)
                .or_default()
                .push_back(*id);
            if let Some(o) = self.owners.get_mut(&e.owner) {
                o.by_issue.entry(e.issued_at).or_default().push_back(*id);
            }
        }
        self.stale = 0;
    }

    /// The number of copies in the buckets, live and stale (for tests of
    /// the bound).
    #[cfg(test)]
    fn copies(&self) -> usize {
        let expiry: usize = self.by_expiry.values().map(VecDeque::len).sum();
        let issue: usize = self
            .owners
            .values()
            .flat_map(|o| o.by_issue.values())
            .map(VecDeque::len)
            .sum();
        expiry + issue
    }

    fn owner_key(&self, owner: &str) -> Arc<str> {
        self.owners
            .get_key_value(owner)
            .map_or_else(|| Arc::from(owner), |(k, _)| Arc::clone(k))
    }
}

impl InMemoryNonceStore {
    /// Default bound on live entries (about 150 bytes each).
    pub const DEFAULT_MAX_ENTRIES: usize = 500_000;
    /// Default share of one owner.
    pub const DEFAULT_MAX_PER_OWNER: usize = 100_000;

    /// A store on the system clock with the default bounds.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A store on `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            inner: Mutex::new(Seen::default()),
            clock,
            max_entries: Self::DEFAULT_MAX_ENTRIES,
            max_per_owner: Self::DEFAULT_MAX_PER_OWNER,
        }
    }

    /// Set the bound on live entries (at least 1).
    pub fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries.max(1);
        self
    }

    /// Set the share of one owner (at least 1).
    pub fn with_max_per_owner(mut self, max_per_owner: usize) -> Self {
        self.max_per_owner = max_per_owner.max(1);
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

    fn redeem_now(&self, r: Redemption<'_>) -> bool {
        let now = self.clock.now_unix();
        let mut seen = self.lock();
        seen.forget_expired(now);
        if r.expires_at <= now || seen.ids.contains_key(&r.state_id) {
            return false;
        }
        let owner = seen.owner_key(r.owner);
        if let Some(floor) = seen.owners.get(&owner).and_then(|o| o.floor)
            && r.issued_at <= floor
        {
            tracing::debug!(
                owner = r.owner,
                "request state issued below its owner's floor"
            );
            return false;
        }
        if seen
            .owners
            .get(&owner)
            .is_some_and(|o| o.live >= self.max_per_owner)
        {
            seen.evict_oldest(&owner);
        }
        if seen.ids.len() >= self.max_entries
            && let Some((_, largest)) = seen.by_size.last().cloned()
        {
            seen.evict_oldest(&largest);
        }
        // Evicting may have raised this owner's floor over the new state.
        if let Some(floor) = seen.owners.get(&owner).and_then(|o| o.floor)
            && r.issued_at <= floor
        {
            return false;
        }
        seen.max_lifetime = seen
            .max_lifetime
            .max(r.expires_at.saturating_sub(r.issued_at));
        seen.insert(r.state_id, owner, r.issued_at, r.expires_at);
        true
    }
}

impl Redemption<'static> {
    /// A redemption from its parts, charged to nobody in particular.
    pub fn of_parts(state_id: StateId, issued_at: u64, expires_at: u64) -> Self {
        Self {
            state_id,
            issued_at,
            expires_at,
            owner: "",
        }
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
        // Without an issue time the state counts as issued now: it can only
        // be forgotten with everything its owner was issued before it.
        let issued_at = self.clock.now_unix();
        let result = self.redeem_now(Redemption::of_parts(state_id, issued_at, expires_at));
        Box::pin(async move { Ok(result) })
    }

    fn redeem_for<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let result = self.redeem_now(redemption);
        Box::pin(async move { Ok(result) })
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

    fn at(n: u8, issued_at: u64, owner: &str) -> Redemption<'_> {
        Redemption::of_parts(id(n), issued_at, issued_at + 100).owner(owner)
    }

    #[tokio::test]
    async fn a_full_share_costs_only_its_owner() {
        let store =
            InMemoryNonceStore::with_clock(Arc::new(ManualClock::new(1000))).with_max_per_owner(3);
        for n in 0..3 {
            assert!(
                store
                    .redeem_for(at(n, 990 + u64::from(n), "flood"))
                    .await
                    .unwrap()
            );
        }
        assert!(store.redeem_for(at(50, 995, "good")).await.unwrap());
        // The fourth redemption of "flood" forgets its earliest id (issued at
        // 990) and refuses everything it was issued up to then…
        assert!(store.redeem_for(at(3, 999, "flood")).await.unwrap());
        assert!(!store.redeem_for(at(0, 990, "flood")).await.unwrap());
        assert!(!store.redeem_for(at(9, 990, "flood")).await.unwrap());
        // …while later states of "flood" and every state of "good" go on.
        assert!(store.redeem_for(at(10, 1000, "flood")).await.unwrap());
        assert!(store.redeem_for(at(51, 950, "good")).await.unwrap());
        assert_eq!(store.len(), 5);
    }

    #[tokio::test]
    async fn a_full_store_takes_from_the_largest_owner() {
        let store = InMemoryNonceStore::with_clock(Arc::new(ManualClock::new(1000)))
            .with_max_entries(4)
            .with_max_per_owner(100);
        for n in 0..3 {
            assert!(
                store
                    .redeem_for(at(n, 990 + u64::from(n), "big"))
                    .await
                    .unwrap()
            );
        }
        assert!(store.redeem_for(at(50, 980, "small")).await.unwrap());
        // Full: the next one (from "small") evicts "big"'s earliest.
        assert!(store.redeem_for(at(51, 981, "small")).await.unwrap());
        assert_eq!(store.len(), 4);
        assert!(!store.redeem_for(at(0, 990, "big")).await.unwrap());
        assert!(!store.redeem_for(at(50, 980, "small")).await.unwrap());
        assert!(store.redeem_for(at(52, 982, "small")).await.unwrap());
    }

    #[tokio::test]
    async fn a_replay_is_refused_whoever_presents_it() {
        let store = InMemoryNonceStore::with_clock(Arc::new(ManualClock::new(1000)));
        assert!(store.redeem_for(at(1, 999, "a")).await.unwrap());
        assert!(!store.redeem_for(at(1, 999, "b")).await.unwrap());
        assert!(!store.redeem(id(1), 1099).await.unwrap());
    }

    #[tokio::test]
    async fn floors_are_forgotten_once_nothing_below_them_can_be_alive() {
        let clock = ManualClock::new(1000);
        let store = InMemoryNonceStore::with_clock(Arc::new(clock.clone())).with_max_per_owner(1);
        assert!(store.redeem_for(at(1, 990, "a")).await.unwrap());
        assert!(store.redeem_for(at(2, 995, "a")).await.unwrap());
        assert!(!store.redeem_for(at(3, 990, "a")).await.unwrap());
        // Every state issued at 990 expired at 1090 at the latest.
        clock.advance(200);
        assert!(store.redeem_for(at(4, 1195, "a")).await.unwrap());
        assert_eq!(store.lock().owners.len(), 1);
        assert!(store.lock().owners.values().all(|o| o.floor.is_none()));
    }

    /// Owners with nothing left to protect are looked for once per clock
    /// second (not on every redemption: with many owners that scan made each
    /// redemption cost as much as the number of owners), and still forgotten.
    #[tokio::test]
    async fn owners_with_nothing_to_protect_are_forgotten_a_second_later() {
        let clock = ManualClock::new(1000);
        let store = InMemoryNonceStore::with_clock(Arc::new(clock.clone()));
        let names: Vec<String> = (0..2000).map(|n| format!("owner-{n}")).collect();
        for (n, name) in names.iter().enumerate() {
            let id = StateId::from_bytes((n as u128).to_be_bytes());
            let r = Redemption::of_parts(id, 999, 1001).owner(name);
            assert!(store.redeem_for(r).await.unwrap());
        }
        assert_eq!(store.lock().owners.len(), 2000);
        // Every id expired at 1001; the next second's redemption forgets them
        // and their owners (no floor was raised, so nothing is protected).
        clock.advance(2);
        assert!(store.redeem_for(at(1, 1001, "last")).await.unwrap());
        assert_eq!(store.len(), 1);
        assert_eq!(store.lock().owners.len(), 1);
    }

    /// Ids leave the buckets out of order when lifetimes differ: a short-lived
    /// id that expires behind a long-lived one issued in the same second
    /// stays in its issue bucket as a stale copy. Those copies are compacted
    /// away, so the store holds at most about three copies per remembered id
    /// (plus the compaction floor of 1,024). Without the compaction the
    /// copies grow with every second (7,565 for 2,071 ids after 5,500
    /// redemptions, and on).
    #[tokio::test]
    async fn stale_copies_stay_bounded_when_lifetimes_differ() {
        let clock = ManualClock::new(1000);
        let store = InMemoryNonceStore::with_clock(Arc::new(clock.clone()));
        for n in 0u32..20_000 {
            if n % 500 == 0 {
                clock.advance(1);
            }
            let now = clock.now_unix();
            let lifetime = if n % 50 == 1 { 1000 } else { 5 };
            let id = StateId::from_bytes(u128::from(n).to_be_bytes());
            let r = Redemption::of_parts(id, now, now + lifetime).owner("busy");
            assert!(store.redeem_for(r).await.unwrap(), "redemption {n} refused");
            assert!(!store.redeem_for(r).await.unwrap(), "replay {n} accepted");
            if n % 100 == 0 {
                let seen = store.lock();
                assert!(
                    seen.copies() <= 3 * seen.ids.len() + 1024 + 4,
                    "{} copies for {} ids after {n}",
                    seen.copies(),
                    seen.ids.len()
                );
            }
        }
    }

    /// Whatever the caps and the order, no id is accepted twice while it is
    /// alive.
    #[test]
    fn no_state_is_accepted_twice_whatever_the_load() {
        use proptest::prelude::*;
        let ops = prop::collection::vec((0u8..40, 0u64..50, 0u64..3, 1u64..60), 1..300);
        proptest!(ProptestConfig::with_cases(200), |(ops in ops, max in 1usize..8, share in 1usize..5)| {
            let clock = ManualClock::new(1000);
            let store = InMemoryNonceStore::with_clock(Arc::new(clock.clone()))
                .with_max_entries(max)
                .with_max_per_owner(share);
            let owners = ["a", "b", "c", "d"];
            let mut accepted: HashMap<StateId, u64> = HashMap::new();
            // A state's owner and issue time are sealed into it: fixed per id.
            let mut issued: HashMap<u8, u64> = HashMap::new();
            // A state's lifetime is sealed into it too.
            let mut lifetimes: HashMap<u8, u64> = HashMap::new();
            for (n, age, tick, life) in ops {
                clock.advance(tick);
                let now = clock.now_unix();
                let issued_at = *issued.entry(n).or_insert(now.saturating_sub(age).max(1000));
                let life = *lifetimes.entry(n).or_insert(life);
                let r = Redemption::of_parts(id(n), issued_at, issued_at + life)
                    .owner(owners[usize::from(n) % owners.len()]);
                if store.redeem_now(r) {
                    if let Some(&exp) = accepted.get(&r.state_id) {
                        prop_assert!(exp <= now, "{} accepted twice", r.state_id);
                    }
                    accepted.insert(r.state_id, r.expires_at);
                }
                prop_assert!(store.len() <= max);
            }
        });
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
