//! Resource subscriptions through the gateway. The gateway's server keeps
//! its clients' subscriptions (bounded as `frontdesk serve`'s are); the
//! first time a client subscribes to a URI, the gateway subscribes to it
//! on the attached connection of a 2025-11-25 upstream that offers
//! subscriptions (`resources/subscribe`); each
//! `notifications/resources/updated` the upstream sends is told to the
//! gateway's clients subscribed to that URI (and to nobody else).
//!
//! The gateway does not unsubscribe upstream when its last client does:
//! an update nobody wants is dropped by the gateway's server. What it
//! subscribed to upstream is bounded ([`MOST`]); past it, a new URI is not
//! subscribed upstream (logged). A 2026-07-28 upstream tells updates on
//! a `subscriptions/listen` stream, which the gateway does not open.

use std::collections::HashSet;
use std::sync::{Mutex, Weak};

use frontdesk::wire::{JsonRpcNotification, Revision, method};
use serde_json::{Map, Value};

use crate::Shared;

/// Most URIs the gateway subscribes to upstream.
pub(crate) const MOST: usize = 10_000;

/// The URIs subscribed to upstream.
#[derive(Default)]
pub(crate) struct Subscribed {
    uris: Mutex<HashSet<String>>,
}

impl Subscribed {
    /// Note `uri`; `true` when it is new and within the bound.
    fn add(&self, uri: &str) -> bool {
        let Ok(mut uris) = self.uris.lock() else {
            return false;
        };
        if uris.contains(uri) {
            return false;
        }
        if uris.len() >= MOST {
            tracing::warn!(
                most = MOST,
                "the gateway subscribes to no more resources upstream"
            );
            return false;
        }
        uris.insert(uri.to_owned())
    }

    /// Every URI, forgotten.
    fn take(&self) -> HashSet<String> {
        self.uris
            .lock()
            .map(|mut uris| std::mem::take(&mut *uris))
            .unwrap_or_default()
    }
}

/// A new upstream is attached (a restarted server): subscribe it to what
/// the one before was subscribed to.
pub(crate) fn renew(shared: &Weak<Shared>) {
    let Some(strong) = shared.upgrade() else {
        return;
    };
    for uri in strong.subscribed.take() {
        subscribed(shared, &uri);
    }
}

/// A client of the gateway subscribed to `uri`: subscribe upstream, the
/// first time, if the upstream offers it (in a task: the hook must not
/// block).
pub(crate) fn subscribed(shared: &Weak<Shared>, uri: &str) {
    let Some(shared) = shared.upgrade() else {
        return;
    };
    let Some(upstream) = shared.upstream() else {
        return;
    };
    let offers = upstream
        .server_capabilities()
        .and_then(|caps| caps.resources)
        .is_some_and(|r| r.subscribe == Some(true));
    if !offers || upstream.revision() != Revision::V2025_11_25 || !shared.subscribed.add(uri) {
        return;
    }
    let uri = uri.to_owned();
    tokio::spawn(async move {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.clone()));
        match upstream.request(method::RESOURCES_SUBSCRIBE, params).await {
            Ok(_) => tracing::debug!("subscribed upstream to a resource"),
            Err(e) => {
                tracing::warn!(error = %e, "the upstream refused a resource subscription");
                if let Ok(mut uris) = shared.subscribed.uris.lock() {
                    uris.remove(&uri);
                }
            }
        }
    });
}

/// The upstream's `notifications/resources/updated`: told to the
/// gateway's clients subscribed to its URI.
pub(crate) fn updated(shared: &Weak<Shared>, notification: &JsonRpcNotification) {
    let Some(uri) = notification
        .params
        .as_ref()
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
    else {
        return;
    };
    let Some(shared) = shared.upgrade() else {
        return;
    };
    if let Some(server) = shared.announce.read().ok().and_then(|s| s.clone()) {
        server.notify_resource_updated(uri);
    }
}
