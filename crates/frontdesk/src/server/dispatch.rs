//! Route one parsed message to its era, run tools and prompts, and turn what
//! handlers return into results or JSON-RPC errors.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use frontdesk_wire::{
    CallToolRequestParams, CancelledNotificationParams, ElicitRequestUrlParams, ErrorCode,
    ErrorObject, GetPromptRequestParams, InitializeRequestParamsLenient, JsonRpcMessage,
    JsonRpcNotification, JsonRpcRequest, MessageError, MessageErrorKind, MetaParams, ParamsError,
    RequestId, method, version,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::answer::AskError;
use super::context::{CallInner, EraCall, ToolContext};
use super::legacy::{ClientReply, Session};
use super::modern::{self, META_CAPS, META_SERVER_INFO, META_VERSION, ModernRound, RequestMeta};
use super::rpc::RpcError;
use super::tool::{ToolError, ToolOutput};
use super::{Handled, OutboundSink, RequestInfo, Revision, ServerInner};

type Reply = Result<Map<String, Value>, RpcError>;

pub(crate) fn revision_of_value(message: &Value) -> Revision {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = message.get("params").and_then(Value::as_object);
    revision_of(method, params)
}

fn revision_of(method: &str, params: Option<&Map<String, Value>>) -> Revision {
    if method == method::SERVER_DISCOVER {
        return Revision::V2026_07_28;
    }
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    match meta {
        Some(m) if m.contains_key(META_VERSION) || m.contains_key(META_CAPS) => {
            Revision::V2026_07_28
        }
        _ => Revision::V2025_11_25,
    }
}

pub(crate) async fn handle(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    message: Value,
    sink: &OutboundSink,
    info: &RequestInfo,
) -> Handled {
    let message = match JsonRpcMessage::from_value(message) {
        Ok(m) => m,
        Err(e) => return rejected(session, &e, info),
    };
    match message {
        JsonRpcMessage::Response(r) => {
            route(session, &r.id, ClientReply::Result(r.result));
            no_body(info.revision)
        }
        JsonRpcMessage::Error(e) => {
            match &e.id {
                Some(id) => route(session, id, ClientReply::Error(e.error)),
                None => tracing::debug!(error = %e.error, "error response without an id; ignored"),
            }
            no_body(info.revision)
        }
        JsonRpcMessage::Notification(n) => {
            notification(session, &n);
            no_body(info.revision)
        }
        JsonRpcMessage::Request(request) => {
            request_handled(server, session, &request, sink, info).await
        }
    }
}

/// A message the classifier refused. A malformed answer to one of our own
/// questions ends that question; anything else gets `-32600`/`-32700`.
fn rejected(session: Option<&Arc<Session>>, e: &MessageError, info: &RequestInfo) -> Handled {
    if matches!(
        e.kind(),
        MessageErrorKind::InvalidResult | MessageErrorKind::InvalidError
    ) && let (Some(s), Some(id)) = (session, e.id())
        && s.is_waiting_for(id)
    {
        tracing::warn!(%id, error = %e, "malformed answer to our request");
        s.route_response(id, ClientReply::Malformed(e.to_string()));
        return no_body(info.revision);
    }
    let error = RpcError::rejected(e);
    tracing::warn!(code = error.code().0, error = %error.message(), "rejected message");
    Handled {
        response: Some(error.to_response(e.id())),
        http_status: error.http_status,
        revision: None,
    }
}

fn route(session: Option<&Arc<Session>>, id: &RequestId, reply: ClientReply) {
    let routed = session.is_some_and(|s| s.route_response(id, reply));
    if !routed {
        tracing::debug!(%id, "response to no outstanding request; ignored");
    }
}

