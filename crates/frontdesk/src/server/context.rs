//! [`ToolContext`]: what a tool or prompt handler uses to ask the person for
//! input, run side effects once, reach shared state, log and report
//! progress, the same way on every protocol revision.

use std::future::Future;
use std::sync::Arc;

use frontdesk_wire::{LoggingLevel, Revision};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Server;
use super::call::Call;
use super::error::{AskError, ToolError};
use super::flow_port::FlowTicket;
use super::question::{Answer, Ask, InputRequest};

/// The handle a tool (or prompt) handler gets. Cheap to clone.
///
/// # Asking
///
/// [`ask`](Self::ask) takes a [`Question`](super::Question) and returns its
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
    call: Arc<Call>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("protocol_version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    pub(crate) fn new(call: Arc<Call>) -> Self {
        Self { call }
    }

    pub(crate) fn call(&self) -> &Call {
        &self.call
    }

    /// Ask one [`Question`](super::Question) and wait for the person's answer.
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
        self.call.conversation.ask_all(&self.call, &questions).await
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
        if let Some(recorded) = self.call.conversation.recorded(key) {
            return serde_json::from_value(recorded).map_err(|e| {
                ToolError::internal(format!(
                    "the recorded result of step {key:?} no longer reads as this type: {e}"
                ))
            });
        }
        let value = step().await?;
        let json = serde_json::to_value(&value)
            .map_err(|e| ToolError::internal(format!("step {key:?} result: {e}")))?;
        self.call.conversation.record(key, json);
        Ok(value)
    }

    /// The state registered with [`ServerBuilder::state`](super::ServerBuilder::state)
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
        self.call.server.states.get::<S>().ok_or_else(|| {
            ToolError::internal(format!(
                "no state of type {} was registered with Server::builder().state(..)",
                std::any::type_name::<S>()
            ))
        })
    }

    /// The server this call runs on (e.g. to complete a URL flow the handler
    /// started, with [`Server::complete_flow`]).
    pub fn server(&self) -> Server {
        Server::from_inner(Arc::clone(&self.call.server))
    }

    /// The protocol revision of this call.
    pub fn revision(&self) -> Revision {
        self.call.conversation.revision()
    }

    /// The exact version in force (`"2025-11-25"`, `"2026-07-28"`; a
    /// 2025-11-25 session may have negotiated an older handshake version).
    pub fn protocol_version(&self) -> String {
        self.call.conversation.protocol_version()
    }

    /// The client capabilities that apply to this call.
    pub fn client_capabilities(&self) -> Value {
        self.call.conversation.client_capabilities()
    }

    /// Whether the client declared what `request` needs.
    pub fn supports(&self, request: &InputRequest) -> bool {
        request
            .check_capability(&self.client_capabilities())
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
        &self.call.principal
    }

    /// A [`ToolError`] telling the client to finish a URL interaction first:
    /// `-32042` on 2025-11-25 (the flow's completion is announced on the
    /// session's unsolicited channel); on 2026-07-28, where that error does
    /// not exist, the question is asked as `input_required` instead.
    pub async fn url_elicitation_required<F>(&self, message: &str, make_url: F) -> ToolError
    where
        F: FnOnce(&FlowTicket) -> String + Send,
    {
        self.call
            .conversation
            .url_required(&self.call, message, Box::new(make_url))
            .await
    }

    /// Send a log message (`notifications/message`) when the client asked for
    /// logs at this level or below (2025-11-25 `logging/setLevel`, 2026-07-28
    /// `_meta` logLevel).
    pub fn log(&self, level: LoggingLevel, data: Value) {
        self.call.log(level, data);
    }

    /// Report progress when the call carried a `progressToken` (the value
    /// never goes backwards).
    pub fn progress(&self, message: &str) {
        self.call.progress(message);
    }
}
