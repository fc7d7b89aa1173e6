//! 2025-11-25: requests served on a [`Session`] after the `initialize`
//! handshake (`initialize`, `ping`, lists, `logging/setLevel`, `tools/call`,
//! `prompts/get`, `resources/read`, `resources/subscribe` and
//! `unsubscribe`, `completion/complete`), and what a handler's outcome
//! becomes on this revision.

mod elicit;

use std::sync::Arc;

use frontdesk_wire::{
    CallToolRequestParams, CompleteRequestParams, ElicitRequestUrlParams, EmptyResult, ErrorObject,
    GetPromptRequestParams, InitializeRequestParamsLenient, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, Meta,
    ProgressToken, ReadResourceRequestParams, Revision, SubscribeRequestParams, method, version,
};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::server::api::error::{AskError, RpcError, ToolError};
use crate::server::api::tool::ToolDef;
use crate::server::contract::OutboundSink;
use crate::server::contract::incoming::{MetaFields, ToolCall};
use crate::server::engine::call::Call;
use crate::server::engine::drain::CALL_AGAIN as SHUTTING_DOWN_RESULT;
use crate::server::engine::inner::{Caller, ServerInner};
use crate::server::engine::invoke::{Outcome, Target, invoke, result_json};
use crate::server::engine::requests;
use crate::server::engine::requests::{ObjectRequest, Reply};
use crate::server::engine::session::Session;

/// Serve one 2025-11-25 `tools/call` read in its typed form.
pub(crate) async fn call_tool(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    params: Box<ToolCall>,
    tool: Option<Arc<ToolDef>>,
    sink: &OutboundSink,
    caller: Caller,
) -> Reply {
    let session = admitted(session, method::TOOLS_CALL)?;
    run_tool(server, session, params, tool, sink, caller).await
}

