//! Prompts: `prompts/list` and `prompts/get`, with the same [`ToolContext`] as
//! tools, so a prompt can ask questions too; their arguments can be
//! completed (`completion/complete`).

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{
    ContentBlock, GetPromptResult, Meta, Prompt, PromptArgument as WirePromptArgument,
    PromptMessage, Role,
};
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::server::api::completion::{CompletionFn, CompletionRequest, completer};
use crate::server::api::context::ToolContext;
use crate::server::api::error::ToolError;
use frontdesk_wire::Completion;

/// What a prompt returns: an optional description and its messages.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptOutput {
    description: Option<String>,
    messages: Vec<PromptMessage>,
    meta: Option<Meta>,
    /// Members of a result made elsewhere that this crate does not know
    /// ([`PromptOutput::from_result`]).
    extra: Map<String, Value>,
}

impl PromptOutput {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A whole result made elsewhere (a relay's upstream), sent as it is:
    /// its description, its messages with their unknown members, its
    /// `_meta` members and its own unknown members. The client's revision
    /// decorates it as it does any prompt's: a 2026-07-28 server's
    /// `resultType` is left out here and set again for a 2026-07-28
    /// client, and `_meta`'s `serverInfo` names this server (or is left
    /// out on 2025-11-25).
    ///
    /// ```
    /// use frontdesk::server::prompt::PromptOutput;
    /// use frontdesk::wire::GetPromptResult;
    ///
    /// let relayed: GetPromptResult = serde_json::from_value(serde_json::json!({
    ///     "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}, "x-tone": "warm"}],
    ///     "x-origin": "upstream",
    /// })).unwrap();
    /// let out = PromptOutput::from_result(relayed);
    /// assert_eq!(out.messages()[0].extra["x-tone"], "warm");
    /// ```
    pub fn from_result(result: GetPromptResult) -> Self {
        Self {
            description: result.description,
            messages: result.messages,
            meta: result.meta,
            extra: result.extra,
        }
    }

    /// The messages so far.
    pub fn messages(&self) -> &[PromptMessage] {
        &self.messages
    }

    /// Set the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// Append a message with one text block.
    pub fn text(self, role: Role, text: impl Into<String>) -> Self {
        self.message(role, ContentBlock::text(text))
    }

    /// Append a message with any content block (image, audio, embedded
    /// resource…).
    pub fn message(mut self, role: Role, content: ContentBlock) -> Self {
        self.messages.push(PromptMessage {
            role,
            content,
            extra: Map::new(),
        });
        self
    }

    /// Set the result's `_meta` (members of the prompt's own; a relay
    /// passes on another server's). The client's revision decorates it: on
    /// 2026-07-28 `serverInfo`, naming this server, is set over these
    /// members; on 2025-11-25 another server's `serverInfo` is left out.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The `GetPromptResult` (without the revision's decorations).
    pub(crate) fn into_result(self) -> GetPromptResult {
        GetPromptResult {
            result_type: None,
            description: self.description,
            messages: self.messages,
            meta: self.meta,
            extra: self.extra,
        }
    }
}

/// One declared prompt argument.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

pub(crate) type PromptFn = Arc<
    dyn Fn(ToolContext, Map<String, Value>) -> BoxFuture<'static, Result<PromptOutput, ToolError>>
        + Send
        + Sync,
>;

/// A prompt: name, description, arguments and handler.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) handler: PromptFn,
    pub(crate) completion: Option<CompletionFn>,
}

