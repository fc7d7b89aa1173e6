//! What a question yields: [`Answer`] (three normal outcomes), [`AskError`]
//! (everything else), and the question types ([`InputRequest`]).

use serde_json::{Map, Value, json};

use super::form::{FormError, FormSchema};

/// The person's answer to one question.
///
/// Decline and cancel are normal outcomes, not errors: handle them like any
/// other branch.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub enum Answer<T> {
    /// The person submitted (form: the content, re-validated on the server;
    /// URL: the out-of-band flow completed).
    Accepted(T),
    /// The person explicitly said no.
    Declined,
    /// The person dismissed the question without choosing.
    Cancelled,
}

impl<T> Answer<T> {
    /// Transform the accepted value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Self::Accepted(v) => Answer::Accepted(f(v)),
            Self::Declined => Answer::Declined,
            Self::Cancelled => Answer::Cancelled,
        }
    }

    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(v) => Some(v),
            _ => None,
        }
    }

    /// The wire `action` of this outcome.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accepted(_) => "accept",
            Self::Declined => "decline",
            Self::Cancelled => "cancel",
        }
    }
}

/// Why a question produced no [`Answer`].
///
/// Tool handlers normally just propagate it with `?`: the runtime turns each
/// variant into the right result or JSON-RPC error for the client's revision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// 2026-07-28: the answer is not here yet. The runtime answers
    /// `input_required` with every pending question and re-runs the handler
    /// when the client retries. Always propagate it.
    #[error("input required")]
    InputRequired,
    /// The client did not declare the capability the question needs
    /// (2026-07-28: becomes `-32021` with `data.requiredCapabilities`).
    #[error("the client does not support this kind of question")]
    MissingCapability {
        /// The missing capability, e.g. `{"elicitation": {"url": {}}}`.
        required: Value,
    },
    /// No answer arrived within the human-wait budget.
    #[error("no answer within the time allowed")]
    TimedOut,
    /// The request was cancelled or the client went away.
    #[error("the request was cancelled or the client disconnected")]
    Disconnected,
    /// The client's reply is not a well-formed result (bad input from the wire).
    #[error("invalid response for {key:?}: {reason}")]
    InvalidResponse {
        /// The question key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Accepted content kept failing the question's schema.
    #[error("the answer did not fit the form: {0}")]
    InvalidAnswer(FormError),
    /// The client answered our request with a JSON-RPC error (2025-11-25).
    #[error("the client refused the request: {message} ({code})")]
    ClientError {
        /// Its error code.
        code: i64,
        /// Its error message.
        message: String,
    },
    /// A server-side failure (sealing state, flow store…).
    #[error("internal error: {0}")]
    Internal(String),
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Form {
        message: String,
        schema: Box<FormSchema>,
    },
    Url {
        message: String,
        url: String,
    },
    Sampling(Value),
    Roots,
}

/// One question for the client: an elicitation form, a sampling request or a
/// roots request. URL questions are asked through `ToolContext::ask_url`,
/// which manages their flow.
#[derive(Debug, Clone)]
pub struct InputRequest {
    pub(crate) kind: Kind,
}

impl InputRequest {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, schema: FormSchema) -> Self {
        Self {
            kind: Kind::Form {
                message: message.into(),
                schema: Box::new(schema),
            },
        }
    }

    /// A `sampling/createMessage` request with these params
    /// (`messages`, `maxTokens`, …).
    pub fn sampling(params: Value) -> Self {
        Self {
            kind: Kind::Sampling(params),
        }
    }

    /// A `roots/list` request.
    pub fn roots() -> Self {
        Self { kind: Kind::Roots }
    }

    pub(crate) fn url(message: String, url: String) -> Self {
        Self {
            kind: Kind::Url { message, url },
        }
    }

    /// The JSON-RPC method this question uses.
    pub fn method(&self) -> &'static str {
        match self.kind {
            Kind::Form { .. } | Kind::Url { .. } => "elicitation/create",
            Kind::Sampling(_) => "sampling/createMessage",
            Kind::Roots => "roots/list",
        }
    }

    /// The params as they travel; `elicitation_id` is added to URL requests
    /// (2025-11-25 only). Sampling params that are not an object travel as `{}`.
    pub(crate) fn params(&self, elicitation_id: Option<&str>) -> Map<String, Value> {
        let mut p = Map::new();
        match &self.kind {
            Kind::Form { message, schema } => {
                p.insert("mode".into(), Value::from("form"));
                p.insert("message".into(), Value::from(message.clone()));
                p.insert("requestedSchema".into(), schema.to_json());
            }
            Kind::Url { message, url } => {
                p.insert("mode".into(), Value::from("url"));
                p.insert("message".into(), Value::from(message.clone()));
                p.insert("url".into(), Value::from(url.clone()));
                if let Some(id) = elicitation_id {
                    p.insert("elicitationId".into(), Value::from(id));
                }
            }
            Kind::Sampling(Value::Object(o)) => p.clone_from(o),
            Kind::Sampling(_) | Kind::Roots => {}
        }
        p
    }

    /// The `inputRequests` entry (2026-07-28): `{method, params}`.
    pub(crate) fn to_input_request(&self) -> Value {
        json!({"method": self.method(), "params": Value::Object(self.params(None))})
    }

    /// Whether `caps` (client capabilities) allow this question; if not, the
    /// capability that is missing.
    pub(crate) fn check_capability(&self, caps: &Value) -> Result<(), Value> {
        let elicitation = caps.get("elicitation");
        match &self.kind {
            Kind::Form { .. } => match elicitation {
                Some(e) if supports_form(e) => Ok(()),
                Some(_) => Err(json!({"elicitation": {"form": {}}})),
                None => Err(json!({"elicitation": {}})),
            },
            Kind::Url { .. } => match elicitation.and_then(|e| e.get("url")) {
                Some(_) => Ok(()),
                None => Err(json!({"elicitation": {"url": {}}})),
            },
            Kind::Sampling(_) => caps
                .get("sampling")
                .map(|_| ())
                .ok_or_else(|| json!({"sampling": {}})),
            Kind::Roots => caps
                .get("roots")
                .map(|_| ())
                .ok_or_else(|| json!({"roots": {}})),
        }
    }
}

/// `elicitation: {}` (no mode named) means form, for backward compatibility.
pub(crate) fn supports_form(elicitation: &Value) -> bool {
    match elicitation.as_object() {
        Some(o) => o.contains_key("form") || !o.contains_key("url"),
        None => false,
    }
}

/// A parsed `ElicitResult`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ElicitOutcome {
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

/// Parse an `ElicitResult` (`{action, content?}`).
pub(crate) fn parse_elicit_result(v: &Value) -> Result<ElicitOutcome, String> {
    let obj = v
        .as_object()
        .ok_or("an elicitation result must be an object")?;
    match obj.get("action").and_then(Value::as_str) {
        Some("accept") => match obj.get("content") {
            None | Some(Value::Null) => Ok(ElicitOutcome::Accept(Map::new())),
            Some(Value::Object(c)) => Ok(ElicitOutcome::Accept(c.clone())),
            Some(_) => Err("\"content\" must be an object".into()),
        },
        Some("decline") => Ok(ElicitOutcome::Decline),
        Some("cancel") => Ok(ElicitOutcome::Cancel),
        _ => Err("\"action\" must be \"accept\", \"decline\" or \"cancel\"".into()),
    }
}
