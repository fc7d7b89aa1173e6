//! The connection core shared by both eras: ids, request timeouts that pause
//! for human time, the wire tap, and the loop that serves what the server
//! sends on its own (2025-11-25 `elicitation/create` and `ping`,
//! `notifications/cancelled`, `notifications/elicitation/complete`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use frontdesk_wire::{
    CancelledNotificationParams, CreateMessageRequestParams, ElicitAction, ElicitRequestParams,
    ElicitationCompleteParams, ErrorCode, ErrorObject, JsonRpcErrorResponse, JsonRpcMessage,
    JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, LoggingMessageNotificationParams,
    ProgressNotificationParams, RequestId, ServerCapabilities, meta_key, method,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::config::ClientConfig;
use super::elicit::{Elicitor, Outcome};
use super::error::ClientError;
use super::handler::ElicitationOrigin;
use super::observe::Watchers;
use super::sampling::{self, Refusal, SamplingRequest};
use super::transport::{FromServer, Tap, Transport, WeakInbound, id_key};
pub(crate) use super::url_flows::UrlFlows;
use frontdesk_wire::Revision;

/// What the client learnt about the server at connect time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Learnt {
    pub capabilities: Option<ServerCapabilities>,
    pub instructions: Option<String>,
    pub supported_versions: Vec<String>,
}

/// Most requests from the server (elicitations, sampling, roots, pings)
/// served at once; more are answered [`BUSY`] at once, so a hostile server
/// cannot grow the client's tasks without bound.
pub(crate) const MAX_SERVING: usize = 32;

/// The error code of a request refused for [`MAX_SERVING`] (the
/// implementation-defined server-error range).
const BUSY: i32 = ErrorCode::SERVER_BUSY.0;

pub(crate) struct Core {
    pub transport: Arc<dyn Transport>,
    pub config: Arc<ClientConfig>,
    pub tap: Tap,
    pub elicitor: Elicitor,
    pub urls: UrlFlows,
    /// Calls in flight that hear their progress and logs.
    pub watchers: Watchers,
    /// The inbound queue (for [`WeakInbound::barrier`]).
    pub inbound: WeakInbound,
    /// The revision once it is settled: from the start when configured as
    /// 2026-07-28, else when `initialize` or `server/discover` answered.
    pub revision: RwLock<Option<Revision>>,
    pub learnt: RwLock<Learnt>,
    next_id: AtomicI64,
    serving: Mutex<HashMap<String, CancellationToken>>,
    /// Bounds the server's requests being served at once.
    serving_slots: Arc<tokio::sync::Semaphore>,
    calls: Mutex<Vec<(u64, String)>>,
    next_call: AtomicI64,
    pub closed: CancellationToken,
}

impl Core {
    pub(super) fn new(
        transport: Arc<dyn Transport>,
        config: Arc<ClientConfig>,
        tap: Tap,
        elicitor: Elicitor,
        inbound: WeakInbound,
    ) -> Self {
        // A configured 2026-07-28 needs no negotiation; otherwise the
        // handshake or discovery settles it.
        let configured = match config.protocol {
            super::config::ProtocolChoice::Only(Revision::V2026_07_28) => {
                Some(Revision::V2026_07_28)
            }
            _ => None,
        };
        Self {
            transport,
            config,
            tap,
            elicitor,
            urls: UrlFlows::default(),
            watchers: Watchers::default(),
            inbound,
            revision: RwLock::new(configured),
            learnt: RwLock::new(Learnt::default()),
            next_id: AtomicI64::new(1),
            serving: Mutex::new(HashMap::new()),
            serving_slots: Arc::new(tokio::sync::Semaphore::new(MAX_SERVING)),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicI64::new(0),
            closed: CancellationToken::new(),
        }
    }

