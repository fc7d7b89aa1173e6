//! [`ToolContext`]: what a tool, prompt or resource handler uses to ask the
//! person for input, have the client's model sample or list its roots, run
//! side effects once, reach shared state, log, report progress and continue
//! as a task, the same way on every protocol revision.

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{
    CreateMessageRequestParams, CreateMessageResult, ListRootsResult, LoggingLevel, Meta, Revision,
    Root,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use serde_json::Map;

use crate::BoxFuture;
use crate::Reason;
use crate::flows::FlowError;
use crate::server::api::error::{AskError, ToolError};
use crate::server::api::flow_ticket::FlowTicket;
use crate::server::api::question::{Answer, Ask, InputRequest};
use crate::server::contract::caps::Declared;

/// Builds the page address of a URL question from its flow's ticket.
pub(crate) type UrlMaker<'a> = Box<dyn FnOnce(&FlowTicket) -> String + Send + 'a>;

/// A change a handler announces to clients that listen for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(String),
}

/// Whose page a URL question opens.
pub(crate) enum Page {
    /// This server's: an accept waits for the flow to complete.
    Own,
    /// Someone else's (a gateway passing on another server's question): an
    /// accept is answered at once, the flow completed by its owner later;
    /// `meta` travels as the question's `_meta`.
    Relayed {
        /// The question's `_meta`, if any.
        meta: Option<Meta>,
    },
}

/// What a handler's [`ToolContext`] reaches of the call it runs in. The
/// engine's call implements it; this layer knows nothing else of the engine.
pub(crate) trait CallPort: Send + Sync {
    /// The key of a question asked without one (see the engine's call).
    fn derived_key(&self, request: &InputRequest) -> String;
    /// A form question under `key`; accepted content is validated. (The
    /// question is handed over whole, so a question's `ask_in` can return
    /// this future as its own: one allocation per question.)
    fn ask_form(
        &self,
        key: String,
        request: InputRequest,
    ) -> BoxFuture<'_, Result<Answer<Map<String, Value>>, AskError>>;
    /// A URL question under `key`, with its flow, opening `page`.
    fn ask_url<'a>(
        &'a self,
        key: String,
        message: String,
        make_url: UrlMaker<'a>,
        page: Page,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>>;
    /// Several questions at once; raw results in order.
    fn ask_all<'a>(
        &'a self,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>>;
    /// The error that makes the client finish a URL interaction first.
    fn url_required<'a>(
        &'a self,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, ToolError>;
    /// A step's result recorded in an earlier round of this call.
    fn recorded(&self, key: &str) -> Option<Value>;
    /// Record a step's result for later rounds.
    fn record(&self, key: &str, value: Value);
    /// The application state of one type, if registered.
    fn state(&self, type_id: std::any::TypeId) -> Option<&(dyn std::any::Any + Send + Sync)>;
    /// The call's revision.
    fn revision(&self) -> Revision;
    /// The exact protocol version in force.
    fn protocol_version(&self) -> String;
    /// The client capabilities that apply to the call.
    fn client_capabilities(&self) -> Value;
    /// What the checks read of them.
    fn declared_capabilities(&self) -> Declared;
    /// Who the call is from (`""`: anonymous).
    fn principal(&self) -> &str;
    /// A log message, when the client asked for its level.
    fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value);
    /// The lowest level of log message the client asked for, if any.
    fn log_level(&self) -> Option<LoggingLevel>;
    /// Whether the call carried a `progressToken`.
    fn wants_progress(&self) -> bool;
    /// One more step of progress with a message.
    fn progress(&self, message: &str);
    /// Progress of `total`, with an optional message.
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>);
    /// Continue as a task, if the call may.
    fn begin_task(&self) -> bool;
    /// Announce `change` to the clients listening for it.
    fn publish(&self, change: Change);
    /// Complete the URL flow whose connect token is `token`.
    fn complete_flow<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), FlowError>>;
}