async fn request_handled(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    request: &JsonRpcRequest,
    sink: &OutboundSink,
    info: &RequestInfo,
) -> Handled {
    let id = &request.id;
    let method = request.method.as_str();
    let era = info
        .revision
        .unwrap_or_else(|| revision_of(method, request.params.as_ref()));
    let principal = info.principal.clone().unwrap_or_default();
    let work = async {
        match era {
            Revision::V2026_07_28 => modern_request(server, request, sink, principal).await,
            Revision::V2025_11_25 => {
                legacy_request(server, session, request, sink, principal).await
            }
        }
    };
    let reply = match session {
        Some(s) => {
            let token = s.begin_request(id);
            let r = tokio::select! {
                r = work => Some(r),
                () = token.cancelled() => None,
            };
            s.end_request(id);
            r
        }
        None => Some(work.await),
    };
    let Some(reply) = reply else {
        tracing::info!(%id, method, "request cancelled; no response");
        return no_body(Some(era));
    };
    match reply {
        Ok(result) => Handled {
            response: Some(JsonRpcMessage::from(request.respond(result)).to_value()),
            http_status: 200,
            revision: Some(era),
        },
        Err(e) => {
            tracing::warn!(%id, method, code = e.code().0, error = %e.message(), "request failed");
            Handled {
                response: Some(e.to_response(Some(id))),
                http_status: if era == Revision::V2026_07_28 {
                    e.http_status
                } else {
                    200
                },
                revision: Some(era),
            }
        }
    }
}

fn no_body(revision: Option<Revision>) -> Handled {
    Handled {
        response: None,
        http_status: 202,
        revision,
    }
}

fn notification(session: Option<&Arc<Session>>, n: &JsonRpcNotification) {
    match (n.method.as_str(), session) {
        (method::INITIALIZED, Some(s)) => s.mark_initialized(),
        (method::NOTIFICATION_CANCELLED, Some(s)) => {
            match n.parse_params::<CancelledNotificationParams>() {
                Ok(CancelledNotificationParams {
                    request_id: Some(id),
                    ..
                }) => {
                    if !s.cancel_request(&id) {
                        tracing::debug!(%id, "cancellation for no in-flight request; ignored");
                    }
                }
                Ok(_) => tracing::debug!("cancellation without a requestId; ignored"),
                Err(e) => tracing::debug!(error = %e, "malformed cancellation; ignored"),
            }
        }
        (method, _) => tracing::debug!(method, "notification ignored"),
    }
}

/// The typed params of `request`, or the `-32602` naming what is wrong. The
/// wire type decides; the common mistakes keep the server's short wording.
fn params<P: DeserializeOwned>(request: &JsonRpcRequest) -> Result<P, RpcError> {
    request.parse_params().map_err(|e: ParamsError| {
        let raw = |key: &str| request.params.as_ref().and_then(|p| p.get(key));
        let detail = match request.method.as_str() {
            method::INITIALIZE if !raw("protocolVersion").is_some_and(Value::is_string) => {
                "protocolVersion is required"
            }
            method::INITIALIZE => return RpcError::invalid_params(e.to_string()),
            _ if !raw("name").is_some_and(Value::is_string) => "name is required",
            _ if raw("arguments").is_some_and(|a| !(a.is_object() || a.is_null())) => {
                "arguments must be an object"
            }
            _ => return RpcError::invalid_params(e.to_string()),
        };
        RpcError::invalid_params(format!("Invalid params: {detail}"))
    })
}

fn capabilities(server: &ServerInner, revision: Revision) -> Value {
    let mut caps = Map::new();
    if !server.tools.is_empty() {
        caps.insert("tools".into(), json!({}));
    }
    if !server.prompts.is_empty() {
        caps.insert("prompts".into(), json!({}));
    }
    if revision == Revision::V2025_11_25 {
        caps.insert("logging".into(), json!({}));
    }
    Value::Object(caps)
}

fn legacy_needs_session(session: Option<&Arc<Session>>) -> Result<&Arc<Session>, RpcError> {
    session.ok_or_else(|| {
        RpcError::invalid_request(
            "Invalid request: this request needs a session; send initialize first",
        )
    })
}

