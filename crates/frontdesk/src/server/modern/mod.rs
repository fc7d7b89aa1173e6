//! 2026-07-28: stateless requests, each with its own `_meta`
//! (`server/discover`, lists, `tools/call`, `prompts/get`), the
//! `input_required` rounds of a call, and what a handler's outcome becomes
//! on this revision.

mod meta;
mod replies;
mod round;
mod state;

use std::sync::Arc;

use frontdesk_wire::{
    CacheScope, CallToolRequestParams, DiscoverResult, ErrorCode, GetPromptRequestParams,
    Implementation, InputRequiredResult, JsonRpcRequest, ListPromptsResult, ListToolsResult, Meta,
    MetaParams, Revision, method, version,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::call::Call;
use super::error::{AskError, RpcError, ToolError};
use super::invoke::{Outcome, Target, invoke, to_object};
use super::requests::{self, Reply};
use super::{Caller, OutboundSink, ServerInner};
use replies::Claim;
pub(crate) use replies::RetryReplies;
use round::Round;
use tracing::Instrument;

/// Serve one 2026-07-28 request.
pub(crate) async fn serve(
    server: &Arc<ServerInner>,
    request: &JsonRpcRequest,
    sink: &OutboundSink,
    caller: Caller,
) -> Reply {
    let method = request.method.as_str();
    let meta = {
        let p: Option<MetaParams> = request.parse_params().ok();
        meta::validate(p.and_then(|p| p.meta).as_ref())?
    };
    let ttl = server.config.list_ttl_ms;
    let info = server_info(&server.info);
    match method {
        method::SERVER_DISCOVER => {
            let mut r = DiscoverResult::new(
                version::SUPPORTED
                    .iter()
                    .map(|v| (*v).to_string())
                    .collect(),
                requests::capabilities(server, Revision::V2026_07_28),
                ttl,
                CacheScope::Public,
            );
            r.instructions.clone_from(&server.instructions);
            r.meta = Some(info);
            to_object(&r)
        }
        method::TOOLS_LIST if !server.tools.is_empty() => {
            let mut r = ListToolsResult::modern(server.tools.listing(), ttl, CacheScope::Public);
            r.meta = Some(info);
            to_object(&r)
        }
        method::PROMPTS_LIST if !server.prompts.is_empty() => {
            let mut r = ListPromptsResult::modern(
                requests::prompt_listing(server),
                ttl,
                CacheScope::Public,
            );
            r.meta = Some(info);
            to_object(&r)
        }
        method::TOOLS_CALL => {
            let (p, retry) = retry_params::<CallToolRequestParams>(request)?;
            let tool = requests::find_tool(server, &p.name)?;
            let args = p.arguments.unwrap_or_default();
            run(server, Target::Tool(tool), args, retry, sink, caller, meta).await
        }
        method::PROMPTS_GET if !server.prompts.is_empty() => {
            let (p, retry) = retry_params::<GetPromptRequestParams>(request)?;
            let prompt = requests::find_prompt(server, &p.name)?;
            let args = p.arguments.unwrap_or_default();
            run(
                server,
                Target::Prompt(prompt),
                args,
                retry,
                sink,
                caller,
                meta,
            )
            .await
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// `_meta` of every 2026-07-28 result: who answered.
fn server_info(info: &Implementation) -> Meta {
    Meta::new().with_server_info(info)
}

/// The two MRTR fields of a retry, read apart from the typed params.
struct Retry {
    /// `inputResponses`, kept raw: each answer is read when its question is
    /// asked, because answers to questions not asked are ignored whatever
    /// their shape.
    responses: Map<String, Value>,
    state: Option<String>,
}

/// The typed params of a request that may be a retry, and its retry fields.
/// A `requestState` that is not a string gets the one fixed state error.
fn retry_params<P: DeserializeOwned>(request: &JsonRpcRequest) -> Result<(P, Retry), RpcError> {
    let mut rest = request.params.clone().unwrap_or_default();
    let state = match rest.remove("requestState") {
        None => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err(state::rejected()),
    };
    let responses = match rest.remove("inputResponses") {
        None => Map::new(),
        Some(Value::Object(r)) => r,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: inputResponses must be an object",
            ));
        }
    };
    let stripped = JsonRpcRequest::new(request.id.clone(), request.method.clone(), Some(rest));
    Ok((requests::params(&stripped)?, Retry { responses, state }))
}

/// One round of a tool call or prompt.
///
/// A retry's round runs detached from the request, so a dropped connection
/// does not lose it, and sending the same retry again gets its reply (see
/// [`replies`]).
async fn run(
    server: &Arc<ServerInner>,
    target: Target<'_>,
    args: Map<String, Value>,
    retry: Retry,
    sink: &OutboundSink,
    caller: Caller,
    meta: meta::RequestMeta,
) -> Reply {
    let args = Value::Object(args);
    let binding = state::binding(&caller.principal, target.method(), target.name(), &args);
    let Some(token) = &retry.state else {
        let round = Input {
            responses: retry.responses,
            prior: None,
            caller,
            meta,
        };
        return play(server, target, args, round, sink, &binding).await;
    };
    let opened = state::open(server, token, &binding)?;
    let claim = server.retries.claim(opened.id);
    let running = match claim {
        Claim::Repeat(reply) => return replies::wait(reply).await,
        Claim::Untracked => None,
        Claim::First(running) => Some(running),
    };
    let (method, name) = (target.method(), target.name().to_string());
    let detached = {
        let server = Arc::clone(server);
        let sink = sink.clone();
        async move {
            let reply = match state::redeem(&server, &opened).await {
                Ok(()) => match resolve(&server, method, &name) {
                    Ok(target) => {
                        let round = Input {
                            responses: retry.responses,
                            prior: Some(opened.state),
                            caller,
                            meta,
                        };
                        play(&server, target, args, round, &sink, &binding).await
                    }
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            };
            if let Some(running) = running {
                running.finish(&reply);
            }
            reply
        }
        .in_current_span()
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => runtime
            .spawn(detached)
            .await
            .unwrap_or_else(|_| Err(RpcError::internal("Internal error"))),
        Err(_) => detached.await,
    }
}

/// The target of a request again, from the server itself (for a round that
/// outlives its request).
fn resolve<'s>(server: &'s ServerInner, method: &str, name: &str) -> Result<Target<'s>, RpcError> {
    if method == method::PROMPTS_GET {
        requests::find_prompt(server, name).map(Target::Prompt)
    } else {
        requests::find_tool(server, name).map(Target::Tool)
    }
}

