//! How a 2026-07-28 call asks: [`Round`] answers each question from the
//! retry's `inputResponses` or from answers carried in the sealed state;
//! a question without an answer is recorded and the handler suspended, and
//! the runtime answers `input_required` with every recorded question.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use frontdesk_wire::{InputRequests, Revision};
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::Reason;
use crate::server::api::config::ServerConfig;
use crate::server::api::error::AskError;
use crate::server::api::question::{Answer, Checked, InputRequest, Kind};
use crate::server::contract::caps::{ClientCaps, Declared};
use crate::server::engine::asking::{self, UrlAsk, UrlFlow, UrlReply, UrlRole};
use crate::server::engine::call::{Call, Conversation};
use crate::server::engine::flow_port::Progress;
use crate::server::modern::state::{FlowRef, Keyed, RecordedAnswer, RoundState};

/// What this round adds to the state.
#[derive(Default)]
struct Record {
    /// Questions to ask now: key, the question as sent, its digest.
    pending: Vec<(String, InputRequest, String)>,
    answers: Keyed<RecordedAnswer>,
    flows: Keyed<FlowRef>,
    once: Keyed<Value>,
}

/// One 2026-07-28 round of a tool call or prompt.
pub(crate) struct Round {
    caps: ClientCaps,
    responses: Map<String, Value>,
    prior_pending: Keyed<String>,
    had_state: bool,
    /// Carried into every state of the call (see [`RoundState::owner`]).
    owner: String,
    record: Mutex<Record>,
    suspended: AtomicBool,
}

impl Round {
    /// A round answering from `responses` and the `prior` state; `caller`
    /// owns the call when it has no prior state (or one without an owner).
    pub(crate) fn new(
        caps: ClientCaps,
        responses: Map<String, Value>,
        prior: Option<RoundState>,
        caller: &str,
    ) -> Self {
        let had_state = prior.is_some();
        let prior = prior.unwrap_or_default();
        let owner = if prior.owner.is_empty() {
            caller.to_string()
        } else {
            prior.owner
        };
        Self {
            caps,
            responses,
            prior_pending: prior.pending,
            had_state,
            owner,
            record: Mutex::new(Record {
                pending: Vec::new(),
                answers: prior.answers,
                flows: prior.flows,
                once: prior.once,
            }),
            suspended: AtomicBool::new(false),
        }
    }

    fn with_record<R>(&self, f: impl FnOnce(&mut Record) -> R) -> Result<R, AskError> {
        let mut rec = self
            .record
            .lock()
            .map_err(|_| AskError::Internal(Reason::from("round record poisoned")))?;
        Ok(f(&mut rec))
    }

    /// The answer to `request` under `key`, if this round has one, or the
    /// question to ask now: `request` itself, or (after accepted content that
    /// failed the form) `request` with the problems in its message and the
    /// values the person got right as defaults. Malformed answers are errors
    /// (`-32602`).
    ///
    /// `digest` is `request.digest()`, computed once by the caller (it pins
    /// the answer recorded here and the question registered after).
    fn lookup(&self, key: &str, request: &InputRequest, digest: &str) -> Result<Lookup, AskError> {
        if let Some(raw) = self.responses.get(key) {
            let fresh = match self.prior_pending.get(key) {
                Some(pinned) => pinned == digest,
                None => !self.had_state,
            };
            if fresh {
                let mode = question_mode(request);
                return match request.check_answer(key, raw)? {
                    Checked::Valid(valid) => {
                        if let Some(mode) = mode {
                            let action = valid.get("action").and_then(Value::as_str);
                            let outcome = match action {
                                Some("decline") => "decline",
                                Some("cancel") => "cancel",
                                _ => "accept",
                            };
                            crate::metrics::answered(mode, Revision::V2026_07_28, outcome);
                        }
                        self.with_record(|r| {
                            r.answers.insert(
                                key.to_string(),
                                RecordedAnswer {
                                    digest: digest.to_string(),
                                    result: valid,
                                },
                            );
                        })?;
                        Ok(Lookup::Answered)
                    }
                    Checked::AskAgain(again) => {
                        if let Some(mode) = mode {
                            crate::metrics::answered(mode, Revision::V2026_07_28, "invalid");
                        }
                        Ok(Lookup::Ask(again))
                    }
                };
            }
            tracing::debug!(key, "answer is for another question; asking again");
        }
        let recorded =
            self.with_record(|r| r.answers.get(key).is_some_and(|a| a.digest == digest))?;
        Ok(if recorded {
            Lookup::Answered
        } else {
            Lookup::Ask(request.clone())
        })
    }

