//! [`FlowStore`] in process memory.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::broadcast;

use super::model::{
    Flow, FlowError, FlowEvent, FlowId, FlowStatus, NewFlow, random_token, token_hash, ttl_secs,
};
use super::store::FlowStore;
use crate::BoxFuture;
use crate::clock::{Clock, SystemClock};
use crate::store::StoreError;

/// Flows in process memory: the library default, for one instance.
///
/// Expired flows and tokens are dropped as the store is used, so memory follows
/// the number of live flows; past `max_flows` live flows (or as many live
/// tokens) it refuses new ones with [`StoreError::Full`].
#[derive(Debug)]
pub struct InMemoryFlowStore {
    inner: Mutex<State>,
    events: broadcast::Sender<FlowEvent>,
    clock: Arc<dyn Clock>,
    max_flows: usize,
}

#[derive(Debug, Default)]
pub(super) struct State {
    flows: HashMap<FlowId, Flow>,
    flow_expiry: BTreeSet<(u64, FlowId)>,
    pub(super) tokens: HashMap<[u8; 32], Token>,
    token_expiry: BTreeSet<(u64, [u8; 32])>,
}

#[derive(Debug)]
pub(super) struct Token {
    flow_id: FlowId,
    principal: String,
    expires_at: u64,
}

impl InMemoryFlowStore {
    /// Default bound on live flows (and on live connect tokens).
    pub const DEFAULT_MAX_FLOWS: usize = 100_000;
    /// How many events a slow subscriber may fall behind before it lags.
    const EVENT_CAPACITY: usize = 1024;

    /// A store on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A store on `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            inner: Mutex::new(State::default()),
            events: broadcast::channel(Self::EVENT_CAPACITY).0,
            clock,
            max_flows: Self::DEFAULT_MAX_FLOWS,
        }
    }

    /// Set the bound on live flows (and tokens).
    pub fn with_max_flows(mut self, max_flows: usize) -> Self {
        self.max_flows = max_flows;
        self
    }

    /// Number of flows held (expired ones included until the next purge).
    pub fn len(&self) -> usize {
        self.lock().flows.len()
    }

    /// Whether no flow is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held; a poisoned map is still usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drop what expired by `now`; publish pending flows that expired.
    fn purge(&self, state: &mut State, now: u64) -> usize {
        let mut gone = 0;
        while let Some((exp, _)) = state.flow_expiry.first() {
            if *exp > now {
                break;
            }
            let Some((_, id)) = state.flow_expiry.pop_first() else {
                break;
            };
            if let Some(flow) = state.flows.remove(&id) {
                gone += 1;
                if flow.status.is_pending() {
                    self.publish(&flow.id, &flow.principal, expired());
                }
            }
        }
        while let Some((exp, hash)) = state.token_expiry.first().copied() {
            if exp > now {
                break;
            }
            state.token_expiry.pop_first();
            state.tokens.remove(&hash);
        }
        gone
    }

    fn publish(&self, id: &FlowId, principal: &str, status: FlowStatus) {
        // No subscriber is not an error: nobody is waiting.
        let _ = self.events.send(FlowEvent {
            id: id.clone(),
            principal: principal.to_owned(),
            status,
        });
    }

    fn create_now(&self, new: NewFlow) -> Result<Flow, FlowError> {
        let now = self.clock.now_unix();
        let mut state = self.lock();
        self.purge(&mut state, now);
        if state.flows.len() >= self.max_flows {
            return Err(StoreError::Full {
                limit: self.max_flows,
            }
            .into());
        }
        let flow = Flow {
            id: FlowId::random(),
            principal: new.principal,
            created_at: now,
            expires_at: now.saturating_add(ttl_secs(new.ttl)),
            status: FlowStatus::Pending,
            purpose: new.purpose,
            data: new.data,
        };
        state.flow_expiry.insert((flow.expires_at, flow.id.clone()));
        state.flows.insert(flow.id.clone(), flow.clone());
        Ok(flow)
    }

    fn get_now(&self, id: &FlowId) -> Option<Flow> {
        let now = self.clock.now_unix();
        let state = self.lock();
        state.flows.get(id).filter(|f| f.expires_at > now).cloned()
    }

    fn finish_now(&self, id: &FlowId, to: FlowStatus) -> Result<Flow, FlowError> {
        let now = self.clock.now_unix();
        let mut state = self.lock();
        let flow = state
            .flows
            .get_mut(id)
            .filter(|f| f.expires_at > now)
            .ok_or(FlowError::NotFound)?;
        match (&flow.status, &to) {
            (FlowStatus::Pending, _) => {
                flow.status = to.clone();
                let flow = flow.clone();
                self.publish(&flow.id, &flow.principal, to);
                Ok(flow)
            }
            // Same terminal kind again: idempotent, nothing published.
            (FlowStatus::Complete, FlowStatus::Complete)
            | (FlowStatus::Failed { .. }, FlowStatus::Failed { .. }) => Ok(flow.clone()),
            _ => Err(FlowError::NotPending),
        }
    }

    fn issue_now(
        &self,
        flow_id: &FlowId,
        principal: &str,
        ttl: Duration,
    ) -> Result<String, FlowError> {
        let now = self.clock.now_unix();
        let mut state = self.lock();
        self.purge(&mut state, now);
        let flow = state
            .flows
            .get(flow_id)
            .filter(|f| f.is_owned_by(principal) && f.status.is_pending())
            .ok_or(FlowError::NotFound)?;
        let expires_at = now.saturating_add(ttl_secs(ttl)).min(flow.expires_at);
        if state.tokens.len() >= self.max_flows {
            return Err(StoreError::Full {
                limit: self.max_flows,
            }
            .into());
        }
        let token = random_token::<32>();
        let hash = token_hash(&token);
        state.tokens.insert(
            hash,
            Token {
                flow_id: flow_id.clone(),
                principal: principal.to_owned(),
                expires_at,
            },
        );
        state.token_expiry.insert((expires_at, hash));
        Ok(token)
    }

    fn redeem_now(&self, token: &str, principal: Option<&str>) -> Result<FlowId, FlowError> {
        let now = self.clock.now_unix();
        let hash = token_hash(token);
        let mut state = self.lock();
        self.purge(&mut state, now);
        let reject = |reason: &'static str| {
            tracing::debug!(reason, "connect token rejected");
            FlowError::ConnectRejected
        };
        let entry = state
            .tokens
            .get(&hash)
            .ok_or_else(|| reject("unknown or used"))?;
        if entry.expires_at <= now {
            return Err(reject("expired"));
        }
        if principal.is_some_and(|p| p != entry.principal) {
            // Not burned: the rightful owner can still use the link.
            tracing::warn!(flow = %entry.flow_id, "connect link opened by another principal");
            return Err(FlowError::OtherPrincipal);
        }
        let flow_id = entry.flow_id.clone();
        let expires_at = entry.expires_at;
        state.tokens.remove(&hash);
        state.token_expiry.remove(&(expires_at, hash));
        let pending = state
            .flows
            .get(&flow_id)
            .is_some_and(|f| f.expires_at > now && f.status.is_pending());
        if !pending {
            return Err(reject("flow no longer pending"));
        }
        Ok(flow_id)
    }
}

