//! The server's use of the URL flow store ([`crate::flows`]): create a flow
//! with a connect token, look at it, wait for it, complete or fail it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::flows::{FlowError, FlowId, FlowStore, NewFlow};
use crate::store::StoreError;

use crate::Reason;
use crate::server::api::error::{AskError, Busy};
use crate::server::api::flow_ticket::FlowTicket;

/// Where a flow stands, as the runtime needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    Pending,
    Complete,
    Failed,
}

pub(crate) struct Flows {
    store: Arc<dyn FlowStore>,
    quota: Quota,
}

fn internal(e: &FlowError) -> AskError {
    tracing::error!(error = %e, "flow store failed");
    AskError::Internal(Reason::from("flow store unavailable"))
}

/// Pending flows per client: a client holds at most `max`, so one client
/// cannot fill the store for everyone. A flow leaves its client's count when
/// it completes, fails or expires.
struct Quota {
    max: usize,
    by_client: Mutex<HashMap<String, Vec<(String, Instant)>>>,
    /// Numbers the places held while a flow is being created.
    reservations: AtomicU64,
}

impl Quota {
    /// Count a new flow for `client`, or say no.
    fn admit(&self, client: &str, flow_id: &str, ttl: Duration) -> bool {
        let Ok(mut map) = self.by_client.lock() else {
            return false;
        };
        let now = Instant::now();
        // Forget expired flows of every client now and then, so the map
        // holds only clients with live flows.
        if map.len() > 1024 {
            map.retain(|_, flows| {
                flows.retain(|(_, until)| *until > now);
                !flows.is_empty()
            });
        }
        let flows = map.entry(client.to_string()).or_default();
        flows.retain(|(_, until)| *until > now);
        if flows.len() >= self.max {
            return false;
        }
        flows.push((flow_id.to_string(), now + ttl));
        true
    }

    /// A place for `client` held under a name of its own until the flow
    /// exists ([`rename`](Self::rename)), or `None` when the client has its
    /// most flows pending. Taken *before* the store is asked, so a refused
    /// client never writes to the store.
    fn reserve(&self, client: &str, ttl: Duration) -> Option<String> {
        let n = self.reservations.fetch_add(1, Ordering::Relaxed);
        let name = format!("\u{0}reserved-{n}");
        self.admit(client, &name, ttl).then_some(name)
    }

    /// The place `client` holds now counts the flow `flow_id`.
    fn rename(&self, client: &str, reservation: &str, flow_id: &str) {
        if let Ok(mut map) = self.by_client.lock()
            && let Some(flows) = map.get_mut(client)
            && let Some(entry) = flows.iter_mut().find(|(id, _)| id == reservation)
        {
            entry.0 = flow_id.to_string();
        }
    }

    /// The flow no longer counts (it completed or failed).
    fn release(&self, flow_id: &str) {
        if let Ok(mut map) = self.by_client.lock() {
            map.retain(|_, flows| {
                flows.retain(|(id, _)| id != flow_id);
                !flows.is_empty()
            });
        }
    }
}

impl Flows {
    pub(crate) fn new(store: Arc<dyn FlowStore>, max_per_client: usize) -> Self {
        Self {
            store,
            quota: Quota {
                max: max_per_client.max(1),
                by_client: Mutex::new(HashMap::new()),
                reservations: AtomicU64::new(0),
            },
        }
    }

    /// A new pending flow for `principal`, counted against `quota_key`.
    pub(crate) async fn create(
        &self,
        principal: &str,
        quota_key: &str,
        ttl: Duration,
        purpose: &str,
    ) -> Result<FlowTicket, AskError> {
        // The client's share first: a client over it is refused without
        // touching the store, so its refused attempts cannot fill the store
        // for everyone (the full abuse run found refused flows kept there
        // until they expired).
        let Some(reservation) = self.quota.reserve(quota_key, ttl) else {
            tracing::warn!(
                client = quota_key,
                "URL question refused: the client has its most flows pending"
            );
            crate::metrics::refused("client_flows");
            return Err(AskError::Busy(Busy::ClientFlows));
        };
        let flow = match self
            .store
            .create(NewFlow::new(principal, ttl).purpose(purpose))
            .await
        {
            Ok(flow) => flow,
            Err(e) => {
                self.quota.release(&reservation);
                return Err(match e {
                    FlowError::Store(StoreError::Full { .. }) => {
                        tracing::warn!("flow store full; URL question refused");
                        crate::metrics::refused("server_flows");
                        AskError::Busy(Busy::ServerFlows)
                    }
                    e => internal(&e),
                });
            }
        };
        self.quota.rename(quota_key, &reservation, flow.id.as_str());
        let token = self
            .store
            .issue_connect_token(&flow.id, principal, ttl)
            .await
            .map_err(|e| internal(&e))?;
        Ok(FlowTicket {
            flow_id: flow.id.as_str().to_string(),
            connect_token: token,
        })
    }

    /// The flow's progress for `principal` (unknown, expired or another
    /// principal's flow: `Failed`).
    pub(crate) async fn status(&self, flow_id: &str, principal: &str) -> Progress {
        let id = FlowId::from_string(flow_id);
        match self.store.get_for(&id, principal).await {
            Ok(Some(f)) if f.status.is_complete() => Progress::Complete,
            Ok(Some(f)) if f.status.is_pending() => Progress::Pending,
            Ok(_) => Progress::Failed,
            Err(e) => {
                tracing::warn!(error = %e, "flow store failed");
                Progress::Failed
            }
        }
    }

    /// Wait up to `limit` for the flow to leave `Pending`.
    pub(crate) async fn wait(&self, flow_id: &str, principal: &str, limit: Duration) -> Progress {
        if self.status(flow_id, principal).await != Progress::Pending {
            return self.status(flow_id, principal).await;
        }
        let id = FlowId::from_string(flow_id);
        match self.store.wait_for_completion(&id, limit).await {
            Ok(f) if f.status.is_complete() => Progress::Complete,
            Ok(f) if f.status.is_pending() => Progress::Pending,
            _ => Progress::Failed,
        }
    }

    /// Redeem `token` and complete its flow.
    /// [`complete`](Self::complete), logged: what the server's own page
    /// (and a handler standing for it) calls.
    pub(crate) async fn complete_and_log(
        &self,
        token: &str,
        principal: Option<&str>,
    ) -> Result<(), FlowError> {
        let id = self.complete(token, principal).await?;
        tracing::info!(flow = %id, "URL flow completed");
        Ok(())
    }

    pub(crate) async fn complete(
        &self,
        token: &str,
        principal: Option<&str>,
    ) -> Result<FlowId, FlowError> {
        let id = self.store.redeem_connect_token(token, principal).await?;
        self.store.complete(&id).await?;
        self.quota.release(id.as_str());
        Ok(id)
    }

    /// Mark the flow failed (declined, cancelled, timed out).
    pub(crate) async fn fail(&self, flow_id: &str, reason: &str) {
        let id = FlowId::from_string(flow_id);
        self.quota.release(flow_id);
        if let Err(e) = self.store.fail(&id, reason.to_string()).await {
            tracing::debug!(error = %e, "could not mark the flow failed");
        }
    }
}
