//! Resource subscriptions through the gateway. The gateway's server keeps
//! its clients' subscriptions (bounded as `frontdesk serve`'s are); the
//! first time a client subscribes to a URI, the gateway subscribes to it
//! on the attached connection of a 2025-11-25 upstream that offers
//! subscriptions (`resources/subscribe`); each
//! `notifications/resources/updated` the upstream sends is told to the
//! gateway's clients subscribed to that URI (and to nobody else).
//!
//! A 2026-07-28 upstream tells its list changes and resource updates on a
//! `subscriptions/listen` stream: the gateway keeps one open on the
//! attached connection ([`relisten`]), asking for the list changes the
//! upstream announces and the updates of every URI its clients subscribed
//! to; a new URI opens the stream again with it, and a stream the upstream
//! closes is opened again (after a pause that grows while it keeps
//! failing). What arrives there is handled as a 2025-11-25 upstream's
//! notifications are (`listing::hooked`).
//!
//! The gateway does not unsubscribe upstream when its last client does:
//! an update nobody wants is dropped by the gateway's server. What it
//! subscribed to upstream is bounded ([`MOST`]); past it, a new URI is not
//! subscribed upstream (logged).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use frontdesk::client::{Client, ClientError};
use frontdesk::wire::{JsonRpcNotification, Revision, SubscriptionFilter, method};
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
/// the one before was subscribed to; on 2026-07-28, open its listen
/// stream.
pub(crate) fn renew(shared: &Weak<Shared>) {
    let Some(strong) = shared.upgrade() else {
        return;
    };
    let uris = strong.subscribed.take();
    let modern = strong
        .upstream()
        .is_some_and(|u| u.revision() == Revision::V2026_07_28);
    if modern {
        // One stream asks for them all.
        for uri in &uris {
            strong.subscribed.add(uri);
        }
    } else {
        for uri in uris {
            subscribed(shared, &uri);
        }
    }
    relisten(&strong);
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
    if !offers || !shared.subscribed.add(uri) {
        return;
    }
    if upstream.revision() == Revision::V2026_07_28 {
        relisten(&shared);
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

/// What a listen stream on `upstream` asks for: the list changes it
/// announces, the updates of every URI subscribed to; `None` when there
/// is nothing to ask for.
fn filter(shared: &Shared, upstream: &Client) -> Option<SubscriptionFilter> {
    let caps = upstream.server_capabilities().unwrap_or_default();
    let announced = |list: Option<bool>| (list == Some(true)).then_some(true);
    let mut filter = SubscriptionFilter {
        tools_list_changed: announced(caps.tools.and_then(|t| t.list_changed)),
        prompts_list_changed: announced(caps.prompts.and_then(|p| p.list_changed)),
        resources_list_changed: announced(caps.resources.as_ref().and_then(|r| r.list_changed)),
        ..SubscriptionFilter::default()
    };
    if caps.resources.is_some_and(|r| r.subscribe == Some(true)) {
        let mut uris: Vec<String> = shared
            .subscribed
            .uris
            .lock()
            .map(|u| u.iter().cloned().collect())
            .unwrap_or_default();
        uris.sort();
        if !uris.is_empty() {
            filter.resource_subscriptions = Some(uris);
        }
    }
    let wanted = filter.tools_list_changed.is_some()
        || filter.prompts_list_changed.is_some()
        || filter.resources_list_changed.is_some()
        || filter.resource_subscriptions.is_some();
    wanted.then_some(filter)
}

/// (Re)open the listen stream on a 2026-07-28 upstream with what there is
/// to ask for now (the one open before is closed); nothing on 2025-11-25.
pub(crate) fn relisten(shared: &Arc<Shared>) {
    let Some(upstream) = shared.upstream() else {
        return;
    };
    let Ok(mut slot) = shared.listener.lock() else {
        return;
    };
    if let Some(old) = slot.take() {
        old.abort();
    }
    if upstream.revision() != Revision::V2026_07_28 {
        return;
    }
    let Some(filter) = filter(shared, &upstream) else {
        return;
    };
    let task = tokio::spawn(async move {
        let mut pause = Duration::from_millis(500);
        loop {
            match upstream.listen(filter.clone()).await {
                Ok(()) => {
                    tracing::info!("the upstream closed its listen stream; opening it again");
                    pause = Duration::from_millis(500);
                }
                Err(ClientError::Closed) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "the upstream's listen stream failed; opening it again");
                    pause = (pause * 2).min(Duration::from_secs(30));
                }
            }
            tokio::time::sleep(pause).await;
        }
    });
    *slot = Some(task.abort_handle());
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
