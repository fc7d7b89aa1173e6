//! Route one parsed message to its era, run tools and prompts, and turn what
//! handlers return into results or JSON-RPC errors.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde_json::{Map, Value, json};

use super::answer::AskError;
use super::context::{CallInner, EraCall, ToolContext};
use super::legacy::Session;
use super::modern::{self, META_CAPS, META_SERVER_INFO, META_VERSION, ModernRound, RequestMeta};
use super::rpc::{self, Envelope, RpcError, classify};
use super::tool::{ToolError, ToolOutput};
use super::{
    Era, Handled, LEGACY_VERSIONS, OutboundSink, RequestInfo, SUPPORTED_VERSIONS, ServerInner,
};

type Reply = Result<Map<String, Value>, RpcError>;

pub(crate) fn era_of_value(message: &Value) -> Era {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = message.get("params").and_then(Value::as_object);
    era_of(method, params)
}

fn era_of(method: &str, params: Option<&Map<String, Value>>) -> Era {
    if method == "server/discover" {
        return Era::Modern;
    }
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    match meta {
        Some(m) if m.contains_key(META_VERSION) || m.contains_key(META_CAPS) => Era::Modern,
        _ => Era::Legacy,
    }
}

pub(crate) async fn handle(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    message: Value,
    sink: &OutboundSink,
    info: &RequestInfo,
) -> Handled {
    let envelope = match classify(message) {
        Ok(e) => e,
        Err(boxed) => {
            let (id, e) = *boxed;
            tracing::warn!(code = e.code, error = %e.message, "rejected message");
            return Handled {
                response: Some(rpc::error_response(&id, &e)),
                http_status: e.http_status,
                era: None,
            };
        }
    };
    match envelope {
        Envelope::Response { id, outcome } => {
            let routed = session.is_some_and(|s| s.route_response(&id, outcome));
            if !routed {
                tracing::debug!(%id, "response to no outstanding request; ignored");
            }
            no_body(info.era)
        }
        Envelope::Notification { method, params } => {
            notification(session, &method, &params);
            no_body(info.era)
        }
        Envelope::Request { id, method, params } => {
            let era = info.era.unwrap_or_else(|| era_of(&method, Some(&params)));
            let principal = info.principal.clone().unwrap_or_default();
            let work = async {
                match era {
                    Era::Modern => modern_request(server, &method, &params, sink, principal).await,
                    Era::Legacy => {
                        legacy_request(server, session, &method, &params, sink, principal).await
                    }
                }
            };
            let reply = match session {
                Some(s) => {
                    let token = s.begin_request(&id);
                    let r = tokio::select! {
                        r = work => Some(r),
                        () = token.cancelled() => None,
                    };
                    s.end_request(&id);
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
                    response: Some(rpc::response(&id, Value::Object(result))),
                    http_status: 200,
                    era: Some(era),
                },
                Err(e) => {
                    tracing::warn!(%id, method, code = e.code, error = %e.message, "request failed");
                    Handled {
                        response: Some(rpc::error_response(&id, &e)),
                        http_status: if era == Era::Modern {
                            e.http_status
                        } else {
                            200
                        },
                        era: Some(era),
                    }
                }
            }
        }
    }
}

fn no_body(era: Option<Era>) -> Handled {
    Handled {
        response: None,
        http_status: 202,
        era,
    }
}

fn notification(session: Option<&Arc<Session>>, method: &str, params: &Map<String, Value>) {
    match (method, session) {
        ("notifications/initialized", Some(s)) => s.mark_initialized(),
        ("notifications/cancelled", Some(s)) => {
            let id = params.get("requestId").cloned().unwrap_or(Value::Null);
            if !s.cancel_request(&id) {
                tracing::debug!(%id, "cancellation for no in-flight request; ignored");
            }
        }
        _ => tracing::debug!(method, "notification ignored"),
    }
}