async fn legacy_request(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    request: &JsonRpcRequest,
    sink: &OutboundSink,
    principal: String,
) -> Reply {
    let method = request.method.as_str();
    if method == method::PING {
        return Ok(Map::new());
    }
    let session = legacy_needs_session(session)?;
    if method == method::INITIALIZE {
        let p: InitializeRequestParamsLenient = params(request)?;
        let requested = p.protocol_version.as_str();
        let version = if version::HANDSHAKE.contains(&requested) {
            requested
        } else {
            version::HANDSHAKE[0]
        };
        let caps = serde_json::to_value(&p.capabilities).unwrap_or_else(|_| json!({}));
        session.set_negotiated(version.to_string(), caps);
        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::from(version));
        result.insert(
            "capabilities".into(),
            capabilities(server, Revision::V2025_11_25),
        );
        result.insert("serverInfo".into(), server.info.clone());
        if let Some(i) = &server.instructions {
            result.insert("instructions".into(), Value::from(i.clone()));
        }
        return Ok(result);
    }
    if !session.is_initialized() {
        return Err(RpcError::invalid_request(
            "Invalid request: send initialize first",
        ));
    }
    let call = |meta: Option<&frontdesk_wire::Meta>| CallInner {
        server: Arc::clone(server),
        principal: principal.clone(),
        sink: sink.clone(),
        progress_token: meta.and_then(|m| m.progress_token()).and_then(Result::ok),
        logging: session.log_level().is_some(),
        progress: AtomicU64::new(0),
        auto_key: AtomicU64::new(0),
        era: EraCall::Legacy(Arc::clone(session)),
    };
    match method {
        method::TOOLS_LIST => Ok(one("tools", Value::Array(server.tools.listing()))),
        method::TOOLS_CALL => {
            let p: CallToolRequestParams = params(request)?;
            let tool = find_tool(server, &p.name)?;
            let cx = ToolContext::new(call(p.meta.as_ref()));
            let outcome = (tool.handler)(cx, Value::Object(p.arguments.unwrap_or_default())).await;
            legacy_outcome(
                outcome.map(|o| o.to_result()),
                &session.client_capabilities(),
            )
        }
        method::PROMPTS_LIST if !server.prompts.is_empty() => Ok(prompt_listing(server)),
        method::PROMPTS_GET if !server.prompts.is_empty() => {
            let p: GetPromptRequestParams = params(request)?;
            let prompt = find_prompt(server, &p.name)?;
            let cx = ToolContext::new(call(p.meta.as_ref()));
            let outcome = (prompt.handler)(cx, p.arguments.unwrap_or_default()).await;
            legacy_outcome(
                outcome.map(|o| o.to_result()),
                &session.client_capabilities(),
            )
        }
        method::LOGGING_SET_LEVEL => {
            let level = request
                .params
                .as_ref()
                .and_then(|p| p.get("level"))
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::invalid_params("Invalid params: level is required"))?;
            session.set_log_level(level.to_string());
            Ok(Map::new())
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

fn one(key: &str, value: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), value);
    m
}

fn prompt_listing(server: &ServerInner) -> Map<String, Value> {
    one(
        "prompts",
        Value::Array(server.prompts.iter().map(|p| p.to_listing()).collect()),
    )
}

fn find_tool<'a>(
    server: &'a ServerInner,
    name: &str,
) -> Result<&'a super::tool::ToolDef, RpcError> {
    server
        .tools
        .get(name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))
}

fn find_prompt<'a>(
    server: &'a ServerInner,
    name: &str,
) -> Result<&'a super::prompt::PromptDef, RpcError> {
    server
        .prompts
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))
}

