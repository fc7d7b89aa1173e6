//! How a task asks: [`InTask`] puts each question into the task's
//! `inputRequests` under a key unique for the task's lifetime and waits for
//! `tasks/update` to deliver its answer (within the human-wait budget). An
//! answer that does not fit is asked again under a new key.

use std::sync::Arc;

use frontdesk_wire::Revision;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::BoxFuture;
use crate::server::api::context::UrlMaker;
use crate::server::api::error::AskError;
use crate::server::api::question::{
    Answer, Checked, ElicitOutcome, InputRequest, parse_elicit_result,
};
use crate::server::engine::call::{Call, Conversation};
use crate::server::engine::flow_port::Progress;
use crate::server::engine::tasks::TaskEntry;

/// The conversation of a call that continues as a task.
pub(crate) struct InTask {
    entry: Arc<TaskEntry>,
    /// The capabilities of the request that created the task.
    caps: Value,
}

/// A question put to the task and not yet answered.
struct Asked {
    base: String,
    key: String,
    request: InputRequest,
    answer: oneshot::Receiver<Value>,
}

impl InTask {
    pub(crate) fn new(entry: Arc<TaskEntry>, caps: Value) -> Self {
        Self { entry, caps }
    }

    fn put(&self, base: &str, request: InputRequest) -> Result<Asked, AskError> {
        request
            .check_capability(&self.caps)
            .map_err(|required| AskError::MissingCapability { required })?;
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

    async fn ask_url(
        &self,
        call: &Call,
        key: &str,
        message: &str,
        make_url: UrlMaker<'_>,
    ) -> Result<Answer<()>, AskError> {
        InputRequest::url(String::new(), String::new())
            .check_capability(&self.caps)
            .map_err(|required| AskError::MissingCapability { required })?;
        let flows = &call.server.flows;
        let wait = call.server.config.human_wait;
        let ticket = flows
            .create(&call.principal, &call.quota_key, wait, message)
            .await?;
        let request = InputRequest::url(message.to_string(), make_url(&ticket));
        let asked = self.put(key, request)?;
        let result = self.settle(call, asked).await?;
        let outcome = parse_elicit_result(&result).map_err(|reason| AskError::InvalidResponse {
            key: key.to_string(),
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
                let status = tokio::select! {
                    s = flows.wait(&ticket.flow_id, &call.principal, wait) => s,
                    () = self.entry.cancel.cancelled() => return Err(AskError::Disconnected),
                };
                match status {
                    Progress::Complete => Ok(Answer::Accepted(())),
                    Progress::Failed => Ok(Answer::Cancelled),
                    Progress::Pending => {
                        flows.fail(&ticket.flow_id, "timed out").await;
                        Err(AskError::TimedOut)
                    }
                }
            }
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
        self.caps.clone()
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
            match parse_elicit_result(&result) {
                Ok(ElicitOutcome::Accept(content)) => Ok(Answer::Accepted(content)),
                Ok(ElicitOutcome::Decline) => Ok(Answer::Declined),
                Ok(ElicitOutcome::Cancel) => Ok(Answer::Cancelled),
                Err(reason) => Err(AskError::InvalidResponse {
                    key: key.to_string(),
                    reason,
                }),
            }
        })
    }

    fn ask_url<'a>(
        &'a self,
        call: &'a Call,
        key: &'a str,
        message: &'a str,
        make_url: UrlMaker<'a>,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>> {
        Box::pin(InTask::ask_url(self, call, key, message, make_url))
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
