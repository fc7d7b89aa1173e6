//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable while the person types it. A handler is registered on
//! the prompt ([`PromptDef::completion`](crate::server::api::prompt::PromptDef::completion)) or
//! the template
//! ([`ResourceTemplateDef::completion`](crate::server::api::resource::ResourceTemplateDef::completion));
//! the answer is the same on both revisions. Completion never asks the
//! person anything (it must not return `input_required`).

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::Completion;
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::server::api::error::ToolError;

/// What a completion handler is asked: which argument, what the person has
/// typed so far, and the other arguments already chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    argument: String,
    value: String,
    context: Map<String, Value>,
}

impl CompletionRequest {
    /// The request for `argument`, typed so far `value`, with the other
    /// arguments' values in `context`.
    pub(crate) fn new(argument: String, value: String, context: Map<String, Value>) -> Self {
        Self {
            argument,
            value,
            context,
        }
    }

    /// The argument (or template variable) being completed.
    pub fn argument(&self) -> &str {
        &self.argument
    }

    /// What has been typed so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The value already chosen for another argument, if the client sent it.
    pub fn context(&self, argument: &str) -> Option<&str> {
        self.context.get(argument).and_then(Value::as_str)
    }
}

pub(crate) type CompletionFn = Arc<
    dyn Fn(CompletionRequest) -> BoxFuture<'static, Result<Completion, ToolError>> + Send + Sync,
>;

/// Erase a completion handler.
pub(crate) fn completer<F, Fut>(handler: F) -> CompletionFn
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion, ToolError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |request| {
        let handler = Arc::clone(&handler);
        Box::pin(async move { handler(request).await })
    })
}

/// The `candidates` that start with `typed` (ignoring ASCII case), in their
/// order, as a [`Completion`] (at most 100 values; `total` and `hasMore`
/// say how many matched).
///
/// ```
/// use frontdesk::server::completion::completions_matching;
///
/// let c = completions_matching("pa", ["paris", "lyon", "Park", "party"]);
/// assert_eq!(c.values, ["paris", "Park", "party"]);
/// ```
pub fn completions_matching<'a>(
    typed: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Completion {
    let typed = typed.to_ascii_lowercase();
    Completion::new(
        candidates
            .into_iter()
            .filter(|c| c.to_ascii_lowercase().starts_with(&typed))
            .map(str::to_string)
            .collect(),
    )
}
