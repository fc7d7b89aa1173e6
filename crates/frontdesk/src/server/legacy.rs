//! 2025-11-25: the [`Session`] (negotiated version, client capabilities,
//! outbound requests awaiting answers, in-flight inbound requests) and the
//! live `elicitation/create` round trip with its human-wait budget,
//! progress keep-alives and cancellation.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use frontdesk_wire::{
    CancelledNotificationParams, ElicitationCompleteParams, ErrorObject, JsonRpcMessage,
    JsonRpcRequest, RequestId, method,
};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::OutboundSink;
use super::answer::{Answer, AskError, ElicitOutcome, InputRequest, parse_elicit_result};
use super::context::{CallInner, send_progress};
use super::flow_port::{FlowTicket, Progress};
use super::form::FormSchema;
use super::rpc::typed_notification;
use super::tool::{ToolError, UrlElicitation};

/// What the client answered to one of our requests.
#[derive(Debug)]
pub(crate) enum ClientReply {
    /// A result object.
    Result(Map<String, Value>),
    /// A JSON-RPC error.
    Error(ErrorObject),
    /// A response with our id whose `result`/`error` is malformed.
    Malformed(String),
}

#[derive(Debug, Clone, Default)]
struct Negotiated {
    version: Option<String>,
    capabilities: Value,
    log_level: Option<String>,
}

/// One 2025-11-25 connection: a stdio process, or one HTTP `Mcp-Session-Id`.
///
/// Holds what `initialize` negotiated, the server's own outstanding requests
/// (answers from the client are routed back to the waiting question), the
/// client's in-flight requests (so `notifications/cancelled` can stop them),
/// and a channel for messages unrelated to any request (on HTTP: the GET
/// stream), such as `notifications/elicitation/complete` after a `-32042`.
/// 2026-07-28 requests use none of the protocol state; on stdio they still
/// register here so they can be cancelled.
pub struct Session {
    id: String,
    negotiated: Mutex<Negotiated>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<ClientReply>>>,
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    closed: CancellationToken,
    /// `true` once the client's `notifications/initialized` arrived.
    initialized: watch::Sender<bool>,
    unsolicited_tx: mpsc::UnboundedSender<Value>,
    unsolicited_rx: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new() -> Self {
        let mut b = [0u8; 16];
        rand::fill(&mut b[..]);
        let (tx, rx) = mpsc::unbounded_channel();
        Self {
            id: b.iter().map(|x| format!("{x:02x}")).collect(),
            negotiated: Mutex::new(Negotiated::default()),
            next_id: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
            inflight: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
            initialized: watch::Sender::new(false),
            unsolicited_tx: tx,
            unsolicited_rx: Mutex::new(Some(rx)),
        }
    }

    /// A random id (32 hex characters), usable as the HTTP `Mcp-Session-Id`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The version `initialize` negotiated, if it happened.
    pub fn protocol_version(&self) -> Option<String> {
        self.negotiated.lock().ok().and_then(|n| n.version.clone())
    }

    /// The capabilities the client declared in `initialize` (`{}` before).
    pub fn client_capabilities(&self) -> Value {
        self.negotiated
            .lock()
            .map(|n| n.capabilities.clone())
            .unwrap_or(Value::Null)
    }

    /// Whether `initialize` succeeded on this session.
    pub fn is_initialized(&self) -> bool {
        self.negotiated.lock().is_ok_and(|n| n.version.is_some())
    }

    /// Take the receiver of unsolicited messages (once; later calls get `None`).
    /// On HTTP, drain it into the session's GET stream.
    pub fn unsolicited(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        self.unsolicited_rx.lock().ok().and_then(|mut r| r.take())
    }

