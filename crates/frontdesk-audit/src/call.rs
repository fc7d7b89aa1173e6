//! Calling a tool as the audit does: the whole call in either revision,
//! answered by a [`Script`], and, for 2026-07-28, single rounds built by hand
//! (a retry with any `inputResponses` and `requestState`, tampered or not)
//! sent with [`Client::request`](frontdesk::client::Client::request).

use frontdesk::client::{ClientError, Direction};
use frontdesk_wire::{
    ElicitRequestParams, ErrorObject, InputRequest, InputRequiredResult, ResultType, method,
};
use serde_json::{Map, Value, json};

use crate::answers::Variant;
use crate::session::{Asked, Script, Session};

/// Most `input_required` rounds one call of the audit runs.
pub(crate) const MAX_ROUNDS: usize = 8;

/// How a request (or a whole call) ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum End {
    /// A final result (the result object).
    Complete(Map<String, Value>),
    /// A JSON-RPC error.
    Rpc(ErrorObject),
    /// No usable answer: transport failure, time limit, malformed reply, or
    /// the careful client stopped (a question it may not take).
    Failed(String),
}

impl End {
    fn of(error: ClientError) -> Self {
        match error {
            ClientError::Rpc(e) => End::Rpc(*e),
            other => End::Failed(other.to_string()),
        }
    }

    /// A final result without `isError: true`: the tool did its work.
    pub(crate) fn succeeded(&self) -> bool {
        matches!(self, End::Complete(r) if r.get("isError") != Some(&Value::Bool(true)))
    }

    /// What a comparison of two results looks at: `content`,
    /// `structuredContent` and `isError` (not `_meta`).
    pub(crate) fn outcome_value(&self) -> Option<Value> {
        match self {
            End::Complete(r) => Some(json!({
                "content": r.get("content"),
                "structuredContent": r.get("structuredContent"),
                "isError": r.get("isError").and_then(Value::as_bool).unwrap_or(false),
            })),
            _ => None,
        }
    }

    /// The JSON-RPC error code, if it is one.
    pub(crate) fn code(&self) -> Option<i32> {
        match self {
            End::Rpc(e) => Some(e.code.0),
            _ => None,
        }
    }
}

/// One whole call.
#[derive(Debug, Clone)]
pub(crate) struct CallRecord {
    /// Every question, in order.
    pub asked: Vec<Asked>,
    /// How it ended.
    pub end: End,
    /// `input_required` rounds (2026-07-28; 0 on 2025-11-25).
    pub rounds: usize,
    /// Every message of the call.
    pub wire: Vec<(Direction, Value)>,
}