    /// Read the answer recorded under `key` (where [`Lookup::Answered`]
    /// points), without a copy of it.
    fn answer<R>(&self, key: &str, read: impl FnOnce(&Value) -> R) -> Result<R, AskError> {
        self.with_record(|r| r.answers.get(key).map(|a| read(&a.result)))?
            .ok_or_else(|| AskError::Internal(Reason::from("a recorded answer went missing")))
    }

    /// Record `sent` for this round's `input_required`, pinned to `digest`,
    /// the digest of the handler's question (`sent` may be its re-ask).
    fn register(&self, key: &str, digest: String, sent: InputRequest) -> Result<(), AskError> {
        sent.require_capability(self.caps.declared())?;
        let mode = question_mode(&sent);
        self.with_record(|r| {
            if !r.pending.iter().any(|(k, _, _)| k == key) {
                if let Some(mode) = mode {
                    crate::metrics::asked(mode, Revision::V2026_07_28);
                }
                r.pending.push((key.to_string(), sent, digest));
            }
        })
    }

    /// Stop the handler here: the question waits for the next round. Never
    /// returns; the runtime drops the handler once it sees the suspension.
    async fn suspend<T>(&self) -> T {
        self.suspended.store(true, Ordering::SeqCst);
        std::future::pending().await
    }

    async fn ask_form(
        &self,
        key: &str,
        request: &InputRequest,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        let digest = request.digest();
        match self.lookup(key, request, &digest)? {
            Lookup::Answered => self.answer(key, |result| asking::form_answer(key, result))?,
            Lookup::Ask(sent) => {
                self.register(key, digest, sent)?;
                self.suspend().await
            }
        }
    }

    async fn ask_all(&self, questions: &[(String, InputRequest)]) -> Result<Vec<Value>, AskError> {
        let mut found = Vec::with_capacity(questions.len());
        let mut missing = false;
        for (key, request) in questions {
            let digest = request.digest();
            match self.lookup(key, request, &digest)? {
                Lookup::Answered => found.push(self.answer(key, Value::clone)?),
                Lookup::Ask(sent) => {
                    self.register(key, digest, sent)?;
                    missing = true;
                }
            }
        }
        if missing {
            self.suspend().await
        } else {
            Ok(found)
        }
    }

    /// Whether a question waits for the next round.
    pub(crate) fn has_pending(&self) -> bool {
        self.record.lock().is_ok_and(|rec| !rec.pending.is_empty())
    }

    /// The questions of this round and the state for the next one, taken
    /// out of the round (it is over once its handler suspended), or `None`
    /// when nothing is pending.
    pub(crate) fn next_round(&self) -> Option<(InputRequests, RoundState)> {
        let mut rec = self.record.lock().ok()?;
        if rec.pending.is_empty() {
            return None;
        }
        let mut requests = InputRequests::new();
        let mut pending = Keyed::default();
        for (key, request, digest) in std::mem::take(&mut rec.pending) {
            requests = requests.with(key.clone(), request.to_wire(None));
            pending.insert(key, digest);
        }
        let state = RoundState {
            answers: std::mem::take(&mut rec.answers),
            pending,
            flows: std::mem::take(&mut rec.flows),
            once: std::mem::take(&mut rec.once),
            owner: self.owner.clone(),
            trace: None,
        };
        Some((requests, state))
    }
}

