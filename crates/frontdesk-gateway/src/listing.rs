//! The upstream's tool, prompt and resource listings kept current: when
//! the upstream says one changed (`notifications/tools/list_changed`,
//! `…/prompts/list_changed`, `…/resources/list_changed`), each is read
//! again, and each that differs is told to the clients in front (the same notification
//! from the gateway's server, through
//! [`Gateway::notify_through`](crate::Gateway::notify_through)). A stdio
//! server started again after it ended is read again the same way. The
//! notification is heard on every connection to the upstream (see
//! [`hooked`]); the tools are read again on the attached one.
//!
//! Rereads are bounded whatever the upstream sends: one runs at a time and
//! at most one more waits, which reads whatever changed meanwhile.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use frontdesk::client::{Client, ClientConfig};
use frontdesk::wire::Tool;

use crate::{Shared, Tools, scrub_tool};

/// `config` with the upstream's `notifications/tools/list_changed` making
/// the gateway read the tools again, and its
/// `notifications/resources/updated` told to the gateway's subscribers (a
/// hook already set still runs). Every
/// connection to the upstream is connected with it, the attached one
/// ([`Gateway::upstream_config`](crate::Gateway::upstream_config)) and each
/// lane ([`Lane::config`](crate::Lane::config)): a change may be told on
/// whichever connection the call that made it runs on.
pub(crate) fn hooked(shared: Weak<Shared>, mut config: ClientConfig) -> ClientConfig {
    let theirs = config.on_notification.take();
    config.on_notification = Some(Arc::new(move |n| {
        if [
            frontdesk::wire::method::NOTIFICATION_TOOLS_LIST_CHANGED,
            frontdesk::wire::method::NOTIFICATION_PROMPTS_LIST_CHANGED,
            frontdesk::wire::method::NOTIFICATION_RESOURCES_LIST_CHANGED,
        ]
        .contains(&n.method.as_str())
        {
            changed(&shared);
        } else if n.method == frontdesk::wire::method::NOTIFICATION_RESOURCES_UPDATED {
            crate::subscriptions::updated(&shared, n);
        }
        if let Some(hook) = &theirs {
            hook(n);
        }
    }));
    config
}

/// The upstream says a listing changed: read them all again (in a task).
pub(crate) fn changed(shared: &Weak<Shared>) {
    let Some(shared) = shared.upgrade() else {
        return;
    };
    // One reread waits at most: it will see this change too.
    if shared.reread_pending.swap(true, Ordering::SeqCst) {
        return;
    }
    tokio::spawn(async move {
        let _one_at_a_time = shared.reread.lock().await;
        shared.reread_pending.store(false, Ordering::SeqCst);
        let Some(upstream) = shared.upstream() else {
            return;
        };
        match read(&shared, &upstream).await {
            Ok(listing) => {
                if set(&shared, listing) {
                    tracing::info!("the upstream's tools changed; clients told");
                }
            }
            Err(e) => tracing::warn!(error = %e, "the upstream's tools could not be read again"),
        }
        let caps = upstream.server_capabilities().unwrap_or_default();
        if caps.resources.is_some() {
            match crate::resources::read(&upstream).await {
                Ok(listed) => {
                    if crate::resources::set(&shared, listed) {
                        tracing::info!("the upstream's resources changed; clients told");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the upstream's resources could not be read again");
                }
            }
        }
        if caps.prompts.is_some() {
            match crate::prompts::read(&upstream).await {
                Ok(listing) => {
                    if crate::prompts::set(&shared, listing) {
                        tracing::info!("the upstream's prompts changed; clients told");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the upstream's prompts could not be read again");
                }
            }
        }
    });
}

/// The upstream's tools, scrubbed when scrubbing is on; none from an
/// upstream that did not declare the `tools` capability (a server of
/// resources or prompts only answers `tools/list` with `-32601`).
pub(crate) async fn read(
    shared: &Shared,
    upstream: &Client,
) -> Result<Vec<Tool>, frontdesk::client::ClientError> {
    let declared = upstream
        .server_capabilities()
        .is_some_and(|caps| caps.tools.is_some());
    if !declared {
        return Ok(Vec::new());
    }
    let scrubbing = shared.relay.checks.scrub;
    Ok(upstream
        .list_tools()
        .await?
        .into_iter()
        .map(|tool| if scrubbing { scrub_tool(tool) } else { tool })
        .collect())
}

/// Serve `listing`; `true` when it differs from the one served before (the
/// clients in front are then told, if a server was given to tell them).
pub(crate) fn set(shared: &Arc<Shared>, listing: Vec<Tool>) -> bool {
    let defs: HashMap<_, _> = listing
        .iter()
        .map(|t| (t.name.clone(), Arc::new(crate::forwarding_tool(shared, t))))
        .collect();
    let changed = match shared.tools.write() {
        Ok(mut tools) => {
            let changed = tools.listing != listing;
            *tools = Tools { listing, defs };
            changed
        }
        Err(_) => false,
    };
    if changed && let Some(server) = shared.announce.read().ok().and_then(|s| s.clone()) {
        server.notify_tools_changed();
    }
    changed
}
