//! One way to run a handler, for tools, prompts and resource reads alike:
//! build its context, run it until it finishes, one of its questions waits
//! for the next round, or it continues as a task, and say which.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use frontdesk_wire::{
    CacheScope, CallToolResult, GetPromptResult, InputRequiredResult, Meta, ReadResourceResult,
    ResultType, meta_key, method,
};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::server::api::context::ToolContext;
use crate::server::api::error::{RpcError, ToolError};
use crate::server::api::prompt::PromptDef;
use crate::server::api::resource_registry::Read;
use crate::server::api::tool::{ToolDef, ToolOutput};
use crate::server::engine::call::Call;
use crate::server::engine::requests::Reply;
use crate::server::engine::tasks::Started;

/// What a request runs, found once when the request was read and carried
/// from there (a retry's round that outlives its request takes it along).
#[derive(Clone)]
pub(crate) enum Target {
    Tool(Arc<ToolDef>),
    Prompt(Arc<PromptDef>),
    Resource(Read),
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
    /// The 2025-11-25 result object, without 2026-07-28's decorations even
    /// when the result was made by a 2026-07-28 server (a gateway relays
    /// it): no `_meta` member naming that server, and a tool's result,
    /// relayed whole, without its `resultType`. (A prompt's and a read's
    /// are built here, with neither `resultType` nor caching hints.)
    pub(crate) fn into_legacy(self) -> Reply {
        match self {
            Self::Tool(mut r) => {
                r.result_type = None;
                without_server_info(&mut r.meta);
                members_json(&r)
            }
            Self::Prompt(mut r) => {
                without_server_info(&mut r.meta);
                members_json(&r)
            }
            Self::Resource(mut r, _) => {
                without_server_info(&mut r.meta);
                members_json(&r)
            }
        }
    }

    /// The 2026-07-28 result object: `resultType: "complete"`, the server's
    /// identity in `_meta`, and for a read its caching hints (`caching`
    /// turns the handler's choice into the hints sent).
    pub(crate) fn into_modern(
        self,
        meta: &InfoMeta,
        caching: impl FnOnce(Option<(u64, CacheScope)>) -> (u64, CacheScope),
    ) -> Reply {
        match self {
            Self::Resource(mut r, chosen) => {
                let (ttl, scope) = caching(chosen);
                r.result_type = Some(ResultType::Complete);
                r.ttl_ms = Some(ttl);
                r.cache_scope = Some(scope);
                meta.json_of(r)
            }
            Self::Tool(mut r) => {
                r.result_type = Some(ResultType::Complete);
                meta.json_of(r)
            }
            Self::Prompt(mut r) => {
                r.result_type = Some(ResultType::Complete);
                meta.json_of(r)
            }
        }
    }
}

/// `meta` without the member naming a 2026-07-28 server (`None` when that
/// was all of it).
fn without_server_info(meta: &mut Option<Meta>) {
    if let Some(m) = meta {
        m.0.remove(meta_key::SERVER_INFO);
        if m.0.is_empty() {
            *meta = None;
        }
    }
}

/// The `_meta` of every 2026-07-28 result (who answered), built once, also
/// as JSON text, so that a result copies its bytes rather than the map.
pub(crate) struct InfoMeta {
    meta: Meta,
    json: Option<Box<RawValue>>,
}

impl InfoMeta {
    pub(crate) fn new(meta: Meta) -> Self {
        let json = serde_json::value::to_raw_value(&meta).ok();
        Self { meta, json }
    }

    /// A copy of the typed `_meta`.
    pub(crate) fn meta(&self) -> Meta {
        self.meta.clone()
    }

    /// `result` with this `_meta`, as the JSON a response carries. `_meta`
    /// is the last named member of every result type, before its flattened
    /// `extra` members: with no extra members its text is written after the
    /// others; otherwise the typed result carries it, so the order of the
    /// members is that of the type either way. A `_meta` the result brought
    /// (a relayed one's) keeps its members; this one's are set over them.
    pub(crate) fn json_of<T: WithMeta>(&self, mut result: T) -> Reply {
        let own = result.meta_mut().take().filter(|m| !m.0.is_empty());
        match (&self.json, own) {
            (Some(json), None) if result.extra().is_empty() => result_json(&WithMetaText {
                result: &result,
                meta: json,
            }),
            (_, own) => {
                let mut meta = own.unwrap_or_default();
                meta.0
                    .extend(self.meta.0.iter().map(|(k, v)| (k.clone(), v.clone())));
                *result.meta_mut() = Some(meta);
                members_json(&result)
            }
        }
    }
}

