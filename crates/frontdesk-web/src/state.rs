//! What the page shows, shared by the handler, the session and the routes: the
//! questions (the first one is on screen, the others wait in arrival order), the
//! calls with their results and wire ranges, the connection, and two counters the
//! page watches to know when to refresh.
//!
//! Every change happens under one lock and bumps its counter before the lock is
//! released, so a page rendered under the lock carries the counters of exactly
//! what it shows.

use std::sync::{Mutex, MutexGuard};

use frontdesk::client::ElicitationResponse;

use frontdesk::wire::CallToolResult;

use frontdesk::wire::Revision;

use frontdesk::wire::Tool;
use frontdesk_form::{ParsedForm, ValidationErrors};
use frontdesk_host::widgets::Header;
use frontdesk_url::UrlReview;
use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

use crate::draft::Draft;
use crate::wire::WireLog;

/// The counters the page watches: `screen` changes whenever what the page shows
/// changes (the question on screen, its step, a call, the connection); `queue` when
/// the list of waiting questions changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Versions {
    pub screen: u64,
    pub queue: u64,
}

/// Where a form question is.
#[derive(Debug, Clone)]
pub(crate) enum FormStage {
    /// The person fills it in.
    Editing,
    /// The person reads back these checked values before sending them.
    Review(Map<String, Value>),
}

/// What a question asks for, and how far the person got.
#[derive(Debug)]
pub(crate) enum QuestionKind {
    /// A form, its draft and its step.
    Form {
        form: ParsedForm,
        draft: Draft,
        stage: FormStage,
    },
    /// A link to open, and the 2025-11-25 `elicitationId`, when there is one.
    Url {
        review: UrlReview,
        elicitation_id: Option<String>,
    },
}

/// One elicitation waiting for the person.
#[derive(Debug)]
pub(crate) struct Question {
    pub id: u64,
    /// Who asks and what they say, made safe for display.
    pub header: Header,
    pub kind: QuestionKind,
    pub previous_errors: Option<ValidationErrors>,
    /// The form starts from the person's last answer to the same form.
    pub remembered: bool,
    answer: Option<oneshot::Sender<ElicitationResponse>>,
}

impl Question {
    /// A question that answers through `answer`.
    pub(crate) fn new(
        header: Header,
        kind: QuestionKind,
        previous_errors: Option<ValidationErrors>,
        answer: oneshot::Sender<ElicitationResponse>,
    ) -> Question {
        Question {
            id: 0,
            header,
            kind,
            previous_errors,
            remembered: false,
            answer: Some(answer),
        }
    }
}

/// How a call ended.
#[derive(Debug, Clone)]
pub(crate) enum CallOutcome {
    Result(Box<CallToolResult>),
    Failed(String),
}

/// One tool call started from the page.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub id: u64,
    pub tool: String,
    pub arguments: Value,
    pub revision: Revision,
    /// When it started (its messages' times are shown from here).
    pub started: std::time::SystemTime,
    pub outcome: Option<CallOutcome>,
    /// The lab's explanation of what travelled, once it ended.
    pub explanation: Vec<String>,
}

/// A URL the person consented to: they finish in another tab, and the page moves
/// on by itself when the flow is complete (the server's
/// `notifications/elicitation/complete`, or the call's next step).
#[derive(Debug, Clone)]
pub(crate) struct Flow {
    /// `tools/call connect_store_account`, when known.
    pub request: Option<String>,
    /// Who asked, made safe for display.
    pub server: String,
    /// The consented URL, to copy if no tab opened.
    pub url: String,
    /// The 2025-11-25 `elicitationId`.
    pub elicitation_id: Option<String>,
}

/// The state of the connection to the server.
#[derive(Debug, Clone, Default)]
pub(crate) enum Link {
    #[default]
    Connecting,
    Connected {
        /// `brightgrid 0.1.0`, made safe for display.
        server: String,
        revision: Revision,
    },
    Failed(String),
}

/// The connection: its state, the server's tools, and the handshake's wire range.
#[derive(Debug, Clone, Default)]
pub(crate) struct Connection {
    pub link: Link,
    pub tools: Vec<Tool>,
    pub wire_from: usize,
}

