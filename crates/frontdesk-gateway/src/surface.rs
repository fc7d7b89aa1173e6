//! The rest of the upstream's surface: its prompts, resources and resource
//! templates, read when the upstream is attached (every page) and offered
//! as the gateway's own, each `prompts/get`, `resources/read` and
//! `completion/complete` forwarded to the upstream and its result passed on
//! in the revision of the client in front. Titles and descriptions lose
//! control characters on the way (when scrubbing is on); contents pass as
//! they are, as tool results do.
//!
//! A `prompts/get` or `resources/read` runs upstream as a held call, as a
//! tool call does (`held::drive`): a question the upstream asks meanwhile
//! reaches the client in front (a live request on 2025-11-25, an
//! `input_required` round on 2026-07-28), checked on the way, and its
//! answer goes back.

use std::sync::Arc;

use frontdesk::BoxFuture;
use frontdesk::client::{Client, ClientError};
use frontdesk::server::ServerBuilder;
use frontdesk::server::completion::CompletionRequest;
use frontdesk::server::prompt::{PromptDef, PromptOutput};
use frontdesk::server::resource::{ResourceDef, ResourceOutput, ResourceTemplateDef};
use frontdesk::server::{ToolContext, ToolError};
use frontdesk::wire::{Completion, Prompt, Resource, ResourceTemplate};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::held::{Finished, Upstream, drive};
use crate::{Shared, upstream_error};

/// Most pages of one listing read from the upstream.
const MAX_PAGES: usize = 100;

/// What the upstream offers besides tools, as listed.
#[derive(Default)]
pub(crate) struct Surface {
    /// `None` when the upstream declares no prompts.
    prompts: Option<Vec<Prompt>>,
    /// `None` when the upstream declares no resources.
    resources: Option<crate::resources::Listed>,
}

impl Surface {
    /// Read the upstream's prompts, resources and templates (those its
    /// capabilities declare).
    pub(crate) async fn read(upstream: &Client) -> Result<Self, ClientError> {
        let caps = upstream.server_capabilities().unwrap_or_default();
        let mut surface = Self::default();
        if caps.prompts.is_some() {
            surface.prompts = Some(crate::prompts::read(upstream).await?);
        }
        if caps.resources.is_some() {
            surface.resources = Some(crate::resources::read(upstream).await?);
        }
        Ok(surface)
    }

    /// How many prompts, resources and templates there are.
    pub(crate) fn counts(&self) -> (usize, usize, usize) {
        (
            self.prompts.as_ref().map_or(0, Vec::len),
            self.resources.as_ref().map_or(0, |(r, _)| r.len()),
            self.resources.as_ref().map_or(0, |(_, t)| t.len()),
        )
    }

    /// Offer them on `builder`, each forwarding to the attached upstream.
    pub(crate) fn offer(self, mut builder: ServerBuilder, shared: &Arc<Shared>) -> ServerBuilder {
        if let Some(prompts) = self.prompts {
            crate::prompts::set(shared, prompts);
            builder =
                builder.forward_prompts(Arc::new(crate::prompts::Forward(Arc::clone(shared))));
        }
        if let Some(resources) = self.resources {
            crate::resources::set(shared, resources);
            builder =
                builder.forward_resources(Arc::new(crate::resources::Forward(Arc::clone(shared))));
        }
        builder
    }
}

/// Every item of a paginated listing (`field` of each page), at most
/// [`MAX_PAGES`] pages; an item that does not read as `T` is left out.
pub(crate) async fn list<T: DeserializeOwned>(
    upstream: &Client,
    method: &str,
    field: &str,
) -> Result<Vec<T>, ClientError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut params = Map::new();
        if let Some(c) = cursor.take() {
            params.insert("cursor".into(), Value::String(c));
        }
        let page = upstream.request(method, params).await?;
        if let Some(Value::Array(found)) = page.get(field) {
            for item in found {
                match T::deserialize(item) {
                    Ok(item) => items.push(item),
                    Err(e) => {
                        tracing::warn!(method, error = %e, "an upstream listing entry left out")
                    }
                }
            }
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(items),
        }
    }
    tracing::warn!(
        method,
        pages = MAX_PAGES,
        "the upstream's listing has more pages; the rest left out"
    );
    Ok(items)
}

/// The attached upstream, or the error a request gets without one.
fn attached(shared: &Shared) -> Result<Client, ToolError> {
    shared
        .upstream()
        .ok_or_else(|| ToolError::internal("no upstream server is attached"))
}