impl CallRecord {
    /// The `notifications/elicitation/complete` the server sent.
    pub(crate) fn completions(&self) -> Vec<String> {
        self.wire
            .iter()
            .filter(|(d, m)| {
                *d == Direction::Incoming
                    && m.get("method").and_then(Value::as_str)
                        == Some(method::NOTIFICATION_ELICITATION_COMPLETE)
            })
            .map(|(_, m)| {
                m.pointer("/params/elicitationId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect()
    }
}

/// The `tools/call` parameters of a call or of one of its retries.
pub(crate) fn params(
    tool: &str,
    arguments: &Value,
    responses: Option<Map<String, Value>>,
    state: Option<&str>,
) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("name".into(), Value::String(tool.to_owned()));
    if arguments.is_object() {
        p.insert("arguments".into(), arguments.clone());
    }
    if let Some(r) = responses {
        p.insert("inputResponses".into(), Value::Object(r));
    }
    if let Some(s) = state {
        p.insert("requestState".into(), Value::String(s.to_owned()));
    }
    p
}

/// Send one `tools/call` as it is.
pub(crate) async fn send(session: &Session, params: Map<String, Value>) -> End {
    match session.client.request(method::TOOLS_CALL, params).await {
        Ok(result) => End::Complete(result),
        Err(e) => End::of(e),
    }
}

/// What a 2026-07-28 reply is.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// The call ended.
    Ended(End),
    /// Another round: the questions (non-elicitation requests as `Err`
    /// with their method) and the state.
    Asks {
        /// The elicitations, by key.
        questions: Vec<(String, ElicitRequestParams)>,
        /// Requests of other kinds (`sampling/createMessage` …).
        others: Vec<String>,
        /// The state to echo.
        state: Option<String>,
    },
}

/// Read a 2026-07-28 reply.
pub(crate) fn step(end: End) -> Step {
    let End::Complete(result) = end else {
        return Step::Ended(end);
    };
    match ResultType::of(&result) {
        Ok(ResultType::InputRequired) => {
            let parsed: Result<InputRequiredResult, _> =
                serde_json::from_value(Value::Object(result));
            match parsed {
                Ok(ir) if ir.check().is_ok() => {
                    let mut questions = Vec::new();
                    let mut others = Vec::new();
                    for (key, request) in ir.input_requests.iter().flat_map(|r| r.0.iter()) {
                        match request {
                            InputRequest::Elicit(e) => {
                                questions.push((key.clone(), e.params.clone()))
                            }
                            other => others.push(other.method().to_owned()),
                        }
                    }
                    Step::Asks {
                        questions,
                        others,
                        state: ir.request_state,
                    }
                }
                Ok(_) => Step::Ended(End::Failed(
                    "an input_required result with neither inputRequests nor requestState".into(),
                )),
                Err(e) => Step::Ended(End::Failed(format!(
                    "a malformed input_required result: {e}"
                ))),
            }
        }
        Ok(ResultType::Complete) => Step::Ended(End::Complete(result)),
        Ok(other) => Step::Ended(End::Failed(format!(
            "an unknown resultType {:?}",
            other.as_str()
        ))),
        Err(e) => Step::Ended(End::Failed(e.to_string())),
    }
}

/// Run a whole call, answering with `script`.
pub(crate) async fn call(
    session: &Session,
    tool: &str,
    arguments: &Value,
    script: Script,
) -> CallRecord {
    session.script(script);
    let (end, rounds) = match session.revision() {
        frontdesk::wire::Revision::V2025_11_25 => {
            (send(session, params(tool, arguments, None, None)).await, 0)
        }
        _ => call_modern(session, tool, arguments).await,
    };
    CallRecord {
        asked: session.take_asked(),
        end,
        rounds,
        wire: session.take_wire(),
    }
}

/// The answers to one round, from the session's script; `Err` when the
/// careful client stops (a mode it did not declare, a request it does not
/// serve).
pub(crate) fn answer_round(
    session: &Session,
    questions: &[(String, ElicitRequestParams)],
    others: &[String],
) -> Result<Map<String, Value>, String> {
    let modes = session.options.modes;
    let mut responses = Map::new();
    let mut undeclared = None;
    for (key, params) in questions {
        let reply = session.reply(key, params);
        let declared = match params {
            ElicitRequestParams::Form(_) => modes.form,
            ElicitRequestParams::Url(_) => modes.url,
            _ => false,
        };
        if !declared {
            undeclared.get_or_insert_with(|| {
                format!("a question in a mode this client did not declare (key {key:?})")
            });
        }
        responses.insert(key.clone(), Value::Object(reply.result(params)));
    }
    if let Some(why) = undeclared {
        return Err(why);
    }
    if let Some(method) = others.first() {
        return Err(format!(
            "a {method} request, which the audit does not answer"
        ));
    }
    Ok(responses)
}

/// What a retry carries: the answers and the state of the round before.
type Retry = Option<(Map<String, Value>, Option<String>)>;

/// Send one round of a call (the first when `retry` is `None`).
async fn round(session: &Session, tool: &str, arguments: &Value, retry: Retry) -> Step {
    let (responses, state) = match retry {
        Some((r, s)) => (Some(r), s),
        None => (None, None),
    };
    step(
        send(
            session,
            params(tool, arguments, responses, state.as_deref()),
        )
        .await,
    )
}

async fn call_modern(session: &Session, tool: &str, arguments: &Value) -> (End, usize) {
    let mut retry: Retry = None;
    let mut rounds = 0;
    for _ in 0..=MAX_ROUNDS {
        match round(session, tool, arguments, retry.take()).await {
            Step::Ended(end) => return (end, rounds),
            Step::Asks {
                questions,
                others,
                state,
            } => {
                rounds += 1;
                match answer_round(session, &questions, &others) {
                    Ok(responses) => retry = Some((responses, state)),
                    Err(why) => {
                        return (End::Failed(format!("the client stopped: {why}")), rounds);
                    }
                }
            }
        }
    }
    (
        End::Failed(format!("still asking after {MAX_ROUNDS} rounds")),
        rounds,
    )
}

/// A 2026-07-28 call run up to its last question: what the final retry
/// would carry.
#[derive(Debug, Clone)]
pub(crate) struct Walk {
    /// The state of the last round.
    pub state: Option<String>,
    /// The last round's questions.
    pub last: Vec<(String, ElicitRequestParams)>,
    /// Valid answers to them (the given variant).
    pub answers: Map<String, Value>,
}

/// Run `rounds` rounds of a call answering like a careful person (answers
/// of `variant`, URLs declined, as in the call discovery made), and stop
/// before the final retry.
pub(crate) async fn walk(
    session: &Session,
    tool: &str,
    arguments: &Value,
    rounds: usize,
    variant: Variant,
) -> Result<Walk, String> {
    session.script(crate::session::careful(variant));
    let mut retry: Retry = None;
    for n in 1..=rounds.max(1) {
        match round(session, tool, arguments, retry.take()).await {
            Step::Ended(end) => {
                return Err(format!(
                    "the call ended after {} round(s) this time ({}), not {rounds} as the first time",
                    n - 1,
                    crate::evidence::end_brief(&end)
                ));
            }
            Step::Asks {
                questions,
                others,
                state,
            } => {
                let answers = answer_round(session, &questions, &others)?;
                if n == rounds.max(1) {
                    session.take_asked();
                    return Ok(Walk {
                        state,
                        last: questions,
                        answers,
                    });
                }
                retry = Some((answers, state));
            }
        }
    }
    Err("no round to walk".into())
}