    /// Note a call in flight (2025-11-25), so a live `elicitation/create` can
    /// name the call it belongs to when only one is running.
    pub(super) fn call_started(&self, label: &str) -> CallGuard<'_> {
        let id = self.next_call.fetch_add(1, Ordering::SeqCst) as u64;
        if let Ok(mut c) = self.calls.lock() {
            c.push((id, label.to_string()));
        }
        CallGuard { core: self, id }
    }

    fn current_call(&self) -> Option<String> {
        let calls = self.calls.lock().ok()?;
        match calls.as_slice() {
            [(_, label)] => Some(label.clone()),
            _ => None,
        }
    }

    pub(super) fn revision(&self) -> Revision {
        self.settled_revision().unwrap_or(Revision::V2026_07_28)
    }

    /// The revision, once negotiation settled it.
    fn settled_revision(&self) -> Option<Revision> {
        self.revision.read().ok().and_then(|p| *p)
    }

    /// Settle the revision (the handshake or discovery answered).
    pub(super) fn settle(&self, revision: Revision) {
        if let Ok(mut p) = self.revision.write() {
            *p = Some(revision);
        }
    }

    /// Whether a reply to the server may be sent at all: a 2026-07-28
    /// client must not send responses over HTTP (MRTR C.5), so there a
    /// request the server should not have sent goes unanswered.
    fn may_reply(&self) -> bool {
        !(self.transport.is_http() && self.settled_revision() == Some(Revision::V2026_07_28))
    }

    fn next_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::SeqCst)
    }

    /// Send a request; the JSON-RPC result object, or the server's error.
    ///
    /// The request timeout only runs while nobody is answering a question:
    /// when it expires during (or just after) a human wait it starts again.
    pub(super) async fn request(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
    ) -> Result<Map<String, Value>, ClientError> {
        self.request_with_timeout(method, params, self.config.request_timeout)
            .await
    }

    pub(super) async fn request_with_timeout(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
        timeout: std::time::Duration,
    ) -> Result<Map<String, Value>, ClientError> {
        let id = self.next_id();
        self.exchange(id, method, params, Some(timeout)).await
    }

    /// A request that runs until the server answers it, however long (a
    /// `subscriptions/listen` stream): no timeout, and when the caller
    /// stops waiting (the future is dropped), the server is told it was
    /// cancelled.
    pub(super) async fn request_until_answered(
        self: &Arc<Self>,
        method: &str,
        params: Option<Map<String, Value>>,
    ) -> Result<Map<String, Value>, ClientError> {
        let id = self.next_id();
        let mut guard = CancelOnDrop {
            core: Arc::clone(self),
            id,
            armed: true,
        };
        let answered = self.exchange(id, method, params, None).await;
        guard.armed = false;
        answered
    }

    /// Send request `id` and wait for its answer (past `timeout`, unless a
    /// person is answering a question, it is cancelled).
    async fn exchange(
        &self,
        id: i64,
        method: &str,
        params: Option<Map<String, Value>>,
        timeout: Option<std::time::Duration>,
    ) -> Result<Map<String, Value>, ClientError> {
        if self.closed.is_cancelled() {
            return Err(ClientError::Closed);
        }
        let message = serde_json::to_value(JsonRpcRequest::new(id, method, params))
            .map_err(ClientError::transport)?;
        let id_value = Value::from(id);
        // A call's request: what arrives on its response stream is the call's.
        let _on_stream = self.watchers.bind_request(&id_key(&id_value));
        self.tap.outgoing(&message);
        let response = {
            let fut = self.transport.request(&id_value, message);
            tokio::pin!(fut);
            loop {
                let expiry = async {
                    match timeout {
                        Some(t) => tokio::time::sleep(t).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    r = &mut fut => break r?,
                    () = expiry => {
                        let t = timeout.unwrap_or_default();
                        if self.elicitor.human.busy_within(t) {
                            continue;
                        }
                        self.cancel_request(id, "timed out").await;
                        return Err(ClientError::Timeout { method: method.to_string() });
                    }
                    () = self.closed.cancelled() => return Err(ClientError::Closed),
                }
            }
        };
        match JsonRpcMessage::from_value(response) {
            Ok(JsonRpcMessage::Response(r)) => {
                if let Some(info) = r
                    .result
                    .get("_meta")
                    .and_then(|m| m.get(meta_key::SERVER_INFO))
                    .and_then(|v| serde_json::from_value(v.clone()).ok())
                {
                    self.elicitor.set_server(info);
                }
                Ok(r.result)
            }
            Ok(JsonRpcMessage::Error(e)) => Err(ClientError::Rpc(Box::new(e.error))),
            Ok(_) => Err(ClientError::Protocol(crate::Reason::from(
                "expected a response, got a request or notification",
            ))),
            Err(e) => Err(ClientError::Protocol(crate::Reason::from(format!(
                "malformed response: {e}"
            )))),
        }
    }

    /// Tell the server we gave up on a request (not on 2026-07-28 HTTP, where
    /// closing the stream already did).
    async fn cancel_request(&self, id: i64, reason: &str) {
        if self.transport.is_http() && self.revision() == Revision::V2026_07_28 {
            return;
        }
        let params = CancelledNotificationParams::new(id, Some(reason.to_string()));
        if let Ok(n) = JsonRpcNotification::with_params(method::NOTIFICATION_CANCELLED, &params) {
            let _ = self.notify_message(n).await;
        }
    }

    pub(super) async fn notify(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
    ) -> Result<(), ClientError> {
        self.notify_message(JsonRpcNotification::new(method, params))
            .await
    }

    async fn notify_message(&self, n: JsonRpcNotification) -> Result<(), ClientError> {
        let message = serde_json::to_value(n).map_err(ClientError::transport)?;
        self.tap.outgoing(&message);
        self.transport.send(message).await
    }

    async fn respond(&self, message: Value) {
        self.tap.outgoing(&message);
        if let Err(e) = self.transport.send(message).await {
            tracing::warn!(error = %e, "could not send a response to the server");
        }
    }

    /// Serve everything the server sends on its own until the connection ends.
    ///
    /// Every request gets exactly one reply (when a reply may be sent at
    /// all, see [`Core::may_reply`]): its result, or the JSON-RPC error
    /// for what is wrong with it — `-32700` for bytes that are not JSON,
    /// `-32600` (id `null` when the id is unusable) for a message that is
    /// no request, `-32602` for non-object `params`, `-32601` for a method
    /// this client does not serve, and for every request on a 2026-07-28
    /// connection (that revision's servers send none: they ask inside
    /// `input_required` results). A notification never gets a reply, even
    /// a malformed one, and neither does a response.
    pub(super) async fn serve_inbound(self: Arc<Self>, mut rx: super::transport::InboundReceiver) {
        loop {
            let message = tokio::select! {
                m = rx.recv() => match m { Some(m) => m, None => break },
                () = self.closed.cancelled() => break,
            };
            let (message, stream) = match message {
                FromServer::Message(m) => (m, None::<String>),
                #[cfg(feature = "http-client")]
                FromServer::OnStream(m, request) => (m, Some(request)),
                FromServer::Unreadable(error) => {
                    self.refuse(None, error).await;
                    continue;
                }
                FromServer::Barrier(done) => {
                    let _ = done.send(());
                    continue;
                }
            };
            let notification = looks_like_notification(&message);
            match JsonRpcMessage::from_value(message) {
                Ok(JsonRpcMessage::Request(req)) => {
                    if self.settled_revision() == Some(Revision::V2026_07_28) {
                        tracing::warn!(
                            method = %req.method,
                            "a 2026-07-28 server sent a request; refused"
                        );
                        let error = ErrorObject::method_not_found(&format!(
                            "{} (2026-07-28 servers send no requests)",
                            req.method
                        ));
                        self.refuse(Some(req.id), error).await;
                        continue;
                    }
                    let Ok(slot) = Arc::clone(&self.serving_slots).try_acquire_owned() else {
                        tracing::warn!(
                            limit = MAX_SERVING,
                            "the server has too many requests open; refusing one"
                        );
                        let error = ErrorObject::new(
                            ErrorCode(BUSY),
                            format!(
                                "The client is already serving {MAX_SERVING} requests from this server"
                            ),
                        );
                        self.refuse(Some(req.id), error).await;
                        continue;
                    };
                    let core = self.clone();
                    tokio::spawn(async move {
                        core.serve_request(req).await;
                        drop(slot);
                    });
                }
                Ok(JsonRpcMessage::Notification(n)) => self.on_notification(&n, stream.as_deref()),
                Ok(_) => tracing::debug!("stray response ignored"),
                Err(e) if notification => {
                    tracing::warn!(error = %e, "malformed notification from the server; ignored");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "malformed request from the server; refused");
                    self.refuse(e.id().cloned(), e.to_error_object()).await;
                }
            }
        }
        self.cancel_all_serving();
    }

    /// Answer `error` at once to the request `id` (`None`: its id could not
    /// be read; written `"id": null`).
    async fn refuse(&self, id: Option<RequestId>, error: ErrorObject) {
        if !self.may_reply() {
            tracing::debug!(code = error.code.0, "no reply: this transport carries none");
            return;
        }
        let reply = JsonRpcMessage::from(JsonRpcErrorResponse::new(id, error)).to_value();
        self.respond(reply).await;
    }

    fn cancel_all_serving(&self) {
        if let Ok(mut s) = self.serving.lock() {
            for (_, token) in s.drain() {
                token.cancel();
            }
        }
    }

    /// A notification, sent on the response stream of our request
    /// `stream` (its id key) when known.
    fn on_notification(&self, n: &JsonRpcNotification, stream: Option<&str>) {
        match n.method.as_str() {
            method::NOTIFICATION_CANCELLED => {
                let Ok(p) = n.parse_params::<CancelledNotificationParams>() else {
                    return;
                };
                let key = serde_json::to_value(&p.request_id)
                    .map(|v| id_key(&v))
                    .unwrap_or_default();
                let token = self.serving.lock().ok().and_then(|mut s| s.remove(&key));
                if let Some(token) = token {
                    tracing::info!(request = %key, reason = ?p.reason, "the server withdrew its request");
                    token.cancel();
                }
            }
            method::NOTIFICATION_ELICITATION_COMPLETE => {
                if let Ok(p) = n.parse_params::<ElicitationCompleteParams>() {
                    self.urls.complete(&p.elicitation_id);
                    self.elicitor.handler.url_completed(&p.elicitation_id);
                }
            }
            method::NOTIFICATION_PROGRESS => match n.parse_params::<ProgressNotificationParams>() {
                Ok(p) => self.watchers.progress(&p),
                Err(e) => tracing::debug!(error = %e, "malformed progress notification; ignored"),
            },
            method::NOTIFICATION_MESSAGE => {
                match n.parse_params::<LoggingMessageNotificationParams>() {
                    Ok(p) => self.watchers.log(&p, stream),
                    Err(e) => tracing::debug!(error = %e, "malformed log message; ignored"),
                }
            }
            other => tracing::debug!(method = other, "notification from the server"),
        }
        if let Some(hook) = &self.config.on_notification {
            hook(n);
        }
    }

    async fn serve_request(&self, req: JsonRpcRequest) {
        let reply = match req.method.as_str() {
            method::PING => Some(Ok(Map::new())),
            method::ELICITATION_CREATE => self.serve_elicitation(&req).await,
            method::SAMPLING_CREATE_MESSAGE => self.serve_sampling(&req).await,
            method::ROOTS_LIST => match sampling::list_roots(self.config.roots.as_ref()).await {
                Ok(result) => Some(to_result(&result).ok_or_else(unserializable)),
                Err(Refusal::Refused(reason)) => Some(Err(ErrorObject::internal_error(reason))),
                Err(_) => Some(Err(ErrorObject::method_not_found(method::ROOTS_LIST))),
            },
            other => Some(Err(ErrorObject::method_not_found(other))),
        };
        let message = match reply {
            None => return,
            Some(Ok(result)) => serde_json::to_value(JsonRpcResponse::new(req.id, result)),
            Some(Err(e)) => return self.refuse(Some(req.id), e).await,
        };
        match message {
            Ok(message) if self.may_reply() => self.respond(message).await,
            Ok(_) => tracing::debug!("no reply: this transport carries none"),
            Err(e) => tracing::warn!(error = %e, "could not write a reply"),
        }
    }

    /// A 2025-11-25 `sampling/createMessage`: `None` when it was withdrawn.
    async fn serve_sampling(
        &self,
        req: &JsonRpcRequest,
    ) -> Option<Result<Map<String, Value>, ErrorObject>> {
        let params: CreateMessageRequestParams = match req.parse_params() {
            Ok(p) => p,
            Err(e) => return Some(Err(e.to_error_object())),
        };
        let key = id_key(&serde_json::to_value(&req.id).unwrap_or(Value::Null));
        let token = self.closed.child_token();
        if let Ok(mut s) = self.serving.lock() {
            s.insert(key.clone(), token.clone());
        }
        let request = SamplingRequest {
            origin: ElicitationOrigin {
                server: self.elicitor.server(),
                request: self.current_call(),
                key: key.clone(),
            },
            params,
            cancelled: token,
        };
        let outcome = {
            let _busy = self.elicitor.human.start();
            sampling::sample(self.config.sampling.as_ref(), request).await
        };
        if let Ok(mut s) = self.serving.lock() {
            s.remove(&key);
        }
        match outcome {
            Ok(result) => Some(to_result(&result).ok_or_else(unserializable)),
            Err(Refusal::Withdrawn) => None,
            Err(Refusal::NotDeclared) => Some(Err(ErrorObject::method_not_found(
                method::SAMPLING_CREATE_MESSAGE,
            ))),
            Err(Refusal::Refused(reason)) => {
                Some(Err(ErrorObject::new(ErrorCode(SAMPLING_REFUSED), reason)))
            }
        }
    }

    /// A 2025-11-25 `elicitation/create`: `None` when it was withdrawn.
    async fn serve_elicitation(
        &self,
        req: &JsonRpcRequest,
    ) -> Option<Result<Map<String, Value>, ErrorObject>> {
        let params: ElicitRequestParams = match req.parse_params() {
            Ok(p) => p,
            Err(e) => return Some(Err(e.to_error_object())),
        };
        // A test tool's own answer, sent unchecked (never set by a host).
        if let Some(answer) = self
            .config
            .unchecked_answers
            .as_ref()
            .and_then(|hook| hook(&params))
        {
            tracing::debug!("elicitation answered by the unchecked_answers hook");
            return Some(Ok(answer));
        }
        if let ElicitRequestParams::Url(p) = &params
            && p.elicitation_id.is_none()
        {
            return Some(Err(ErrorObject::invalid_params(
                "a URL elicitation needs an elicitationId",
            )));
        }
        let key = id_key(&serde_json::to_value(&req.id).unwrap_or(Value::Null));
        let url_id = match &params {
            ElicitRequestParams::Url(p) => p.elicitation_id.clone(),
            _ => None,
        };
        // Track the id before the person acts: a fast completion is not lost.
        if let Some(id) = &url_id {
            self.urls.expect(id);
        }
        let token = self.closed.child_token();
        if let Ok(mut s) = self.serving.lock() {
            s.insert(key.clone(), token.clone());
        }
        let outcome = self
            .elicitor
            .elicit(self.current_call(), key.clone(), &params, token)
            .await;
        if let Ok(mut s) = self.serving.lock() {
            s.remove(&key);
        }
        let accepted = matches!(&outcome, Outcome::Answer(r) if r.action == ElicitAction::Accept);
        if let Some(id) = url_id
            && !accepted
        {
            self.urls.forget(&[id]);
        }
        match outcome {
            Outcome::Withdrawn => None,
            Outcome::Refused(e) => Some(Err(e)),
            Outcome::Answer(result) => Some(
                serde_json::to_value(&result)
                    .ok()
                    .and_then(|v| v.as_object().cloned())
                    .ok_or_else(|| ErrorObject::internal_error("unserializable answer")),
            ),
        }
    }
}

