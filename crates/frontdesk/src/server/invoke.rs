//! One way to run a handler, for tools and prompts alike: build its context,
//! run it until it finishes or one of its questions waits for the next
//! round, and say which.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use frontdesk_wire::{CallToolResult, GetPromptResult, Implementation, Meta, ResultType, method};
use serde::Serialize;
use serde_json::{Map, Value};

use super::call::Call;
use super::context::ToolContext;
use super::error::{RpcError, ToolError};
use super::prompt::PromptDef;
use super::tool::{ToolDef, ToolOutput};
use crate::store::BoxFuture;

/// What a request runs.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Tool(&'a ToolDef),
    Prompt(&'a PromptDef),
}

/// What a handler produced.
#[allow(clippy::large_enum_variant)] // one per request, moved once into its response
pub(crate) enum Completed {
    Tool(CallToolResult),
    Prompt(GetPromptResult),
}

impl Completed {
    /// The 2025-11-25 result object.
    pub(crate) fn into_legacy(self) -> Result<Map<String, Value>, RpcError> {
        match self {
            Self::Tool(r) => to_object(&r),
            Self::Prompt(r) => to_object(&r),
        }
    }

    /// The 2026-07-28 result object: `resultType: "complete"` and the
    /// server's identity in `_meta`.
    pub(crate) fn into_modern(
        self,
        server: &Implementation,
    ) -> Result<Map<String, Value>, RpcError> {
        let meta = Some(Meta::new().with_server_info(server));
        match self {
            Self::Tool(mut r) => {
                r.result_type = Some(ResultType::Complete);
                r.meta = meta;
                to_object(&r)
            }
            Self::Prompt(mut r) => {
                r.result_type = Some(ResultType::Complete);
                r.meta = meta;
                to_object(&r)
            }
        }
    }
}

/// A wire result as the JSON object a response carries.
pub(crate) fn to_object<T: Serialize>(result: &T) -> Result<Map<String, Value>, RpcError> {
    match serde_json::to_value(result) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) | Err(_) => {
            tracing::error!("a result did not serialize to a JSON object");
            Err(RpcError::internal("Internal error"))
        }
    }
}

/// How a handler run ended.
#[allow(clippy::large_enum_variant)] // one per request, moved once into its response
pub(crate) enum Outcome {
    /// It returned.
    Finished(Result<Completed, ToolError>),
    /// A question waits for the next round (2026-07-28); the handler was
    /// dropped at that point.
    Suspended,
}

impl Target<'_> {
    /// `tools/call` or `prompts/get`.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            Self::Tool(_) => method::TOOLS_CALL,
            Self::Prompt(_) => method::PROMPTS_GET,
        }
    }

    /// The tool's or prompt's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::Tool(t) => &t.name,
            Self::Prompt(p) => &p.name,
        }
    }

    /// "tool" or "prompt", for messages.
    pub(crate) fn noun(&self) -> &'static str {
        match self {
            Self::Tool(_) => "tool",
            Self::Prompt(_) => "prompt",
        }
    }

    /// A failure the model should read: an `isError` tool result; a prompt
    /// has no such result, so it is a JSON-RPC error with the same text.
    pub(crate) fn execution_error(&self, text: String) -> Result<Completed, RpcError> {
        match self {
            Self::Tool(_) => Ok(Completed::Tool(ToolOutput::error(text).into_result())),
            Self::Prompt(_) => Err(RpcError::internal(text)),
        }
    }

    fn run(
        &self,
        cx: ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'static, Result<Completed, ToolError>> {
        match self {
            Self::Tool(t) => {
                let work = (t.handler)(cx, Value::Object(args));
                Box::pin(async move { work.await.map(|o| Completed::Tool(o.into_result())) })
            }
            Self::Prompt(p) => {
                let work = (p.handler)(cx, args);
                Box::pin(async move { work.await.map(|o| Completed::Prompt(o.into_result())) })
            }
        }
    }
}

/// Run `target` with `args` in `call`.
pub(crate) async fn invoke(
    call: &Arc<Call>,
    target: Target<'_>,
    args: Map<String, Value>,
) -> Outcome {
    let work = target.run(ToolContext::new(Arc::clone(call)), args);
    UntilSuspended { work, call }.await
}

/// Polls a handler; once a question of it is suspended, the handler is not
/// polled again (it is dropped with this future).
struct UntilSuspended<'a> {
    work: BoxFuture<'static, Result<Completed, ToolError>>,
    call: &'a Call,
}

impl Future for UntilSuspended<'_> {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        match self.work.as_mut().poll(cx) {
            Poll::Ready(r) => Poll::Ready(Outcome::Finished(r)),
            Poll::Pending if self.call.conversation.is_suspended() => {
                Poll::Ready(Outcome::Suspended)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
