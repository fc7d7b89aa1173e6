//! [`ToolContext`]: what a tool or prompt handler uses to ask the person for
//! input, the same way on every protocol revision.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use frontdesk_wire::{ProgressNotificationParams, ProgressToken, method};
use serde_json::{Map, Value};

use super::answer::{Answer, AskError, InputRequest};
use super::flow_port::FlowTicket;
use super::form::{Form, FormSchema};
use super::legacy::{self, Session};
use super::modern::ModernRound;
use super::tool::ToolError;
use super::{OutboundSink, ServerInner};

/// The era a call is served in, with what that era needs.
pub(crate) enum EraCall {
    /// 2025-11-25: a live session to send requests on.
    Legacy(Arc<Session>),
    /// 2026-07-28: the answers that came with this round.
    Modern(Box<ModernRound>),
}

pub(crate) struct CallInner {
    pub(crate) server: Arc<ServerInner>,
    pub(crate) principal: String,
    pub(crate) sink: OutboundSink,
    pub(crate) progress_token: Option<ProgressToken>,
    /// Whether the client asked for log messages.
    pub(crate) logging: bool,
    pub(crate) progress: AtomicU64,
    pub(crate) auto_key: AtomicU64,
    pub(crate) era: EraCall,
}

/// The handle a tool (or prompt) handler gets: ask questions, log, report
/// progress. Cheap to clone.
///
/// Questions are answered differently per revision, but handlers do not see
/// it:
///
/// - **2025-11-25**: each question is an `elicitation/create` request sent
///   while the tool call is in flight; the call waits (within the human-wait
///   budget, sending progress keep-alives when the call carried a
///   `progressToken`) for the answer.
/// - **2026-07-28**: each question looks for its answer in the retry's
///   `inputResponses` or in the sealed `requestState`; when it is missing the
///   question returns [`AskError::InputRequired`], the handler propagates it
///   with `?`, and the client gets `input_required` with every pending
///   question. The handler runs again from the top on the retry, so it must
///   ask the same questions in the same order, and work done before its last
///   question must be idempotent.
///
/// Question keys: the `*_with_key` methods use the key given (it is the
/// `inputRequests` key on 2026-07-28); the others number questions `q1`,
/// `q2`, … in the order they are asked.
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) inner: Arc<CallInner>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("protocol_version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    pub(crate) fn new(inner: CallInner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The protocol revision of this call (`"2025-11-25"`, `"2026-07-28"`, …).
    pub fn protocol_version(&self) -> String {
        match &self.inner.era {
            EraCall::Legacy(s) => s.protocol_version().unwrap_or_default(),
            EraCall::Modern(_) => super::Revision::V2026_07_28.as_str().to_string(),
        }
    }

    /// The client capabilities that apply to this call.
    pub fn client_capabilities(&self) -> Value {
        match &self.inner.era {
            EraCall::Legacy(s) => s.client_capabilities(),
            EraCall::Modern(r) => r.capabilities().clone(),
        }
    }

    /// Whether the client declared what `request` needs.
    pub fn supports(&self, request: &InputRequest) -> bool {
        request
            .check_capability(&self.client_capabilities())
            .is_ok()
    }

    /// The authenticated principal (`""` when anonymous).
    pub fn principal(&self) -> &str {
        &self.inner.principal
    }

    fn next_key(&self) -> String {
        let n = self.inner.auto_key.fetch_add(1, Ordering::SeqCst) + 1;
        format!("q{n}")
    }

    /// Ask a form built at run time; the answer is the validated content.
    pub async fn ask(
        &self,
        message: &str,
        schema: &FormSchema,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        let key = self.next_key();
        self.ask_with_key(&key, message, schema).await
    }

    /// [`ask`](Self::ask) under an explicit question key.
    pub async fn ask_with_key(
        &self,
        key: &str,
        message: &str,
        schema: &FormSchema,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        let request = InputRequest::form(message, schema.clone());
        match &self.inner.era {
            EraCall::Legacy(session) => {
                legacy::ask_form(&self.inner, session, message, schema).await
            }
            EraCall::Modern(round) => round.ask_form(key, &request, schema),
        }
    }

    /// Ask the form `T` describes; the answer is re-validated, then read into `T`.
    pub async fn ask_form<T: Form>(&self, message: &str) -> Result<Answer<T>, AskError> {
        let key = self.next_key();
        self.ask_form_with_key(&key, message).await
    }

    /// [`ask_form`](Self::ask_form) under an explicit question key.
    pub async fn ask_form_with_key<T: Form>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Answer<T>, AskError> {
        let schema = T::schema();
        match self.ask_with_key(key, message, &schema).await? {
            Answer::Accepted(content) => T::from_content(content)
                .map(Answer::Accepted)
                .map_err(AskError::InvalidAnswer),
            Answer::Declined => Ok(Answer::Declined),
            Answer::Cancelled => Ok(Answer::Cancelled),
        }
    }

    /// Send the person to a page (URL mode). `make_url` builds the page address
    /// from the flow's ticket (put the connect token in it, never secrets).
    ///
    /// `Accepted(())` means the flow completed (the server's own page called
    /// `Server::complete_flow`), not merely that the person agreed to open it.
    /// 2025-11-25: waits within the human-wait budget, then sends
    /// `notifications/elicitation/complete`. 2026-07-28: on a retry with
    /// `accept` it holds the request for a bounded time, then asks again.
    pub async fn ask_url<F>(&self, message: &str, make_url: F) -> Result<Answer<()>, AskError>
    where
        F: FnOnce(&FlowTicket) -> String,
    {
        let key = self.next_key();
        self.ask_url_with_key(&key, message, make_url).await
    }

    /// [`ask_url`](Self::ask_url) under an explicit question key.
    pub async fn ask_url_with_key<F>(
        &self,
        key: &str,
        message: &str,
        make_url: F,
    ) -> Result<Answer<()>, AskError>
    where
        F: FnOnce(&FlowTicket) -> String,
    {
        match &self.inner.era {
            EraCall::Legacy(session) => {
                legacy::ask_url(&self.inner, session, message, make_url).await
            }
            EraCall::Modern(round) => round.ask_url(&self.inner, key, message, make_url).await,
        }
    }

    /// Several questions in one round (2026-07-28 sends them together; on
    /// 2025-11-25 they are asked one after another). Answers come back in
    /// order, as raw results (`ElicitResult`, `CreateMessageResult`,
    /// `ListRootsResult`); accepted form content is already validated.
    pub async fn ask_all(
        &self,
        questions: Vec<(String, InputRequest)>,
    ) -> Result<Vec<Value>, AskError> {
        match &self.inner.era {
            EraCall::Legacy(session) => {
                let mut out = Vec::with_capacity(questions.len());
                for (_, q) in &questions {
                    out.push(legacy::request_input(&self.inner, session, q).await?);
                }
                Ok(out)
            }
            EraCall::Modern(round) => round.ask_all(&questions),
        }
    }

    /// One question of any kind (form, sampling, roots), answered with the
    /// client's raw result.
    pub async fn request_input(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let mut all = self.ask_all(vec![(key.to_string(), request)]).await?;
        all.pop()
            .ok_or_else(|| AskError::Internal("no answer recorded".into()))
    }

    /// A [`ToolError`] saying URL interactions must finish first: `-32042` on
    /// 2025-11-25 (the flow's completion is announced on the session's
    /// unsolicited channel), `input_required` on 2026-07-28 (never `-32042`).
    pub async fn url_elicitation_required<F>(&self, message: &str, make_url: F) -> ToolError
    where
        F: FnOnce(&FlowTicket) -> String,
    {
        match &self.inner.era {
            EraCall::Legacy(session) => {
                legacy::url_required(&self.inner, session, message, make_url).await
            }
            EraCall::Modern(round) => {
                let key = self.next_key();
                match round.ask_url(&self.inner, &key, message, make_url).await {
                    Err(e) => ToolError::Ask(e),
                    Ok(_) => ToolError::execution(
                        "The interaction finished; call the tool again to continue.",
                    ),
                }
            }
        }
    }

    /// Send a log message (`notifications/message`) when the client asked for
    /// logs (2025-11-25 `logging/setLevel`, 2026-07-28 `_meta` logLevel).
    pub fn log(&self, level: &str, data: Value) {
        if self.inner.logging {
            let mut params = Map::new();
            params.insert("level".into(), Value::from(level));
            params.insert("logger".into(), Value::from("frontdesk"));
            params.insert("data".into(), data);
            self.inner.sink.send(super::rpc::notification(
                method::NOTIFICATION_MESSAGE,
                params,
            ));
        }
    }

    /// Report progress when the call carried a `progressToken` (the value
    /// never goes backwards: it is raised to the next step when needed).
    pub fn progress(&self, message: &str) {
        send_progress(&self.inner, message);
    }
}

pub(crate) fn send_progress(inner: &CallInner, message: &str) {
    if let Some(token) = &inner.progress_token {
        let n = inner.progress.fetch_add(1, Ordering::SeqCst) + 1;
        let mut params = ProgressNotificationParams::new(token.clone(), n);
        params.message = Some(message.to_string());
        if let Some(m) = super::rpc::typed_notification(method::NOTIFICATION_PROGRESS, &params) {
            inner.sink.send(m);
        }
    }
}
