//! One tool call or prompt request in progress: what every revision shares
//! ([`Call`]: the server, the principal, where related messages go, progress
//! and log settings) and what differs ([`Conversation`], the private trait
//! each revision implements: how a question reaches the client).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use frontdesk_wire::{
    LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams, ProgressToken,
    Revision, method,
};
use serde_json::{Map, Value};

use super::error::{AskError, ToolError};
use super::flow_port::FlowTicket;
use super::question::{Answer, InputRequest};
use super::{Caller, OutboundSink, ServerInner, typed_notification};
use crate::store::BoxFuture;

/// Builds the page address of a URL question from its flow's ticket.
pub(crate) type UrlMaker<'a> = Box<dyn FnOnce(&FlowTicket) -> String + Send + 'a>;

/// How a revision puts questions to its client. 2025-11-25 sends live
/// requests on the session and waits; 2026-07-28 looks the answer up in the
/// retry, or records the question and suspends the handler.
pub(crate) trait Conversation: Send + Sync {
    /// The revision of this call.
    fn revision(&self) -> Revision;
    /// The exact version string in force (2025-11-25 may have negotiated an
    /// older handshake version).
    fn protocol_version(&self) -> String;
    /// The client capabilities that apply to this call.
    fn client_capabilities(&self) -> Value;
    /// A form question under `key`; accepted content is validated.
    fn ask_form<'a>(
        &'a self,
        call: &'a Call,
        key: &'a str,
        request: &'a InputRequest,
    ) -> BoxFuture<'a, Result<Answer<Map<String, Value>>, AskError>>;
    /// A URL question under `key`, with its flow.
    fn ask_url<'a>(
        &'a self,
        call: &'a Call,
        key: &'a str,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>>;
    /// Several questions at once; raw results in order.
    fn ask_all<'a>(
        &'a self,
        call: &'a Call,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>>;
    /// The error that makes the client finish a URL interaction first.
    fn url_required<'a>(
        &'a self,
        call: &'a Call,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, ToolError>;
    /// The result a [`once`](super::ToolContext::once) step recorded in an
    /// earlier round of this call.
    fn recorded(&self, key: &str) -> Option<Value>;
    /// Record a step's result for later rounds.
    fn record(&self, key: &str, value: Value);
    /// Whether a question is waiting for the next round: the handler is not
    /// continued past it.
    fn is_suspended(&self) -> bool;
}

/// One call in progress.
pub(crate) struct Call {
    pub(crate) server: Arc<ServerInner>,
    pub(crate) principal: String,
    /// The key this call's quotas (URL flows) count against.
    pub(crate) quota_key: String,
    pub(crate) sink: OutboundSink,
    progress_token: Option<ProgressToken>,
    /// The lowest level the client wants log messages at; `None`: no logs.
    log_level: Option<LoggingLevel>,
    progress: AtomicU64,
    /// Derived question keys seen so far, for the counter of repeats.
    derived: Mutex<HashMap<String, u32>>,
    pub(crate) conversation: Arc<dyn Conversation>,
}

impl Call {
    pub(crate) fn new(
        server: Arc<ServerInner>,
        caller: Caller,
        sink: OutboundSink,
        progress_token: Option<ProgressToken>,
        log_level: Option<LoggingLevel>,
        conversation: Arc<dyn Conversation>,
    ) -> Self {
        Self {
            server,
            principal: caller.principal,
            quota_key: caller.quota_key,
            sink,
            progress_token,
            log_level,
            progress: AtomicU64::new(0),
            derived: Mutex::new(HashMap::new()),
            conversation,
        }
    }

    /// The key of a question asked without one: derived from the question
    /// itself, so it does not move when other questions come and go; the
    /// second identical question of a call gets `-2`, and so on.
    pub(crate) fn derived_key(&self, request: &InputRequest) -> String {
        let base = format!("q_{}", &request.digest()[..8]);
        let Ok(mut seen) = self.derived.lock() else {
            return base;
        };
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 { base } else { format!("{base}-{n}") }
    }

    pub(crate) async fn ask_form(
        &self,
        key: &str,
        request: &InputRequest,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        self.conversation.ask_form(self, key, request).await
    }

    pub(crate) async fn ask_url(
        &self,
        key: &str,
        message: &str,
        make_url: UrlMaker<'_>,
    ) -> Result<Answer<()>, AskError> {
        self.conversation
            .ask_url(self, key, message, make_url)
            .await
    }

    /// Report progress when the call carried a `progressToken` (the value
    /// only goes up).
    pub(crate) fn progress(&self, message: &str) {
        if let Some(token) = &self.progress_token {
            let n = self.progress.fetch_add(1, Ordering::SeqCst) + 1;
            let mut params = ProgressNotificationParams::new(token.clone(), n);
            params.message = Some(message.to_string());
            if let Some(m) = typed_notification(method::NOTIFICATION_PROGRESS, &params) {
                self.sink.send(m);
            }
        }
    }

    /// Send a log message when the client asked for logs at or below `level`.
    pub(crate) fn log(&self, level: LoggingLevel, data: Value) {
        if self.log_level.is_some_and(|wanted| level >= wanted) {
            let params = LoggingMessageNotificationParams {
                level,
                logger: Some("frontdesk".into()),
                data,
                meta: None,
                extra: Map::new(),
            };
            if let Some(m) = typed_notification(method::NOTIFICATION_MESSAGE, &params) {
                self.sink.send(m);
            }
        }
    }
}
