//! URL elicitations (2025-11-25) the client waits on: tracked by
//! `elicitationId` until `notifications/elicitation/complete` arrives.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::watch;

/// URL elicitations (2025-11-25) waiting for `notifications/elicitation/complete`.
#[derive(Debug)]
pub(crate) struct UrlFlows {
    state: Mutex<HashMap<String, bool>>,
    changed: watch::Sender<u64>,
}

impl Default for UrlFlows {
    fn default() -> Self {
        Self {
            state: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
        }
    }
}

impl UrlFlows {
    /// Start tracking an elicitation id.
    pub(super) fn expect(&self, id: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.entry(id.to_string()).or_insert(false);
        }
    }

    /// A completion arrived; unknown or already completed ids are ignored.
    pub(super) fn complete(&self, id: &str) {
        let known = self
            .state
            .lock()
            .ok()
            .and_then(|mut s| s.get_mut(id).map(|done| std::mem::replace(done, true)));
        match known {
            Some(false) => {
                tracing::info!(elicitation_id = id, "URL elicitation complete");
                self.changed.send_modify(|n| *n += 1);
            }
            Some(true) => tracing::debug!(elicitation_id = id, "completion repeated; ignored"),
            None => tracing::debug!(elicitation_id = id, "completion for an unknown id; ignored"),
        }
    }

    fn all_done(&self, ids: &[String]) -> bool {
        self.state
            .lock()
            .map(|s| ids.iter().all(|id| s.get(id).copied().unwrap_or(false)))
            .unwrap_or(false)
    }

    /// Wait until every id completed.
    pub(super) async fn wait_all(&self, ids: &[String]) {
        let mut rx = self.changed.subscribe();
        while !self.all_done(ids) {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }

    /// Stop tracking ids.
    pub(super) fn forget(&self, ids: &[String]) {
        if let Ok(mut s) = self.state.lock() {
            for id in ids {
                s.remove(id);
            }
        }
    }
}
