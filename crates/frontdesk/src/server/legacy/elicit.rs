//! How a 2025-11-25 call asks: a live request on the session
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) and a wait
//! for its answer, within the human-wait budget, with progress keep-alives
//! and cancellation; URL flows announced with
//! `notifications/elicitation/complete`.

use std::sync::Arc;
use std::time::Duration;

use frontdesk_form::Defaults;
use frontdesk_wire::{
    CancelledNotificationParams, ElicitationCompleteParams, JsonRpcMessage, JsonRpcRequest,
    RequestId, Revision, method,
};
use serde_json::{Map, Value, json};
use tracing::Instrument as _;

use crate::BoxFuture;
use crate::Reason;
use crate::server::api::config::ServerConfig;
use crate::server::api::context::UrlMaker;
use crate::server::api::error::{AskError, Busy, ToolError};
use crate::server::api::error::{UrlElicitation, UrlElicitations};
use crate::server::api::question::{Answer, ElicitOutcome, InputRequest, Kind};
use crate::server::contract::OutboundSink;
use crate::server::contract::caps::Declared;
use crate::server::engine::asking::{self, UrlAsk, UrlReply, UrlRole};
use crate::server::engine::call::{Call, Conversation};
use crate::server::engine::drain;
use crate::server::engine::flow_port::Progress;
use crate::server::engine::inner::typed_notification;
use crate::server::engine::session::{ClientReply, Session};
use frontdesk_form::FormError;

/// A 2025-11-25 call: questions are requests on its session.
pub(crate) struct Live {
    pub(crate) session: Arc<Session>,
}

impl Conversation for Live {
    fn revision(&self) -> Revision {
        Revision::V2025_11_25
    }

    fn protocol_version(&self) -> String {
        self.session.protocol_version().unwrap_or_default()
    }

    fn client_capabilities(&self) -> Value {
        self.session.client_capabilities()
    }

    fn declared_capabilities(&self) -> Declared {
        self.session.declared_capabilities()
    }

    fn ask_form<'a>(
        &'a self,
        call: &'a Call,
        _key: &'a str,
        request: &'a InputRequest,
    ) -> BoxFuture<'a, Result<Answer<Map<String, Value>>, AskError>> {
        Box::pin(ask_form(call, &self.session, request))
    }

    fn ask_all<'a>(
        &'a self,
        call: &'a Call,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(questions.len());
            for (_, q) in questions {
                out.push(request_input(call, &self.session, q).await?);
            }
            Ok(out)
        })
    }

    fn url_required<'a>(
        &'a self,
        call: &'a Call,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, ToolError> {
        Box::pin(url_required(call, &self.session, message, make_url))
    }

    fn recorded(&self, _key: &str) -> Option<Value> {
        // A 2025-11-25 call is one round: nothing was recorded before it.
        None
    }

    fn record(&self, _key: &str, _value: Value) {}

    fn is_suspended(&self) -> bool {
        false
    }
}

/// Removes the outstanding request when the waiting question goes away, and
/// tells the client (`notifications/cancelled`) so it can close its form.
struct Outstanding<'a> {
    session: &'a Session,
    sink: &'a OutboundSink,
    id: RequestId,
    answered: bool,
    /// The `reason` the client is told.
    reason: &'static str,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.session.forget(&self.id);
            let params =
                CancelledNotificationParams::new(self.id.clone(), Some(self.reason.into()));
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
    call: &Call,
    session: &Session,
    method: &str,
    params: Map<String, Value>,
) -> Result<Value, AskError> {
    if session.is_closed() {
        return Err(AskError::Disconnected);
    }
    let drain = &call.server.drain;
    if drain.is_draining() {
        return Err(AskError::ShuttingDown);
    }
    let config = &call.server.config;
    let deadline = tokio::time::Instant::now() + config.human_wait;
    session.initialized_by(deadline).await?;
    let _slot = call.server.load.question().ok_or_else(|| {
        tracing::warn!("question refused: the server has its most questions waiting");
        crate::metrics::refused("server_questions");
        AskError::Busy(Busy::ServerQuestions)
    })?;
    let (id, mut rx) = session.register().ok_or_else(|| {
        tracing::warn!("question refused: the session has its most questions waiting");
        crate::metrics::refused("session_questions");
        AskError::Busy(Busy::SessionQuestions)
    })?;
    // Elicitations are counted (sampling and roots are not questions to a person).
    let mode = (method == method::ELICITATION_CREATE).then(|| elicitation_mode(&params));
    let asked_at = tokio::time::Instant::now();
    if let Some(mode) = mode {
        crate::metrics::asked(mode, Revision::V2025_11_25);
    }
    let ended = |outcome: &'static str| {
        if let Some(mode) = mode {
            crate::metrics::answered(mode, Revision::V2025_11_25, outcome);
        }
    };
    let mut guard = Outstanding {
        session,
        sink: &call.sink,
        id: id.clone(),
        answered: false,
        reason: "The server no longer needs this answer.",
    };
    let request = JsonRpcRequest::new(id, method, Some(params));
    call.sink.send(JsonRpcMessage::from(request).to_value());
    let waiting = mode.map_or_else(tracing::Span::none, crate::server::trace::wait_span);
    async {
        loop {
            let tick = tokio::time::Instant::now() + config.keepalive_interval;
            tokio::select! {
                reply = &mut rx => {
                    guard.answered = true;
                    if mode.is_some() {
                        crate::metrics::answer_time(Revision::V2025_11_25, asked_at.elapsed());
                    }
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
                    ended("abandoned");
                    return Err(AskError::Disconnected);
                }
                () = drain.begun() => {
                    guard.reason = drain::WITHDRAWN;
                    ended("withdrawn");
                    return Err(AskError::ShuttingDown);
                }
                () = tokio::time::sleep_until(deadline.min(tick)) => {
                    if tokio::time::Instant::now() >= deadline {
                        tracing::info!(method, "no answer within the human-wait budget");
                        ended("timed_out");
                        return Err(AskError::TimedOut);
                    }
                    call.progress("Waiting for the person to answer");
                }
            }
        }
    }
    .instrument(waiting)
    .await
}