/// The definition that forwards `prompt`'s `prompts/get` (and the
/// completion of its arguments) upstream.
pub(crate) fn prompt_def(
    shared: &Arc<Shared>,
    prompt: &Prompt,
    clean: &dyn Fn(&str) -> String,
) -> PromptDef {
    let name = prompt.name.clone();
    let getter = Arc::clone(shared);
    let mut def = PromptDef::new(
        name.clone(),
        clean(prompt.description.as_deref().unwrap_or("")),
        move |cx, arguments| {
            let shared = Arc::clone(&getter);
            let name = name.clone();
            async move {
                let request = Upstream::Prompt { name, arguments };
                let Finished::Prompt(got) = drive(shared, &cx, request).await? else {
                    return Err(ToolError::internal("the upstream answered something else"));
                };
                Ok(PromptOutput::from_result(got))
            }
        },
    );
    let mut arguments = Vec::new();
    for a in prompt.arguments.iter().flatten() {
        def = def.argument(
            a.name.clone(),
            clean(a.description.as_deref().unwrap_or("")),
            a.required.unwrap_or(false),
        );
        arguments.push(a.name.clone());
    }
    let reference = json!({"type": "ref/prompt", "name": prompt.name});
    def.completion(completer(shared, reference, arguments))
}

/// The definition that forwards `resources/read` of `resource` upstream.
pub(crate) fn resource_def(
    shared: &Arc<Shared>,
    resource: &Resource,
    clean: &dyn Fn(&str) -> String,
) -> ResourceDef {
    let reader = Arc::clone(shared);
    let mut def = ResourceDef::new(
        resource.uri.clone(),
        resource.name.clone(),
        move |cx, request| {
            let shared = Arc::clone(&reader);
            async move { read(shared, &cx, request.uri()).await }
        },
    );
    if let Some(title) = &resource.title {
        def = def.title(clean(title));
    }
    if let Some(description) = &resource.description {
        def = def.description(clean(description));
    }
    if let Some(mime) = &resource.mime_type {
        def = def.mime_type(mime.clone());
    }
    def
}

/// The definition that forwards `resources/read` of a URI of `template`
/// (and the completion of its variables) upstream; `None` when its URI
/// template does not parse.
pub(crate) fn template_def(
    shared: &Arc<Shared>,
    template: &ResourceTemplate,
    clean: &dyn Fn(&str) -> String,
) -> Option<ResourceTemplateDef> {
    let reader = Arc::clone(shared);
    let mut def = ResourceTemplateDef::new(
        &template.uri_template,
        template.name.clone(),
        move |cx, request| {
            let shared = Arc::clone(&reader);
            async move { read(shared, &cx, request.uri()).await }
        },
    )
    .ok()?;
    if let Some(title) = &template.title {
        def = def.title(clean(title));
    }
    if let Some(description) = &template.description {
        def = def.description(clean(description));
    }
    if let Some(mime) = &template.mime_type {
        def = def.mime_type(mime.clone());
    }
    let reference = json!({"type": "ref/resource", "uri": template.uri_template});
    Some(def.completion(completer(shared, reference, Vec::new())))
}

/// `resources/read` of `uri` upstream for `cx`'s client, its contents as
/// they came.
async fn read(
    shared: Arc<Shared>,
    cx: &ToolContext,
    uri: &str,
) -> Result<ResourceOutput, ToolError> {
    let request = Upstream::Resource {
        uri: uri.to_owned(),
    };
    let Finished::Resource(read) = drive(shared, cx, request).await? else {
        return Err(ToolError::internal("the upstream answered something else"));
    };
    // The upstream knows for whom and how long its contents hold (a
    // 2025-11-25 upstream does not say: the gateway's own hints then).
    Ok(ResourceOutput::from_result(read))
}

/// A completion handler that asks the upstream (`completion/complete` with
/// `reference`), with the context of the `arguments` the client sent.
fn completer(
    shared: &Arc<Shared>,
    reference: Value,
    arguments: Vec<String>,
) -> impl Fn(CompletionRequest) -> BoxFuture<'static, Result<Completion, ToolError>>
+ Send
+ Sync
+ 'static {
    let shared = Arc::clone(shared);
    move |request: CompletionRequest| {
        let shared = Arc::clone(&shared);
        let reference = reference.clone();
        let context: Map<String, Value> = arguments
            .iter()
            .filter_map(|a| Some((a.clone(), Value::String(request.context(a)?.to_owned()))))
            .collect();
        Box::pin(async move {
            let upstream = attached(&shared)?;
            let mut params = Map::new();
            params.insert("ref".into(), reference);
            params.insert(
                "argument".into(),
                json!({"name": request.argument(), "value": request.value()}),
            );
            if !context.is_empty() {
                params.insert("context".into(), json!({"arguments": context}));
            }
            let result = upstream
                .request("completion/complete", params)
                .await
                .map_err(upstream_error)?;
            result
                .get("completion")
                .cloned()
                .and_then(|c| serde_json::from_value::<Completion>(c).ok())
                .ok_or_else(|| ToolError::internal("the upstream's completion did not read"))
        })
    }
}