impl Conversation for Round {
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
        _call: &'a Call,
        key: &'a str,
        request: &'a InputRequest,
    ) -> BoxFuture<'a, Result<Answer<Map<String, Value>>, AskError>> {
        Box::pin(Round::ask_form(self, key, request))
    }

    fn ask_all<'a>(
        &'a self,
        _call: &'a Call,
        questions: &'a [(String, InputRequest)],
    ) -> BoxFuture<'a, Result<Vec<Value>, AskError>> {
        Box::pin(Round::ask_all(self, questions))
    }

    fn recorded(&self, key: &str) -> Option<Value> {
        self.record.lock().ok()?.once.get(key).cloned()
    }

    fn record(&self, key: &str, value: Value) {
        if let Ok(mut r) = self.record.lock() {
            r.once.insert(key.to_string(), value);
        }
    }

    fn is_suspended(&self) -> bool {
        self.suspended.load(Ordering::SeqCst)
    }
}

/// A 2026-07-28 round's part in a URL question: the flow lives in the
/// sealed state from round to round; the question is answered from the
/// retry (or suspends the handler); after an `accept` the round holds the
/// retry up to [`url_hold`](crate::server::ServerConfig::url_hold) and,
/// while the flow is still pending, forgets the consent and asks the same
/// URL again.
impl UrlRole for Round {
    fn check(&self, request: &InputRequest) -> Result<(), AskError> {
        request.require_capability(self.caps.declared())
    }

    fn flow_ttl(&self, config: &ServerConfig) -> Duration {
        config.url_flow_ttl
    }

    fn known_flow(&self, key: &str) -> Result<Option<UrlFlow>, AskError> {
        self.with_record(|r| {
            r.flows.get(key).map(|f| UrlFlow {
                id: f.id.clone(),
                url: f.url.clone(),
            })
        })
    }

    fn ask<'a>(
        &'a self,
        _call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<UrlReply, AskError>> {
        Box::pin(async move {
            let key = ask.key;
            let digest = ask.request.digest();
            if ask.fresh {
                // A new flow: kept for the next round, the question asked.
                self.with_record(|r| {
                    r.flows.insert(
                        key.to_string(),
                        FlowRef {
                            id: ask.flow.id.clone(),
                            url: ask.flow.url.clone(),
                        },
                    );
                })?;
                self.register(key, digest, ask.request.clone())?;
                return self.suspend().await;
            }
            match self.lookup(key, &ask.request, &digest)? {
                Lookup::Answered => Ok(UrlReply {
                    result: self.answer(key, Value::clone)?,
                    completed: false,
                }),
                Lookup::Ask(sent) => {
                    self.register(key, digest, sent)?;
                    self.suspend().await
                }
            }
        })
    }

    fn wait_for_flow<'a>(
        &'a self,
        call: &'a Call,
        flow_id: &'a str,
    ) -> BoxFuture<'a, Result<Progress, AskError>> {
        Box::pin(async move {
            let flows = &call.server.flows;
            let status = flows.status(flow_id, &call.principal).await;
            Ok(if status == Progress::Pending {
                flows
                    .wait(flow_id, &call.principal, call.server.config.url_hold)
                    .await
            } else {
                status
            })
        })
    }

    fn still_pending<'a>(
        &'a self,
        _call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>> {
        Box::pin(async move {
            // Not finished yet: forget the consent and ask again.
            self.with_record(|r| {
                r.answers.shift_remove(ask.key);
            })?;
            self.register(ask.key, ask.request.digest(), ask.request.clone())?;
            self.suspend().await
        })
    }
}

/// What [`Round::lookup`] found for a question.
enum Lookup {
    /// Its (validated) answer is in the round's record under its key.
    Answered,
    /// No usable answer: ask this.
    Ask(InputRequest),
}

/// A question to a person's mode, as a metrics label (`None` for sampling
/// and roots, which ask the client, not the person).
fn question_mode(request: &InputRequest) -> Option<&'static str> {
    match request.kind {
        Kind::Form { .. } => Some("form"),
        Kind::Url { .. } => Some("url"),
        _ => None,
    }
}