/// Serve one 2025-11-25 request whose params are read as an object.
pub(crate) async fn serve(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    request: &ObjectRequest<'_>,
    tool: Option<Arc<ToolDef>>,
    sink: &OutboundSink,
    caller: Caller,
) -> Reply {
    let method = request.method;
    if method == method::PING {
        return result_json(&EmptyResult::default());
    }
    if method == method::INITIALIZE {
        return initialize(server, needs_session(session)?, request);
    }
    let session = admitted(session, method)?;
    match method {
        method::TOOLS_LIST => result_json(&ListToolsResult::new(server.tools.listing())),
        method::TOOLS_CALL => {
            let p: CallToolRequestParams = requests::params(request)?;
            let call = ToolCall {
                name: p.name,
                arguments: p.arguments.unwrap_or_default(),
                meta: p.meta.map(|mut m| MetaFields::take_from(&mut m.0)),
                retry: Default::default(),
            };
            run_tool(server, session, Box::new(call), tool, sink, caller).await
        }
        method::PROMPTS_LIST if !server.prompts.is_empty() => {
            result_json(&ListPromptsResult::new(requests::prompt_listing(server)))
        }
        method::PROMPTS_GET if !server.prompts.is_empty() => {
            let p: GetPromptRequestParams = requests::params(request)?;
            let target = Target::Prompt(requests::find_prompt(server, &p.name)?);
            let call = call(
                server,
                session,
                sink,
                caller,
                progress_token(p.meta.as_ref()),
            );
            let outcome = invoke(&call, &target, p.arguments.unwrap_or_default()).await;
            finish(&target, outcome, &session.client_capabilities())
        }
        method::RESOURCES_LIST if !server.resources.is_empty() => {
            result_json(&ListResourcesResult::new(server.resources.listing()))
        }
        method::RESOURCES_TEMPLATES_LIST if !server.resources.is_empty() => result_json(
            &ListResourceTemplatesResult::new(server.resources.template_listing()),
        ),
        method::RESOURCES_READ if !server.resources.is_empty() => {
            let p: ReadResourceRequestParams = requests::params(request)?;
            requests::check_uri_length(server, &p.uri)?;
            let target = Target::Resource(
                server
                    .resources
                    .resolve(&p.uri)
                    .ok_or_else(|| requests::resource_not_found(&p.uri, Revision::V2025_11_25))?,
            );
            let call = call(
                server,
                session,
                sink,
                caller,
                progress_token(p.meta.as_ref()),
            );
            let outcome = invoke(&call, &target, serde_json::Map::new()).await;
            finish(&target, outcome, &session.client_capabilities())
        }
        method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE
            if !server.resources.is_empty() =>
        {
            let p: SubscribeRequestParams = requests::typed(request)?;
            requests::check_uri_length(server, &p.uri)?;
            let subscribe = method == method::RESOURCES_SUBSCRIBE;
            if subscribe && server.resources.resolve(&p.uri).is_none() {
                return Err(requests::resource_not_found(&p.uri, Revision::V2025_11_25));
            }
            server
                .subscribers
                .set_subscribed(session, &caller.quota_key, &p.uri, subscribe)
                .map_err(|refused| {
                    tracing::warn!(client = %caller.quota_key, ?refused, "resource subscription refused");
                    refused.into_error()
                })?;
            tracing::debug!(uri = %p.uri, subscribe, "resource subscription changed");
            if subscribe {
                server.resources.subscribed(&p.uri);
            }
            result_json(&EmptyResult::default())
        }
        method::COMPLETION_COMPLETE if requests::has_completions(server) => {
            let p: CompleteRequestParams = requests::typed(request)?;
            result_json(&crate::server::engine::completions::complete(server, p, None).await?)
        }
        method::LOGGING_SET_LEVEL => {
            #[derive(Deserialize)]
            struct SetLevel {
                level: LoggingLevel,
            }
            let p: SetLevel = request.parse_params().map_err(|_| {
                RpcError::invalid_params(
                    "Invalid params: level must be one of debug, info, notice, warning, error, \
                     critical, alert, emergency",
                )
            })?;
            session.set_log_level(p.level);
            result_json(&EmptyResult::default())
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// The session a request needs, initialized, or the error saying what is
/// missing.
fn admitted<'a>(
    session: Option<&'a Arc<Session>>,
    method: &str,
) -> Result<&'a Arc<Session>, RpcError> {
    let session = needs_session(session)?;
    if method != method::PING && !session.is_initialized() {
        return Err(RpcError::invalid_request(
            "Invalid request: send initialize first",
        ));
    }
    Ok(session)
}

fn needs_session(session: Option<&Arc<Session>>) -> Result<&Arc<Session>, RpcError> {
    session.ok_or_else(|| {
        RpcError::invalid_request(
            "Invalid request: this request needs a session; send initialize first",
        )
    })
}

/// Run a tool call on `session`.
async fn run_tool(
    server: &Arc<ServerInner>,
    session: &Arc<Session>,
    params: Box<ToolCall>,
    tool: Option<Arc<ToolDef>>,
    sink: &OutboundSink,
    caller: Caller,
) -> Reply {
    // The params boxed and taken apart before the tool runs: a call waiting
    // for its person's answer keeps neither them (about 500 bytes) nor a
    // copy of them in this future and the caller's (issue 27).
    let (target, token, arguments) = {
        // The box moved into this block is freed at its end; moving out of
        // `*params` alone would keep the box until the call ends.
        let boxed = params;
        let ToolCall {
            name,
            arguments,
            meta,
            ..
        } = *boxed;
        let target = Target::Tool(requests::known_tool(tool, &name)?);
        (
            target,
            meta.as_ref().and_then(MetaFields::progress_token),
            arguments,
        )
    };
    let call = call(server, session, sink, caller, token);
    let outcome = invoke(&call, &target, arguments).await;
    finish(&target, outcome, &session.client_capabilities())
}

fn initialize(server: &ServerInner, session: &Arc<Session>, request: &ObjectRequest<'_>) -> Reply {
    let p: InitializeRequestParamsLenient = requests::params(request)?;
    let requested = p.protocol_version.as_str();
    let negotiated = if version::HANDSHAKE.contains(&requested) {
        requested
    } else {
        version::HANDSHAKE[0]
    };
    let caps = serde_json::to_value(&p.capabilities).unwrap_or_else(|_| Value::Object(Map::new()));
    session.set_negotiated(negotiated.to_string(), caps);
    server.subscribers.attach(session);
    let mut result = InitializeResult::new(
        negotiated,
        requests::capabilities(server, Revision::V2025_11_25),
        server.info.clone(),
    );
    result.instructions.clone_from(&server.instructions);
    result_json(&result)
}

/// The `progressToken` of a request's `_meta`, when a string or an integer.
fn progress_token(meta: Option<&Meta>) -> Option<ProgressToken> {
    meta.and_then(|m| m.progress_token()).and_then(Result::ok)
}

fn call(
    server: &Arc<ServerInner>,
    session: &Arc<Session>,
    sink: &OutboundSink,
    caller: Caller,
    progress_token: Option<ProgressToken>,
) -> Arc<Call> {
    Arc::new(Call::new(
        Arc::clone(server),
        caller,
        sink.clone(),
        progress_token,
        session.log_level(),
        Arc::new(elicit::Live {
            session: Arc::clone(session),
        }),
    ))
}

/// What a handler's outcome becomes on 2025-11-25.
fn finish(target: &Target, outcome: Outcome, caps: &Value) -> Reply {
    let failed = |text: String| target.execution_error(text)?.into_legacy();
    let error = match outcome {
        Outcome::Finished(Ok(done)) => return done.into_legacy(),
        Outcome::Finished(Err(e)) => e,
        Outcome::Suspended | Outcome::Detached(..) => {
            tracing::error!("a 2025-11-25 call suspended or became a task");
            return Err(RpcError::internal("Internal error"));
        }
    };
    let noun = target.noun();
    match error {
        ToolError::Rpc(e) => Err(e),
        ToolError::Execution(m) => failed(m.message().to_string()),
        ToolError::UrlElicitationRequired(list) => {
            if caps.get("elicitation").and_then(|e| e.get("url")).is_none() {
                return failed(format!(
                    "This {noun} needs the person to visit a web page, which this client cannot offer."
                ));
            }
            let elicitations = list
                .into_vec()
                .into_iter()
                .map(|u| {
                    ElicitRequestUrlParams::new(u.message, u.url)
                        .with_elicitation_id(u.elicitation_id)
                })
                .collect();
            Err(ErrorObject::url_elicitation_required(
                "This request requires more information.",
                elicitations,
            )
            .into())
        }
        ToolError::Ask(e) => match e {
            AskError::MissingCapability { required } => failed(format!(
                "This {noun} needs a client capability that was not declared: {required}"
            )),
            AskError::TimedOut => failed("No answer arrived in the time allowed.".into()),
            AskError::Disconnected => {
                Err(RpcError::internal("Internal error: the client went away"))
            }
            AskError::ClientError { message, .. } => {
                failed(format!("The client could not ask the question: {message}"))
            }
            AskError::InvalidResponse { reason, .. } => {
                failed(format!("The client's answer was malformed: {reason}"))
            }
            AskError::InvalidAnswer(e) => failed(format!("The answer did not fit the form: {e}")),
            AskError::Busy(why) => failed(format!("The question could not be asked now: {why}.")),
            AskError::ShuttingDown => failed(SHUTTING_DOWN_RESULT.into()),
            AskError::Internal(_) => {
                tracing::error!(error = %e, "handler failed");
                Err(RpcError::internal("Internal error"))
            }
        },
    }
}
