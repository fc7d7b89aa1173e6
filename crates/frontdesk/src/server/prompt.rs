//! Prompts: `prompts/list` and `prompts/get`, with the same [`ToolContext`] as
//! tools, so a prompt can ask questions too.

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::context::ToolContext;
use super::tool::ToolError;
use crate::store::BoxFuture;

/// What a prompt returns: an optional description and its messages.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptOutput {
    description: Option<String>,
    messages: Vec<Value>,
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
    pub fn text(mut self, role: &str, text: impl Into<String>) -> Self {
        self.messages.push(json!({
            "role": role,
            "content": {"type": "text", "text": text.into()},
        }));
        self
    }

    pub(crate) fn to_result(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(d) = &self.description {
            m.insert("description".into(), Value::from(d.clone()));
        }
        m.insert("messages".into(), Value::Array(self.messages.clone()));
        m
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
        }
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

    pub(crate) fn to_listing(&self) -> Value {
        let args: Vec<Value> = self
            .arguments
            .iter()
            .map(|a| {
                let mut m = Map::new();
                m.insert("name".into(), Value::from(a.name.clone()));
                if let Some(d) = &a.description {
                    m.insert("description".into(), Value::from(d.clone()));
                }
                m.insert("required".into(), Value::Bool(a.required));
                Value::Object(m)
            })
            .collect();
        json!({"name": self.name, "description": self.description, "arguments": args})
    }
}
