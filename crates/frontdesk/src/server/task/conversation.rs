//! How a task asks: [`InTask`] puts each question into the task's
//! `inputRequests` under a key unique for the task's lifetime and waits for
//! `tasks/update` to deliver its answer (within the human-wait budget). An
//! answer that does not fit is asked again under a new key.

use std::sync::Arc;
use std::time::Duration;

use frontdesk_wire::Revision;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::BoxFuture;
use crate::server::api::config::ServerConfig;
use crate::server::api::error::AskError;
use crate::server::api::question::{Answer, Checked, InputRequest};
use crate::server::contract::caps::{ClientCaps, Declared};
use crate::server::engine::asking::{self, UrlAsk, UrlReply, UrlRole};
use crate::server::engine::call::{Call, Conversation};
use crate::server::engine::flow_port::Progress;
use crate::server::engine::tasks::TaskEntry;

/// The conversation of a call that continues as a task.
pub(crate) struct InTask {
    entry: Arc<TaskEntry>,
    /// The capabilities of the request that created the task.
    caps: ClientCaps,
}

/// A question put to the task and not yet answered.
struct Asked {
    base: String,
    key: String,
    request: InputRequest,
    answer: oneshot::Receiver<Value>,
}

impl InTask {
    pub(crate) fn new(entry: Arc<TaskEntry>, caps: ClientCaps) -> Self {
        Self { entry, caps }
    }

    fn put(&self, base: &str, request: InputRequest) -> Result<Asked, AskError> {
        request.require_capability(self.caps.declared())?;
        let (key, answer) = self.entry.ask(base, request.to_wire(None));
        Ok(Asked {
            base: base.to_string(),
            key,
            request,
            answer,
        })
    }

    /// Wait for `asked`'s answer, asking again (new key) while it does not
    /// fit; the validated result.
    async fn settle(&self, call: &Call, mut asked: Asked) -> Result<Value, AskError> {
        let deadline = tokio::time::Instant::now() + call.server.config.human_wait;
        loop {
            let raw = tokio::select! {
                r = &mut asked.answer => r.map_err(|_| AskError::Disconnected)?,
                () = self.entry.cancel.cancelled() => return Err(AskError::Disconnected),
                () = tokio::time::sleep_until(deadline) => {
                    self.entry.withdraw(&asked.key);
                    return Err(AskError::TimedOut);
                }
            };
            let again = match asked.request.check_answer(&asked.key, &raw) {
                Ok(Checked::Valid(v)) => return Ok(v),
                Ok(Checked::AskAgain(again)) => again,
                Err(e) => {
                    tracing::warn!(key = %asked.key, error = %e, "malformed answer in a task; asking again");
                    asked.request.clone()
                }
            };
            asked = self.put(&asked.base, again)?;
        }
    }
}

impl Conversation for InTask {
    fn revision(&self) -> Revision {
        Revision::V2026_07_28
    }

    fn protocol_version(&self) -> String {
        Revision::V2026_07_28.as_str().to_string()
    }

    fn client_capabilities(&self) -> Value {
        self.caps.to_value()
    }

    fn declared_capabilities(&self) -> Declared {
        self.caps.declared()
    }

    fn ask_form<'a>(
        &'a self,
        call: &'a Call,
        key: &'a str,
        request: &'a InputRequest,
    ) -> BoxFuture<'a, Result<Answer<Map<String, Value>>, AskError>> {
        Box::pin(async move {
            let asked = self.put(key, request.clone())?;
            let result = self.settle(call, asked).await?;
            asking::form_answer(key, &result)
        })
    }

    fn ask_all<'a>(
        &'a self,
        call: &'a Call,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>> {
        Box::pin(async move {
            // All outstanding at once, so the client may answer them in any
            // order, together or one by one.
            let mut asked = Vec::with_capacity(questions.len());
            for (key, request) in questions {
                asked.push(self.put(key, request.clone())?);
            }
            let mut answers = Vec::with_capacity(asked.len());
            for a in asked {
                answers.push(self.settle(call, a).await?);
            }
            Ok(answers)
        })
    }

    fn recorded(&self, _key: &str) -> Option<Value> {
        // A task runs once: nothing to replay.
        None
    }

    fn record(&self, _key: &str, _value: Value) {}

    fn is_suspended(&self) -> bool {
        false
    }

    fn note_status(&self, message: &str) {
        self.entry.note(message);
    }
}

/// A task's part in a URL question: the question waits in the task's
/// `inputRequests` for `tasks/update`; after an `accept` the task waits for
/// the flow within the human-wait budget (a cancelled task stops waiting).
impl UrlRole for InTask {
    fn check(&self, request: &InputRequest) -> Result<(), AskError> {
        request.require_capability(self.caps.declared())
    }

    fn flow_ttl(&self, config: &ServerConfig) -> Duration {
        config.human_wait
    }

    fn ask<'a>(
        &'a self,
        call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<UrlReply, AskError>> {
        Box::pin(async move {
            let asked = self.put(ask.key, ask.request.clone())?;
            Ok(UrlReply {
                result: self.settle(call, asked).await?,
                completed: false,
            })
        })
    }

    fn wait_for_flow<'a>(
        &'a self,
        call: &'a Call,
        flow_id: &'a str,
    ) -> BoxFuture<'a, Result<Progress, AskError>> {
        Box::pin(async move {
            let wait = call.server.config.human_wait;
            tokio::select! {
                s = call.server.flows.wait(flow_id, &call.principal, wait) => Ok(s),
                () = self.entry.cancel.cancelled() => Err(AskError::Disconnected),
            }
        })
    }
}
