//! Scripted answers (`--answers FILE`): answer elicitations from a JSON file, without
//! a terminal, with the same validation a person's answer gets.
//!
//! ```json
//! {
//!   "questions": { "confirm": { "action": "accept", "content": { "confirm": true } } },
//!   "tools": {
//!     "book_return": [
//!       { "action": "accept",
//!         "content": { "reason": "damaged", "pickup_date": "2026-12-01",
//!                      "contact_email": "ann@example.com" } },
//!       { "action": "accept", "content": { "confirm": true } }
//!     ],
//!     "connect_store_account": [ { "action": "decline" } ]
//!   },
//!   "default": { "action": "cancel" }
//! }
//! ```
//!
//! For each request, the answer is looked up in this order:
//! 1. `questions[KEY]`, where KEY is the request's key (the question key of a
//!    2026-07-28 `input_required` round, e.g. `return`), reused each time it is asked;
//! 2. the next unused entry of `tools[TOOL]`, where TOOL is the tool whose call asked
//!    (entries are used in order, one per request);
//! 3. `default`.
//!
//! With no match the answer is `cancel`, and the miss is reported. A form answer's
//! `content` is completed with the form's defaults (as if Enter was pressed on each
//! field left out) and validated; an answer that does not validate, or an `accept` of a
//! URL the review refused, is **not sent**: the request is answered `cancel` and the
//! problem is reported by [`ScriptedHandler::problems`] (the CLI then exits non-zero).
//! A URL `accept` is consent; nothing is opened in scripted mode.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
    check_form_answer,
};

use frontdesk::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value};

/// What to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScriptedAction {
    /// Accept (with `content` for a form; consent for a URL).
    Accept,
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedAnswer {
    /// accept, decline or cancel.
    pub action: ScriptedAction,
    /// The form values for `accept`.
    #[serde(default)]
    pub content: Option<Map<String, Value>>,
}

/// The answers file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    /// Answers by question key.
    #[serde(default)]
    pub questions: HashMap<String, ScriptedAnswer>,
    /// Answers by tool name, used in order.
    #[serde(default)]
    pub tools: HashMap<String, Vec<ScriptedAnswer>>,
    /// The answer when nothing else matches.
    #[serde(default)]
    pub default: Option<ScriptedAnswer>,
}

/// An answers file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AnswersError {
    /// The file could not be read (the cause is the error's source).
    #[error("cannot read the answers file {path}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a valid answers document (the cause is the error's source).
    #[error("the answers file {path} is not valid")]
    Parse {
        /// The file.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
}

impl Answers {
    /// Read an answers file.
    pub fn load(path: &Path) -> Result<Answers, AnswersError> {
        let text = std::fs::read_to_string(path).map_err(|source| AnswersError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Answers::parse(&text).map_err(|source| AnswersError::Parse {
            path: path.display().to_string(),
            source,
        })
    }

    /// Parse an answers document.
    pub fn parse(text: &str) -> Result<Answers, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// An [`ElicitationHandler`] that answers from an [`Answers`] file.
#[derive(Debug, Default)]
pub struct ScriptedHandler {
    answers: Answers,
    used: Mutex<HashMap<String, usize>>,
    problems: Mutex<Vec<String>>,
}

impl ScriptedHandler {
    /// Answer from `answers`.
    pub fn new(answers: Answers) -> ScriptedHandler {
        ScriptedHandler {
            answers,
            ..ScriptedHandler::default()
        }
    }

    /// Every problem so far: a missing answer, an invalid answer (not sent), an accept
    /// of a refused URL. Empty when every request got its scripted answer.
    pub fn problems(&self) -> Vec<String> {
        self.problems.lock().map(|p| p.clone()).unwrap_or_default()
    }

    fn problem(&self, message: String) -> ElicitationResponse {
        // Reported by `problems` (the CLI prints them once); the log keeps a trace.
        tracing::debug!("{}", crate::sanitize::display_text(&message, 2000));
        if let Ok(mut p) = self.problems.lock() {
            p.push(message);
        }
        ElicitationResponse::Cancel
    }

    fn find(&self, request: &Elicitation) -> Option<(ScriptedAnswer, String)> {
        if let Some(a) = self.answers.questions.get(&request.origin.key) {
            return Some((a.clone(), format!("questions.{}", request.origin.key)));
        }
        if let Some(tool) = request.origin.tool()
            && let Some(list) = self.answers.tools.get(tool)
            && let Ok(mut used) = self.used.lock()
        {
            let n = used.entry(tool.to_owned()).or_insert(0);
            if let Some(a) = list.get(*n) {
                let at = format!("tools.{tool}[{n}]");
                *n += 1;
                return Some((a.clone(), at));
            }
        }
        self.answers
            .default
            .clone()
            .map(|a| (a, "default".to_owned()))
    }

    /// The answer to one request (what [`ElicitationHandler::elicit`] returns).
    pub fn answer(&self, request: &Elicitation) -> ElicitationResponse {
        let what = request
            .origin
            .request
            .clone()
            .unwrap_or_else(|| format!("request {}", request.origin.key));
        let Some((answer, at)) = self.find(request) else {
            return self.problem(format!(
                "no scripted answer for {what} (question {:?}); answered cancel",
                request.origin.key
            ));
        };
        match answer.action {
            ScriptedAction::Decline => ElicitationResponse::Decline,
            ScriptedAction::Cancel => ElicitationResponse::Cancel,
            ScriptedAction::Accept => match &request.kind {
                ElicitationKind::Form { form, prefill } => {
                    let mut content = prefill.clone();
                    for (k, v) in answer.content.unwrap_or_default() {
                        content.insert(k, v);
                    }
                    // Judged exactly as the runtime will judge it, so an answer
                    // that would go back to a person is reported here instead.
                    match check_form_answer(&form.schema, &mut content, true) {
                        Ok(()) => ElicitationResponse::Accept(content),
                        Err(errors) => {
                            let list = crate::problems::describe_all(
                                &form.schema,
                                &errors,
                                Some(&content),
                            );
                            self.problem(format!(
                                "the scripted answer {at} for {what} is not valid, so it was not sent: {}",
                                list.join("; ")
                            ))
                        }
                    }
                }
                ElicitationKind::Url { review, .. } => {
                    if review.may_open() {
                        tracing::info!(
                            url = %crate::sanitize::display_line(review.url().unwrap_or(""), 500),
                            "scripted consent to a URL (not opened)"
                        );
                        ElicitationResponse::Accept(Map::new())
                    } else {
                        self.problem(format!(
                            "the scripted answer {at} for {what} accepts a URL the review refused; answered cancel"
                        ))
                    }
                }
                _ => ElicitationResponse::Cancel,
            },
        }
    }
}

impl ElicitationHandler for ScriptedHandler {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move { self.answer(&request) })
    }
}
