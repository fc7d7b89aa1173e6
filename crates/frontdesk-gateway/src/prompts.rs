//! The upstream's prompts, kept current: served through the server core's
//! [`PromptForward`] (so the list can change after the gateway's server is
//! built), read again when the upstream says they changed
//! (`notifications/prompts/list_changed`, see `listing`), and the clients
//! in front told when the list read differs.

use std::collections::HashMap;
use std::sync::Arc;

use frontdesk::client::{Client, ClientError};
use frontdesk::server::prompt::{PromptDef, PromptForward};
use frontdesk::wire::Prompt;

use crate::Shared;

/// The prompts served, as listed (scrubbed when scrubbing is on), and the
/// definition that forwards each.
#[derive(Default)]
pub(crate) struct Prompts {
    listing: Vec<Prompt>,
    defs: HashMap<String, Arc<PromptDef>>,
}

/// The server core's view of the upstream's prompts.
pub(crate) struct Forward(pub(crate) Arc<Shared>);

impl PromptForward for Forward {
    fn listing(&self) -> Vec<Prompt> {
        self.0
            .prompts
            .read()
            .map(|p| p.listing.clone())
            .unwrap_or_default()
    }

    fn prompt(&self, name: &str) -> Option<Arc<PromptDef>> {
        self.0
            .prompts
            .read()
            .ok()
            .and_then(|p| p.defs.get(name).cloned())
    }
}

/// The upstream's prompts, every page.
pub(crate) async fn read(upstream: &Client) -> Result<Vec<Prompt>, ClientError> {
    crate::surface::list(upstream, "prompts/list", "prompts").await
}

/// Serve `listing`; `true` when it differs from the one served before (the
/// clients in front are then told, if a server was given to tell them).
pub(crate) fn set(shared: &Arc<Shared>, listing: Vec<Prompt>) -> bool {
    let scrubbing = shared.relay.checks.scrub;
    let clean = |text: &str| crate::scrub::clean(text, scrubbing);
    let listing: Vec<Prompt> = listing
        .into_iter()
        .map(|p| {
            if scrubbing {
                crate::scrub_listed(p, "prompt")
            } else {
                p
            }
        })
        .collect();
    let defs = listing
        .iter()
        .map(|p| {
            let def = crate::surface::prompt_def(shared, p, &clean);
            (p.name.clone(), Arc::new(def))
        })
        .collect();
    let changed = match shared.prompts.write() {
        Ok(mut prompts) => {
            let changed = prompts.listing != listing;
            *prompts = Prompts { listing, defs };
            changed
        }
        Err(_) => false,
    };
    if changed && let Some(server) = shared.announce.read().ok().and_then(|s| s.clone()) {
        server.notify_prompts_changed();
    }
    changed
}
