//! The terminal host: each elicitation as a form (field by field, live validation,
//! review and edit) or a URL consent screen, one at a time, on the process's terminal.

mod fields;
mod form;
mod header;
mod tty;

use std::sync::Arc;

use frontdesk::client::{
    BoxFuture, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
};
use serde_json::Map;

pub use fields::{field_hint, field_label, shown_value};
pub use form::{FormOutcome, FormRequest, run_form};
pub use header::Header;
pub use tty::{TtyScreen, terminal_available};

use crate::consent::{Opener, SystemBrowser, UrlAction, run_consent};
use crate::queue::Queue;
use crate::screen::Screen;

/// Makes a fresh [`Screen`] for each request.
pub type ScreenFactory = Arc<dyn Fn() -> Box<dyn Screen> + Send + Sync>;

/// An [`ElicitationHandler`] that asks the person at this terminal.
///
/// Requests are queued (one on screen at a time, each titled with its server and tool
/// call and the number waiting). A request the server withdraws while it waits is never
/// shown; one withdrawn while on screen is answered `cancel` at once and the screen says
/// so when the prompt ends.
#[derive(Clone)]
pub struct TerminalHandler {
    queue: Arc<Queue>,
    screen: ScreenFactory,
    opener: Arc<dyn Opener>,
    action: Option<UrlAction>,
}

impl Default for TerminalHandler {
    fn default() -> Self {
        TerminalHandler::new()
    }
}

impl TerminalHandler {
    /// Ask on this process's terminal; open consented links in the system browser.
    pub fn new() -> TerminalHandler {
        TerminalHandler {
            queue: Queue::new(),
            screen: Arc::new(|| Box::new(TtyScreen::new())),
            opener: Arc::new(SystemBrowser),
            action: None,
        }
    }

    /// Use another screen (tests use [`crate::screen::FakeScreen`]).
    pub fn with_screen(mut self, screen: ScreenFactory) -> TerminalHandler {
        self.screen = screen;
        self
    }

    /// Use another opener for consented links.
    pub fn with_opener(mut self, opener: Arc<dyn Opener>) -> TerminalHandler {
        self.opener = opener;
        self
    }

    /// Offer an extra choice on the URL consent screen.
    pub fn with_url_action(mut self, action: UrlAction) -> TerminalHandler {
        self.action = Some(action);
        self
    }

    /// The queue, to see how many requests are pending.
    pub fn queue(&self) -> &Arc<Queue> {
        &self.queue
    }
}

/// Show one request on `screen` and return the person's answer.
pub fn present(
    screen: &mut dyn Screen,
    request: &Elicitation,
    waiting: usize,
    opener: &dyn Opener,
    action: Option<&UrlAction>,
) -> ElicitationResponse {
    let header = Header::new(&request.origin, &request.message, waiting);
    match &request.kind {
        ElicitationKind::Form { form, prefill } => {
            let outcome = run_form(
                screen,
                &FormRequest {
                    header: &header,
                    form,
                    prefill,
                    previous_errors: request.previous_errors.as_ref(),
                },
            );
            match outcome {
                FormOutcome::Accept(content) => ElicitationResponse::Accept(content),
                FormOutcome::Decline => ElicitationResponse::Decline,
                FormOutcome::Cancel => ElicitationResponse::Cancel,
            }
        }
        ElicitationKind::Url { review, .. } => {
            let outcome = run_consent(screen, &header, review, opener, action);
            if outcome.consented() {
                ElicitationResponse::Accept(Map::new())
            } else if outcome == crate::consent::ConsentOutcome::Declined {
                ElicitationResponse::Decline
            } else {
                ElicitationResponse::Cancel
            }
        }
    }
}

impl ElicitationHandler for TerminalHandler {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let cancelled = request.cancelled.clone();
            let Some(turn) = self.queue.enter(&cancelled).await else {
                tracing::info!(key = %request.origin.key, "request withdrawn before it was shown");
                return ElicitationResponse::Cancel;
            };
            let waiting = turn.waiting();
            let factory = self.screen.clone();
            let opener = self.opener.clone();
            let action = self.action.clone();
            let job = tokio::task::spawn_blocking(move || {
                let _turn = turn;
                let mut screen = factory();
                let answer = present(&mut *screen, &request, waiting, &*opener, action.as_ref());
                if request.cancelled.is_cancelled() {
                    screen.show("This request was withdrawn meanwhile: your answer was not sent.");
                }
                answer
            });
            tokio::select! {
                answer = job => answer.unwrap_or(ElicitationResponse::Cancel),
                () = cancelled.cancelled() => {
                    tracing::info!("request withdrawn while on screen; answering cancel");
                    ElicitationResponse::Cancel
                }
            }
        })
    }
}
