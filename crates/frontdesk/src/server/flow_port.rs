//! The server's port to URL-mode flows: create a flow with a connect token,
//! look at it, wait for it, complete it from the server's own page.
//!
//! Backed by an in-process store for now; the shared flow store
//! (`crate::flows`) replaces the backend once it lands, behind these same calls.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// What a handler gets to build the page address of a URL question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowTicket {
    /// The flow id (2025-11-25 `elicitationId`; kept in `requestState` on 2026-07-28).
    pub flow_id: String,
    /// The secret the page presents to complete the flow; put it in the URL.
    pub connect_token: String,
}

/// Where a flow stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowStatus {
    /// Waiting for the person.
    Pending,
    /// The page completed it.
    Complete,
    /// It failed, was cancelled or expired.
    Failed,
}

/// Why a flow could not be completed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// No live flow has this token.
    #[error("unknown or expired flow")]
    Unknown,
}

struct Entry {
    principal: String,
    token: String,
    expires: Instant,
    status: watch::Sender<FlowStatus>,
}

/// In-process flows.
#[derive(Default)]
pub(crate) struct Flows {
    entries: Mutex<HashMap<String, Entry>>,
}

fn random_id() -> String {
    let mut b = [0u8; 16];
    rand::fill(&mut b[..]);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Flows {
    pub(crate) fn create(&self, principal: &str, ttl: Duration) -> FlowTicket {
        let ticket = FlowTicket {
            flow_id: random_id(),
            connect_token: random_id(),
        };
        let (tx, _) = watch::channel(FlowStatus::Pending);
        if let Ok(mut map) = self.entries.lock() {
            let now = Instant::now();
            map.retain(|_, e| e.expires > now);
            map.insert(
                ticket.flow_id.clone(),
                Entry {
                    principal: principal.to_string(),
                    token: ticket.connect_token.clone(),
                    expires: now + ttl,
                    status: tx,
                },
            );
        }
        ticket
    }

    /// The flow's status for `principal` (another principal sees `Failed`).
    pub(crate) fn status(&self, flow_id: &str, principal: &str) -> FlowStatus {
        let Ok(map) = self.entries.lock() else {
            return FlowStatus::Failed;
        };
        match map.get(flow_id) {
            Some(e) if e.principal == principal && e.expires > Instant::now() => *e.status.borrow(),
            Some(e) if e.principal == principal => {
                let s = *e.status.borrow();
                if s == FlowStatus::Complete {
                    s
                } else {
                    FlowStatus::Failed
                }
            }
            _ => FlowStatus::Failed,
        }
    }

    /// Wait up to `limit` for the flow to leave `Pending`.
    pub(crate) async fn wait(&self, flow_id: &str, principal: &str, limit: Duration) -> FlowStatus {
        let rx = {
            let Ok(map) = self.entries.lock() else {
                return FlowStatus::Failed;
            };
            match map.get(flow_id) {
                Some(e) if e.principal == principal => e.status.subscribe(),
                _ => return FlowStatus::Failed,
            }
        };
        let mut rx = rx;
        let waited = tokio::time::timeout(limit, rx.wait_for(|s| *s != FlowStatus::Pending)).await;
        match waited {
            Ok(Ok(s)) => *s,
            Ok(Err(_)) => FlowStatus::Failed,
            Err(_) => self.status(flow_id, principal),
        }
    }

    /// Complete the flow holding `token`; returns its id.
    pub(crate) fn complete(&self, token: &str) -> Result<String, FlowError> {
        let map = self.entries.lock().map_err(|_| FlowError::Unknown)?;
        let now = Instant::now();
        let (id, entry) = map
            .iter()
            .find(|(_, e)| e.token == token && e.expires > now)
            .ok_or(FlowError::Unknown)?;
        entry.status.send_replace(FlowStatus::Complete);
        Ok(id.clone())
    }

    /// Mark the flow failed (declined, cancelled).
    pub(crate) fn fail(&self, flow_id: &str) {
        if let Ok(map) = self.entries.lock()
            && let Some(e) = map.get(flow_id)
            && *e.status.borrow() == FlowStatus::Pending
        {
            e.status.send_replace(FlowStatus::Failed);
        }
    }
}
