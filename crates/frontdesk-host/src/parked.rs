//! Questions parked for someone else to answer later: an agent or a script relays each
//! question to its person and comes back with the answer (`frontdesk call --park`,
//! then `frontdesk respond`).
//!
//! [`ParkedHandler`] keeps every open question under an id (`CALL.N`), describes it
//! as JSON ([`ParkedHandler::questions`], see [`describe_question`]) and takes answers with the
//! same checks a typed answer gets ([`ParkedHandler::respond`]): a form answer is
//! completed with the form's defaults and validated (an invalid one is refused, with
//! its problems keyed by field, and the question stays parked), a URL `accept` is
//! consent and is refused for a link the review refused. Nothing is opened here: the
//! person opens the URL themselves.
//!
//! A URL question the person consented to stays listed, *in progress*, until its flow
//! ends: on 2025-11-25 when the server's `notifications/elicitation/complete` arrives
//! ([`ParkedHandler::url_completed`]) or the call moves on; on 2026-07-28 the server
//! asks the same URL again while the sign-in is not finished, and that keeps the same
//! id, marked *not finished yet*, until the person says they are done (`accept` again:
//! check now) or gives up (`cancel`). A `cancel` of a flow already accepted on
//! 2025-11-25, which has no question left to answer, asks the caller to stop the call
//! ([`ParkedHandler::stop_requested`]).

mod describe;

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
    check_form_answer,
};

use frontdesk::BoxFuture;
use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

pub use describe::{describe_field, describe_question};

use crate::problems::{Problem, describe_keyed};

/// An answer given to a parked question.
#[derive(Debug, Clone, PartialEq)]
pub enum ParkedAnswer {
    /// Accept: the form's content (fields left out get their defaults), or consent to
    /// a URL (no content); for a URL already in progress, "the person says they are
    /// done: check now".
    Accept(Option<Map<String, Value>>),
    /// Decline.
    Decline,
    /// Cancel: dismiss the question, or stop a URL flow in progress.
    Cancel,
}

/// What an accepted answer led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Responded {
    /// The answer went to the server.
    Sent,
    /// A URL flow in progress on 2025-11-25 has no question left to answer: the
    /// caller is asked to stop the call ([`ParkedHandler::stop_requested`]).
    StopRequested,
    /// The flow is already accepted and the server has not asked again: nothing to
    /// send (the person finishes in the browser).
    NothingToSend,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RespondError {
    /// No open question has this id (answered, withdrawn, or never asked).
    #[error("no parked question {id}: it was answered, withdrawn or never asked")]
    NoSuchQuestion {
        /// The id asked for.
        id: String,
    },
    /// The form answer does not fit the form; nothing was sent.
    #[error("the answer does not fit the form, so it was not sent: {}", .0.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<Problem>),
    /// Consent to a URL the review refused; nothing was sent.
    #[error("this link is refused by the URL review and cannot be accepted; decline or cancel")]
    RefusedUrl,
    /// Content was given for a URL question.
    #[error("a URL question takes no content: accept means you consent to open it")]
    ContentForUrl,
    /// A decline of a URL flow the person already accepted.
    #[error("this link was already accepted and the person is signing in; cancel stops it")]
    AlreadyAccepted,
}

/// Where an open question stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionState {
    /// Waiting for an answer.
    NeedsAnswer,
    /// A URL the person consented to: they are finishing in the browser.
    /// `not_finished_yet`: the server checked and asked again (2026-07-28).
    InProgress {
        /// The server asked again: the flow is not finished yet.
        not_finished_yet: bool,
    },
}

struct Entry {
    request: Elicitation,
    /// Where the answer goes; `None` once given (a URL in progress that the
    /// server has not asked again).
    reply: Option<oneshot::Sender<ElicitationResponse>>,
    /// A URL the person consented to.
    in_progress: bool,
}

