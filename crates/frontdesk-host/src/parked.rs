//! Questions parked for someone else to answer later: an agent or a script relays each
//! question to its person and comes back with the answer (`frontdesk call --park`,
//! then `frontdesk respond`).
//!
//! [`ParkedHandler`] keeps every pending question under an id (`CALL.N`), describes it
//! as JSON ([`ParkedHandler::questions`]) and takes answers with the same checks a
//! typed answer gets ([`ParkedHandler::respond`]): a form answer is completed with the
//! form's defaults and validated (an invalid one is refused and the question stays
//! parked), a URL `accept` is consent and is refused for a link the review refused.
//! Nothing is opened here: the person opens the URL themselves.

use std::collections::BTreeMap;
use std::sync::Mutex;

use frontdesk::client::{
    BoxFuture, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
    check_form_answer,
};
use frontdesk_form::{Field, FormSchema, Widget};
use serde_json::{Map, Value, json};
use tokio::sync::{oneshot, watch};

use crate::problems::describe_all;

/// An answer given to a parked question.
#[derive(Debug, Clone, PartialEq)]
pub enum ParkedAnswer {
    /// Accept: the form's content (fields left out get their defaults), or consent to
    /// a URL (no content).
    Accept(Option<Map<String, Value>>),
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RespondError {
    /// No pending question has this id (answered, withdrawn, or never asked).
    #[error("no parked question {0}: it was answered, withdrawn or never asked")]
    NoSuchQuestion(String),
    /// The form answer does not fit the form; nothing was sent.
    #[error("the answer does not fit the form, so it was not sent: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// Consent to a URL the review refused; nothing was sent.
    #[error("this link is refused by the URL review and cannot be accepted; decline or cancel")]
    RefusedUrl,
    /// Content was given for a URL question.
    #[error("a URL question takes no content: accept means you consent to open it")]
    ContentForUrl,
}

struct Pending {
    request: Elicitation,
    reply: oneshot::Sender<ElicitationResponse>,
}

/// An [`ElicitationHandler`] that parks each question until [`ParkedHandler::respond`].
pub struct ParkedHandler {
    call: String,
    pending: Mutex<(u64, BTreeMap<u64, Pending>)>,
    changes: watch::Sender<u64>,
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
            pending: Mutex::new((0, BTreeMap::new())),
            changes: watch::channel(0).0,
        }
    }

    /// A receiver that sees a new value whenever a question is parked or leaves.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    /// The ids of the questions parked now, oldest first.
    pub fn pending_ids(&self) -> Vec<String> {
        self.pending
            .lock()
            .map(|p| p.1.keys().map(|n| format!("{}.{n}", self.call)).collect())
            .unwrap_or_default()
    }

    /// Every question parked now, described as JSON (see [`describe_question`]).
    pub fn questions(&self) -> Vec<Value> {
        let Ok(pending) = self.pending.lock() else {
            return Vec::new();
        };
        pending
            .1
            .iter()
            .map(|(n, p)| describe_question(&format!("{}.{n}", self.call), &p.request))
            .collect()
    }

    /// Answer the question `id`, checked as a typed answer would be.
    pub fn respond(&self, id: &str, answer: ParkedAnswer) -> Result<(), RespondError> {
        let missing = || RespondError::NoSuchQuestion(id.to_owned());
        let n: u64 = id
            .strip_prefix(&self.call)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(missing)?;
        let mut pending = self.pending.lock().map_err(|_| missing())?;
        let entry = pending.1.get(&n).ok_or_else(missing)?;
        let response = match answer {
            ParkedAnswer::Decline => ElicitationResponse::Decline,
            ParkedAnswer::Cancel => ElicitationResponse::Cancel,
            ParkedAnswer::Accept(content) => match &entry.request.kind {
                ElicitationKind::Form { form, prefill } => {
                    let mut full = prefill.clone();
                    full.extend(content.unwrap_or_default());
                    if let Err(errors) = check_form_answer(&form.schema, &mut full, true) {
                        return Err(RespondError::Invalid(describe_all(
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
            },
        };
        if let Some(p) = pending.1.remove(&n) {
            let _ = p.reply.send(response);
        }
        drop(pending);
        self.changed();
        Ok(())
    }

    /// Answer every parked question `cancel` (the keeper's lifetime ran out).
    pub fn cancel_all(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            for (_, p) in std::mem::take(&mut pending.1) {
                let _ = p.reply.send(ElicitationResponse::Cancel);
            }
        }
        self.changed();
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
            let n = {
                let Ok(mut pending) = self.pending.lock() else {
                    return ElicitationResponse::Cancel;
                };
                pending.0 += 1;
                let n = pending.0;
                pending.1.insert(n, Pending { request, reply: tx });
                n
            };
            self.changed();
            let answer = tokio::select! {
                answer = rx => answer.unwrap_or(ElicitationResponse::Cancel),
                () = cancelled.cancelled() => ElicitationResponse::Cancel,
            };
            if let Ok(mut pending) = self.pending.lock()
                && pending.1.remove(&n).is_some()
            {
                tracing::info!(question = n, "a parked question was withdrawn");
            }
            self.changed();
            answer
        })
    }
}

fn widget_name(widget: Widget) -> &'static str {
    match widget {
        Widget::Text => "text",
        Widget::Email => "email",
        Widget::Url => "url",
        Widget::Date => "date",
        Widget::DateTime => "date-time",
        Widget::Integer => "integer",
        Widget::Number => "number",
        Widget::Checkbox => "checkbox",
        Widget::Select => "select",
        Widget::MultiSelect => "multi-select",
        _ => "unsupported",
    }
}

