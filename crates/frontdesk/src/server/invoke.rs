//! One way to run a handler, for tools, prompts and resource reads alike:
//! build its context, run it until it finishes, one of its questions waits
//! for the next round, or it continues as a task, and say which.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use frontdesk_wire::{
    CacheScope, CallToolResult, GetPromptResult, Meta, ReadResourceResult, ResultType, method,
};
use serde::Serialize;
use serde_json::{Map, Value};

use super::call::Call;
use super::context::ToolContext;
use super::error::{RpcError, ToolError};
use super::prompt::PromptDef;
use super::resource::Read;
use super::task::Started;
use super::tool::{ToolDef, ToolOutput};
use crate::store::BoxFuture;

/// What a request runs.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Tool(&'a ToolDef),
    Prompt(&'a PromptDef),
    Resource(&'a Read),
}

/// What a handler produced.
#[allow(clippy::large_enum_variant)] // one per request, moved once into its response
pub(crate) enum Completed {
    Tool(CallToolResult),
    Prompt(GetPromptResult),
    /// A read, and the caching its handler chose.
    Resource(ReadResourceResult, Option<(u64, CacheScope)>),
}

impl Completed {
    /// The 2025-11-25 result object.
    pub(crate) fn into_legacy(self) -> Result<Map<String, Value>, RpcError> {
        match self {
            Self::Tool(r) => to_object(&r),
            Self::Prompt(r) => to_object(&r),
            Self::Resource(r, _) => to_object(&r),
        }
    }

    /// The 2026-07-28 result object: `resultType: "complete"`, the server's
    /// identity in `_meta`, and for a read its caching hints (`caching`
    /// turns the handler's choice into the hints sent).
    pub(crate) fn into_modern(
        self,
        meta: &Meta,
        caching: impl FnOnce(Option<(u64, CacheScope)>) -> (u64, CacheScope),
    ) -> Result<Map<String, Value>, RpcError> {
        let meta = Some(meta.clone());
        match self {
            Self::Resource(mut r, chosen) => {
                let (ttl, scope) = caching(chosen);
                r.result_type = Some(ResultType::Complete);
                r.ttl_ms = Some(ttl);
                r.cache_scope = Some(scope);
                r.meta = meta;
                to_object(&r)
            }
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
    /// The handler continues as a task: here is the rest of its run.
    Detached(BoxFuture<'static, Result<Completed, ToolError>>, Started),
}

impl Target<'_> {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            Self::Tool(_) => method::TOOLS_CALL,
            Self::Prompt(_) => method::PROMPTS_GET,
            Self::Resource(_) => method::RESOURCES_READ,
        }
    }

    /// The tool's or prompt's name, or the URI read (what `Mcp-Name`
    /// carries and sealed state is bound to).
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::Tool(t) => &t.name,
            Self::Prompt(p) => &p.name,
            Self::Resource(r) => r.request.uri(),
        }
    }

    /// "tool", "prompt" or "resource", for messages.
    pub(crate) fn noun(&self) -> &'static str {
        match self {
            Self::Tool(_) => "tool",
            Self::Prompt(_) => "prompt",
            Self::Resource(_) => "resource",
        }
    }

    /// A failure the model should read: an `isError` tool result; prompts
    /// and reads have no such result, so it is a JSON-RPC error with the
    /// same text.
    pub(crate) fn execution_error(&self, text: String) -> Result<Completed, RpcError> {
        match self {
            Self::Tool(_) => Ok(Completed::Tool(ToolOutput::error(text).into_result())),
            Self::Prompt(_) | Self::Resource(_) => Err(RpcError::internal(text)),
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
            Self::Resource(r) => {
                let work = (r.handler)(cx, r.request.clone());
                let uri = r.request.uri().to_string();
                let mime = r.mime_type.clone();
                Box::pin(async move {
                    work.await.map(|o| {
                        let caching = o.caching();
                        Completed::Resource(o.into_result(&uri, mime.as_deref()), caching)
                    })
                })
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
/// polled again (it is dropped with this future); once it continues as a
/// task, it is handed over.
struct UntilSuspended<'a> {
    work: BoxFuture<'static, Result<Completed, ToolError>>,
    call: &'a Call,
}

impl Future for UntilSuspended<'_> {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        match self.work.as_mut().poll(cx) {
            Poll::Ready(r) => Poll::Ready(Outcome::Finished(r)),
            Poll::Pending if self.call.conversation().is_suspended() => {
                Poll::Ready(Outcome::Suspended)
            }
            Poll::Pending => match self.call.take_started() {
                Some(started) => {
                    let rest = std::mem::replace(&mut self.work, Box::pin(std::future::pending()));
                    Poll::Ready(Outcome::Detached(rest, started))
                }
                None => Poll::Pending,
            },
        }
    }
}
