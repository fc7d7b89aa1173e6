//! The upstream's resources and resource templates, kept current as its
//! prompts are (see `prompts`): served through the server core's
//! [`ResourceForward`], read again when the upstream says they changed
//! (`notifications/resources/list_changed`, see `listing`), and the
//! clients in front told when what was read differs.

use std::collections::HashMap;
use std::sync::Arc;

use frontdesk::client::{Client, ClientError};
use frontdesk::server::resource::{ResourceDef, ResourceForward, ResourceTemplateDef};
use frontdesk::wire::{Resource, ResourceTemplate};

use crate::Shared;

/// The upstream's resources and templates as listed (scrubbed when
/// scrubbing is on), and the definition that forwards each.
#[derive(Default)]
pub(crate) struct Resources {
    listing: Vec<Resource>,
    template_listing: Vec<ResourceTemplate>,
    defs: HashMap<String, Arc<ResourceDef>>,
    templates: Vec<Arc<ResourceTemplateDef>>,
}

/// What the upstream lists: its resources and its templates.
pub(crate) type Listed = (Vec<Resource>, Vec<ResourceTemplate>);

/// The server core's view of the upstream's resources.
pub(crate) struct Forward(pub(crate) Arc<Shared>);

impl Forward {
    fn read<T>(&self, f: impl FnOnce(&Resources) -> T) -> Option<T> {
        self.0.resources.read().ok().map(|r| f(&r))
    }
}

impl ResourceForward for Forward {
    fn listing(&self) -> Vec<Resource> {
        self.read(|r| r.listing.clone()).unwrap_or_default()
    }

    fn template_listing(&self) -> Vec<ResourceTemplate> {
        self.read(|r| r.template_listing.clone())
            .unwrap_or_default()
    }

    fn resource(&self, uri: &str) -> Option<Arc<ResourceDef>> {
        self.read(|r| r.defs.get(uri).cloned()).flatten()
    }

    fn templates(&self) -> Vec<Arc<ResourceTemplateDef>> {
        self.read(|r| r.templates.clone()).unwrap_or_default()
    }
}

/// The upstream's resources and templates, every page of each.
pub(crate) async fn read(upstream: &Client) -> Result<Listed, ClientError> {
    let resources = crate::surface::list(upstream, "resources/list", "resources").await?;
    let templates =
        crate::surface::list(upstream, "resources/templates/list", "resourceTemplates").await?;
    Ok((resources, templates))
}

/// Serve what the upstream listed; `true` when it differs from what was
/// served before (the clients in front are then told, if a server was
/// given to tell them). A template the gateway cannot serve (its URI
/// template does not parse) is left out, logged.
pub(crate) fn set(shared: &Arc<Shared>, (listing, template_listing): Listed) -> bool {
    let scrubbing = shared.relay.checks.scrub;
    let clean = |text: &str| crate::scrub::clean(text, scrubbing);
    let scrubbed = |item| {
        if scrubbing {
            crate::scrub_listed(item, "resource")
        } else {
            item
        }
    };
    let listing: Vec<Resource> = listing.into_iter().map(scrubbed).collect();
    let defs = listing
        .iter()
        .map(|r| {
            let def = crate::surface::resource_def(shared, r, &clean);
            (r.uri.clone(), Arc::new(def))
        })
        .collect();
    let mut served = Vec::new();
    let mut templates = Vec::new();
    for template in template_listing {
        let template = if scrubbing {
            crate::scrub_listed(template, "resource template")
        } else {
            template
        };
        match crate::surface::template_def(shared, &template, &clean) {
            Some(def) => {
                templates.push(Arc::new(def));
                served.push(template);
            }
            None => tracing::warn!(
                template = %clean(&template.uri_template),
                "an upstream resource template this gateway cannot serve; left out"
            ),
        }
    }
    let changed = match shared.resources.write() {
        Ok(mut resources) => {
            let changed = resources.listing != listing || resources.template_listing != served;
            *resources = Resources {
                listing,
                template_listing: served,
                defs,
                templates,
            };
            changed
        }
        Err(_) => false,
    };
    if changed && let Some(server) = shared.announce.read().ok().and_then(|s| s.clone()) {
        server.notify_resources_changed();
    }
    changed
}