/// Everything behind the lock.
#[derive(Default)]
pub(crate) struct Inner {
    next_id: u64,
    pub questions: Vec<Question>,
    pub calls: Vec<Call>,
    pub connection: Connection,
    pub wire: WireLog,
    /// Servers (as their headers name them) the person asked to stop asking: their
    /// questions are answered `cancel` until the page's connection ends.
    pub stopped: std::collections::BTreeSet<String>,
    /// URL flows the person consented to that are not finished yet.
    pub flows: Vec<Flow>,
    /// A one-time note for the next page (what was sent, a withdrawn question, bad
    /// arguments…), read out by the page's live status region.
    pub notice: Option<String>,
}

impl Inner {
    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The question on screen.
    pub(crate) fn current(&self) -> Option<&Question> {
        self.questions.first()
    }
}

/// The shared state and its counters.
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    versions: watch::Sender<Versions>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            inner: Mutex::new(Inner::default()),
            versions: watch::channel(Versions::default()).0,
        }
    }
}

impl Shared {
    /// The lock (a poisoned lock is taken over: the state stays usable).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The counters now.
    pub(crate) fn versions(&self) -> Versions {
        *self.versions.borrow()
    }

    /// Watch the counters.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Versions> {
        self.versions.subscribe()
    }

    /// Bump the counters; call with the lock held, right after the change.
    pub(crate) fn bump(&self, screen: bool, queue: bool) {
        self.versions.send_modify(|v| {
            if screen {
                v.screen += 1;
            }
            if queue {
                v.queue += 1;
            }
        });
    }

    /// Change the state under the lock, then bump the screen counter.
    pub(crate) fn change<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        let mut inner = self.lock();
        let out = f(&mut inner);
        self.bump(true, false);
        drop(inner);
        out
    }

    /// Queue a question; returns its id.
    pub(crate) fn push_question(&self, mut question: Question) -> u64 {
        let mut inner = self.lock();
        let id = inner.next();
        question.id = id;
        inner.questions.push(question);
        let on_screen = inner.questions.len() == 1;
        self.bump(on_screen, true);
        id
    }

    /// Remove a question that was withdrawn (or whose asker went away) without an
    /// answer. Does nothing when it was already answered.
    pub(crate) fn withdraw(&self, id: u64) {
        let mut inner = self.lock();
        let Some(at) = inner.questions.iter().position(|q| q.id == id) else {
            return;
        };
        let question = inner.questions.remove(at);
        if at == 0 {
            inner.notice = Some(format!(
                "The question from {} was withdrawn: nothing was sent.",
                question.header.title()
            ));
        }
        self.bump(at == 0, true);
    }

    /// Answer the question on screen, if it is `id`, and say on the page what was
    /// sent. `false` when it is not (any more).
    pub(crate) fn answer(&self, id: u64, response: ElicitationResponse) -> bool {
        let mut inner = self.lock();
        if inner.current().map(|q| q.id) != Some(id) {
            return false;
        }
        let mut question = inner.questions.remove(0);
        let to = question.header.title();
        let what = match (&question.kind, &response) {
            (QuestionKind::Url { .. }, ElicitationResponse::Accept(_)) => {
                "accept (you consented to open the link)".to_owned()
            }
            (_, ElicitationResponse::Accept(values)) => {
                format!("accept, with {} value(s)", values.len())
            }
            (_, ElicitationResponse::Decline) => "decline (none of your answers)".to_owned(),
            (_, ElicitationResponse::Cancel) => "cancel (none of your answers)".to_owned(),
            (_, _) => "an answer".to_owned(),
        };
        inner.notice = Some(format!("Sent to {to}: {what}."));
        if let (
            QuestionKind::Url {
                review,
                elicitation_id,
                ..
            },
            ElicitationResponse::Accept(_),
        ) = (&question.kind, &response)
            && let Some(url) = review.consented()
        {
            inner.flows.push(Flow {
                request: question.header.request.clone(),
                server: question.header.server.clone(),
                url: url.as_str().to_owned(),
                elicitation_id: elicitation_id.clone(),
            });
        }
        if let Some(tx) = question.answer.take() {
            let _ = tx.send(response);
        }
        self.bump(true, true);
        true
    }

    /// Record a wire message (masked as it is stored). A
    /// `notifications/elicitation/complete` ends its flow: the page moves on (a
    /// consent question for it still on screen is answered `accept`: the person
    /// finished it).
    pub(crate) fn record_wire(&self, direction: frontdesk::client::Direction, message: &Value) {
        let mut inner = self.lock();
        inner.wire.record(direction, message);
        let completed = (direction == frontdesk::client::Direction::Incoming
            && message.get("method").and_then(Value::as_str)
                == Some("notifications/elicitation/complete"))
        .then(|| {
            message
                .pointer("/params/elicitationId")
                .and_then(Value::as_str)
        })
        .flatten();
        let Some(eid) = completed else {
            return;
        };
        let before = inner.flows.len();
        inner
            .flows
            .retain(|f| f.elicitation_id.as_deref() != Some(eid));
        let on_screen = inner.current().and_then(|q| match &q.kind {
            QuestionKind::Url {
                elicitation_id: Some(id),
                ..
            } if id == eid => Some(q.id),
            _ => None,
        });
        if on_screen.is_none() && inner.flows.len() == before {
            return;
        }
        inner.notice = Some("The sign-in in the other tab is complete: moving on.".to_owned());
        self.bump(true, false);
        drop(inner);
        if let Some(id) = on_screen
            && self.answer(id, ElicitationResponse::Accept(Map::new()))
        {
            self.lock()
                .flows
                .retain(|f| f.elicitation_id.as_deref() != Some(eid));
        }
    }

    /// Start recording a call; returns its id.
    pub(crate) fn start_call(&self, tool: &str, arguments: &Value, revision: Revision) -> u64 {
        self.change(|inner| {
            let id = inner.next();
            inner.wire.start_call(id, tool, arguments);
            inner.calls.push(Call {
                id,
                tool: tool.to_owned(),
                arguments: arguments.clone(),
                revision,
                started: std::time::SystemTime::now(),
                outcome: None,
                explanation: Vec::new(),
            });
            id
        })
    }

    /// A call ended: its outcome and the explanation of its messages; the flows it
    /// was waiting for are over.
    pub(crate) fn finish_call(&self, id: u64, outcome: CallOutcome) {
        self.change(|inner| {
            inner.wire.finish_call(id);
            let Some(at) = inner.calls.iter().position(|c| c.id == id) else {
                return;
            };
            let (revision, tool) = {
                let call = &inner.calls[at];
                (call.revision, call.tool.clone())
            };
            let label = format!("tools/call {tool}");
            if !inner
                .calls
                .iter()
                .any(|c| c.id != id && c.tool == tool && c.outcome.is_none())
            {
                inner
                    .flows
                    .retain(|f| f.request.as_deref() != Some(label.as_str()));
            }
            let messages: Vec<_> = inner
                .wire
                .for_call(id)
                .into_iter()
                .map(|e| (e.direction, e.message.clone()))
                .collect();
            let explanation = frontdesk_host::explain::explain(revision, &tool, &messages);
            let call = &mut inner.calls[at];
            call.outcome = Some(outcome);
            call.explanation = explanation;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontdesk::client::ElicitationOrigin;
    use frontdesk_url::{UrlPolicy, review};
    use frontdesk_wire::Implementation;

    fn question() -> (Question, oneshot::Receiver<ElicitationResponse>) {
        let origin = ElicitationOrigin {
            server: Implementation::new("shop", "1.0"),
            request: Some("tools/call buy".into()),
            key: "k".into(),
        };
        let (tx, rx) = oneshot::channel();
        let kind = QuestionKind::Url {
            review: review("https://example.com/", &UrlPolicy::default()),
            elicitation_id: None,
        };
        (
            Question::new(Header::new(&origin, "hi", 0), kind, None, tx),
            rx,
        )
    }

    #[test]
    fn only_the_question_on_screen_can_be_answered() {
        let shared = Shared::default();
        let (a, mut rx_a) = question();
        let (b, _rx_b) = question();
        let first = shared.push_question(a);
        let second = shared.push_question(b);
        let before = shared.versions();
        assert!(!shared.answer(second, ElicitationResponse::Decline));
        assert_eq!(
            shared.versions(),
            before,
            "a refused answer changes nothing"
        );
        assert!(shared.answer(first, ElicitationResponse::Decline));
        assert_eq!(rx_a.try_recv().ok(), Some(ElicitationResponse::Decline));
        assert_eq!(shared.lock().current().map(|q| q.id), Some(second));
    }

    #[test]
    fn a_question_queued_behind_another_changes_only_the_queue() {
        let shared = Shared::default();
        let (a, _ra) = question();
        let (b, _rb) = question();
        shared.push_question(a);
        let v1 = shared.versions();
        let second = shared.push_question(b);
        let v2 = shared.versions();
        assert_eq!(v2.screen, v1.screen);
        assert_eq!(v2.queue, v1.queue + 1);
        shared.withdraw(second);
        assert_eq!(shared.versions().screen, v1.screen);
        assert!(shared.lock().notice.is_none(), "nobody saw it, so no note");
    }
}