/// The mode of an `elicitation/create`'s params, as a metrics label.
fn elicitation_mode(params: &Map<String, Value>) -> &'static str {
    match params.get("mode").and_then(Value::as_str) {
        Some("url") => "url",
        _ => "form",
    }
}

fn check(session: &Session, request: &InputRequest) -> Result<(), AskError> {
    if !session.is_initialized() {
        return Err(AskError::Internal(Reason::from(
            "the session is not initialized",
        )));
    }
    request.require_capability(session.declared_capabilities())
}

/// A form question over `elicitation/create`. Content that fails the schema
/// is asked again, with the problems added to the message and the values the
/// person got right as the fields' defaults, up to the configured number of
/// times; then it ends in [`AskError::InvalidAnswer`].
async fn ask_form(
    call: &Call,
    session: &Session,
    request: &InputRequest,
) -> Result<Answer<Map<String, Value>>, AskError> {
    let Kind::Form { message, schema } = &request.kind else {
        return Err(AskError::Internal(Reason::from("not a form question")));
    };
    check(session, request)?;
    let mut asked = request.clone();
    let mut attempts = 0;
    loop {
        let result = round_trip(call, session, asked.method(), asked.params(None)).await?;
        let answered = |outcome| crate::metrics::answered("form", Revision::V2025_11_25, outcome);
        match asking::outcome("", &result)? {
            ElicitOutcome::Decline => {
                answered("decline");
                return Ok(Answer::Declined);
            }
            ElicitOutcome::Cancel => {
                answered("cancel");
                return Ok(Answer::Cancelled);
            }
            ElicitOutcome::Accept(content) => {
                match schema.accept(content.clone(), Defaults::Apply) {
                    Ok(accepted) => {
                        answered("accept");
                        if !accepted.dropped().is_empty() {
                            tracing::debug!(fields = ?accepted.dropped(), "answer has fields the form does not declare; dropped");
                        }
                        return Ok(Answer::Accepted(accepted.into_content()));
                    }
                    Err(e) => {
                        let e = FormError::from(e);
                        tracing::warn!(error = %e, "accepted content does not fit the form");
                        answered("invalid");
                        if attempts >= call.server.config.reask_limit {
                            return Err(AskError::InvalidAnswer(e));
                        }
                        attempts += 1;
                        asked = InputRequest::form(
                            format!("{message}\n\nPlease check your answer: {e}."),
                            schema.with_defaults_from(&content),
                        );
                    }
                }
            }
        }
    }
}

/// Any question, answered with the client's raw result (form content validated).
async fn request_input(
    call: &Call,
    session: &Session,
    request: &InputRequest,
) -> Result<Value, AskError> {
    check(session, request)?;
    if matches!(request.kind, Kind::Form { .. }) {
        return Ok(match ask_form(call, session, request).await? {
            Answer::Accepted(content) => json!({"action": "accept", "content": content}),
            other => json!({"action": other.action()}),
        });
    }
    round_trip(call, session, request.method(), request.params(None)).await
}

/// A 2025-11-25 session's part in a URL question: `elicitation/create` in
/// URL mode carrying the flow id as `elicitationId`; when the flow completes
/// (before or after the client's `accept`) the client is sent
/// `notifications/elicitation/complete`, and an `accept` waits for that,
/// within the human-wait budget, with progress keep-alives.
impl UrlRole for Live {
    fn check(&self, request: &InputRequest) -> Result<(), AskError> {
        check(&self.session, request)
    }