/// Map a 2025-11-25 handler outcome.
fn legacy_outcome(outcome: Result<Map<String, Value>, ToolError>, caps: &Value) -> Reply {
    let fail = |text: String| Ok(ToolOutput::error(text).to_result());
    match outcome {
        Ok(result) => Ok(result),
        Err(ToolError::Rpc(e)) => Err(e),
        Err(ToolError::Execution(m)) => fail(m),
        Err(ToolError::UrlElicitationRequired(list)) => {
            if caps.get("elicitation").and_then(|e| e.get("url")).is_none() {
                return fail("This tool needs the person to visit a web page, which this client cannot offer.".into());
            }
            let elicitations = list
                .iter()
                .map(|u| {
                    ElicitRequestUrlParams::new(u.message.clone(), u.url.clone())
                        .with_elicitation_id(u.elicitation_id.clone())
                })
                .collect();
            Err(ErrorObject::url_elicitation_required(
                "This request requires more information.",
                elicitations,
            )
            .into())
        }
        Err(ToolError::Ask(e)) => match e {
            AskError::MissingCapability { required } => fail(format!(
                "This tool needs a client capability that was not declared: {required}"
            )),
            AskError::TimedOut => fail("No answer arrived in the time allowed.".into()),
            AskError::Disconnected => {
                Err(RpcError::internal("Internal error: the client went away"))
            }
            AskError::ClientError { message, .. } => {
                fail(format!("The client could not ask the question: {message}"))
            }
            AskError::InvalidResponse { reason, .. } => {
                fail(format!("The client's answer was malformed: {reason}"))
            }
            AskError::InvalidAnswer(e) => fail(format!("The answer did not fit the form: {e}")),
            AskError::InputRequired | AskError::Internal(_) => {
                tracing::error!(error = %e, "handler failed");
                Err(RpcError::internal("Internal error"))
            }
        },
    }
}

fn decorate(server: &ServerInner, mut result: Map<String, Value>) -> Map<String, Value> {
    result
        .entry("resultType")
        .or_insert_with(|| Value::from("complete"));
    result.insert("_meta".into(), json!({ META_SERVER_INFO: server.info }));
    result
}

fn cacheable(server: &ServerInner, mut result: Map<String, Value>) -> Map<String, Value> {
    result.insert("ttlMs".into(), Value::from(server.config.list_ttl_ms));
    result.insert("cacheScope".into(), Value::from("public"));
    decorate(server, result)
}

