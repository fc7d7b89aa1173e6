//! One message in, at most one response out: route requests to their
//! revision, notifications and the client's answers to the session, and
//! describe the outcome for the transport. The message arrives read
//! ([`Incoming`]): its kind, revision and tool are decided already.

use std::future::Ready;
use std::sync::Arc;

use frontdesk_wire::{
    CancelledNotificationParams, JsonRpcResponseText, MessageError, MessageErrorKind, RequestId,
    Revision,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::either::Either;
use tracing::Instrument as _;

use crate::server::api::error::{Failure, RpcError};
use crate::server::api::tool::ToolDef;
use crate::server::contract::incoming::{Incoming, Message, Params, Request};
use crate::server::contract::{Handled, OutboundSink, RequestInfo, message_text};
use crate::server::engine::inner::{Caller, ServerInner};
use crate::server::engine::load::Held;
use crate::server::engine::requests::{ObjectRequest, Reply};
use crate::server::engine::session::{ClientReply, Session};
use crate::server::legacy;
use crate::server::modern;
use crate::server::trace;

/// Handle one message; a request's work owns `held` (the transport's place
/// in its count of requests in flight, if any) and the server's place.
///
/// The message is taken apart at once (an answer or a notification is
/// routed before this returns); what is returned is a request's work, or
/// the outcome ready. Not an `async fn`: one would keep the message as it
/// arrived, and a copy of what it was taken apart into, for as long as the
/// request runs (a 2025-11-25 call waiting for its person's answer; issue
/// 27).
pub(crate) fn handle<'a>(
    server: &'a Arc<ServerInner>,
    session: Option<&'a Arc<Session>>,
    message: Incoming,
    sink: &'a OutboundSink,
    info: &'a RequestInfo,
    held: Held,
) -> Either<Ready<Handled>, impl Future<Output = Handled> + 'a> {
    let Incoming {
        message,
        revision,
        tool,
    } = message;
    let done = match message {
        Message::Invalid { error, .. } => rejected(session, &error, revision),
        Message::Response { id, result } => {
            answer(session, &id, &result);
            Handled::nothing(Some(revision))
        }
        Message::Error { id, error, .. } => {
            match &id {
                Some(id) => route(session, id, ClientReply::Error(error)),
                None => tracing::debug!(error = %error, "error response without an id; ignored"),
            }
            Handled::nothing(Some(revision))
        }
        Message::Notification { method, params } => {
            notification(session, &method, params.as_deref());
            Handled::nothing(Some(revision))
        }
        Message::Request(request) if !server.serves(revision) => {
            // A server limited to one revision knows nothing of the other.
            let requested = match &request.params {
                Params::Raw(Some(raw)) if request.method == frontdesk_wire::method::INITIALIZE => {
                    serde_json::from_str::<Value>(raw.get())
                        .ok()
                        .and_then(|p| p.get("protocolVersion")?.as_str().map(str::to_owned))
                }
                _ => None,
            }
            .unwrap_or_else(|| revision.as_str().to_owned());
            let error = frontdesk_wire::ErrorObject::unsupported_protocol_version(
                requested,
                server.supported_versions(),
            );
            refused(error.into(), &request.id, revision)
        }
        Message::Request(request) => {
            let work = Work {
                revision,
                tool,
                held,
            };
            return Either::Right(request_handled(server, session, request, sink, info, work));
        }
    };
    Either::Left(std::future::ready(done))
}

/// A message the classifier refused. A malformed answer to one of our own
/// questions ends that question; anything else gets `-32600`/`-32700`.
fn rejected(session: Option<&Arc<Session>>, e: &MessageError, revision: Revision) -> Handled {
    if matches!(
        e.kind(),
        MessageErrorKind::InvalidResult | MessageErrorKind::InvalidError
    ) && let (Some(s), Some(id)) = (session, e.id())
        && s.is_waiting_for(id)
    {
        tracing::warn!(%id, error = %e, "malformed answer to our request");
        s.route_response(id, ClientReply::Malformed(e.to_string()));
        return Handled::nothing(Some(revision));
    }
    let error = RpcError::rejected(e);
    tracing::warn!(code = error.code().0, error = %error.message(), "rejected message");
    Handled {
        response: message_text(&error.to_response(e.id())),
        revision: None,
        failure: Some(Failure::Unreadable),
    }
}

/// The client's result for one of our requests, read when it has a waiting
/// question to go to.
fn answer(session: Option<&Arc<Session>>, id: &RequestId, result: &RawValue) {
    let Some(s) = session.filter(|s| s.is_waiting_for(id)) else {
        tracing::debug!(%id, "response to no outstanding request; ignored");
        return;
    };
    let reply = match serde_json::from_str::<Map<String, Value>>(result.get()) {
        Ok(result) => ClientReply::Result(result),
        Err(e) => ClientReply::Malformed(format!("unreadable \"result\": {e}")),
    };
    route(Some(s), id, reply);
}

fn route(session: Option<&Arc<Session>>, id: &RequestId, reply: ClientReply) {
    let routed = session.is_some_and(|s| s.route_response(id, reply));
    if !routed {
        tracing::debug!(%id, "response to no outstanding request; ignored");
    }
}

/// What a request's work carries besides the request: the revision it is
/// served in, the tool it calls, and the places it holds.
struct Work {
    revision: Revision,
    tool: Option<Arc<ToolDef>>,
    held: Held,
}

