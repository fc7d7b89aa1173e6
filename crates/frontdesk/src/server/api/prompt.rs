//! Prompts: `prompts/list` and `prompts/get`, with the same [`ToolContext`] as
//! tools, so a prompt can ask questions too; their arguments can be
//! completed (`completion/complete`).

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{
    ContentBlock, GetPromptResult, Prompt, PromptArgument as WirePromptArgument, PromptMessage,
    Role,
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
}

impl PromptOutput {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
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

    /// The `GetPromptResult` (without the revision's decorations).
    pub(crate) fn into_result(self) -> GetPromptResult {
        GetPromptResult {
            result_type: None,
            description: self.description,
            messages: self.messages,
            meta: None,
            extra: Map::new(),
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