/// Whether a message that failed to classify was meant as a notification:
/// a string `method` and no `id` member. JSON-RPC forbids replying to one,
/// malformed or not.
fn looks_like_notification(message: &Value) -> bool {
    message.get("id").is_none() && message.get("method").is_some_and(Value::is_string)
}

/// The code of a refused sampling request (the spec's example: "User
/// rejected sampling request").
const SAMPLING_REFUSED: i32 = -1;

/// A wire result as a JSON-RPC result object.
fn to_result<T: serde::Serialize>(result: &T) -> Option<Map<String, Value>> {
    serde_json::to_value(result)
        .ok()
        .and_then(|v| v.as_object().cloned())
}

fn unserializable() -> ErrorObject {
    ErrorObject::internal_error("unserializable result")
}

/// Tells the server a request was cancelled when dropped armed (its
/// caller stopped waiting for an answer that may never come).
struct CancelOnDrop {
    core: Arc<Core>,
    id: i64,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed || self.core.closed.is_cancelled() {
            return;
        }
        let (core, id) = (Arc::clone(&self.core), self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { core.cancel_request(id, "no longer wanted").await });
        }
    }
}

/// Ends a call's registration when dropped.
pub(crate) struct CallGuard<'a> {
    core: &'a Core,
    id: u64,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut c) = self.core.calls.lock() {
            c.retain(|(id, _)| *id != self.id);
        }
    }
}