async fn request_handled(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    request: Request,
    sink: &OutboundSink,
    info: &RequestInfo,
    work: Work,
) -> Handled {
    let Work {
        revision,
        tool,
        held,
    } = work;
    let Request { id, method, params } = request;
    let caller = Caller {
        principal: info.principal.clone().unwrap_or_default(),
        quota_key: info.quota_key(),
    };
    let Some(slot) = server.load.request() else {
        crate::metrics::refused("server_requests");
        tracing::warn!(%id, method, "request refused: the server has its most requests in flight");
        return refused(
            RpcError::overloaded("Server busy: too many requests in flight; try again later"),
            &id,
            revision,
        );
    };
    // Registered with the session (when there is one), so that
    // `notifications/cancelled` or the end of the session stops it.
    let token = match session {
        Some(s) => match s.begin_request(&id) {
            Some(token) => Some(token),
            None => {
                crate::metrics::refused("session_requests");
                tracing::warn!(%id, method, "request refused: the session has its most requests in flight");
                return refused(
                    RpcError::busy(
                        "Too many requests in flight on this session; wait for one to finish",
                    ),
                    &id,
                    revision,
                );
            }
        },
        None => None,
    };
    // The places the request holds are its work's: a 2026-07-28 retry's
    // round that outlives the request takes them along.
    let held = held.with_server(slot);
    let span = trace::request_span(
        &method,
        revision,
        &id,
        tool.as_deref().map(ToolDef::name),
        session.map(|s| s.id()),
    );
    // A 2026-07-28 retry's span joins its call's trace, which its state
    // carries: it is entered once the state is open.
    let retry_span = (revision == Revision::V2026_07_28
        && matches!(&params, Params::ToolCall(call) if call.retry.state.is_some()))
    .then(|| span.clone());
    let span = if retry_span.is_some() {
        tracing::Span::none()
    } else {
        span
    };
    // Each branch boxed: inline, the request's future would be as large as
    // the largest of them (a 2026-07-28 call's), for as long as any request
    // waits, such as a 2025-11-25 call waiting for its person's answer.
    let work = async {
        let params = match params {
            Params::ToolCall(call) => {
                return match revision {
                    Revision::V2026_07_28 => {
                        Box::pin(modern::call_tool(
                            server, *call, tool, sink, caller, held, retry_span,
                        ))
                        .await
                    }
                    Revision::V2025_11_25 => {
                        let reply =
                            Box::pin(legacy::call_tool(server, session, call, tool, sink, caller))
                                .await;
                        drop(held);
                        reply
                    }
                };
            }
            Params::Raw(raw) => object(raw.as_deref())?,
        };
        let mut request = ObjectRequest {
            id: &id,
            method: &method,
            params,
        };
        match revision {
            Revision::V2026_07_28 => {
                Box::pin(modern::serve(
                    server,
                    &mut request,
                    tool,
                    sink,
                    caller,
                    held,
                ))
                .await
            }
            Revision::V2025_11_25 => {
                let reply =
                    Box::pin(legacy::serve(server, session, &request, tool, sink, caller)).await;
                drop(held);
                reply
            }
        }
    }
    .instrument(span);
    let reply = match (session, token) {
        (Some(s), Some(token)) => {
            let r = tokio::select! {
                r = work => Some(r),
                () = token.cancelled() => None,
            };
            s.end_request(&id);
            r
        }
        _ => Some(work.await),
    };
    let Some(reply) = reply else {
        tracing::info!(%id, method, "request cancelled; no response");
        return Handled::nothing(Some(revision));
    };
    respond(&id, &method, revision, reply)
}

/// A request's params read as a JSON object (`None` when absent).
fn object(params: Option<&RawValue>) -> Result<Option<Map<String, Value>>, RpcError> {
    params
        .map(|p| serde_json::from_str(p.get()))
        .transpose()
        .map_err(|e| {
            tracing::warn!(error = %e, "params that are no JSON object");
            RpcError::parse_error(e)
        })
}

/// The response to request `id` carrying `reply`.
fn respond(id: &RequestId, method: &str, revision: Revision, reply: Reply) -> Handled {
    crate::metrics::request(method, revision, reply.is_ok());
    let reply = reply.and_then(|result| {
        JsonRpcResponseText::new(id, &result)
            .to_text()
            .map_err(|e| {
                tracing::error!(error = %e, "could not serialize a response");
                RpcError::internal("Internal error")
            })
    });
    match reply {
        Ok(text) => Handled {
            response: Some(text),
            revision: Some(revision),
            failure: None,
        },
        Err(e) => {
            tracing::warn!(%id, method, code = e.code().0, error = %e.message(), "request failed");
            Handled {
                response: message_text(&e.to_response(Some(id))),
                revision: Some(revision),
                failure: Some(e.failure()),
            }
        }
    }
}

/// The response for a request refused before it ran.
fn refused(error: RpcError, id: &RequestId, revision: Revision) -> Handled {
    Handled {
        response: message_text(&error.to_response(Some(id))),
        revision: Some(revision),
        failure: Some(error.failure()),
    }
}

fn notification(session: Option<&Arc<Session>>, method: &str, params: Option<&RawValue>) {
    match (method, session) {
        (frontdesk_wire::method::INITIALIZED, Some(s)) => s.mark_initialized(),
        (frontdesk_wire::method::NOTIFICATION_CANCELLED, Some(s)) => {
            let read = params.map_or_else(
                || serde_json::from_str::<CancelledNotificationParams>("{}"),
                |p| serde_json::from_str(p.get()),
            );
            match read {
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