fn expired() -> FlowStatus {
    FlowStatus::Failed {
        reason: "expired".to_owned(),
    }
}

impl Default for InMemoryFlowStore {
    fn default() -> Self {
        Self::new()
    }
}

impl FlowStore for InMemoryFlowStore {
    fn create(&self, new: NewFlow) -> BoxFuture<'_, Result<Flow, FlowError>> {
        let result = self.create_now(new);
        Box::pin(async move { result })
    }

    fn get<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Option<Flow>, FlowError>> {
        Box::pin(async move { Ok(self.get_now(id)) })
    }

    fn complete<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(async move { self.finish_now(id, FlowStatus::Complete) })
    }

    fn fail<'a>(
        &'a self,
        id: &'a FlowId,
        reason: String,
    ) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(async move { self.finish_now(id, FlowStatus::Failed { reason }) })
    }

    fn purge_expired(&self) -> BoxFuture<'_, Result<usize, FlowError>> {
        let now = self.clock.now_unix();
        let gone = {
            let mut state = self.lock();
            self.purge(&mut state, now)
        };
        Box::pin(async move { Ok(gone) })
    }

    fn subscribe(&self) -> broadcast::Receiver<FlowEvent> {
        self.events.subscribe()
    }

    fn issue_connect_token<'a>(
        &'a self,
        flow_id: &'a FlowId,
        principal: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<String, FlowError>> {
        Box::pin(async move { self.issue_now(flow_id, principal, ttl) })
    }

    fn redeem_connect_token<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<FlowId, FlowError>> {
        Box::pin(async move { self.redeem_now(token, principal) })
    }
}

#[cfg(test)]
impl InMemoryFlowStore {
    pub(super) fn lock_for_tests(&self) -> MutexGuard<'_, State> {
        self.lock()
    }
}