/// The handle a tool (or prompt) handler gets. Cheap to clone.
///
/// # Asking
///
/// [`ask`](Self::ask) takes a [`Question`](crate::server::api::question::Question) and returns its
/// [`Answer`]: accepted (typed), declined or cancelled. How the question
/// travels depends on the client, not on the handler:
///
/// - **2025-11-25**: an `elicitation/create` request is sent while the call
///   is open; `ask` waits for the answer (within the human-wait budget, with
///   progress keep-alives when the call carried a `progressToken`).
/// - **2026-07-28**: the answer is looked up in the retry's `inputResponses`
///   or in the sealed `requestState`. When it is not there yet, `ask` does
///   not return: the question is recorded, the handler is not continued, and
///   the client gets `input_required` with every question the handler asked
///   so far. There is no error to propagate or to swallow by mistake.
///
/// On the retry the handler **runs again from the top**, so it must ask the
/// same questions in the same way, and anything it does before its last
/// question runs once per round. Put side effects behind
/// [`once`](Self::once): its result is recorded in the sealed state and the
/// step does not run again on later rounds of the same call.
///
/// ```
/// use frontdesk::server::{Answer, NoArgs, Question, ToolContext, ToolError, ToolOutput};
/// use frontdesk::Form;
///
/// #[derive(Form)]
/// struct Confirm {
///     #[form(title = "Cancel the order", default = false)]
///     confirm: bool,
/// }
///
/// async fn cancel_order(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
///     // Runs once per call, whatever the number of rounds.
///     let quote: u32 = cx.once("refund-quote", || async { Ok(1250) }).await?;
///     let question = Question::form::<Confirm>(format!("Refund {quote} cents and cancel?"));
///     match cx.ask(question.key("confirm")).await? {
///         Answer::Accepted(c) if c.confirm => Ok(ToolOutput::text("Cancelled.")),
///         _ => Ok(ToolOutput::text("Kept the order.")),
///     }
/// }
/// # let _ = cancel_order;
/// ```
#[derive(Clone)]
pub struct ToolContext {
    call: Arc<dyn CallPort>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("protocol_version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    pub(crate) fn new(call: Arc<dyn CallPort>) -> Self {
        Self { call }
    }

    pub(crate) fn call(&self) -> &dyn CallPort {
        &*self.call
    }

    /// Ask one [`Question`](crate::server::api::question::Question) and wait for the person's answer.
    pub async fn ask<Q: Ask>(&self, question: Q) -> Result<Answer<Q::Output>, AskError> {
        question.ask_in(self).await
    }

    /// Several questions in one round (2026-07-28 sends them together; on
    /// 2025-11-25 they are asked one after another). Answers come back in
    /// order, as raw results (`ElicitResult`, `CreateMessageResult`,
    /// `ListRootsResult`); accepted form content is already validated.
    pub async fn ask_all(
        &self,
        questions: Vec<(String, InputRequest)>,
    ) -> Result<Vec<Value>, AskError> {
        self.call.ask_all(&questions).await
    }

    /// Have the client's model write a message (`sampling/createMessage`):
    /// a live request on 2025-11-25, an input request on 2026-07-28 (where
    /// sampling is deprecated but still served). The client must declare
    /// `sampling`; otherwise [`AskError::MissingCapability`].
    ///
    /// ```
    /// # use frontdesk::server::{NoArgs, ToolContext, ToolError, ToolOutput};
    /// use frontdesk::wire::{CreateMessageRequestParams, SamplingMessage};
    ///
    /// async fn capital(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    ///     let ask = CreateMessageRequestParams::new(
    ///         vec![SamplingMessage::user("What is the capital of France?")],
    ///         100,
    ///     );
    ///     let reply = cx.sample(ask).await?;
    ///     Ok(ToolOutput::text(reply.content.text().unwrap_or("(no text)")))
    /// }
    /// # let _ = capital;
    /// ```
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, AskError> {
        let request = InputRequest::sampling(params);
        let key = self.call.derived_key(&request);
        let raw = self.ask_one(key.clone(), request).await?;
        serde_json::from_value(raw).map_err(|e| AskError::InvalidResponse {
            key,
            reason: format!("not a sampling result: {e}"),
        })
    }