    fn keyed(&self) -> bool {
        false
    }

    fn flow_ttl(&self, config: &ServerConfig) -> Duration {
        config.human_wait
    }

    fn ask<'a>(
        &'a self,
        call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<UrlReply, AskError>> {
        Box::pin(ask_url(call, &self.session, ask))
    }

    fn wait_for_flow<'a>(
        &'a self,
        call: &'a Call,
        flow_id: &'a str,
    ) -> BoxFuture<'a, Result<Progress, AskError>> {
        Box::pin(wait_for_flow(call, &self.session, flow_id))
    }

    fn completed(&self, call: &Call, flow_id: &str) {
        if let Some(m) = elicitation_complete(flow_id) {
            call.sink.send(m);
        }
    }

    fn announce_later(&self, call: &Call, flow_id: &str) {
        announce_when_complete(call, &self.session, flow_id.to_string());
    }
}

/// Send a URL question and wait for the client's answer. The flow may
/// finish before the client answers (a client may answer `accept` only when
/// the person says they are done): it is announced at once, so the client
/// can move on without waiting for that click.
async fn ask_url(call: &Call, session: &Session, ask: &UrlAsk<'_>) -> Result<UrlReply, AskError> {
    let flow_id = &ask.flow.id;
    let answer = round_trip(
        call,
        session,
        ask.request.method(),
        ask.request.params(Some(flow_id)),
    );
    tokio::pin!(answer);
    let flows = &call.server.flows;
    let mut announced = false;
    let mut watching = true;
    loop {
        let step = call.server.config.keepalive_interval;
        tokio::select! {
            result = &mut answer => {
                let result = result?;
                let action = asking::outcome("", &result).map_or("invalid", |o| o.action());
                crate::metrics::answered("url", Revision::V2025_11_25, action);
                return Ok(UrlReply { result, completed: announced });
            }
            status = flows.wait(flow_id, &call.principal, step), if watching => match status {
                Progress::Complete => {
                    if let Some(m) = elicitation_complete(flow_id) {
                        call.sink.send(m);
                    }
                    announced = true;
                    watching = false;
                }
                Progress::Failed => watching = false,
                Progress::Pending => {}
            },
        }
    }
}

/// After an `accept`: wait for the flow within the human-wait budget,
/// sending progress keep-alives; `Pending` when the budget is spent.
async fn wait_for_flow(
    call: &Call,
    session: &Session,
    flow_id: &str,
) -> Result<Progress, AskError> {
    let config = &call.server.config;
    let deadline = tokio::time::Instant::now() + config.human_wait;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Ok(Progress::Pending);
        }
        let step = left.min(config.keepalive_interval);
        let status = tokio::select! {
            s = call.server.flows.wait(flow_id, &call.principal, step) => s,
            () = session.closed.cancelled() => return Err(AskError::Disconnected),
            () = call.server.drain.begun() => return Err(AskError::ShuttingDown),
        };
        match status {
            Progress::Pending => {
                call.progress("Waiting for the person to finish in the browser");
            }
            settled => return Ok(settled),
        }
    }
}

/// Create the flow for a `-32042` error and announce its completion on the
/// session's unsolicited channel when it happens.
async fn url_required(
    call: &Call,
    session: &Arc<Session>,
    message: &str,
    make_url: UrlMaker<'_>,
) -> ToolError {
    if let Err(e) = check(session, &InputRequest::url(String::new(), String::new())) {
        return ToolError::Ask(e);
    }
    let server = Arc::clone(&call.server);
    let flow = match asking::new_flow(call, server.config.human_wait, message, make_url).await {
        Ok(flow) => flow,
        Err(e) => return ToolError::Ask(e),
    };
    announce_when_complete(call, session, flow.id.clone());
    ToolError::UrlElicitationRequired(UrlElicitations::one(UrlElicitation {
        elicitation_id: flow.id,
        message: message.to_string(),
        url: flow.url,
    }))
}

/// Send `notifications/elicitation/complete` on the session's unsolicited
/// channel when the flow completes (within the human-wait budget), the call
/// that asked being over by then perhaps.
fn announce_when_complete(call: &Call, session: &Arc<Session>, flow_id: String) {
    let server = Arc::clone(&call.server);
    let weak = Arc::downgrade(session);
    let principal = call.principal.clone();
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
}

/// `notifications/elicitation/complete` for a finished URL flow.
fn elicitation_complete(flow_id: &str) -> Option<Value> {
    typed_notification(
        method::NOTIFICATION_ELICITATION_COMPLETE,
        &ElicitationCompleteParams::new(flow_id),
    )
}
