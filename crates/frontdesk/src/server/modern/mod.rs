//! 2026-07-28: stateless requests, each with its own `_meta`
//! (`server/discover`, lists, `tools/call`, `prompts/get`, `resources/read`,
//! `completion/complete`, `subscriptions/listen`, the Tasks extension's
//! methods), the `input_required` rounds of a call, and what a handler's
//! outcome becomes on this revision.

mod elsewhere;
mod finishing;
mod listen;
mod meta;
mod round;
mod state;

use std::sync::Arc;

use frontdesk_wire::{
    CacheScope, CallToolRequestParams, CompleteRequestParams, DiscoverResult, ErrorCode,
    GetPromptRequestParams, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, ReadResourceRequestParams, ResultType, Revision, method,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::server::api::error::{AskError, RpcError, ToolError};
use crate::server::api::tool::{TaskSupport, ToolDef};
use crate::server::contract::OutboundSink;
use crate::server::contract::incoming::{MetaFields, Retry, ToolCall};
use crate::server::engine::call::Call;
use crate::server::engine::drain::CALL_AGAIN as SHUTTING_DOWN_RESULT;
use crate::server::engine::inner::{Caller, ServerInner};
use crate::server::engine::invoke::{Completed, Outcome, Target, invoke, result_json};
use crate::server::engine::load::Held;
use crate::server::engine::replies::Claim;
use crate::server::engine::requests;
use crate::server::engine::requests::{ObjectRequest, Reply};
use crate::server::task;
use crate::server::trace;
use finishing::Finishing;
use round::Round;
use tracing::Instrument;

/// Serve one 2026-07-28 `tools/call` read in its typed form.
pub(crate) async fn call_tool(
    server: &Arc<ServerInner>,
    params: ToolCall,
    tool: Option<Arc<ToolDef>>,
    sink: &OutboundSink,
    caller: Caller,
    held: Held,
    retry_span: Option<tracing::Span>,
) -> Reply {
    let meta = meta::validate(params.meta)?;
    let target = Target::Tool(requests::known_tool(tool, &params.name)?);
    let round = CallInput {
        args: params.arguments,
        retry: params.retry,
        caller,
        meta,
        retry_span,
    };
    run(server, target, round, sink, held).await
}

/// Serve one 2026-07-28 request whose params are read as an object.
pub(crate) async fn serve(
    server: &Arc<ServerInner>,
    request: &mut ObjectRequest<'_>,
    tool: Option<Arc<ToolDef>>,
    sink: &OutboundSink,
    caller: Caller,
    held: Held,
) -> Reply {
    let meta = {
        // Only `_meta` is read here, where it lies: no copy of the params.
        let raw = request.params.as_mut().and_then(|p| p.get_mut("_meta"));
        meta::validate(
            raw.and_then(Value::as_object_mut)
                .map(MetaFields::take_from),
        )?
    };
    let method = request.method;
    let ttl = server.config.list_ttl_ms;
    let info = || server.info_meta.meta();
    match method {
        method::SERVER_DISCOVER => {
            let mut r = DiscoverResult::new(
                server.supported_versions(),
                requests::capabilities(server, Revision::V2026_07_28),
                ttl,
                CacheScope::Public,
            );
            r.instructions.clone_from(&server.instructions);
            r.meta = Some(info());
            result_json(&r)
        }
        method::TOOLS_LIST if !server.tools.is_empty() => {
            let mut r = ListToolsResult::modern(server.tools.listing(), ttl, CacheScope::Public);
            r.meta = Some(info());
            result_json(&r)
        }
        method::PROMPTS_LIST if !server.prompts.is_empty() => {
            let mut r = ListPromptsResult::modern(
                requests::prompt_listing(server),
                ttl,
                CacheScope::Public,
            );
            r.meta = Some(info());
            result_json(&r)
        }
        method::RESOURCES_LIST if !server.resources.is_empty() => {
            let mut r =
                ListResourcesResult::modern(server.resources.listing(), ttl, CacheScope::Public);
            r.meta = Some(info());
            result_json(&r)
        }
        method::RESOURCES_TEMPLATES_LIST if !server.resources.is_empty() => {
            let mut r = ListResourceTemplatesResult::modern(
                server.resources.template_listing(),
                ttl,
                CacheScope::Public,
            );
            r.meta = Some(info());
            result_json(&r)
        }
        method::RESOURCES_READ if !server.resources.is_empty() => {
            let (p, retry) = retry_params::<ReadResourceRequestParams>(request)?;
            requests::check_uri_length(server, &p.uri)?;
            let read = server
                .resources
                .resolve(&p.uri)
                .ok_or_else(|| requests::resource_not_found(&p.uri, Revision::V2026_07_28))?;
            let round = CallInput {
                args: Map::new(),
                retry,
                caller,
                meta,
                retry_span: None,
            };
            run(server, Target::Resource(read), round, sink, held).await
        }
        method::COMPLETION_COMPLETE if requests::has_completions(server) => {
            let p: CompleteRequestParams = requests::typed(request)?;
            let mut r =
                crate::server::engine::completions::complete(server, p, Some(ResultType::Complete))
                    .await?;
            r.meta = Some(info());
            result_json(&r)
        }
        method::SUBSCRIPTIONS_LISTEN if requests::has_subscriptions(server) => {
            listen::listen(server, &*request, sink, &caller.quota_key).await
        }
        method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL
            if server.tools.has_tasks() =>
        {
            task::serve(server, &*request, &meta.capabilities, &caller.principal).await
        }
        method::TOOLS_CALL => {
            let (p, retry) = retry_params::<CallToolRequestParams>(request)?;
            let round = CallInput {
                args: p.arguments.unwrap_or_default(),
                retry,
                caller,
                meta,
                retry_span: None,
            };
            let target = Target::Tool(requests::known_tool(tool, &p.name)?);
            run(server, target, round, sink, held).await
        }
        method::PROMPTS_GET if !server.prompts.is_empty() => {
            let (p, retry) = retry_params::<GetPromptRequestParams>(request)?;
            let target = Target::Prompt(requests::find_prompt(server, &p.name)?);
            let round = CallInput {
                args: p.arguments.unwrap_or_default(),
                retry,
                caller,
                meta,
                retry_span: None,
            };
            run(server, target, round, sink, held).await
        }
        _ => Err(RpcError::method_not_found(request.method)),
    }
}

/// The retry fields of a request, taken out of its params (which are read
/// once). A `requestState` that is not a string gets the one fixed state
/// error; nothing is taken from a request with either field malformed.
fn take_retry_fields(request: &mut ObjectRequest<'_>) -> Result<Retry, RpcError> {
    let Some(params) = request.params.as_mut() else {
        return Ok(Retry::default());
    };
    if !matches!(params.get("requestState"), None | Some(Value::String(_))) {
        return Err(state::rejected());
    }
    if !matches!(params.get("inputResponses"), None | Some(Value::Object(_))) {
        return Err(RpcError::invalid_params(
            "Invalid params: inputResponses must be an object",
        ));
    }
    let state = match params.shift_remove("requestState") {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let responses = match params.shift_remove("inputResponses") {
        Some(Value::Object(r)) => r,
        _ => Map::new(),
    };
    Ok(Retry { responses, state })
}

/// The typed params of a request that may be a retry, and its retry fields.
/// The typed params are read without the retry fields, as a request that is
/// not a retry would be.
fn retry_params<P: DeserializeOwned>(
    request: &mut ObjectRequest<'_>,
) -> Result<(P, Retry), RpcError> {
    let retry = take_retry_fields(request)?;
    Ok((requests::params(request)?, retry))
}

/// What a tool call, prompt or resource read was asked with.
struct CallInput {
    args: Map<String, Value>,
    retry: Retry,
    caller: Caller,
    meta: meta::RequestMeta,
    /// A retry's request span, not yet entered: it joins the call's trace
    /// once the state is open (`None`: the request's span is entered already).
    retry_span: Option<tracing::Span>,
}

/// One round of a tool call, prompt or resource read; a tool may continue
/// as a task from it.
///
/// A retry's round finishes even when its request is dropped (see
/// [`finishing`]), holding the request's places in flight (`held`) until it
/// ends, so a dropped connection does not lose it, and sending the same
/// retry again gets its reply (see [`replies`]). The round takes its target
/// along, as found when the request was read.
async fn run(
    server: &Arc<ServerInner>,
    target: Target,
    input: CallInput,
    sink: &OutboundSink,
    held: Held,
) -> Reply {
    let CallInput {
        args,
        retry,
        caller,
        meta,
        retry_span,
    } = input;
    let args = Value::Object(args);
    let binding = state::binding(&caller.principal, target.method(), target.name(), &args);
    let caching = Caching {
        retried: retry.is_retry(),
        anonymous: caller.principal.is_empty(),
        ttl_ms: server.config.list_ttl_ms,
    };
    let Some(token) = &retry.state else {
        let round = Input {
            responses: retry.responses,
            prior: None,
            caller,
            meta,
            args,
            caching,
        };
        return play(server, target, round, sink, &binding).await;
    };
    let opened = state::open(server, token, &binding)?;
    // Not entered before: a span's parent is set before it starts.
    let span = match retry_span {
        Some(span) => {
            let asked = !opened.state.pending.is_empty();
            trace::adopt(&span, opened.state.trace.as_ref(), asked);
            span
        }
        None => tracing::Span::current(),
    };
    let claim = server.retries.claim(opened.id, &opened.state.owner);
    let running = match claim {
        Claim::Repeat(reply) => {
            crate::metrics::state("resent");
            return crate::server::engine::replies::wait(reply).await;
        }
        Claim::Untracked => None,
        Claim::First(running) => Some(running),
    };
    // Only a request that may redeem the state here can have its reply kept
    // for other instances.
    let handoff = running
        .as_ref()
        .and_then(|_| elsewhere::Handoff::new(server, opened.id));
    let detached = {
        let server = Arc::clone(server);
        let sink = sink.clone();
        let handoff = handoff.clone();
        async move {
            let reply = match state::redeem(&server, &opened).await {
                Ok(state::Redeemed::Elsewhere(reply)) => reply,
                Ok(state::Redeemed::Now) => {
                    if let Some(handoff) = &handoff {
                        handoff.redeemed().await;
                    }
                    opened.record_answer_time();
                    let round = Input {
                        responses: retry.responses,
                        prior: Some(opened.state),
                        caller,
                        meta,
                        args,
                        caching,
                    };
                    play(&server, target, round, &sink, &binding).await
                }
                Err(e) => Err(e),
            };
            if let Some(running) = running {
                running.finish(&reply);
            }
            reply
        }
        .instrument(span)
    };
    Finishing::new(detached, held, handoff).await
}

/// What one round answers from, for whom, and with which arguments.
struct Input {
    responses: Map<String, Value>,
    prior: Option<state::RoundState>,
    caller: Caller,
    meta: meta::RequestMeta,
    args: Value,
    caching: Caching,
}

/// Run the handler for one round and turn its outcome into the reply.
async fn play(
    server: &Arc<ServerInner>,
    target: Target,
    input: Input,
    sink: &OutboundSink,
    binding: &crate::state::Binding,
) -> Reply {
    let tasks = match &target {
        Target::Tool(tool) => tool.task_support,
        _ => None,
    };
    let negotiated = task::negotiated(&input.meta.capabilities);
    if tasks == Some(TaskSupport::Required) && !negotiated {
        return Err(task::extension_required());
    }
    // The task starter keeps its own copy; only a call that may become a
    // task needs one.
    let task_caps = (tasks.is_some() && negotiated).then(|| input.meta.capabilities.clone());
    let caching = input.caching;
    let round = Arc::new(Round::new(
        input.meta.capabilities,
        input.responses,
        input.prior,
        &input.caller.quota_key,
    ));
    let mut call = Call::new(
        Arc::clone(server),
        input.caller,
        sink.clone(),
        input.meta.progress_token,
        input.meta.log_level,
        Arc::clone(&round) as Arc<dyn crate::server::engine::call::Conversation>,
    );
    if let Some(caps) = task_caps {
        call = call.with_task_starter(task::starter(caps));
    }
    let call = Arc::new(call);
    let Value::Object(args) = input.args else {
        return Err(RpcError::internal("Internal error"));
    };
    let outcome = invoke(&call, &target, args).await;
    match outcome {
        Outcome::Finished(result) => {
            if round.has_pending() {
                tracing::debug!("handler finished with questions pending; returning its result");
            }
            settle(server, &target, result, caching)
        }
        Outcome::Suspended => {
            let Some((requests, next)) = round.next_round() else {
                tracing::error!("a handler suspended with no question recorded");
                return Err(RpcError::internal("Internal error"));
            };
            let mut next = next;
            next.trace = trace::carry();
            let token = state::seal(server, &next, binding)?;
            crate::metrics::input_required(target.method());
            let r = InputRequiredResult::new(Some(requests), Some(token));
            server.info_meta.json_of(r)
        }
        // Boxed: inline, every round's future (and each move of it) would
        // be as large as a task's start, which few calls take.
        Outcome::Detached(work, started) => {
            Box::pin(task::run(server, work, started, move |server, result| {
                settle(server, &target, result, caching)
            }))
            .await
        }
    }
}

/// What decides a read's caching hints: a read through `input_required`
/// rounds is never cacheable; otherwise the handler's choice, or the list
/// TTL, public for anonymous callers and private for authenticated ones.
#[derive(Debug, Clone, Copy)]
struct Caching {
    retried: bool,
    anonymous: bool,
    ttl_ms: u64,
}

impl Caching {
    fn hints(self, chosen: Option<(u64, CacheScope)>) -> (u64, CacheScope) {
        if self.retried {
            return (0, CacheScope::Private);
        }
        chosen.unwrap_or(if self.anonymous {
            (self.ttl_ms, CacheScope::Public)
        } else {
            (self.ttl_ms, CacheScope::Private)
        })
    }
}

/// What a handler's result becomes on 2026-07-28.
fn settle(
    server: &ServerInner,
    target: &Target,
    result: Result<Completed, ToolError>,
    caching: Caching,
) -> Reply {
    let info = &server.info_meta;
    let failed = |text: String| {
        target
            .execution_error(text)?
            .into_modern(info, |c| caching.hints(c))
    };
    let error = match result {
        Ok(done) => return done.into_modern(info, |c| caching.hints(c)),
        Err(e) => e,
    };
    match error {
        ToolError::Ask(AskError::MissingCapability { required }) => Err(RpcError::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "This request requires a client capability that was not declared",
        )
        .with_data(json!({"requiredCapabilities": required}))),
        ToolError::Ask(AskError::InvalidResponse { key, reason }) => Err(RpcError::invalid_params(
            format!("Invalid params: inputResponses[{key:?}]: {reason}"),
        )),
        ToolError::Ask(AskError::InvalidAnswer(e)) => {
            failed(format!("The answer did not fit the form: {e}"))
        }
        ToolError::Ask(AskError::TimedOut) => {
            failed("No answer arrived in the time allowed.".into())
        }
        ToolError::Ask(AskError::Busy(why)) => {
            failed(format!("The question could not be asked now: {why}."))
        }
        ToolError::Ask(AskError::ShuttingDown) => failed(SHUTTING_DOWN_RESULT.into()),
        ToolError::Ask(
            e @ (AskError::Disconnected | AskError::ClientError { .. } | AskError::Internal(_)),
        ) => {
            tracing::error!(error = %e, "handler failed");
            Err(RpcError::internal("Internal error"))
        }
        ToolError::Execution(m) => failed(m.message().to_string()),
        ToolError::Rpc(e) => Err(e),
        ToolError::UrlElicitationRequired(_) => {
            tracing::error!(
                "UrlElicitationRequired built by hand on 2026-07-28; use ToolContext::url_elicitation_required"
            );
            Err(RpcError::internal("Internal error"))
        }
    }
}