/// A result and the text of its `_meta`, serialized as one object.
#[derive(Serialize)]
struct WithMetaText<'a, T: Serialize> {
    #[serde(flatten)]
    result: &'a T,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

/// A 2026-07-28 result type: its `_meta` and its flattened extra members.
pub(crate) trait WithMeta: Serialize {
    fn meta_mut(&mut self) -> &mut Option<Meta>;
    fn extra(&self) -> &Map<String, Value>;
}

macro_rules! with_meta {
    ($($t:ty),*) => {$(
        impl WithMeta for $t {
            fn meta_mut(&mut self) -> &mut Option<Meta> {
                &mut self.meta
            }
            fn extra(&self) -> &Map<String, Value> {
                &self.extra
            }
        }
    )*};
}

with_meta!(
    CallToolResult,
    GetPromptResult,
    ReadResourceResult,
    InputRequiredResult
);

/// A wire result the server built (its flattened `extra` members empty or
/// apart from its named ones) as the JSON text a response carries.
pub(crate) fn result_json<T: Serialize>(result: &T) -> Reply {
    serde_json::value::to_raw_value(result).map_err(|e| {
        tracing::error!(error = %e, "a result did not serialize");
        RpcError::internal("Internal error")
    })
}

/// A result a handler may have given extra members: with none, as
/// [`result_json`]; with some, through a JSON object first, so that an extra
/// member named like one of the type's (`_meta`, `content`) replaces it in
/// place, as one object member, instead of being written twice.
pub(crate) fn members_json<T: WithMeta>(result: &T) -> Reply {
    if result.extra().is_empty() {
        return result_json(result);
    }
    match serde_json::to_value(result) {
        Ok(object @ Value::Object(_)) => result_json(&object),
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

impl Target {
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
pub(crate) async fn invoke(call: &Arc<Call>, target: &Target, args: Map<String, Value>) -> Outcome {
    let port: Arc<dyn crate::server::api::context::CallPort> = call.clone();
    let work = target.run(ToolContext::new(port), args);
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

#[cfg(test)]
mod tests {
    use frontdesk_wire::{ContentBlock, Implementation};
    use serde_json::json;

    use super::*;

    fn info() -> InfoMeta {
        InfoMeta::new(Meta::new().with_server_info(&Implementation::new("bench", "1.0")))
    }

    /// What a result was before `json_of`: the typed `_meta` set, the whole
    /// result made a JSON object and that serialized.
    fn typed_way(mut result: CallToolResult, info: &InfoMeta) -> String {
        result.meta = Some(info.meta());
        serde_json::to_value(&result).unwrap().to_string()
    }

    #[test]
    fn the_json_meta_is_where_the_typed_meta_would_be() {
        let info = info();
        let mut result = CallToolResult::new(vec![ContentBlock::text("confirmed 7")]);
        result.result_type = Some(ResultType::Complete);
        result.is_error = Some(false);
        let text = info.json_of(result.clone()).unwrap().get().to_string();
        assert_eq!(text, typed_way(result, &info));
        assert!(
            text.ends_with(r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0"}}}"#),
            "{text}"
        );
    }

    #[test]
    fn a_results_own_meta_keeps_its_members_on_either_revision() {
        let mut result = CallToolResult::new(vec![ContentBlock::text("relayed")]);
        result.result_type = Some(ResultType::Complete);
        result.meta = Some(
            Meta::new()
                .with("com.example/trace", json!("t-1"))
                .with_server_info(&Implementation::new("upstream", "2.0")),
        );
        let modern = info().json_of(result.clone()).unwrap().get().to_string();
        assert_eq!(
            modern,
            r#"{"resultType":"complete","content":[{"type":"text","text":"relayed"}],"_meta":{"com.example/trace":"t-1","io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0"}}}"#
        );
        let legacy = Completed::Tool(result)
            .into_legacy()
            .unwrap()
            .get()
            .to_string();
        assert_eq!(
            legacy,
            r#"{"content":[{"type":"text","text":"relayed"}],"_meta":{"com.example/trace":"t-1"}}"#
        );
    }

    #[test]
    fn extra_members_still_follow_the_meta() {
        let info = info();
        let mut result = CallToolResult::new(vec![ContentBlock::text("done")]);
        result.extra.insert("zeta".into(), json!(1));
        result
            .extra
            .insert("_meta".into(), json!({"from": "the handler"}));
        let text = info.json_of(result.clone()).unwrap().get().to_string();
        assert_eq!(text, typed_way(result, &info));
        let object: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = object.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["content", "_meta", "zeta"]);
        assert_eq!(text.matches(r#""_meta""#).count(), 1, "{text}");
    }
}
