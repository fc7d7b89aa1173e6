//! One parsed message in, at most one response out: classify it, route
//! requests to their revision, notifications and the client's answers to the
//! session, and describe the outcome for the transport.

use std::sync::Arc;

use frontdesk_wire::{
    CancelledNotificationParams, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    JsonRpcResponseText, MessageError, MessageErrorKind, RequestId, Revision, meta_key, method,
};
use serde_json::{Map, Value};

use crate::server::api::error::{Failure, RpcError};
use crate::server::contract::{Handled, OutboundSink, RequestInfo, message_text};
use crate::server::engine::inner::{Caller, ServerInner};
use crate::server::engine::load::Held;
use crate::server::engine::session::{ClientReply, Session};
use crate::server::legacy;
use crate::server::modern;

pub(crate) fn revision_of_value(message: &Value) -> Revision {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = message.get("params").and_then(Value::as_object);
    revision_of(method, params)
}

/// `server/discover`, and any request whose `_meta` carries a 2026-07-28 key,
/// is 2026-07-28; everything else is 2025-11-25.
fn revision_of(method: &str, params: Option<&Map<String, Value>>) -> Revision {
    if method == method::SERVER_DISCOVER {
        return Revision::V2026_07_28;
    }
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    match meta {
        Some(m)
            if m.contains_key(meta_key::PROTOCOL_VERSION)
                || m.contains_key(meta_key::CLIENT_CAPABILITIES) =>
        {
            Revision::V2026_07_28
        }
        _ => Revision::V2025_11_25,
    }
}

/// Handle one message; a request's work owns `held` (the transport's place
/// in its count of requests in flight, if any) and the server's place.
pub(crate) async fn handle(
    server: &Arc<ServerInner>,
    session: Option<&Arc<Session>>,
    message: Value,
    sink: &OutboundSink,
    info: &RequestInfo,
    held: Held,
) -> Handled {
    let message = match JsonRpcMessage::from_value(message) {
        Ok(m) => m,
        Err(e) => return rejected(session, &e, info),
    };
    match message {
        JsonRpcMessage::Response(r) => {
            route(session, &r.id, ClientReply::Result(r.result));
            Handled::nothing(info.revision)
        }
        JsonRpcMessage::Error(e) => {
            match &e.id {
                Some(id) => route(session, id, ClientReply::Error(e.error)),
                None => tracing::debug!(error = %e.error, "error response without an id; ignored"),
            }
            Handled::nothing(info.revision)
        }
        JsonRpcMessage::Notification(n) => {
            notification(session, &n);
            Handled::nothing(info.revision)
        }
        JsonRpcMessage::Request(mut request) => {
            request_handled(server, session, &mut request, sink, info, held).await
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
        return Handled::nothing(info.revision);
    }
    let error = RpcError::rejected(e);
    tracing::warn!(code = error.code().0, error = %error.message(), "rejected message");
    Handled {
        response: message_text(&error.to_response(e.id())),
        revision: None,
        failure: Some(Failure::Unreadable),
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
    request: &mut JsonRpcRequest,
    sink: &OutboundSink,
    info: &RequestInfo,
    held: Held,
) -> Handled {
    let revision = info
        .revision
        .unwrap_or_else(|| revision_of(&request.method, request.params.as_ref()));
    let caller = Caller {
        principal: info.principal.clone().unwrap_or_default(),
        quota_key: info.quota_key(),
    };
    let Some(slot) = server.load.request() else {
        tracing::warn!(id = %request.id, method = request.method, "request refused: the server has its most requests in flight");
        return refused(
            RpcError::overloaded("Server busy: too many requests in flight; try again later"),
            &request.id,
            revision,
        );
    };
    // Registered with the session (when there is one), so that
    // `notifications/cancelled` or the end of the session stops it.
    let token = match session {
        Some(s) => match s.begin_request(&request.id) {
            Some(token) => Some(token),
            None => {
                tracing::warn!(id = %request.id, method = request.method, "request refused: the session has its most requests in flight");
                return refused(
                    RpcError::busy(
                        "Too many requests in flight on this session; wait for one to finish",
                    ),
                    &request.id,
                    revision,
                );
            }
        },
        None => None,
    };
    // The places the request holds are its work's: a 2026-07-28 retry's
    // round that outlives the request takes them along.
    let held = held.with_server(slot);
    // The request is the round's to take apart (its retry fields, its
    // capabilities); its id and method are read again once it is done.
    let work = async {
        match revision {
            Revision::V2026_07_28 => modern::serve(server, &mut *request, sink, caller, held).await,
            Revision::V2025_11_25 => {
                let reply = legacy::serve(server, session, &*request, sink, caller).await;
                drop(held);
                reply
            }
        }
    };
    let reply = match (session, token) {
        (Some(s), Some(token)) => {
            let r = tokio::select! {
                r = work => Some(r),
                () = token.cancelled() => None,
            };
            s.end_request(&request.id);
            r
        }
        _ => Some(work.await),
    };
    let (id, method) = (&request.id, request.method.as_str());
    let Some(reply) = reply else {
        tracing::info!(%id, method, "request cancelled; no response");
        return Handled::nothing(Some(revision));
    };
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
