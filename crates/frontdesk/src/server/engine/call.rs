//! One tool call, prompt request or resource read in progress: what every
//! revision shares ([`Call`]: the server, the principal, where related
//! messages go, progress and log settings) and what differs
//! ([`Conversation`], the private trait each revision implements: how a
//! question reaches the client). A 2026-07-28 call that continues as a task
//! swaps its conversation for the task's.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use frontdesk_wire::{
    LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams, ProgressToken,
    Revision, method,
};
use serde_json::{Map, Number, Value};

use crate::BoxFuture;
use crate::flows::FlowError;
use crate::server::api::context::{CallPort, Change, Page, UrlMaker};
use crate::server::api::error::{AskError, ToolError};
use crate::server::api::question::{Answer, InputRequest};
use crate::server::contract::OutboundSink;
use crate::server::contract::caps::Declared;
use crate::server::engine::asking::{self, UrlRole};
use crate::server::engine::inner::{Caller, ServerInner, typed_notification};

/// How a revision puts questions to its client. 2025-11-25 sends live
/// requests on the session and waits; 2026-07-28 looks the answer up in the
/// retry, or records the question and suspends the handler. A URL question
/// is [`asking::ask_url`], the same for all, with the conversation playing
/// its [`UrlRole`].
pub(crate) trait Conversation: UrlRole {
    /// The revision of this call.
    fn revision(&self) -> Revision;
    /// The exact version string in force (2025-11-25 may have negotiated an
    /// older handshake version).
    fn protocol_version(&self) -> String;
    /// The client capabilities that apply to this call.
    fn client_capabilities(&self) -> Value;
    /// What the checks read of them.
    fn declared_capabilities(&self) -> Declared;
    /// A form question under `key`; accepted content is validated.
    fn ask_form<'a>(
        &'a self,
        call: &'a Call,
        key: &'a str,
        request: &'a InputRequest,
    ) -> BoxFuture<'a, Result<Answer<Map<String, Value>>, AskError>>;
    /// Several questions at once; raw results in order.
    fn ask_all<'a>(
        &'a self,
        call: &'a Call,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>>;
    /// The error that makes the client finish a URL interaction first. By
    /// default (2026-07-28 rounds and tasks have no -32042) the URL is asked
    /// as a question, and the call ends when the interaction does.
    fn url_required<'a>(
        &'a self,
        call: &'a Call,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, ToolError> {
        Box::pin(async move {
            let key = call.derived_key(&InputRequest::url(message.to_string(), String::new()));
            match asking::ask_url(self, call, &key, message, make_url, Page::Own).await {
                Err(e) => ToolError::Ask(e),
                Ok(_) => ToolError::execution(
                    "The interaction finished; call the tool again to continue.",
                ),
            }
        })
    }
    /// The result a [`once`](crate::server::api::context::ToolContext::once) step recorded in an
    /// earlier round of this call.
    fn recorded(&self, key: &str) -> Option<Value>;
    /// Record a step's result for later rounds.
    fn record(&self, key: &str, value: Value);
    /// Whether a question is waiting for the next round: the handler is not
    /// continued past it.
    fn is_suspended(&self) -> bool;
    /// A progress message, for conversations that show one (a task's
    /// `statusMessage`).
    fn note_status(&self, _message: &str) {}
}

/// What makes a call able to continue as a task (2026-07-28, the client
/// negotiated the Tasks extension, the tool supports tasks): called once,
/// it registers the task and returns the conversation the rest of the call
/// uses.
pub(crate) type TaskStarter = Box<
    dyn FnOnce(&Call) -> Option<(Arc<dyn Conversation>, crate::server::engine::tasks::Started)>
        + Send
        + Sync,
