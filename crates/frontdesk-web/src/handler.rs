//! The [`ElicitationHandler`] of the browser host: each request becomes a question
//! on the page, in arrival order, and its answer is whatever the person chose there.

use std::sync::Arc;

use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
};

use frontdesk::BoxFuture;
use frontdesk_host::memory::AnswerMemory;
use frontdesk_host::widgets::Header;
use serde_json::Map;
use tokio::sync::oneshot;

/// How long a URL asked again while the person is still in the other tab waits
/// before the page says "check now" (the server holds each check a while too).
const RECHECK: std::time::Duration = std::time::Duration::from_secs(2);

use crate::draft::Draft;
use crate::state::{FormStage, Question, QuestionKind, Shared};

/// Shows every elicitation on the web page and waits for the person's answer.
///
/// Requests queue (one on screen, the rest listed with their server and call). A
/// request withdrawn while it waits or while on screen (the server cancelled it, the
/// call ended, the connection went away) leaves the page and is answered `cancel`;
/// the page says so if it was on screen.
#[derive(Clone)]
pub struct WebHandler {
    shared: Arc<Shared>,
    /// The person's last answer to each form: the same form asked again starts
    /// from it (as in the terminal).
    memory: Arc<AnswerMemory>,
}

impl std::fmt::Debug for WebHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebHandler")
            .field("questions", &self.shared.lock().questions.len())
            .finish()
    }
}

impl WebHandler {
    pub(crate) fn new(shared: Arc<Shared>) -> WebHandler {
        WebHandler {
            shared,
            memory: Arc::new(AnswerMemory::default()),
        }
    }
}

/// Takes the question off the page if the request ends without an answer.
struct OnPage<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for OnPage<'_> {
    fn drop(&mut self) {
        self.shared.withdraw(self.id);
    }
}

/// The page's question for `request`; a form starts from the person's last answer
/// to it, when `memory` has one.
fn question(
    request: &Elicitation,
    memory: &AnswerMemory,
    answer: oneshot::Sender<ElicitationResponse>,
) -> Option<Question> {
    let header = Header::new(&request.origin, &request.message, 0);
    let mut remembered = false;
    let kind = match &request.kind {
        ElicitationKind::Form { form, prefill } => {
            let start = memory.start(&request.origin, &form.schema, prefill);
            remembered = start.remembered;
            QuestionKind::Form {
                draft: Draft::from_values(&form.schema, &start.values),
                form: form.clone(),
                stage: FormStage::Editing,
            }
        }
        ElicitationKind::Url {
            review,
            elicitation_id,
        } => QuestionKind::Url {
            review: review.clone(),
            elicitation_id: elicitation_id.clone(),
        },
        // Never handed to this handler: it declares form and URL only.
        _ => return None,
    };
    let mut q = Question::new(header, kind, request.previous_errors.clone(), answer);
    q.remembered = remembered;
    if let (QuestionKind::Form { draft, .. }, Some(_)) = (&mut q.kind, &q.previous_errors) {
        draft.show_all = true;
    }
    Some(q)
}

/// Whether `request` asks again a URL the person already consented to for the
/// same call (2026-07-28: the flow is not finished yet).
fn asked_again(shared: &Shared, request: &Elicitation) -> bool {
    let ElicitationKind::Url { review, .. } = &request.kind else {
        return false;
    };
    let Some(url) = review.consented() else {
        return false;
    };
    shared.lock().flows.iter().any(|f| {
        f.url == url.as_str()
            && f.request == request.origin.request.as_deref().map(display_line_owned)
    })
}

fn display_line_owned(text: &str) -> String {
    frontdesk_host::sanitize::display_line(text, 200)
}

impl ElicitationHandler for WebHandler {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let server = frontdesk_host::sanitize::server_label(&request.origin.server);
            if self.shared.lock().stopped.contains(&server) {
                tracing::info!("answering cancel: the person asked this server to stop asking");
                return ElicitationResponse::Cancel;
            }
            if asked_again(&self.shared, &request) {
                // The person consented and is finishing in the other tab: this is
                // the server checking again, answered "check now" after a pause.
                tokio::select! {
                    () = tokio::time::sleep(RECHECK) => {}
                    () = request.cancelled.cancelled() => return ElicitationResponse::Cancel,
                }
                return ElicitationResponse::Accept(Map::new());
            }
            let (tx, rx) = oneshot::channel();
            let cancelled = request.cancelled.clone();
            let Some(asked) = question(&request, &self.memory, tx) else {
                return ElicitationResponse::Cancel;
            };
            let id = self.shared.push_question(asked);
            let _on_page = OnPage {
                shared: &self.shared,
                id,
            };
            let answer = tokio::select! {
                answer = rx => answer.unwrap_or(ElicitationResponse::Cancel),
                () = cancelled.cancelled() => {
                    tracing::info!(key = %request.origin.key, "request withdrawn; answering cancel");
                    ElicitationResponse::Cancel
                }
            };
            if let (ElicitationKind::Form { form, .. }, ElicitationResponse::Accept(values)) =
                (&request.kind, &answer)
            {
                self.memory.remember(&request.origin, &form.schema, values);
            }
            answer
        })
    }
}
