//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable while the person types it. A handler is registered on
//! the prompt ([`PromptDef::completion`](super::PromptDef::completion)) or
//! the template
//! ([`ResourceTemplateDef::completion`](super::ResourceTemplateDef::completion));
//! the answer is the same on both revisions. Completion never asks the
//! person anything (it must not return `input_required`).

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{
    CompleteRequestParams, CompleteResult, Completion, CompletionReference, ResultType,
};
use serde_json::{Map, Value};

use super::ServerInner;
use super::error::{RpcError, ToolError};
use crate::store::BoxFuture;

/// What a completion handler is asked: which argument, what the person has
/// typed so far, and the other arguments already chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    argument: String,
    value: String,
    context: Map<String, Value>,
}

impl CompletionRequest {
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
/// use frontdesk::server::completions_matching;
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

/// Answer `completion/complete` (both revisions; the caller adds the
/// revision's decorations).
pub(crate) async fn complete(
    server: &ServerInner,
    params: CompleteRequestParams,
    revision_result_type: Option<ResultType>,
) -> Result<CompleteResult, RpcError> {
    let argument = params.argument.name;
    let (handler, known) = match &params.reference {
        CompletionReference::Prompt(r) => {
            let prompt = super::requests::find_prompt(server, &r.name)?;
            let known = prompt.arguments.iter().any(|a| a.name == argument);
            (prompt.completion.clone(), known)
        }
        CompletionReference::Resource(r) => {
            super::requests::check_uri_length(server, &r.uri)?;
            match server.resources.template(&r.uri) {
                Some(t) => (
                    t.completion.clone(),
                    t.template.variables().any(|v| v == argument),
                ),
                None if server.resources.get(&r.uri).is_some() => (None, false),
                None => {
                    return Err(RpcError::invalid_params(format!(
                        "Unknown resource template: {}",
                        r.uri
                    )));
                }
            }
        }
    };
    if !known {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: no argument {argument:?} to complete there"
        )));
    }
    let completion = match handler {
        Some(h) => {
            let request = CompletionRequest {
                argument,
                value: params.argument.value,
                context: params.context.and_then(|c| c.arguments).unwrap_or_default(),
            };
            h(request).await.map_err(|e| match e {
                ToolError::Rpc(e) => e,
                other => {
                    tracing::warn!(error = %other, "completion handler failed");
                    RpcError::internal("Internal error: completion failed")
                }
            })?
        }
        None => Completion::new(Vec::new()),
    };
    let mut result = CompleteResult::new(within_limit(completion));
    result.result_type = revision_result_type;
    Ok(result)
}

/// A handler's completion cut to the wire's 100 values, its count kept.
fn within_limit(mut completion: Completion) -> Completion {
    let found = completion.values.len();
    if found > Completion::MAX_VALUES {
        completion.values.truncate(Completion::MAX_VALUES);
        completion.total = Some(completion.total.unwrap_or(0).max(found as u64));
        completion.has_more = Some(true);
    }
    completion
}
