//! What a parked call says to `call --park` and `respond`: the state of the call in
//! the agent contract's words (`schema/park.v1.json`), after waiting as long as the
//! request asks.
//!
//! - `parked`: at least one question needs an answer.
//! - `waiting`: none does, and the call is not over: a URL the person consented to
//!   is in progress (they finish in the browser), or the server is still working.
//! - `complete`, `failed`, `cancelled`: the call is over.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use frontdesk_host::parked::{ParkedHandler, QuestionState};
use serde_json::{Map, Value, json};
use tokio::sync::watch;

use super::protocol::CONTRACT;

/// After an answer while a URL flow is in progress: how long to wait for the
/// call to move on before saying `waiting`.
pub const URL_GRACE: Duration = Duration::from_secs(1);
/// After an answer: how long to wait for the next question or the result before
/// saying `waiting` (the server is still working).
pub const ANSWER_WAIT: Duration = Duration::from_secs(60);

/// The most `--show-wire` lines kept between two replies.
const MAX_WIRE_LINES: usize = 2_000;

/// What one parked call shares with the connections to its socket.
pub struct Shared {
    /// The call id.
    pub call: String,
    /// `--park-ttl`.
    pub ttl: u64,
    /// The questions.
    pub handler: Arc<ParkedHandler>,
    /// How the call ended, once it did.
    pub outcome: watch::Receiver<Option<Value>>,
    /// The final reply was handed over: the keeper may end.
    pub delivered: AtomicBool,
    /// `--show-wire` lines not handed over yet.
    pub wire: Mutex<Vec<String>>,
}

impl Shared {
    /// Keep a `--show-wire` line for the next reply.
    pub fn record_wire(&self, line: String) {
        let mut wire = self.wire.lock().unwrap_or_else(PoisonError::into_inner);
        if wire.len() < MAX_WIRE_LINES {
            wire.push(line);
        }
    }

    /// A reply: the contract, the status, the call, then `fields`; and the wire
    /// lines since the last reply (`wireLines`, printed on stderr by the command,
    /// not part of the contract).
    pub fn reply(&self, status: &str, fields: Vec<(&str, Value)>) -> Value {
        let mut out = Map::new();
        out.insert("contract".into(), json!(CONTRACT));
        out.insert("status".into(), json!(status));
        out.insert("call".into(), json!(self.call));
        for (key, value) in fields {
            out.insert(key.into(), value);
        }
        let wire = std::mem::take(&mut *self.wire.lock().unwrap_or_else(PoisonError::into_inner));
        if !wire.is_empty() {
            out.insert("wireLines".into(), json!(wire));
        }
        Value::Object(out)
    }

    /// The call's outcome as a reply.
    fn finished(&self, outcome: &Value) -> Value {
        let status = outcome
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("failed")
            .to_owned();
        let fields = ["result", "error", "exitCode"]
            .into_iter()
            .filter_map(|k| outcome.get(k).map(|v| (k, v.clone())))
            .collect();
        self.reply(&status, fields)
    }

    fn open(&self, status: &str) -> Value {
        let mut fields = vec![
            ("expiresInSeconds", json!(self.ttl)),
            ("questions", json!(self.handler.questions())),
        ];
        if status == "waiting" {
            fields.push((
                "howToContinue",
                json!([
                    format!(
                        "frontdesk respond {} wait  (waits for the next question or the result)",
                        self.call
                    ),
                    "frontdesk respond ID cancel  (stops the question or flow ID)",
                ]),
            ));
        }
        self.reply(status, fields)
    }
}

/// How long [`report`] waits.
#[derive(Debug, Clone, Copy)]
pub enum Until {
    /// Until a question needs an answer, a URL flow is in progress, or the call
    /// is over (`call --park`).
    Open,
    /// Until a question needs an answer or the call is over, at most this long;
    /// then `waiting`.
    Deadline(Duration),
}

/// The call's state, once there is something to say (see [`Until`]).
pub async fn report(shared: &Shared, until: Until) -> Value {
    let deadline = match until {
        Until::Open => None,
        Until::Deadline(d) => Some(tokio::time::Instant::now() + d),
    };
    let mut questions = shared.handler.subscribe();
    let mut outcome = shared.outcome.clone();
    loop {
        questions.borrow_and_update();
        if let Some(done) = outcome.borrow_and_update().clone() {
            return shared.finished(&done);
        }
        let states = shared.handler.states();
        if states.iter().any(|(_, s)| *s == QuestionState::NeedsAnswer) {
            return shared.open("parked");
        }
        let in_progress = states
            .iter()
            .any(|(_, s)| matches!(s, QuestionState::InProgress { .. }));
        match deadline {
            None if in_progress => return shared.open("waiting"),
            Some(at) if tokio::time::Instant::now() >= at => return shared.open("waiting"),
            _ => {}
        }
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            r = questions.changed() => if r.is_err() { return super::protocol::error("the parked call ended") },
            r = outcome.changed() => if r.is_err() { return super::protocol::error("the parked call ended") },
            () = sleep => {}
        }
    }
}
