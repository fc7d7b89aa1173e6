//! 2026-07-28 multi round-trip requests: run `tools/call`, `prompts/get` and
//! `resources/read` through `input_required` rounds until they complete.
//!
//! Rules kept (MRTR A.5, A.7): every key of the latest round is answered;
//! `requestState` goes back byte for byte, and only on the retry of the
//! request it came with; every retry has a new JSON-RPC id and a fresh
//! `_meta`; state-only rounds are retried after a growing delay; a call
//! gives up after `max_rounds` requests. A URL elicitation the server asks
//! again (the flow is not finished) reaches the handler again: answering
//! `accept` is the person's "retry now", `cancel` ends it.

use std::time::Duration;

use frontdesk_wire::{
    InputRequest, InputRequests, InputRequiredResult, InputResponse, InputResponses, ResultType,
    RetryFields,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::config::Notice;
use super::connection::Core;
use super::elicit::{self, Outcome};
use super::error::ClientError;
use super::handler::ElicitationOrigin;
use super::modern;
use super::sampling::{self, Refusal, SamplingRequest};
use super::tasks;
use frontdesk_wire::tasks::CreateTaskResult;

/// One round of a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Round<T> {
    /// The call finished.
    Complete(T),
    /// The server needs input: answer `requests` (e.g. with
    /// [`Client::fulfil`](super::Client::fulfil)) and call again with a
    /// [`RetryFields`] holding the answers and `state`.
    InputRequired {
        /// What the server asks, by key.
        requests: InputRequests,
        /// The opaque state to echo.
        state: Option<String>,
    },
}

const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Send one round.
pub(crate) async fn round(
    core: &Core,
    method: &str,
    base: &Map<String, Value>,
    state: Option<RetryFields>,
) -> Result<Round<Map<String, Value>>, ClientError> {
    let mut params = base.clone();
    params.remove("inputResponses");
    params.remove("requestState");
    if let Some(state) = state {
        if let Some(responses) = state.input_responses {
            let v = serde_json::to_value(responses).map_err(ClientError::transport)?;
            params.insert("inputResponses".into(), v);
        }
        if let Some(s) = state.request_state {
            params.insert("requestState".into(), Value::String(s));
        }
    }
    let result = modern::request(core, method, params).await?;
    match ResultType::of(&result) {
        Ok(ResultType::Complete) => Ok(Round::Complete(result)),
        Ok(ResultType::InputRequired) => {
            let ir: InputRequiredResult =
                serde_json::from_value(Value::Object(result)).map_err(|e| {
                    ClientError::Protocol(crate::Reason::from(format!(
                        "bad input_required result: {e}"
                    )))
                })?;
            ir.check()
                .map_err(|e| ClientError::Protocol(crate::Reason::new(e)))?;
            Ok(Round::InputRequired {
                requests: ir.input_requests.unwrap_or_default(),
                state: ir.request_state,
            })
        }
        Ok(ResultType::Other(other))
            if other == "task" && super::call_tasks::declared(core.config.tasks) =>
        {
            let created: CreateTaskResult =
                serde_json::from_value(Value::Object(result)).map_err(|e| {
                    ClientError::Protocol(crate::Reason::from(format!("bad task result: {e}")))
                })?;
            let label = match base.get("name").and_then(Value::as_str) {
                Some(name) => format!("{method} {name}"),
                None => method.to_owned(),
            };
            super::call_tasks::became(&created);
            let cancel = core.closed.child_token();
            // Boxed: following a task is rare, and its future in place
            // would more than double every round's (4.6 KiB, not 2.1), held
            // by every call while its questions wait for a person.
            Box::pin(tasks::follow(core, &label, created, &cancel))
                .await
                .map(Round::Complete)
        }
        Ok(other) => Err(ClientError::Protocol(crate::Reason::from(format!(
            "unsupported resultType {:?}",
            other.as_str()
        )))),
        Err(e) => Err(ClientError::Protocol(crate::Reason::new(e))),
    }
}

