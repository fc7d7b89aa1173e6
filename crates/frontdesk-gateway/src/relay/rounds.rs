//! Whole rounds of a 2026-07-28 upstream: its `input_required` round of
//! forms, sampling and roots (what [`ElicitationHandler::round`] hands the
//! relay) is put to the client in front of the call as one round, under the
//! upstream's own keys; the held call asks it with `ToolContext::ask_all`
//! (see `held`). Each form question of the round is audited as a question
//! asked on its own would be. A round with a URL question, or one of no
//! known kind, is not taken whole: its questions are asked one at a time,
//! each URL with its flow, through [`Relay`]'s other handlers.
//!
//! [`ElicitationHandler::round`]: frontdesk::client::ElicitationHandler::round

use std::sync::Arc;

use frontdesk::BoxFuture;
use frontdesk::client::ClientError;
use frontdesk::server::question::InputRequest;
use frontdesk::wire::{
    ElicitAction, ElicitRequestParams, ElicitResult, InputRequest as WireRequest, InputRequests,
    InputResponse, InputResponses,
};
use serde_json::Value;

use super::{ASKING, Put, Relay, put, schema_from_value_strict};
use crate::audit::Record;
use crate::held::{Asks, HeldCall, Reply};

impl Relay {
    /// The upstream's round `requests`, asked of the client in front of
    /// the task's call as one round; given back (to be asked one question
    /// at a time) outside a call's task or when a question must be asked on
    /// its own. While the round is open only what reading and auditing
    /// its answers takes is kept of the requests, not their schemas (the
    /// questions asked hold those).
    #[allow(clippy::type_complexity)] // the future, or the requests given back
    pub(super) fn whole_round(
        &self,
        requests: InputRequests,
        cancelled: tokio_util::sync::CancellationToken,
    ) -> Result<BoxFuture<'_, Result<InputResponses, ClientError>>, InputRequests> {
        let Ok(call) = ASKING.try_with(Arc::clone) else {
            return Err(requests);
        };
        let Some((asked, answering)) = self.round_questions(&requests) else {
            return Err(requests);
        };
        // The schemas are in `asked` now; the requests' own go.
        drop(requests);
        Ok(Box::pin(async move {
            let started = std::time::Instant::now();
            let answers = match put(&call, String::new(), Asks::Round(asked), &cancelled).await {
                Put::Answered(Reply::Round(Ok(answers))) => answers,
                Put::Answered(Reply::Round(Err(reason))) => {
                    return Err(ClientError::Refused {
                        request: "input_required".into(),
                        reason,
                    });
                }
                Put::Answered(_) => return Err(ClientError::Cancelled),
                Put::Gone(why) => {
                    tracing::info!(outcome = why, "an upstream round nobody answered");
                    return Err(ClientError::Cancelled);
                }
            };
            let mut responses = InputResponses::new();
            for ((key, answering), answer) in answering.into_iter().zip(answers) {
                let response = match answering {
                    Answering::Form { message } => {
                        let result: ElicitResult =
                            serde_json::from_value(answer).map_err(answered_otherwise)?;
                        self.audit_round(&call, &message, &result, started.elapsed());
                        InputResponse::from(result)
                    }
                    Answering::Sampling => InputResponse::CreateMessage(
                        serde_json::from_value(answer).map_err(answered_otherwise)?,
                    ),
                    Answering::Roots => InputResponse::ListRoots(
                        serde_json::from_value(answer).map_err(answered_otherwise)?,
                    ),
                };
                responses.0.insert(key, response);
            }
            Ok(responses)
        }))
    }

    /// A round's requests as the server side asks them (forms held to the
    /// subset, labels and messages scrubbed), and what reading each answer
    /// takes; `None` when one of them must be asked on its own (a URL
    /// question) or is of no known kind.
    fn round_questions(&self, requests: &InputRequests) -> Option<RoundQuestions> {
        let mut asked = Vec::with_capacity(requests.0.len());
        let mut answering = Vec::with_capacity(requests.0.len());
        for (key, request) in &requests.0 {
            let (question, reading) = match request {
                WireRequest::Elicit(e) => {
                    let ElicitRequestParams::Form(form) = &e.params else {
                        return None;
                    };
                    let mut schema = Value::Object((*form.requested_schema).clone());
                    let mut message = form.message.clone();
                    if self.checks.scrub {
                        crate::scrub::scrub_labels(&mut schema);
                        message = crate::scrub::scrub(&message).into_owned();
                    }
                    // `refusal` let it through, so it reads; should it not,
                    // it is asked on its own and cancelled there.
                    let question =
                        InputRequest::form(message, schema_from_value_strict(&schema).ok()?);
                    let reading = Answering::Form {
                        message: form.message.clone(),
                    };
                    (question, reading)
                }
                WireRequest::CreateMessage(m) => (
                    InputRequest::sampling(m.params.clone()),
                    Answering::Sampling,
                ),
                WireRequest::ListRoots(_) => (InputRequest::roots(), Answering::Roots),
                _ => return None,
            };
            asked.push((key.clone(), question));
            answering.push((key.clone(), reading));
        }
        Some((asked, answering))
    }

    /// The audit line (and record) of one form question of a round.
    fn audit_round(
        &self,
        call: &HeldCall,
        message: &str,
        result: &ElicitResult,
        took: std::time::Duration,
    ) {
        let outcome = match result.action {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            _ => "cancel",
        };
        let server = self.server();
        self.record(&Record {
            server: &server,
            tool: &call.tool,
            mode: "form",
            message,
            url: None,
            outcome,
            reason: None,
            took: Some(took),
            content: result.content.as_ref(),
        });
    }
}

/// A round's answer that does not read as its request's result.
fn answered_otherwise(e: serde_json::Error) -> ClientError {
    ClientError::Protocol(frontdesk::Reason::from(format!(
        "the client behind this gateway answered something else: {e}"
    )))
}

/// A round's questions as asked, and what reading and auditing each
/// answer takes, by the upstream's key.
type RoundQuestions = (Vec<(String, InputRequest)>, Vec<(String, Answering)>);

/// What reading and auditing the answer to one request of a round takes.
enum Answering {
    /// A form, asked with this message.
    Form { message: String },
    /// A `sampling/createMessage`.
    Sampling,
    /// A `roots/list`.
    Roots,
}