impl std::fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptDef")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl PromptDef {
    /// A prompt whose handler receives the `arguments` object of `prompts/get`.
    pub fn new<F, Fut>(name: impl Into<String>, description: impl Into<String>, handler: F) -> Self
    where
        F: Fn(ToolContext, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptOutput, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        Self {
            name: name.into(),
            description: description.into(),
            arguments: Vec::new(),
            handler: Arc::new(move |cx, args| {
                let handler = Arc::clone(&handler);
                Box::pin(async move { handler(cx, args).await })
            }),
            completion: None,
        }
    }

    /// Suggest values for the prompt's arguments while the person types
    /// them (`completion/complete` with `ref/prompt`). The handler learns
    /// which argument, the partial value and the arguments already chosen.
    ///
    /// ```
    /// use frontdesk::server::prompt::{PromptDef, PromptOutput};
    /// use frontdesk::server::completion::completions_matching;
    /// use frontdesk::wire::Role;
    ///
    /// let prompt = PromptDef::new("trip", "Plan a trip", |_cx, args| async move {
    ///     let city = args.get("city").and_then(|v| v.as_str()).unwrap_or("Paris").to_string();
    ///     Ok(PromptOutput::new().text(Role::User, format!("Plan three days in {city}.")))
    /// })
    /// .argument("city", "Where to", true)
    /// .completion(|req| async move {
    ///     Ok(completions_matching(req.value(), ["Paris", "Porto", "Prague"]))
    /// });
    /// # let _ = prompt;
    /// ```
    pub fn completion<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion, ToolError>> + Send + 'static,
    {
        self.completion = Some(completer(handler));
        self
    }

    /// Declare an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required,
        });
        self
    }

    pub(crate) fn to_listing(&self) -> Prompt {
        let arguments = self
            .arguments
            .iter()
            .map(|a| WirePromptArgument {
                name: a.name.clone(),
                title: None,
                description: a.description.clone(),
                required: Some(a.required),
                extra: Map::new(),
            })
            .collect();
        Prompt {
            name: self.name.clone(),
            title: None,
            description: Some(self.description.clone()),
            arguments: Some(arguments),
            icons: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Prompts a server does not define itself but serves for someone else: a
/// gateway's ([`ServerBuilder::forward_prompts`](crate::server::ServerBuilder::forward_prompts)),
/// as [`ToolForward`](crate::server::tool::ToolForward) is for tools.
///
/// The server's own prompts come first: `prompts/list` lists them, then
/// [`listing`](Self::listing) without the names the server defines; a
/// `prompts/get` (or a completion of a prompt's argument) of a name the
/// server does not define goes to [`prompt`](Self::prompt); a name it does
/// not know (`None`) gets the server's usual `-32602` "Unknown prompt".
/// Both are called for every request that needs them: answer from memory
/// (a gateway keeps the other side's list and refreshes it itself, then
/// tells clients with `Server::notify_prompts_changed`).
pub trait PromptForward: Send + Sync + 'static {
    /// The `Prompt` objects of `prompts/list`, as the other side lists them.
    fn listing(&self) -> Vec<Prompt>;
    /// The prompt called `name`, if there is one.
    fn prompt(&self, name: &str) -> Option<Arc<PromptDef>>;
}

/// The prompts of a server by name, in registration order, then the
/// forwarded ones.
#[derive(Clone, Default)]
pub(crate) struct PromptRegistry {
    prompts: indexmap::IndexMap<String, Arc<PromptDef>, crate::server::OwnKeysHasher>,
    forward: Option<Arc<dyn PromptForward>>,
}

impl std::fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptRegistry")
            .field("prompts", &self.prompts.keys().collect::<Vec<_>>())
            .field("forward", &self.forward.is_some())
            .finish()
    }
}

impl PromptRegistry {
    /// Register `prompt`; a later one with the same name replaces it.
    pub(crate) fn add(&mut self, prompt: PromptDef) {
        self.prompts.insert(prompt.name.clone(), Arc::new(prompt));
    }

    /// Serve the prompts the server does not define through `forward`.
    pub(crate) fn forward(&mut self, forward: Arc<dyn PromptForward>) {
        self.forward = Some(forward);
    }

    /// The prompt called `name`: the server's own, else the forwarded one.
    pub(crate) fn find(&self, name: &str) -> Option<Arc<PromptDef>> {
        match self.prompts.get(name) {
            Some(prompt) => Some(Arc::clone(prompt)),
            None => self.forward.as_ref().and_then(|f| f.prompt(name)),
        }
    }

    /// `prompts/list`: the server's own, then the forwarded ones it does
    /// not define.
    pub(crate) fn listing(&self) -> Vec<Prompt> {
        let mut listing: Vec<Prompt> = self.prompts.values().map(|p| p.to_listing()).collect();
        if let Some(forward) = &self.forward {
            listing.extend(
                forward
                    .listing()
                    .into_iter()
                    .filter(|p| !self.prompts.contains_key(&p.name)),
            );
        }
        listing
    }

    /// No prompts of its own and none forwarded.
    pub(crate) fn is_empty(&self) -> bool {
        self.prompts.is_empty() && self.forward.is_none()
    }

    /// Whether some prompt's arguments may be completed (a forwarder
    /// counts: its prompts may have completions).
    pub(crate) fn has_completions(&self) -> bool {
        self.forward.is_some() || self.prompts.values().any(|p| p.completion.is_some())
    }
}
