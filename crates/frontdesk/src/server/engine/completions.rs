//! Answering `completion/complete` (both revisions): find the prompt or
//! resource template the reference names, check the argument is one of its
//! own, and run the author's completion handler.

use frontdesk_wire::{
    CompleteRequestParams, CompleteResult, Completion, CompletionReference, ResultType,
};

use crate::server::api::completion::CompletionRequest;
use crate::server::api::error::{RpcError, ToolError};
use crate::server::engine::inner::ServerInner;
use crate::server::engine::requests::{check_uri_length, find_prompt};

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
            let prompt = find_prompt(server, &r.name)?;
            let known = prompt.arguments.iter().any(|a| a.name == argument);
            (prompt.completion.clone(), known)
        }
        CompletionReference::Resource(r) => {
            check_uri_length(server, &r.uri)?;
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
        _ => {
            return Err(RpcError::invalid_params(
                "Invalid params: unknown completion reference",
            ));
        }
    };
    if !known {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: no argument {argument:?} to complete there"
        )));
    }
    let completion = match handler {
        Some(h) => {
            let request = CompletionRequest::new(
                argument,
                params.argument.value,
                params.context.and_then(|c| c.arguments).unwrap_or_default(),
            );
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