fn capabilities(server: &ServerInner, era: Era) -> Value {
    let mut caps = Map::new();
    if !server.tools.is_empty() {
        caps.insert("tools".into(), json!({}));
    }
    if !server.prompts.is_empty() {
        caps.insert("prompts".into(), json!({}));
    }
    if era == Era::Legacy {
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
    method: &str,
    params: &Map<String, Value>,
    sink: &OutboundSink,
    principal: String,
) -> Reply {
    if method == "ping" {
        return Ok(Map::new());
    }
    let session = legacy_needs_session(session)?;
    if method == "initialize" {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params("Invalid params: protocolVersion is required")
            })?;
        let version = if LEGACY_VERSIONS.contains(&requested) {
            requested
        } else {
            LEGACY_VERSIONS[0]
        };
        let caps = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        session.set_negotiated(version.to_string(), caps);
        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::from(version));
        result.insert("capabilities".into(), capabilities(server, Era::Legacy));
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
    let progress_token = params
        .get("_meta")
        .and_then(|m| m.get("progressToken"))
        .cloned();
    let call = |progress_token: Option<Value>| CallInner {
        server: Arc::clone(server),
        principal: principal.clone(),
        sink: sink.clone(),
        progress_token,
        log_level: session.log_level(),
        progress: AtomicU64::new(0),
        auto_key: AtomicU64::new(0),
        era: EraCall::Legacy(Arc::clone(session)),
    };
    match method {
        "tools/list" => Ok(one("tools", Value::Array(server.tools.listing()))),
        "tools/call" => {
            let (tool, args) = tool_and_args(server, params)?;
            let cx = ToolContext::new(call(progress_token));
            let outcome = (tool.handler)(cx, args.unwrap_or_else(|| json!({}))).await;
            legacy_outcome(
                outcome.map(|o| o.to_result()),
                &session.client_capabilities(),
            )
        }
        "prompts/list" if !server.prompts.is_empty() => Ok(prompt_listing(server)),
        "prompts/get" if !server.prompts.is_empty() => {
            let (prompt, args) = prompt_and_args(server, params)?;
            let cx = ToolContext::new(call(progress_token));
            let outcome = (prompt.handler)(cx, args).await;
            legacy_outcome(
                outcome.map(|o| o.to_result()),
                &session.client_capabilities(),
            )
        }
        "logging/setLevel" => {
            let level = params
                .get("level")
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

fn tool_and_args<'a>(
    server: &'a ServerInner,
    params: &Map<String, Value>,
) -> Result<(&'a super::tool::ToolDef, Option<Value>), RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("Invalid params: name is required"))?;
    let tool = server
        .tools
        .get(name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => None,
        Some(a @ Value::Object(_)) => Some(a.clone()),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: arguments must be an object",
            ));
        }
    };
    Ok((tool, args))
}

fn prompt_and_args<'a>(
    server: &'a ServerInner,
    params: &Map<String, Value>,
) -> Result<(&'a super::prompt::PromptDef, Map<String, Value>), RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("Invalid params: name is required"))?;
    let prompt = server
        .prompts
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: arguments must be an object",
            ));
        }
    };
    Ok((prompt, args))
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
            let elicitations: Vec<Value> = list
                .iter()
                .map(|u| json!({"mode": "url", "elicitationId": u.elicitation_id, "url": u.url, "message": u.message}))
                .collect();
            Err(RpcError::new(
                rpc::URL_ELICITATION_REQUIRED,
                "This request requires more information.",
            )
            .with_data(json!({"elicitations": elicitations})))
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
    method: &str,
    params: &Map<String, Value>,
    sink: &OutboundSink,
    principal: String,
) -> Reply {
    let meta = modern::validate_meta(params, SUPPORTED_VERSIONS)?;
    match method {
        "server/discover" => {
            let mut r = Map::new();
            r.insert("supportedVersions".into(), json!(SUPPORTED_VERSIONS));
            r.insert("capabilities".into(), capabilities(server, Era::Modern));
            if let Some(i) = &server.instructions {
                r.insert("instructions".into(), Value::from(i.clone()));
            }
            Ok(cacheable(server, r))
        }
        "tools/list" if !server.tools.is_empty() => Ok(cacheable(
            server,
            one("tools", Value::Array(server.tools.listing())),
        )),
        "prompts/list" if !server.prompts.is_empty() => {
            Ok(cacheable(server, prompt_listing(server)))
        }
        "tools/call" => {
            let (tool, args) = tool_and_args(server, params)?;
            let binding = modern::binding(&principal, method, &tool.name, args.as_ref());
            let (cx, round_cx) =
                modern_context(server, params, sink, principal, meta, &binding).await?;
            let outcome = (tool.handler)(cx, args.unwrap_or_else(|| json!({}))).await;
            modern_outcome(server, &round_cx, &binding, outcome.map(|o| o.to_result()))
        }
        "prompts/get" if !server.prompts.is_empty() => {
            let (prompt, args) = prompt_and_args(server, params)?;
            let args_value = Value::Object(args.clone());
            let binding = modern::binding(&principal, method, &prompt.name, Some(&args_value));
            let (cx, round_cx) =
                modern_context(server, params, sink, principal, meta, &binding).await?;
            let outcome = (prompt.handler)(cx, args).await;
            modern_outcome(server, &round_cx, &binding, outcome.map(|o| o.to_result()))
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

async fn modern_context(
    server: &Arc<ServerInner>,
    params: &Map<String, Value>,
    sink: &OutboundSink,
    principal: String,
    meta: RequestMeta,
    binding: &crate::state::Binding,
) -> Result<(ToolContext, ToolContext), RpcError> {
    let responses = match params.get("inputResponses") {
        None => Map::new(),
        Some(Value::Object(r)) => r.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: inputResponses must be an object",
            ));
        }
    };
    let prior = match params.get("requestState") {
        None => None,
        Some(Value::String(token)) => Some(modern::open_state(server, token, binding).await?),
        Some(_) => return Err(modern::state_rejected()),
    };
    let cx = ToolContext::new(CallInner {
        server: Arc::clone(server),
        principal,
        sink: sink.clone(),
        progress_token: meta.progress_token,
        log_level: meta.log_level,
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
            rpc::MISSING_CAPABILITY,
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