    /// The client's roots (`roots/list`): a live request on 2025-11-25, an
    /// input request on 2026-07-28. The client must declare `roots`.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        let request = InputRequest::roots();
        let key = self.call.derived_key(&request);
        let raw = self.ask_one(key.clone(), request).await?;
        serde_json::from_value::<ListRootsResult>(raw)
            .map(|r| r.roots)
            .map_err(|e| AskError::InvalidResponse {
                key,
                reason: format!("not a roots result: {e}"),
            })
    }

    async fn ask_one(&self, key: String, request: InputRequest) -> Result<Value, AskError> {
        let mut answers = self.ask_all(vec![(key, request)]).await?;
        answers
            .pop()
            .ok_or_else(|| AskError::Internal(Reason::from("a question got no answer")))
    }

    /// Run `step` once per call: its result is recorded (sealed, in the
    /// 2026-07-28 `requestState`) and returned as is on later rounds of the
    /// same call instead of running `step` again. Use it for side effects
    /// before a question (reserving stock, creating a draft, sending a
    /// code). `key` names the step; it must be unique within the handler.
    ///
    /// On 2025-11-25 a call is one round, so `step` simply runs. A failing
    /// step is not recorded: it runs again on the next round.
    pub async fn once<T, F, Fut>(&self, key: &str, step: F) -> Result<T, ToolError>
    where
        T: Serialize + DeserializeOwned,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        if let Some(recorded) = self.call.recorded(key) {
            return serde_json::from_value(recorded).map_err(|e| {
                ToolError::internal(format!(
                    "the recorded result of step {key:?} no longer reads as this type: {e}"
                ))
            });
        }
        let value = step().await?;
        let json = serde_json::to_value(&value)
            .map_err(|e| ToolError::internal(format!("step {key:?} result: {e}")))?;
        self.call.record(key, json);
        Ok(value)
    }

    /// The state registered with [`ServerBuilder::state`](crate::server::ServerBuilder::state)
    /// for type `S` (a database pool, a client, configuration).
    ///
    /// ```
    /// # use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
    /// struct Inventory { boxes: u32 }
    ///
    /// async fn stock(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    ///     let inventory = cx.state::<Inventory>()?;
    ///     Ok(ToolOutput::text(format!("{} boxes left", inventory.boxes)))
    /// }
    ///
    /// let server = Server::builder("shop", "1.0.0")
    ///     .state(Inventory { boxes: 12 })
    ///     .tool(ToolDef::new("stock", "Boxes left", stock))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn state<S: Send + Sync + 'static>(&self) -> Result<&S, ToolError> {
        let state = self
            .call
            .state(std::any::TypeId::of::<S>())
            .and_then(|s| s.downcast_ref::<S>());
        state.ok_or_else(|| {
            ToolError::internal(format!(
                "no state of type {} was registered with Server::builder().state(..)",
                std::any::type_name::<S>()
            ))
        })
    }

    /// Complete the URL flow whose connect token is `token`, as
    /// [`Server::complete_flow`](crate::server::Server::complete_flow) does
    /// (e.g. from a tool that stands for the page the flow sent the person
    /// to).
    pub async fn complete_flow(
        &self,
        token: &str,
        principal: Option<&str>,
    ) -> Result<(), FlowError> {
        self.call.complete_flow(token, principal).await
    }

    /// Tell subscribers that the resource at `uri` changed, as
    /// [`Server::notify_resource_updated`](crate::server::Server::notify_resource_updated) does.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.call.publish(Change::ResourceUpdated(uri.to_string()));
    }

    /// Tell clients the tool list changed, as
    /// [`Server::notify_tools_changed`](crate::server::Server::notify_tools_changed) does.
    pub fn notify_tools_changed(&self) {
        self.call.publish(Change::ToolsListChanged);
    }

    /// Tell clients the prompt list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_prompts_changed(&self) {
        self.call.publish(Change::PromptsListChanged);
    }

    /// Tell clients the resource list changed (see
    /// [`notify_tools_changed`](Self::notify_tools_changed)).
    pub fn notify_resources_changed(&self) {
        self.call.publish(Change::ResourcesListChanged);
    }

    /// The protocol revision of this call.
    pub fn revision(&self) -> Revision {
        self.call.revision()
    }

    /// The exact version in force (`"2025-11-25"`, `"2026-07-28"`; a
    /// 2025-11-25 session may have negotiated an older handshake version).
    pub fn protocol_version(&self) -> String {
        self.call.protocol_version()
    }

    /// The client capabilities that apply to this call.
    pub fn client_capabilities(&self) -> Value {
        self.call.client_capabilities()
    }

    /// Whether the client declared what `request` needs.
    pub fn supports(&self, request: &InputRequest) -> bool {
        request
            .check_capability(self.call.declared_capabilities())
            .is_ok()
    }

    /// Whether the client can be sent to a page (URL mode). Widely used
    /// clients declare form mode only; see
    /// [`AskError::is_unsupported`] for what to do then.
    pub fn supports_url(&self) -> bool {
        self.supports(&InputRequest::url(String::new(), String::new()))
    }

    /// The authenticated principal (`""` when anonymous).
    pub fn principal(&self) -> &str {
        self.call.principal()
    }

    /// A [`ToolError`] telling the client to finish a URL interaction first:
    /// `-32042` on 2025-11-25 (the flow's completion is announced on the
    /// session's unsolicited channel); on 2026-07-28, where that error does
    /// not exist, the question is asked as `input_required` instead.
    pub async fn url_elicitation_required<F>(&self, message: &str, make_url: F) -> ToolError
    where
        F: FnOnce(&FlowTicket) -> String + Send,
    {
        self.call.url_required(message, Box::new(make_url)).await
    }

    /// Send a log message (`notifications/message`, logger `"frontdesk"`)
    /// when the client asked for logs at this level or below (2025-11-25
    /// `logging/setLevel`, 2026-07-28 `_meta` logLevel). It travels with the
    /// call: on HTTP in the call's response stream.
    pub fn log(&self, level: LoggingLevel, data: Value) {
        self.call.log(level, Some("frontdesk"), data);
    }

    /// [`log`](Self::log) under a logger name of the handler's choosing.
    pub fn log_as(&self, level: LoggingLevel, logger: &str, data: Value) {
        self.call.log(level, Some(logger), data);
    }

    /// [`log`](Self::log) with the logger as another server named it (or
    /// without one): how a relay passes on a log message as it was written.
    pub fn log_from(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        self.call.log(level, logger, data);
    }

    /// The lowest level of log message the client asked for (2025-11-25
    /// `logging/setLevel`, 2026-07-28 `_meta` logLevel); `None`: it asked
    /// for none, and [`log`](Self::log) sends nothing.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.call.log_level()
    }

    /// Whether the call carried a `progressToken` (without one,
    /// [`report_progress`](Self::report_progress) sends nothing).
    pub fn wants_progress(&self) -> bool {
        self.call.wants_progress()
    }

    /// Report one more step of progress with a message, when the call
    /// carried a `progressToken` (`notifications/progress`; the value is the
    /// last one plus one). In a task, the message becomes its
    /// `statusMessage`.
    pub fn progress(&self, message: &str) {
        self.call.progress(message);
    }

    /// Report `progress` out of `total` (if known), with an optional
    /// message, when the call carried a `progressToken`. Values must
    /// increase: one not above the last sent is dropped.
    ///
    /// ```
    /// # use frontdesk::server::{NoArgs, ToolContext, ToolError, ToolOutput};
    /// async fn import(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    ///     for (done, file) in ["a.csv", "b.csv"].iter().enumerate() {
    ///         cx.report_progress(done as f64, Some(2.0), Some(&format!("Reading {file}")));
    ///     }
    ///     cx.report_progress(2.0, Some(2.0), None);
    ///     Ok(ToolOutput::text("Imported 2 files."))
    /// }
    /// # let _ = import;
    /// ```
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.call.report_progress(progress, total, message);
    }

    /// Continue this tool call as a task (the Tasks extension, SEP-2663):
    /// the client gets a `CreateTaskResult` now, polls `tasks/get`, and the
    /// handler keeps running in the background. Questions asked from here
    /// on become the task's `inputRequests`, answered with `tasks/update`;
    /// questions asked before it travel as usual (on 2026-07-28 as
    /// `input_required` rounds, finished before the task exists).
    ///
    /// `false` when the call cannot become a task: a prompt or resource, a
    /// tool without [`ToolDef::task_support`](crate::server::api::tool::ToolDef::task_support),
    /// a 2025-11-25 session, a 2026-07-28 client that did not declare the
    /// extension, or no room for a task (the client's share,
    /// [`max_tasks_per_client`](crate::server::api::config::ServerConfig::max_tasks_per_client),
    /// or the table, [`max_tasks`](crate::server::api::config::ServerConfig::max_tasks), full of
    /// running tasks). The handler then simply continues within the call.
    /// Calling it again after `true` returns `true`.
    ///
    /// The handler runs on in this process. With a task store
    /// ([`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store))
    /// the task can be read, answered and cancelled on any instance sharing
    /// it, and after a restart; if this process stops first, the task is
    /// reported failed and the client is told to call the tool again (see
    /// [`crate::tasks`]).
    ///
    /// ```
    /// # use frontdesk::server::{NoArgs, ToolContext, ToolError, ToolOutput};
    /// async fn rebuild_index(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    ///     cx.continue_as_task().await;
    ///     // … minutes of work, polled by the client through tasks/get …
    ///     Ok(ToolOutput::text("Index rebuilt."))
    /// }
    /// # let _ = rebuild_index;
    /// ```
    pub async fn continue_as_task(&self) -> bool {
        if !self.call.begin_task() {
            return false;
        }
        // One pending poll: the runtime sees the task and moves this handler
        // into it before it continues.
        YieldOnce(false).await;
        true
    }
}

/// Pending once (waking itself), then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}