    /// The client went away: every question waiting on it ends with
    /// [`AskError::Disconnected`] and every in-flight request is cancelled.
    pub fn close(&self) {
        self.closed.cancel();
        if let Ok(map) = self.inflight.lock() {
            for token in map.values() {
                token.cancel();
            }
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    pub(crate) fn set_negotiated(&self, version: String, capabilities: Value) {
        if let Ok(mut n) = self.negotiated.lock() {
            n.version = Some(version);
            n.capabilities = capabilities;
        }
    }

    pub(crate) fn mark_initialized(&self) {
        self.initialized.send_replace(true);
    }

    /// Wait until the client sent `notifications/initialized` (the server
    /// should send it no requests before), at most until `deadline`.
    async fn initialized_by(&self, deadline: tokio::time::Instant) -> Result<(), AskError> {
        let mut seen = self.initialized.subscribe();
        if *seen.borrow_and_update() {
            return Ok(());
        }
        tracing::debug!("waiting for notifications/initialized before asking");
        tokio::select! {
            r = seen.wait_for(|done| *done) => r.map(|_| ()).map_err(|_| AskError::Disconnected),
            () = self.closed.cancelled() => Err(AskError::Disconnected),
            () = tokio::time::sleep_until(deadline) => {
                tracing::info!("no notifications/initialized within the human-wait budget");
                Err(AskError::TimedOut)
            }
        }
    }

    pub(crate) fn set_log_level(&self, level: String) {
        if let Ok(mut n) = self.negotiated.lock() {
            n.log_level = Some(level);
        }
    }

    pub(crate) fn log_level(&self) -> Option<String> {
        self.negotiated
            .lock()
            .ok()
            .and_then(|n| n.log_level.clone())
    }

    pub(crate) fn push_unsolicited(&self, msg: Value) {
        let _ = self.unsolicited_tx.send(msg);
    }

    /// Register an inbound request so `notifications/cancelled` can stop it.
    pub(crate) fn begin_request(&self, id: &RequestId) -> CancellationToken {
        let token = self.closed.child_token();
        if let Ok(mut map) = self.inflight.lock() {
            map.insert(id.clone(), token.clone());
        }
        token
    }

    pub(crate) fn end_request(&self, id: &RequestId) {
        if let Ok(mut map) = self.inflight.lock() {
            map.remove(id);
        }
    }

    /// The client cancelled request `id`.
    pub(crate) fn cancel_request(&self, id: &RequestId) -> bool {
        let token = self.inflight.lock().ok().and_then(|m| m.get(id).cloned());
        match token {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// A response from the client to one of our requests.
    pub(crate) fn route_response(&self, id: &RequestId, reply: ClientReply) -> bool {
        let waiter = self.pending.lock().ok().and_then(|mut m| m.remove(id));
        match waiter {
            Some(tx) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Whether `id` is one of our requests still waiting for its answer.
    pub(crate) fn is_waiting_for(&self, id: &RequestId) -> bool {
        self.pending.lock().is_ok_and(|m| m.contains_key(id))
    }

    fn register(&self) -> (RequestId, oneshot::Receiver<ClientReply>) {
        let n = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let id = RequestId::from(format!("fd-{n}"));
        let (tx, rx) = oneshot::channel();
        if let Ok(mut m) = self.pending.lock() {
            m.insert(id.clone(), tx);
        }
        (id, rx)
    }

    fn forget(&self, id: &RequestId) {
        if let Ok(mut m) = self.pending.lock() {
            m.remove(id);
        }
    }
}

/// Removes the outstanding request when the waiting question goes away, and
/// tells the client (`notifications/cancelled`) so it can close its form.
struct Outstanding<'a> {
    session: &'a Session,
    sink: &'a OutboundSink,
    id: RequestId,
    answered: bool,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.session.forget(&self.id);
            let params = CancelledNotificationParams::new(
                self.id.clone(),
                Some("The server no longer needs this answer.".into()),
            );
            if let Some(m) = typed_notification(method::NOTIFICATION_CANCELLED, &params) {
                self.sink.send(m);
            }
        }
    }
}

/// Send `method` to the client and wait for its result, within the human-wait
/// budget, with progress keep-alives. Nothing is sent before the client's
/// `notifications/initialized`; waiting for it spends the same budget.
async fn round_trip(
    cx: &CallInner,
    session: &Session,
    method: &str,
    params: Map<String, Value>,
) -> Result<Value, AskError> {
    if session.is_closed() {
        return Err(AskError::Disconnected);
    }
    let config = &cx.server.config;
    let deadline = tokio::time::Instant::now() + config.human_wait;
    session.initialized_by(deadline).await?;
    let (id, rx) = session.register();
    let mut guard = Outstanding {
        session,
        sink: &cx.sink,
        id: id.clone(),
        answered: false,
    };
    let request = JsonRpcRequest::new(id.clone(), method, Some(params));
    cx.sink.send(JsonRpcMessage::from(request).to_value());
    let mut rx = rx;
    loop {
        let tick = tokio::time::Instant::now() + config.keepalive_interval;
        tokio::select! {
            reply = &mut rx => {
                guard.answered = true;
                return match reply {
                    Ok(ClientReply::Result(result)) => Ok(Value::Object(result)),
                    Ok(ClientReply::Error(error)) => Err(AskError::ClientError {
                        code: i64::from(error.code.0),
                        message: error.message,
                    }),
                    Ok(ClientReply::Malformed(reason)) => Err(AskError::InvalidResponse {
                        key: String::new(),
                        reason,
                    }),
                    Err(_) => Err(AskError::Disconnected),
                };
            }
            () = session.closed.cancelled() => {
                return Err(AskError::Disconnected);
            }
            () = tokio::time::sleep_until(deadline.min(tick)) => {
                if tokio::time::Instant::now() >= deadline {
                    tracing::info!(method, "no answer within the human-wait budget");
                    return Err(AskError::TimedOut);
                }
                send_progress(cx, "Waiting for the person to answer");
            }
        }
    }
}

fn check(session: &Session, request: &InputRequest) -> Result<(), AskError> {
    if !session.is_initialized() {
        return Err(AskError::Internal("the session is not initialized".into()));
    }
    request
        .check_capability(&session.client_capabilities())
        .map_err(|required| AskError::MissingCapability { required })
}

/// A form question over `elicitation/create`. Content that fails the schema is
/// asked again (with the problems added to the message) up to the configured
/// number of times, then ends in [`AskError::InvalidAnswer`].
pub(crate) async fn ask_form(
    cx: &CallInner,
    session: &Session,
    message: &str,
    schema: &FormSchema,
) -> Result<Answer<Map<String, Value>>, AskError> {
    let mut request = InputRequest::form(message, schema.clone());
    check(session, &request)?;
    let mut attempts = 0;
    loop {
        let result = round_trip(cx, session, request.method(), request.params(None)).await?;
        let outcome = parse_elicit_result(&result).map_err(|reason| AskError::InvalidResponse {
            key: String::new(),
            reason,
        })?;
        match outcome {
            ElicitOutcome::Decline => return Ok(Answer::Declined),
            ElicitOutcome::Cancel => return Ok(Answer::Cancelled),
            ElicitOutcome::Accept(content) => match super::form::validate(schema, &content) {
                Ok(clean) => return Ok(Answer::Accepted(clean)),
                Err(e) => {
                    tracing::warn!(error = %e, "accepted content does not fit the form");
                    if attempts >= cx.server.config.reask_limit {
                        return Err(AskError::InvalidAnswer(e));
                    }
                    attempts += 1;
                    request = InputRequest::form(
                        format!("{message}\n\nPlease check your answer: {e}."),
                        schema.clone(),
                    );
                }
            },
        }
    }
}

/// Any question, answered with the client's raw result (form content validated).
pub(crate) async fn request_input(
    cx: &CallInner,
    session: &Session,
    request: &InputRequest,
) -> Result<Value, AskError> {
    check(session, request)?;
    if let super::answer::Kind::Form { message, schema } = &request.kind {
        let answer = ask_form(cx, session, message, schema).await?;
        return Ok(match answer {
            Answer::Accepted(content) => json!({"action": "accept", "content": content}),
            other => json!({"action": other.action()}),
        });
    }
    round_trip(cx, session, request.method(), request.params(None)).await
}

/// A URL question: `elicitation/create` in URL mode; on accept, wait for the
/// flow to complete, then send `notifications/elicitation/complete`.
pub(crate) async fn ask_url<F>(
    cx: &CallInner,
    session: &Session,
    message: &str,
    make_url: F,
) -> Result<Answer<()>, AskError>
where
    F: FnOnce(&FlowTicket) -> String,
{
    check(session, &InputRequest::url(String::new(), String::new()))?;
    let flows = &cx.server.flows;
    let ticket = flows
        .create(&cx.principal, cx.server.config.human_wait, message)
        .await?;
    let request = InputRequest::url(message.to_string(), make_url(&ticket));
    let result = round_trip(
        cx,
        session,
        request.method(),
        request.params(Some(&ticket.flow_id)),
    )
    .await?;
    let outcome = parse_elicit_result(&result).map_err(|reason| AskError::InvalidResponse {
        key: String::new(),
        reason,
    })?;
    match outcome {
        ElicitOutcome::Decline => {
            flows.fail(&ticket.flow_id, "declined").await;
            Ok(Answer::Declined)
        }
        ElicitOutcome::Cancel => {
            flows.fail(&ticket.flow_id, "cancelled").await;
            Ok(Answer::Cancelled)
        }
        ElicitOutcome::Accept(_) => {
            let config = &cx.server.config;
            let deadline = tokio::time::Instant::now() + config.human_wait;
            loop {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                if left.is_zero() {
                    flows.fail(&ticket.flow_id, "timed out").await;
                    return Err(AskError::TimedOut);
                }
                let step = left.min(config.keepalive_interval);
                let status = tokio::select! {
                    s = flows.wait(&ticket.flow_id, &cx.principal, step) => s,
                    () = session.closed.cancelled() => return Err(AskError::Disconnected),
                };
                match status {
                    Progress::Complete => {
                        if let Some(m) = elicitation_complete(&ticket.flow_id) {
                            cx.sink.send(m);
                        }
                        return Ok(Answer::Accepted(()));
                    }
                    Progress::Failed => return Ok(Answer::Cancelled),
                    Progress::Pending => {
                        send_progress(cx, "Waiting for the person to finish in the browser")
                    }
                }
            }
        }
    }
}

/// Create the flow for a `-32042` error and announce its completion on the
/// session's unsolicited channel when it happens.
pub(crate) async fn url_required<F>(
    cx: &CallInner,
    session: &Arc<Session>,
    message: &str,
    make_url: F,
) -> ToolError
where
    F: FnOnce(&FlowTicket) -> String,
{
    let request_check = InputRequest::url(String::new(), String::new());
    if let Err(e) = check(session, &request_check) {
        return ToolError::Ask(e);
    }
    let server = Arc::clone(&cx.server);
    let ticket = match server
        .flows
        .create(&cx.principal, server.config.human_wait, message)
        .await
    {
        Ok(t) => t,
        Err(e) => return ToolError::Ask(e),
    };
    let url = make_url(&ticket);
    let weak = Arc::downgrade(session);
    let flow_id = ticket.flow_id.clone();
    let principal = cx.principal.clone();
    tokio::spawn(async move {
        let status = server
            .flows
            .wait(&flow_id, &principal, server.config.human_wait)
            .await;
        if status == Progress::Complete
            && let Some(session) = weak.upgrade()
            && let Some(m) = elicitation_complete(&flow_id)
        {
            session.push_unsolicited(m);
        }
    });
    ToolError::UrlElicitationRequired(vec![UrlElicitation {
        elicitation_id: ticket.flow_id,
        message: message.to_string(),
        url,
    }])
}

/// `notifications/elicitation/complete` for a finished URL flow.
fn elicitation_complete(flow_id: &str) -> Option<Value> {
    typed_notification(
        method::NOTIFICATION_ELICITATION_COMPLETE,
        &ElicitationCompleteParams::new(flow_id),
    )
}