/// Answer every request of one round through the handler.
///
/// A form that cannot be shown honestly (its schema is not an object form,
/// see `elicit::unusable_form`), or a request the handler refuses
/// ([`ElicitationHandler::refusal`](super::ElicitationHandler::refusal)), ends the call before any question of the
/// round is shown: [`ClientError::Refused`], and nothing goes back to the
/// server. Its answers can only be results, and none is true: `accept`
/// would be consent to a question nobody saw, `decline` a choice nobody
/// made, and `cancel` tells the server the person dismissed it. The server
/// is left waiting for nothing (MRTR A.5: a client that will not fulfil a
/// request may simply not retry), and the caller learns why.
pub(crate) async fn fulfil(
    core: &Core,
    label: Option<&str>,
    requests: InputRequests,
    cancel: &CancellationToken,
) -> Result<InputResponses, ClientError> {
    for (key, request) in &requests.0 {
        if let InputRequest::Elicit(e) = request
            && let Some(reason) = elicit::unusable_form(&e.params)
                .or_else(|| core.elicitor.handler.refusal(&e.params))
        {
            core.elicitor.refuse_form(key, &reason);
            return Err(ClientError::Refused {
                request: request_method(request).to_owned(),
                reason,
            });
        }
    }
    let requests = match core.elicitor.handler.round(requests, cancel.child_token()) {
        Ok(answering) => return answering.await,
        Err(requests) => requests,
    };
    let mut responses = InputResponses::new();
    for (key, request) in &requests.0 {
        let e = match request {
            InputRequest::Elicit(e) => e,
            InputRequest::CreateMessage(m) => {
                let asked = SamplingRequest {
                    origin: ElicitationOrigin {
                        server: core.elicitor.server(),
                        request: label.map(String::from),
                        key: key.clone(),
                    },
                    params: m.params.clone(),
                    cancelled: cancel.child_token(),
                };
                let outcome = {
                    let _busy = core.elicitor.human.start();
                    sampling::sample(core.config.sampling.as_ref(), asked).await
                };
                let result = match outcome {
                    Ok(result) => result,
                    Err(Refusal::Withdrawn) => return Err(ClientError::Cancelled),
                    Err(Refusal::NotDeclared) => {
                        return Err(undeclared(request_method(request), key));
                    }
                    Err(Refusal::Refused(reason)) => {
                        return Err(ClientError::Refused {
                            request: request_method(request).to_owned(),
                            reason,
                        });
                    }
                };
                responses
                    .0
                    .insert(key.clone(), InputResponse::CreateMessage(result));
                continue;
            }
            InputRequest::ListRoots(_) => {
                let result = sampling::list_roots(core.config.roots.as_ref())
                    .await
                    .map_err(|refusal| match refusal {
                        Refusal::Refused(reason) => ClientError::Refused {
                            request: request_method(request).to_owned(),
                            reason,
                        },
                        _ => undeclared(request_method(request), key),
                    })?;
                responses
                    .0
                    .insert(key.clone(), InputResponse::ListRoots(result));
                continue;
            }
            // `Unknown`, and kinds a later wire crate adds.
            _ => return Err(undeclared(request_method(request), key)),
        };
        let outcome = core
            .elicitor
            .elicit(
                label.map(String::from),
                key.clone(),
                &e.params,
                cancel.child_token(),
            )
            .await;
        let answer = match outcome {
            Outcome::Answer(r) => r,
            Outcome::Withdrawn => return Err(ClientError::Cancelled),
            Outcome::Refused(err) => {
                // Not declared, so the server must not have asked; say cancel.
                tracing::warn!(key, error = %err.message, "cannot serve this request; answering cancel");
                core.config.notice(Notice::AutoCancelled {
                    key: key.clone(),
                    reason: err.message.clone(),
                });
                frontdesk_wire::ElicitResult::cancel()
            }
        };
        responses.0.insert(key.clone(), answer.into());
    }
    Ok(responses)
}

fn request_method(request: &InputRequest) -> &str {
    request.method()
}

fn undeclared(method: &str, key: &str) -> ClientError {
    ClientError::Protocol(crate::Reason::from(format!(
        "the server asked for {method} (key {key:?}), which this client does not serve"
    )))
}

/// Run a call to completion.
pub(crate) async fn run(
    core: &Core,
    method: &str,
    base: Map<String, Value>,
    label: &str,
    cancel: &CancellationToken,
) -> Result<Map<String, Value>, ClientError> {
    let max = core.config.max_rounds.max(1);
    let mut state = None;
    let mut backoff = core.config.state_only_backoff;
    for n in 1..=max {
        let (requests, request_state) = match round(core, method, &base, state.take()).await? {
            Round::Complete(result) => return Ok(result),
            Round::InputRequired { requests, state } => (requests, state),
        };
        if n == max {
            tracing::warn!(method, rounds = n, "round cap reached");
            return Err(ClientError::TooManyRounds { rounds: n });
        }
        let state_only = requests.0.is_empty();
        let input_responses = if state_only {
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = cancel.cancelled() => return Err(ClientError::Cancelled),
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
            None
        } else {
            backoff = core.config.state_only_backoff;
            Some(fulfil(core, Some(label), requests, cancel).await?)
        };
        core.config.notice(Notice::Retrying {
            method: method.to_string(),
            round: n,
            state_only,
        });
        state = Some(RetryFields {
            input_responses,
            request_state,
        });
    }
    Err(ClientError::TooManyRounds { rounds: max })
}