>;

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
    /// The last progress value sent (values only go up).
    last_progress: Mutex<Option<f64>>,
    /// Derived question keys seen so far, for the counter of repeats.
    derived: Mutex<HashMap<String, u32>>,
    conversation: RwLock<Arc<dyn Conversation>>,
    /// Present while the call may still continue as a task.
    task_starter: Mutex<Option<TaskStarter>>,
    /// The task this call became, until the runtime takes it over.
    started: Mutex<Option<crate::server::engine::tasks::Started>>,
    /// Set once the call is a task: its request has been answered, so
    /// nothing more may be sent for it (progress and log messages stop;
    /// progress notes go to the task's status instead).
    is_task: AtomicBool,
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
            last_progress: Mutex::new(None),
            derived: Mutex::new(HashMap::new()),
            conversation: RwLock::new(conversation),
            task_starter: Mutex::new(None),
            started: Mutex::new(None),
            is_task: AtomicBool::new(false),
        }
    }

    /// Let this call continue as a task (see [`TaskStarter`]).
    pub(crate) fn with_task_starter(self, starter: TaskStarter) -> Self {
        if let Ok(mut slot) = self.task_starter.lock() {
            *slot = Some(starter);
        }
        self
    }

    /// How questions of this call reach the client, now.
    pub(crate) fn conversation(&self) -> Arc<dyn Conversation> {
        match self.conversation.read() {
            Ok(c) => Arc::clone(&c),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Continue as a task, if this call may: `true` once the task exists
    /// (also on a second call).
    pub(crate) fn begin_task(&self) -> bool {
        if self.is_task.load(Ordering::SeqCst) {
            return true;
        }
        let Some(starter) = self.task_starter.lock().ok().and_then(|mut s| s.take()) else {
            return false;
        };
        let Some((conversation, started)) = starter(self) else {
            return false;
        };
        if let Ok(mut c) = self.conversation.write() {
            *c = conversation;
        }
        if let Ok(mut s) = self.started.lock() {
            *s = Some(started);
        }
        self.is_task.store(true, Ordering::SeqCst);
        true
    }

    /// Send a message related to this call, unless its request was already
    /// answered (it became a task).
    fn notify(&self, message: Value) {
        if !self.is_task.load(Ordering::SeqCst) {
            self.sink.send(message);
        }
    }

    /// The task this call became, for the runtime to run it (once).
    pub(crate) fn take_started(&self) -> Option<crate::server::engine::tasks::Started> {
        if !self.is_task.load(Ordering::SeqCst) {
            return None; // the common case, without the lock
        }
        self.started.lock().ok().and_then(|mut s| s.take())
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
        self.conversation().ask_form(self, key, request).await
    }

    pub(crate) async fn ask_url(
        &self,
        key: &str,
        message: &str,
        make_url: UrlMaker<'_>,
        page: Page,
    ) -> Result<Answer<()>, AskError> {
        asking::ask_url(&*self.conversation(), self, key, message, make_url, page).await
    }

    /// One step of progress with a message: the last value plus one.
    pub(crate) fn progress(&self, message: &str) {
        let next = self
            .last_progress
            .lock()
            .ok()
            .and_then(|l| *l)
            .map_or(1.0, |l| l.floor() + 1.0);
        self.report_progress(next, None, Some(message));
    }

    /// Report `progress` (of `total`, if known) when the call carried a
    /// `progressToken`; a value not above the last one sent is dropped
    /// (progress must increase). The message also becomes a task's status.
    pub(crate) fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(m) = message {
            self.conversation().note_status(m);
        }
        let Some(token) = &self.progress_token else {
            return;
        };
        let Some(value) = number(progress) else {
            tracing::debug!(progress, "progress is not a finite number; not sent");
            return;
        };
        {
            let Ok(mut last) = self.last_progress.lock() else {
                return;
            };
            if last.is_some_and(|l| progress <= l) {
                tracing::debug!(progress, "progress did not increase; not sent");
                return;
            }
            *last = Some(progress);
        }
        let mut params = ProgressNotificationParams::new(token.clone(), value);
        params.total = total.and_then(number);
        params.message = message.map(str::to_string);
        if let Some(m) = typed_notification(method::NOTIFICATION_PROGRESS, &params) {
            self.notify(m);
        }
    }

    /// Send a log message from `logger` when the client asked for logs at
    /// or below `level`.
    pub(crate) fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        if self.log_level.is_some_and(|wanted| level >= wanted) {
            let params = LoggingMessageNotificationParams {
                level,
                logger: logger.map(str::to_string),
                data,
                meta: None,
                extra: Map::new(),
            };
            if let Some(m) = typed_notification(method::NOTIFICATION_MESSAGE, &params) {
                self.notify(m);
            }
        }
    }
}

/// A progress value as JSON: whole values as integers, others as floats.
fn number(value: f64) -> Option<Number> {
    if value.fract() == 0.0 && (0.0..9.0e15).contains(&value) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, in range
        return Some(Number::from(value as u64));
    }
    Number::from_f64(value)
}

impl CallPort for Call {
    fn derived_key(&self, request: &InputRequest) -> String {
        Call::derived_key(self, request)
    }

    fn ask_form(
        &self,
        key: String,
        request: InputRequest,
    ) -> BoxFuture<'_, Result<Answer<Map<String, Value>>, AskError>> {
        Box::pin(async move { Call::ask_form(self, &key, &request).await })
    }

    fn ask_url<'a>(
        &'a self,
        key: String,
        message: String,
        make_url: UrlMaker<'a>,
        page: Page,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>> {
        Box::pin(async move { Call::ask_url(self, &key, &message, make_url, page).await })
    }

    fn ask_all<'a>(
        &'a self,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>> {
        Box::pin(async move { self.conversation().ask_all(self, questions).await })
    }

    fn url_required<'a>(
        &'a self,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, ToolError> {
        Box::pin(async move {
            self.conversation()
                .url_required(self, message, make_url)
                .await
        })
    }

    fn recorded(&self, key: &str) -> Option<Value> {
        self.conversation().recorded(key)
    }

    fn record(&self, key: &str, value: Value) {
        self.conversation().record(key, value);
    }

    fn state(&self, type_id: std::any::TypeId) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.server.states.get_any(type_id)
    }

    fn revision(&self) -> Revision {
        self.conversation().revision()
    }

    fn protocol_version(&self) -> String {
        self.conversation().protocol_version()
    }

    fn client_capabilities(&self) -> Value {
        self.conversation().client_capabilities()
    }

    fn declared_capabilities(&self) -> Declared {
        self.conversation().declared_capabilities()
    }

    fn principal(&self) -> &str {
        &self.principal
    }

    fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        Call::log(self, level, logger, data);
    }

    fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level
    }

    fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    fn progress(&self, message: &str) {
        Call::progress(self, message);
    }

    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        Call::report_progress(self, progress, total, message);
    }

    fn begin_task(&self) -> bool {
        Call::begin_task(self)
    }

    fn publish(&self, change: Change) {
        crate::server::engine::notify::publish(&self.server, &change);
    }

    fn complete_flow<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), FlowError>> {
        Box::pin(self.server.flows.complete_and_log(token, principal))
    }
}
