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
    JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, ServerCapabilities, meta_key, method,
};
use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::config::ClientConfig;
use super::elicit::{Elicitor, Outcome};
use super::error::ClientError;
use super::handler::ElicitationOrigin;
use super::sampling::{self, Refusal, SamplingRequest};
use super::transport::{Tap, Transport, id_key};
use frontdesk_wire::Revision;

/// URL elicitations (2025-11-25) waiting for `notifications/elicitation/complete`.
#[derive(Debug)]
pub(crate) struct UrlFlows {
    state: Mutex<HashMap<String, bool>>,
    changed: watch::Sender<u64>,
}

impl Default for UrlFlows {
    fn default() -> Self {
        Self {
            state: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
        }
    }
}

impl UrlFlows {
    /// Start tracking an elicitation id.
    pub fn expect(&self, id: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.entry(id.to_string()).or_insert(false);
        }
    }

    /// A completion arrived; unknown or already completed ids are ignored.
    pub fn complete(&self, id: &str) {
        let known = self
            .state
            .lock()
            .ok()
            .and_then(|mut s| s.get_mut(id).map(|done| std::mem::replace(done, true)));
        match known {
            Some(false) => {
                tracing::info!(elicitation_id = id, "URL elicitation complete");
                self.changed.send_modify(|n| *n += 1);
            }
            Some(true) => tracing::debug!(elicitation_id = id, "completion repeated; ignored"),
            None => tracing::debug!(elicitation_id = id, "completion for an unknown id; ignored"),
        }
    }

    fn all_done(&self, ids: &[String]) -> bool {
        self.state
            .lock()
            .map(|s| ids.iter().all(|id| s.get(id).copied().unwrap_or(false)))
            .unwrap_or(false)
    }

    /// Wait until every id completed.
    pub async fn wait_all(&self, ids: &[String]) {
        let mut rx = self.changed.subscribe();
        while !self.all_done(ids) {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }

    /// Stop tracking ids.
    pub fn forget(&self, ids: &[String]) {
        if let Ok(mut s) = self.state.lock() {
            for id in ids {
                s.remove(id);
            }
        }
    }
}

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
    pub revision: RwLock<Revision>,
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
    pub fn new(
        transport: Arc<dyn Transport>,
        config: Arc<ClientConfig>,
        tap: Tap,
        elicitor: Elicitor,
    ) -> Self {
        Self {
            transport,
            config,
            tap,
            elicitor,
            urls: UrlFlows::default(),
            revision: RwLock::new(Revision::V2026_07_28),
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
    pub fn call_started(&self, label: &str) -> CallGuard<'_> {
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

    pub fn revision(&self) -> Revision {
        self.revision
            .read()
            .map(|p| *p)
            .unwrap_or(Revision::V2026_07_28)
    }

    fn next_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::SeqCst)
    }

    /// Send a request; the JSON-RPC result object, or the server's error.
    ///
    /// The request timeout only runs while nobody is answering a question:
    /// when it expires during (or just after) a human wait it starts again.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
    ) -> Result<Map<String, Value>, ClientError> {
        self.request_with_timeout(method, params, self.config.request_timeout)
            .await
    }

    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
        timeout: std::time::Duration,
    ) -> Result<Map<String, Value>, ClientError> {
        if self.closed.is_cancelled() {
            return Err(ClientError::Closed);
        }
        let id = self.next_id();
        let message = serde_json::to_value(JsonRpcRequest::new(id, method, params))
            .map_err(ClientError::transport)?;
        let id_value = Value::from(id);
        self.tap.outgoing(&message);
        let response = {
            let fut = self.transport.request(&id_value, message);
            tokio::pin!(fut);
            loop {
                tokio::select! {
                    r = &mut fut => break r?,
                    () = tokio::time::sleep(timeout) => {
                        if self.elicitor.human.busy_within(timeout) {
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
            Ok(_) => Err(ClientError::Protocol(
                "expected a response, got a request or notification".into(),
            )),
            Err(e) => Err(ClientError::Protocol(format!("malformed response: {e}"))),
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

    pub async fn notify(
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
    pub async fn serve_inbound(self: Arc<Self>, mut rx: super::transport::InboundReceiver) {
        loop {
            let message = tokio::select! {
                m = rx.recv() => match m { Some(m) => m, None => break },
                () = self.closed.cancelled() => break,
            };
            match JsonRpcMessage::from_value(message) {
                Ok(JsonRpcMessage::Request(req)) => {
                    let Ok(slot) = Arc::clone(&self.serving_slots).try_acquire_owned() else {
                        tracing::warn!(
                            limit = MAX_SERVING,
                            "the server has too many requests open; refusing one"
                        );
                        self.refuse_busy(req).await;
                        continue;
                    };
                    let core = self.clone();
                    tokio::spawn(async move {
                        core.serve_request(req).await;
                        drop(slot);
                    });
                }
                Ok(JsonRpcMessage::Notification(n)) => self.on_notification(&n),
                Ok(_) => tracing::debug!("stray response ignored"),
                Err(e) => tracing::warn!(error = %e, "unusable message from the server"),
            }
        }
        self.cancel_all_serving();
    }

    /// Answer a request the client has no room for: a JSON-RPC error, at once.
    async fn refuse_busy(&self, req: JsonRpcRequest) {
        let error = ErrorObject::new(
            ErrorCode(BUSY),
            format!("The client is already serving {MAX_SERVING} requests from this server"),
        );
        if let Ok(message) = serde_json::to_value(JsonRpcErrorResponse::new(Some(req.id), error)) {
            self.respond(message).await;
        }
    }

    fn cancel_all_serving(&self) {
        if let Ok(mut s) = self.serving.lock() {
            for (_, token) in s.drain() {
                token.cancel();
            }
        }
    }

    fn on_notification(&self, n: &JsonRpcNotification) {
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
                }
            }
            other => tracing::debug!(method = other, "notification from the server"),
        }
    }

    async fn serve_request(&self, req: JsonRpcRequest) {
        let reply = match req.method.as_str() {
            method::PING => Some(Ok(Map::new())),
            method::ELICITATION_CREATE => self.serve_elicitation(&req).await,
            method::SAMPLING_CREATE_MESSAGE => self.serve_sampling(&req).await,
            method::ROOTS_LIST => match sampling::list_roots(self.config.roots.as_ref()).await {
                Ok(result) => Some(to_result(&result).ok_or_else(unserializable)),
                Err(_) => Some(Err(ErrorObject::method_not_found(method::ROOTS_LIST))),
            },
            other => Some(Err(ErrorObject::method_not_found(other))),
        };
        let message = match reply {
            None => return,
            Some(Ok(result)) => serde_json::to_value(JsonRpcResponse::new(req.id, result)),
            Some(Err(e)) => serde_json::to_value(JsonRpcErrorResponse::new(Some(req.id), e)),
        };
        if let Ok(message) = message {
            self.respond(message).await;
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
            ElicitRequestParams::Form(_) => None,
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