/// One field as the form model describes it.
fn describe_field(field: &Field) -> Value {
    let c = field.constraints();
    let mut out = json!({
        "key": field.key(),
        "label": field.label(),
        "type": widget_name(field.widget()),
        "required": field.is_required(),
    });
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    if let Some(d) = field.description() {
        obj.insert("description".into(), json!(d));
    }
    if let Some(d) = field.default_value() {
        obj.insert("default".into(), d.clone());
    }
    if !field.options().is_empty() {
        let options: Vec<Value> = field
            .options()
            .iter()
            .map(|o| json!({"value": o.value, "title": o.label()}))
            .collect();
        obj.insert("options".into(), Value::Array(options));
    }
    let limits = [
        ("minLength", c.min_length.map(Value::from)),
        ("maxLength", c.max_length.map(Value::from)),
        ("pattern", c.pattern.map(Value::from)),
        ("minimum", c.minimum.map(Value::from)),
        ("maximum", c.maximum.map(Value::from)),
        ("minItems", c.min_items.map(Value::from)),
        ("maxItems", c.max_items.map(Value::from)),
    ];
    for (name, value) in limits {
        if let Some(v) = value {
            obj.insert(name.into(), v);
        }
    }
    out
}

fn describe_form(schema: &FormSchema) -> Value {
    let mut out = json!({
        "fields": schema.fields().iter().map(describe_field).collect::<Vec<_>>(),
    });
    if let (Some(obj), Some(title)) = (out.as_object_mut(), schema.title()) {
        obj.insert("title".into(), json!(title));
    }
    out
}

/// A question as JSON: its id, who asks (server, request), the message, and either the
/// form's fields (key, label, type, required, default, options with value and title,
/// limits) or the URL with its whole review (verdict, findings, domain) and the review
/// as text. The URL is a string in a JSON document: never a link.
pub fn describe_question(id: &str, request: &Elicitation) -> Value {
    let mut out = json!({
        "id": id,
        "server": request.origin.server,
        "request": request.origin.request,
        "message": request.message,
    });
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    match &request.kind {
        ElicitationKind::Form { form, .. } => {
            obj.insert("mode".into(), json!("form"));
            obj.insert("form".into(), describe_form(&form.schema));
            if let Some(errors) = &request.previous_errors {
                obj.insert(
                    "previousProblems".into(),
                    json!(describe_all(&form.schema, errors, None)),
                );
            }
            obj.insert(
                "answer".into(),
                json!(format!(
                    "frontdesk respond {id} accept --content '{{…}}' | decline | cancel"
                )),
            );
        }
        ElicitationKind::Url { review, .. } => {
            obj.insert("mode".into(), json!("url"));
            obj.insert("url".into(), json!(review.url()));
            obj.insert(
                "review".into(),
                serde_json::to_value(review).unwrap_or(Value::Null),
            );
            obj.insert(
                "reviewText".into(),
                json!(review.plain_text().lines().collect::<Vec<_>>()),
            );
            obj.insert(
                "answer".into(),
                json!(format!(
                    "show the person the URL and its review; frontdesk respond {id} accept (they consent and open it themselves) | decline | cancel"
                )),
            );
        }
    }
    out
}