/// What one round answers from and for whom.
struct Input {
    responses: Map<String, Value>,
    prior: Option<state::RoundState>,
    caller: Caller,
    meta: meta::RequestMeta,
}

/// Run the handler for one round and turn its outcome into the reply.
async fn play(
    server: &Arc<ServerInner>,
    target: Target<'_>,
    args: Value,
    input: Input,
    sink: &OutboundSink,
    binding: &crate::state::Binding,
) -> Reply {
    let round = Arc::new(Round::new(
        input.meta.capabilities,
        input.responses,
        input.prior,
        &input.caller.quota_key,
    ));
    let call = Arc::new(Call::new(
        Arc::clone(server),
        input.caller,
        sink.clone(),
        input.meta.progress_token,
        input.meta.log_level,
        Arc::clone(&round) as Arc<dyn super::call::Conversation>,
    ));
    let Value::Object(args) = args else {
        return Err(RpcError::internal("Internal error"));
    };
    let outcome = invoke(&call, target, args).await;
    finish(server, target, outcome, &round, binding)
}

/// What a handler's outcome becomes on 2026-07-28.
fn finish(
    server: &ServerInner,
    target: Target<'_>,
    outcome: Outcome,
    round: &Round,
    binding: &crate::state::Binding,
) -> Reply {
    let info = &server.info;
    let failed = |text: String| target.execution_error(text)?.into_modern(info);
    let error = match outcome {
        Outcome::Finished(Ok(done)) => {
            if round.next_round().is_some() {
                tracing::debug!("handler finished with questions pending; returning its result");
            }
            return done.into_modern(info);
        }
        Outcome::Suspended => {
            let Some((requests, next)) = round.next_round() else {
                tracing::error!("a handler suspended with no question recorded");
                return Err(RpcError::internal("Internal error"));
            };
            let token = state::seal(server, &next, binding)?;
            let mut r = InputRequiredResult::new(Some(requests), Some(token));
            r.meta = Some(server_info(info));
            return to_object(&r);
        }
        Outcome::Finished(Err(e)) => e,
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
        ToolError::Ask(
            e @ (AskError::Disconnected | AskError::ClientError { .. } | AskError::Internal(_)),
        ) => {
            tracing::error!(error = %e, "handler failed");
            Err(RpcError::internal("Internal error"))
        }
        ToolError::Execution(m) => failed(m),
        ToolError::Rpc(e) => Err(e),
        ToolError::UrlElicitationRequired(_) => {
            tracing::error!(
                "UrlElicitationRequired built by hand on 2026-07-28; use ToolContext::url_elicitation_required"
            );
            Err(RpcError::internal("Internal error"))
        }
    }
}
