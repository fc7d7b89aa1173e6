//! Telling clients that something changed: the tool, prompt or resource
//! lists, or one resource. The server publishes a [`Change`]; each revision
//! has its own subscribers: a 2025-11-25 session gets the list changes and
//! the updates of the resources it `resources/subscribe`d to, on its
//! unsolicited channel (the HTTP GET stream); a 2026-07-28
//! `subscriptions/listen` stream gets exactly what its filter asked for.
//! What each subscribes to is bounded ([`crate::server::engine::subscribed`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use frontdesk_wire::{
    Meta, MetaParams, RequestId, ResourceUpdatedNotificationParams, SubscriptionFilter, method,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::server::api::config::ServerConfig;
use crate::server::api::context::Change;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::inner::typed_notification;
use crate::server::engine::session::Session;
use crate::server::engine::subscribed::{Charge, Ledger, Refused};

impl Change {
    /// Whether a listen stream with `filter` asked for this.
    fn wanted_by(&self, filter: &SubscriptionFilter) -> bool {
        match self {
            Self::ToolsListChanged => filter.tools_list_changed == Some(true),
            Self::PromptsListChanged => filter.prompts_list_changed == Some(true),
            Self::ResourcesListChanged => filter.resources_list_changed == Some(true),
            Self::ResourceUpdated(uri) => filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.iter().any(|u| u == uri)),
        }
    }

    /// The notification, its `_meta` tagged with `subscription` (2026-07-28
    /// listen streams) when given.
    pub(crate) fn notification(&self, subscription: Option<&RequestId>) -> Option<Value> {
        let meta = subscription.map(|id| Meta::new().with_subscription_id(id));
        match self {
            Self::ResourceUpdated(uri) => {
                let mut params = ResourceUpdatedNotificationParams::new(uri.clone());
                params.meta = meta;
                typed_notification(method::NOTIFICATION_RESOURCES_UPDATED, &params)
            }
            list => {
                let name = match list {
                    Self::ToolsListChanged => method::NOTIFICATION_TOOLS_LIST_CHANGED,
                    Self::PromptsListChanged => method::NOTIFICATION_PROMPTS_LIST_CHANGED,
                    _ => method::NOTIFICATION_RESOURCES_LIST_CHANGED,
                };
                let params = MetaParams {
                    meta,
                    ..MetaParams::default()
                };
                typed_notification(name, &params)
            }
        }
    }
}

/// One 2026-07-28 listen stream.
struct Listener {
    filter: SubscriptionFilter,
    tx: mpsc::UnboundedSender<Change>,
}

/// Everyone to tell about changes.
pub(crate) struct Subscribers {
    /// Every 2025-11-25 session since the last prune; each keeps the
    /// resources it subscribed to itself, so they go when it does.
    sessions: Mutex<HashMap<String, Weak<Session>>>,
    listeners: Mutex<HashMap<u64, Listener>>,
    next_listener: AtomicU64,
    ledger: Arc<Ledger>,
}

/// Keeps a listen stream registered and its subscriptions counted; dropping
/// it unregisters.
pub(crate) struct ListenGuard {
    subscribers: Arc<Subscribers>,
    id: u64,
    _charge: Charge,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        if let Ok(mut l) = self.subscribers.listeners.lock() {
            l.remove(&self.id);
        }
    }
}

impl Subscribers {
    pub(crate) fn new(config: &ServerConfig) -> Self {
        Self {
            sessions: Mutex::new(HashMap::new()),
            listeners: Mutex::new(HashMap::new()),
            next_listener: AtomicU64::new(0),
            ledger: Ledger::new(config),
        }
    }

    /// Start telling `session` (after its `initialize`).
    pub(crate) fn attach(&self, session: &Arc<Session>) {
        if let Ok(mut s) = self.sessions.lock() {
            s.retain(|_, weak| weak.strong_count() > 0);
            s.insert(session.id().to_string(), Arc::downgrade(session));
        }
    }

    /// `resources/subscribe` (`subscribe`) or `resources/unsubscribe`, by
    /// `client` (the quota key the subscription is charged to). Refused
    /// over a bound.
    pub(crate) fn set_subscribed(
        &self,
        session: &Arc<Session>,
        client: &str,
        uri: &str,
        subscribe: bool,
    ) -> Result<(), Refused> {
        if let Ok(mut s) = self.sessions.lock() {
            s.entry(session.id().to_string())
                .or_insert_with(|| Arc::downgrade(session));
        }
        let mut subscriptions = session.subscriptions();
        if !subscribe {
            subscriptions.unsubscribe(uri);
            return Ok(());
        }
        if session.is_closed() {
            // Nothing would be told, and nothing would give it back.
            return Ok(());
        }
        subscriptions.subscribe(&self.ledger, client, uri)
    }

    /// Register a listen stream of `client` with the (honoured) `filter`;
    /// refused when it subscribes to more resources than a bound allows.
    pub(crate) fn listen(
        self: &Arc<Self>,
        filter: SubscriptionFilter,
        client: &str,
    ) -> Result<(ListenGuard, mpsc::UnboundedReceiver<Change>), Refused> {
        let resources = filter.resource_subscriptions.as_ref().map_or(0, Vec::len);
        let charge = self.ledger.reserve(client, resources)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let id = self.next_listener.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut l) = self.listeners.lock() {
            l.insert(id, Listener { filter, tx });
        }
        Ok((
            ListenGuard {
                subscribers: Arc::clone(self),
                id,
                _charge: charge,
            },
            rx,
        ))
    }

    /// Tell everyone who asked about `change`.
    pub(crate) fn publish(&self, change: &Change) {
        if let Ok(mut s) = self.sessions.lock() {
            let untagged = change.notification(None);
            s.retain(|_, weak| {
                let Some(session) = weak.upgrade().filter(|s| !s.is_closed()) else {
                    return false;
                };
                let wanted = match change {
                    Change::ResourceUpdated(uri) => session.subscriptions().contains(uri),
                    _ => true,
                };
                if wanted && let Some(m) = &untagged {
                    session.push_unsolicited(m.clone());
                }
                true
            });
        }
        if let Ok(l) = self.listeners.lock() {
            for listener in l.values().filter(|l| change.wanted_by(&l.filter)) {
                let _ = listener.tx.send(change.clone());
            }
        }
    }
}

/// Announce `change` to every client listening for it; a list change only
/// when the server declared `listChanged`.
pub(crate) fn publish(server: &ServerInner, change: &Change) {
    let is_list = !matches!(change, Change::ResourceUpdated(_));
    if is_list && !server.list_changed {
        tracing::debug!(
            ?change,
            "list change not announced (listChanged not declared)"
        );
        return;
    }
    tracing::debug!(?change, "publishing a change");
    server.subscribers.publish(change);
}
