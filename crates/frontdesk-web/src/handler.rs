//! The [`ElicitationHandler`] of the browser host: each request becomes a question
//! on the page, in arrival order, and its answer is whatever the person chose there.

use std::sync::Arc;

use frontdesk::client::{
    BoxFuture, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
};
use frontdesk_host::widgets::Header;
use tokio::sync::oneshot;

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
        WebHandler { shared }
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

fn question(request: &Elicitation, answer: oneshot::Sender<ElicitationResponse>) -> Question {
    let header = Header::new(&request.origin, &request.message, 0);
    let kind = match &request.kind {
        ElicitationKind::Form { form, prefill } => QuestionKind::Form {
            draft: Draft::from_values(&form.schema, prefill),
            form: form.clone(),
            stage: FormStage::Editing,
        },
        ElicitationKind::Url { review, .. } => QuestionKind::Url {
            review: review.clone(),
            opened: false,
        },
    };
    let mut q = Question::new(header, kind, request.previous_errors.clone(), answer);
    if let (QuestionKind::Form { draft, .. }, Some(_)) = (&mut q.kind, &q.previous_errors) {
        draft.show_all = true;
    }
    q
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
            let (tx, rx) = oneshot::channel();
            let cancelled = request.cancelled.clone();
            let id = self.shared.push_question(question(&request, tx));
            let _on_page = OnPage {
                shared: &self.shared,
                id,
            };
            tokio::select! {
                answer = rx => answer.unwrap_or(ElicitationResponse::Cancel),
                () = cancelled.cancelled() => {
                    tracing::info!(key = %request.origin.key, "request withdrawn; answering cancel");
                    ElicitationResponse::Cancel
                }
            }
        })
    }
}
