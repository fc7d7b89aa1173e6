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
    /// the task's call as one round; `None` (asked one question at a time)
    /// outside a call's task or when a question must be asked on its own.
    pub(super) fn whole_round<'a>(
        &'a self,
        requests: &'a InputRequests,
        cancelled: tokio_util::sync::CancellationToken,
    ) -> Option<BoxFuture<'a, Result<InputResponses, ClientError>>> {
        let call = ASKING.try_with(Arc::clone).ok()?;
        let asked = self.round_questions(requests)?;
        Some(Box::pin(async move {
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
            for ((key, request), answer) in requests.0.iter().zip(answers) {
                let response = match request {
                    WireRequest::Elicit(e) => {
                        let result: ElicitResult =
                            serde_json::from_value(answer).map_err(answered_otherwise)?;
                        self.audit_round(&call, &e.params, &result, started.elapsed());
                        InputResponse::from(result)
                    }
                    WireRequest::CreateMessage(_) => InputResponse::CreateMessage(
                        serde_json::from_value(answer).map_err(answered_otherwise)?,
                    ),
                    _ => InputResponse::ListRoots(
                        serde_json::from_value(answer).map_err(answered_otherwise)?,
                    ),
                };
                responses.0.insert(key.clone(), response);
            }
            Ok(responses)
        }))
    }

    /// A round's requests as the server side asks them (forms held to the
    /// subset, labels and messages scrubbed); `None` when one of them must
    /// be asked on its own (a URL question) or is of no known kind.
    fn round_questions(&self, requests: &InputRequests) -> Option<Vec<(String, InputRequest)>> {
        let mut asked = Vec::with_capacity(requests.0.len());
        for (key, request) in &requests.0 {
            let question = match request {
                WireRequest::Elicit(e) => {
                    let ElicitRequestParams::Form(form) = &e.params else {
                        return None;
                    };
                    let mut schema = Value::Object(form.requested_schema.clone());
                    let mut message = form.message.clone();
                    if self.checks.scrub {
                        crate::scrub::scrub_labels(&mut schema);
                        message = crate::scrub::scrub(&message).into_owned();
                    }
                    // `refusal` let it through, so it reads; should it not,
                    // it is asked on its own and cancelled there.
                    InputRequest::form(message, schema_from_value_strict(&schema).ok()?)
                }
                WireRequest::CreateMessage(m) => InputRequest::sampling(m.params.clone()),
                WireRequest::ListRoots(_) => InputRequest::roots(),
                _ => return None,
            };
            asked.push((key.clone(), question));
        }
        Some(asked)
    }

    /// The audit line (and record) of one form question of a round.
    fn audit_round(
        &self,
        call: &HeldCall,
        params: &ElicitRequestParams,
        result: &ElicitResult,
        took: std::time::Duration,
    ) {
        let ElicitRequestParams::Form(form) = params else {
            return;
        };
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
            message: &form.message,
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