impl Entry {
    fn state(&self) -> QuestionState {
        if self.in_progress {
            QuestionState::InProgress {
                not_finished_yet: self.reply.is_some(),
            }
        } else {
            QuestionState::NeedsAnswer
        }
    }

    fn url(&self) -> Option<&str> {
        match &self.request.kind {
            ElicitationKind::Url { review, .. } => review.url(),
            _ => None,
        }
    }
}

#[derive(Default)]
struct State {
    next: u64,
    entries: BTreeMap<u64, Entry>,
}

/// An [`ElicitationHandler`] that parks each question until [`ParkedHandler::respond`].
pub struct ParkedHandler {
    call: String,
    state: Mutex<State>,
    changes: watch::Sender<u64>,
    stop: watch::Sender<bool>,
}

impl std::fmt::Debug for ParkedHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParkedHandler")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl ParkedHandler {
    /// Park the questions of the call named `call` (ids are `call.1`, `call.2`, …).
    pub fn new(call: impl Into<String>) -> ParkedHandler {
        ParkedHandler {
            call: call.into(),
            state: Mutex::new(State::default()),
            changes: watch::channel(0).0,
            stop: watch::channel(false).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A receiver that sees a new value whenever a question is parked, answered,
    /// changes state or leaves.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// A receiver that becomes `true` when a `cancel` asks to stop the call (a
    /// 2025-11-25 URL flow already accepted: no question is left to answer `cancel`).
    pub fn stop_requested(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    fn id(&self, n: u64) -> String {
        format!("{}.{n}", self.call)
    }

    /// The ids of the open questions and where each stands, oldest first.
    pub fn states(&self) -> Vec<(String, QuestionState)> {
        self.lock()
            .entries
            .iter()
            .map(|(n, e)| (self.id(*n), e.state()))
            .collect()
    }

    /// The ids of the questions waiting for an answer now, oldest first.
    pub fn pending_ids(&self) -> Vec<String> {
        self.states()
            .into_iter()
            .filter(|(_, s)| *s == QuestionState::NeedsAnswer)
            .map(|(id, _)| id)
            .collect()
    }

    /// Every open question, described as JSON (see [`describe_question`]).
    pub fn questions(&self) -> Vec<Value> {
        self.lock()
            .entries
            .iter()
            .map(|(n, e)| describe_question(&self.id(*n), &e.request, e.state()))
            .collect()
    }

    /// Answer the question `id`, checked as a typed answer would be.
    pub fn respond(&self, id: &str, answer: ParkedAnswer) -> Result<Responded, RespondError> {
        let missing = || RespondError::NoSuchQuestion { id: id.to_owned() };
        let n: u64 = id
            .strip_prefix(&self.call)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(missing)?;
        let mut state = self.lock();
        let entry = state.entries.get_mut(&n).ok_or_else(missing)?;
        if entry.in_progress && entry.reply.is_none() {
            // Accepted, and the server has not asked again.
            return match answer {
                ParkedAnswer::Accept(_) => Ok(Responded::NothingToSend),
                ParkedAnswer::Decline => Err(RespondError::AlreadyAccepted),
                ParkedAnswer::Cancel => {
                    state.entries.remove(&n);
                    drop(state);
                    self.stop.send_replace(true);
                    self.changed();
                    Ok(Responded::StopRequested)
                }
            };
        }
        let response = match answer {
            ParkedAnswer::Decline => ElicitationResponse::Decline,
            ParkedAnswer::Cancel => ElicitationResponse::Cancel,
            ParkedAnswer::Accept(content) => match &entry.request.kind {
                ElicitationKind::Form { form, prefill } => {
                    let mut full = prefill.clone();
                    full.extend(content.unwrap_or_default());
                    if let Err(errors) = check_form_answer(&form.schema, &mut full, true) {
                        return Err(RespondError::Invalid(describe_keyed(
                            &form.schema,
                            &errors,
                            Some(&full),
                        )));
                    }
                    ElicitationResponse::Accept(full)
                }
                ElicitationKind::Url { review, .. } => {
                    if content.is_some_and(|c| !c.is_empty()) {
                        return Err(RespondError::ContentForUrl);
                    }
                    if !review.may_open() {
                        return Err(RespondError::RefusedUrl);
                    }
                    ElicitationResponse::Accept(Map::new())
                }
                // Never handed to this host (see `describe_question`).
                _ => ElicitationResponse::Cancel,
            },
        };
        let url_accepted = matches!(
            (&entry.request.kind, &response),
            (ElicitationKind::Url { .. }, ElicitationResponse::Accept(_))
        );
        let reply = if url_accepted {
            entry.in_progress = true;
            entry.reply.take()
        } else {
            state.entries.remove(&n).and_then(|mut e| e.reply.take())
        };
        drop(state);
        if let Some(reply) = reply {
            let _ = reply.send(response);
        }
        self.changed();
        Ok(Responded::Sent)
    }

    /// The server said the URL flow `elicitation_id` is complete (2025-11-25): it
    /// leaves the list.
    pub fn url_completed(&self, elicitation_id: &str) {
        let mut state = self.lock();
        let before = state.entries.len();
        state.entries.retain(|_, e| {
            !(e.in_progress
                && matches!(&e.request.kind,
                    ElicitationKind::Url { elicitation_id: Some(id), .. } if id == elicitation_id))
        });
        let gone = state.entries.len() != before;
        drop(state);
        if gone {
            self.changed();
        }
    }

    /// Answer every parked question `cancel` (the keeper's lifetime ran out).
    pub fn cancel_all(&self) {
        let entries = std::mem::take(&mut self.lock().entries);
        for (_, mut e) in entries {
            if let Some(reply) = e.reply.take() {
                let _ = reply.send(ElicitationResponse::Cancel);
            }
        }
        self.changed();
    }

    /// Park `request`: a new question, or the same URL asked again by the same call
    /// (its flow is not finished yet) under the id it already has.
    fn park(&self, request: Elicitation, reply: oneshot::Sender<ElicitationResponse>) -> u64 {
        let mut state = self.lock();
        let url = match &request.kind {
            ElicitationKind::Url { review, .. } => review.url().map(str::to_owned),
            _ => None,
        };
        let again = url.as_deref().and_then(|url| {
            state.entries.iter().find_map(|(n, e)| {
                (e.in_progress
                    && e.reply.is_none()
                    && e.url() == Some(url)
                    && e.request.origin.request == request.origin.request)
                    .then_some(*n)
            })
        });
        if let Some(n) = again
            && let Some(entry) = state.entries.get_mut(&n)
        {
            entry.request = request;
            entry.reply = Some(reply);
            return n;
        }
        // The call moved on: a flow it was waiting for is over.
        state.entries.retain(|_, e| {
            !(e.in_progress
                && e.reply.is_none()
                && e.request.origin.request == request.origin.request)
        });
        state.next += 1;
        let n = state.next;
        state.entries.insert(
            n,
            Entry {
                request,
                reply: Some(reply),
                in_progress: false,
            },
        );
        n
    }
}

impl ElicitationHandler for ParkedHandler {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            let cancelled = request.cancelled.clone();
            let n = self.park(request, tx);
            self.changed();
            let (answer, withdrawn) = tokio::select! {
                answer = rx => (answer.unwrap_or(ElicitationResponse::Cancel), false),
                () = cancelled.cancelled() => (ElicitationResponse::Cancel, true),
            };
            if withdrawn {
                let mut state = self.lock();
                // Withdrawn while waiting for an answer: it leaves the list.
                if state.entries.get(&n).is_some_and(|e| e.reply.is_some()) {
                    state.entries.remove(&n);
                    tracing::info!(question = n, "a parked question was withdrawn");
                }
            }
            self.changed();
            answer
        })
    }
}
