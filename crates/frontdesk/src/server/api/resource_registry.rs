//! The resources and templates a server serves: its own, in registration
//! order, then those it forwards ([`ResourceForward`]); how a URI is
//! resolved to the handler that reads it.

use std::sync::Arc;

use frontdesk_wire::{Resource, ResourceTemplate};
use serde_json::{Map, Value};

use crate::server::api::resource::{ResourceDef, ResourceFn, ResourceRequest, ResourceTemplateDef};

/// What reading a URI runs: its handler, the request, and the listed MIME
/// type for contents that name none.
#[derive(Clone)]
pub(crate) struct Read {
    pub(crate) handler: ResourceFn,
    pub(crate) request: ResourceRequest,
    pub(crate) mime_type: Option<String>,
}

/// Told the URI of each subscription a client makes (see
/// [`ServerBuilder::on_resource_subscribe`](crate::server::ServerBuilder::on_resource_subscribe)).
pub(crate) type SubscribeHook = Arc<dyn Fn(&str) + Send + Sync>;

/// Resources a server does not define itself but serves for someone else:
/// a gateway's ([`ServerBuilder::forward_resources`](crate::server::ServerBuilder::forward_resources)),
/// as [`ToolForward`](crate::server::tool::ToolForward) is for tools.
///
/// The server's own resources and templates come first: the listings list
/// them, then the forwarder's without the URIs (templates) the server
/// defines; a `resources/read` of a URI none of the server's own resources
/// or templates serves goes to [`resource`](Self::resource), then to the
/// first of [`templates`](Self::templates) that matches. All are called for
/// every request that needs them: answer from memory (a gateway keeps the
/// other side's lists and refreshes them itself, then tells clients with
/// `Server::notify_resources_changed`).
pub trait ResourceForward: Send + Sync + 'static {
    /// The `Resource` objects of `resources/list`.
    fn listing(&self) -> Vec<Resource>;
    /// The `ResourceTemplate` objects of `resources/templates/list`.
    fn template_listing(&self) -> Vec<ResourceTemplate>;
    /// The resource at exactly `uri`, if there is one.
    fn resource(&self, uri: &str) -> Option<Arc<ResourceDef>>;
    /// The templates, in the order a URI is matched against them.
    fn templates(&self) -> Vec<Arc<ResourceTemplateDef>>;
}

/// The resources and templates of a server, in registration order, then
/// the forwarded ones.
#[derive(Clone, Default)]
pub(crate) struct ResourceRegistry {
    resources: Vec<Arc<ResourceDef>>,
    templates: Vec<Arc<ResourceTemplateDef>>,
    forward: Option<Arc<dyn ResourceForward>>,
    on_subscribe: Option<SubscribeHook>,
}

impl std::fmt::Debug for ResourceRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRegistry")
            .field("resources", &self.resources)
            .field("templates", &self.templates)
            .field("forward", &self.forward.is_some())
            .field("on_subscribe", &self.on_subscribe.is_some())
            .finish()
    }
}

impl ResourceRegistry {
    pub(crate) fn on_subscribe(&mut self, hook: SubscribeHook) {
        self.on_subscribe = Some(hook);
    }

    /// A client subscribed to `uri` (accepted within the bounds).
    pub(crate) fn subscribed(&self, uri: &str) {
        if let Some(hook) = &self.on_subscribe {
            hook(uri);
        }
    }

    pub(crate) fn add(&mut self, resource: ResourceDef) {
        let resource = Arc::new(resource);
        match self
            .resources
            .iter_mut()
            .find(|r| r.uri() == resource.uri())
        {
            Some(existing) => *existing = resource,
            None => self.resources.push(resource),
        }
    }

    pub(crate) fn add_template(&mut self, template: ResourceTemplateDef) {
        let template = Arc::new(template);
        let same =
            |t: &ResourceTemplateDef| t.listing.uri_template == template.listing.uri_template;
        match self.templates.iter_mut().find(|t| same(t)) {
            Some(existing) => *existing = template,
            None => self.templates.push(template),
        }
    }

    /// Serve the resources the server does not define through `forward`.
    pub(crate) fn forward(&mut self, forward: Arc<dyn ResourceForward>) {
        self.forward = Some(forward);
    }

    /// No resources or templates of its own and none forwarded.
    pub(crate) fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty() && self.forward.is_none()
    }

    /// The resource at exactly `uri`: the server's own, else the forwarded.
    pub(crate) fn get(&self, uri: &str) -> Option<Arc<ResourceDef>> {
        match self.resources.iter().find(|r| r.uri() == uri) {
            Some(r) => Some(Arc::clone(r)),
            None => self.forward.as_ref().and_then(|f| f.resource(uri)),
        }
    }

    /// Every template, the server's own first.
    fn all_templates(&self) -> Vec<Arc<ResourceTemplateDef>> {
        let mut all = self.templates.clone();
        if let Some(forward) = &self.forward {
            all.extend(forward.templates());
        }
        all
    }

    /// The template written exactly as `uri_template`.
    pub(crate) fn template(&self, uri_template: &str) -> Option<Arc<ResourceTemplateDef>> {
        self.all_templates()
            .into_iter()
            .find(|t| t.listing.uri_template == uri_template)
    }

    /// Whether some template's variables may be completed (a forwarder
    /// counts: its templates may have completions).
    pub(crate) fn has_completions(&self) -> bool {
        self.forward.is_some() || self.templates.iter().any(|t| t.completion.is_some())
    }

    pub(crate) fn listing(&self) -> Vec<Resource> {
        let mut listing: Vec<Resource> =
            self.resources.iter().map(|r| r.resource.clone()).collect();
        if let Some(forward) = &self.forward {
            let own = |uri: &str| self.resources.iter().any(|r| r.uri() == uri);
            listing.extend(forward.listing().into_iter().filter(|r| !own(&r.uri)));
        }
        listing
    }

    pub(crate) fn template_listing(&self) -> Vec<ResourceTemplate> {
        let mut listing: Vec<ResourceTemplate> =
            self.templates.iter().map(|t| t.listing.clone()).collect();
        if let Some(forward) = &self.forward {
            let own = |u: &str| self.templates.iter().any(|t| t.listing.uri_template == u);
            listing.extend(
                forward
                    .template_listing()
                    .into_iter()
                    .filter(|t| !own(&t.uri_template)),
            );
        }
        listing
    }

    /// What reading `uri` runs: a fixed resource first, then the first
    /// template that matches.
    pub(crate) fn resolve(&self, uri: &str) -> Option<Read> {
        if let Some(r) = self.get(uri) {
            return Some(Read {
                handler: Arc::clone(&r.handler),
                request: ResourceRequest {
                    uri: uri.to_string(),
                    variables: Map::new(),
                },
                mime_type: r.resource.mime_type.clone(),
            });
        }
        self.all_templates().iter().find_map(|t| {
            let vars = t.template.matches(uri)?;
            Some(Read {
                handler: Arc::clone(&t.handler),
                request: ResourceRequest {
                    uri: uri.to_string(),
                    variables: vars
                        .into_iter()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect(),
                },
                mime_type: t.listing.mime_type.clone(),
            })
        })
    }
}