async fn modern_request(
    server: &Arc<ServerInner>,
    request: &JsonRpcRequest,
    sink: &OutboundSink,
    principal: String,
) -> Reply {
    let method = request.method.as_str();
    let meta = {
        let p: Option<MetaParams> = request.parse_params().ok();
        modern::validate_meta(p.and_then(|p| p.meta).as_ref(), version::SUPPORTED)?
    };
    match method {
        method::SERVER_DISCOVER => {
            let mut r = Map::new();
            r.insert("supportedVersions".into(), json!(version::SUPPORTED));
            r.insert(
                "capabilities".into(),
                capabilities(server, Revision::V2026_07_28),
            );
            if let Some(i) = &server.instructions {
                r.insert("instructions".into(), Value::from(i.clone()));
            }
            Ok(cacheable(server, r))
        }
        method::TOOLS_LIST if !server.tools.is_empty() => Ok(cacheable(
            server,
            one("tools", Value::Array(server.tools.listing())),
        )),
        method::PROMPTS_LIST if !server.prompts.is_empty() => {
            Ok(cacheable(server, prompt_listing(server)))
        }
        method::TOOLS_CALL => {
            let (p, responses) = retry_params::<CallToolRequestParams>(request)?;
            let tool = find_tool(server, &p.name)?;
            let args = p.arguments.map(Value::Object);
            let binding = modern::binding(&principal, method, &tool.name, args.as_ref());
            let (cx, round_cx) = modern_context(
                server,
                (responses, p.request_state),
                sink,
                principal,
                meta,
                &binding,
            )
            .await?;
            let outcome = (tool.handler)(cx, args.unwrap_or_else(|| json!({}))).await;
            modern_outcome(server, &round_cx, &binding, outcome.map(|o| o.to_result()))
        }
        method::PROMPTS_GET if !server.prompts.is_empty() => {
            let (p, responses) = retry_params::<GetPromptRequestParams>(request)?;
            let prompt = find_prompt(server, &p.name)?;
            let args = p.arguments.unwrap_or_default();
            let args_value = Value::Object(args.clone());
            let binding = modern::binding(&principal, method, &prompt.name, Some(&args_value));
            let (cx, round_cx) = modern_context(
                server,
                (responses, p.request_state),
                sink,
                principal,
                meta,
                &binding,
            )
            .await?;
            let outcome = (prompt.handler)(cx, args).await;
            modern_outcome(server, &round_cx, &binding, outcome.map(|o| o.to_result()))
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// The typed params of a request that may be a 2026-07-28 retry, and its
/// `inputResponses` kept raw: each answer is read when its question is asked,
/// because answers to questions not asked are ignored whatever their shape.
/// A `requestState` that is not a string gets the one fixed state error.
fn retry_params<P: DeserializeOwned>(
    request: &JsonRpcRequest,
) -> Result<(P, Map<String, Value>), RpcError> {
    let mut rest = request.params.clone().unwrap_or_default();
    if rest.get("requestState").is_some_and(|s| !s.is_string()) {
        return Err(modern::state_rejected());
    }
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
    Ok((params(&stripped)?, responses))
}

async fn modern_context(
    server: &Arc<ServerInner>,
    (responses, state): (Map<String, Value>, Option<String>),
    sink: &OutboundSink,
    principal: String,
    meta: RequestMeta,
    binding: &crate::state::Binding,
) -> Result<(ToolContext, ToolContext), RpcError> {
    let prior = match state {
        None => None,
        Some(token) => Some(modern::open_state(server, &token, binding).await?),
    };
    let cx = ToolContext::new(CallInner {
        server: Arc::clone(server),
        principal,
        sink: sink.clone(),
        progress_token: meta.progress_token,
        logging: meta.logging,
        progress: AtomicU64::new(0),
        auto_key: AtomicU64::new(0),
        era: EraCall::Modern(Box::new(ModernRound::new(
            meta.capabilities,
            responses,
            prior,
        ))),
    });
    Ok((cx.clone(), cx))
}

/// Map a 2026-07-28 handler outcome.
fn modern_outcome(
    server: &ServerInner,
    cx: &ToolContext,
    binding: &crate::state::Binding,
    outcome: Result<Map<String, Value>, ToolError>,
) -> Reply {
    let EraCall::Modern(round) = &cx.inner.era else {
        return Err(RpcError::internal("Internal error"));
    };
    let fail = |text: String| Ok(decorate(server, ToolOutput::error(text).to_result()));
    match outcome {
        Ok(result) => {
            if round.has_pending() {
                tracing::debug!("handler finished with questions pending; returning its result");
            }
            Ok(decorate(server, result))
        }
        Err(ToolError::Ask(AskError::InputRequired)) => {
            Ok(decorate(server, round.input_required(server, binding)?))
        }
        Err(ToolError::Ask(AskError::MissingCapability { required })) => Err(RpcError::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "This request requires a client capability that was not declared",
        )
        .with_data(json!({"requiredCapabilities": required}))
        .with_status(400)),
        Err(ToolError::Ask(AskError::InvalidResponse { key, reason })) => Err(
            RpcError::invalid_params(format!("Invalid params: inputResponses[{key:?}]: {reason}")),
        ),
        Err(ToolError::Ask(AskError::InvalidAnswer(e))) => {
            fail(format!("The answer did not fit the form: {e}"))
        }
        Err(ToolError::Ask(AskError::TimedOut)) => {
            fail("No answer arrived in the time allowed.".into())
        }
        Err(ToolError::Ask(
            e @ (AskError::Disconnected | AskError::ClientError { .. } | AskError::Internal(_)),
        )) => {
            tracing::error!(error = %e, "handler failed");
            Err(RpcError::internal("Internal error"))
        }
        Err(ToolError::Execution(m)) => fail(m),
        Err(ToolError::Rpc(e)) => Err(e),
        Err(ToolError::UrlElicitationRequired(_)) => {
            tracing::error!(
                "UrlElicitationRequired built by hand on 2026-07-28; use ToolContext::url_elicitation_required"
            );
            Err(RpcError::internal("Internal error"))
        }
    }
}
