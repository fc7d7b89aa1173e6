//! The terminal host: each elicitation as a form (field by field, live validation,
//! review and edit) or a URL consent screen, one at a time, on the process's terminal.

pub mod arguments;
mod fields;
mod form;
mod header;
pub mod leave;
mod line_editor;
mod tty;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
};

use frontdesk::BoxFuture;
use serde_json::Map;

pub use fields::{Step, field_hint, field_label, is_long_text};
pub use form::{FormOutcome, FormRequest, run_form};
pub use tty::{TtyScreen, terminal_available};

use crate::consent::{ConsentOutcome, Opener, SystemBrowser, UrlAction, run_consent};
use crate::memory::AnswerMemory;
use crate::queue::Queue;
use crate::screen::Screen;
use crate::widgets::Header;

/// Makes a fresh [`Screen`] for each request.
pub type ScreenFactory = Arc<dyn Fn() -> Box<dyn Screen> + Send + Sync>;

/// An [`ElicitationHandler`] that asks the person at this terminal.
///
/// Requests are queued (one on screen at a time, each titled with its server and tool
/// call and the number waiting). A request the server withdraws while it waits is never
/// shown; one withdrawn while on screen is answered `cancel` at once and the screen says
/// so when the prompt ends. Log lines wait while a request is on screen
/// ([`crate::logs`]). A form that comes back starts from the person's last answer to
/// it ([`AnswerMemory`]). After "stop asking", every later request from that server is
/// answered `cancel` without being shown, for as long as this handler lives.
#[derive(Clone)]
pub struct TerminalHandler {
    queue: Arc<Queue>,
    screen: ScreenFactory,
    opener: Arc<dyn Opener>,
    action: Option<UrlAction>,
    memory: Arc<AnswerMemory>,
    stopped: Arc<Mutex<HashSet<String>>>,
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
            memory: Arc::default(),
            stopped: Arc::default(),
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

    /// A sampling handler that asks at this terminal in turn with this
    /// handler's forms; with `model`, approved prompts go to it.
    pub fn sampling(
        &self,
        model: Option<Arc<dyn crate::sampling::Model>>,
    ) -> crate::sampling::TerminalSampling {
        crate::sampling::TerminalSampling {
            queue: self.queue.clone(),
            screen: self.screen.clone(),
            model,
        }
    }

    /// The queue, to see how many requests are pending.
    pub fn queue(&self) -> &Arc<Queue> {
        &self.queue
    }

    /// Whether the person asked to hear nothing more from the server named `name`.
    pub fn stopped_asking(&self, name: &str) -> bool {
        self.stopped
            .lock()
            .map(|s| s.contains(name))
            .unwrap_or(false)
    }

    /// Show one request on `screen` as this handler does (the person's last answer
    /// pre-filled, "stop asking" honoured) and return the answer.
    pub fn present_on(
        &self,
        screen: &mut dyn Screen,
        request: &Elicitation,
        waiting: usize,
    ) -> ElicitationResponse {
        let server = &request.origin.server.name;
        if self.stopped_asking(server) {
            tracing::info!(
                key = %crate::sanitize::display_line(&request.origin.key, 80),
                "answering cancel: the person asked this server to stop asking"
            );
            return ElicitationResponse::Cancel;
        }
        let header = Header::new(&request.origin, &request.message, waiting);
        let stop = match &request.kind {
            ElicitationKind::Form { form, prefill } => {
                let start = self.memory.start(&request.origin, &form.schema, prefill);
                let outcome = run_form(
                    screen,
                    &FormRequest {
                        header: &header,
                        form,
                        prefill: &start.values,
                        previous_errors: request.previous_errors.as_ref(),
                        remembered: start.remembered,
                    },
                );
                match outcome {
                    FormOutcome::Accept(content) => {
                        self.memory
                            .remember(&request.origin, &form.schema, &content);
                        return ElicitationResponse::Accept(content);
                    }
                    FormOutcome::Decline => return ElicitationResponse::Decline,
                    FormOutcome::StopAsking => true,
                    _ => return ElicitationResponse::Cancel,
                }
            }
            ElicitationKind::Url { review, .. } => {
                match run_consent(screen, &header, review, &*self.opener, self.action.as_ref()) {
                    ConsentOutcome::StoppedAsking => true,
                    outcome => return consent_answer(&outcome),
                }
            }
            // Never handed to this handler: it declares form and URL only.
            _ => return ElicitationResponse::Cancel,
        };
        if stop && let Ok(mut stopped) = self.stopped.lock() {
            stopped.insert(server.clone());
            tracing::info!(
                server = %crate::sanitize::display_line(server, 80),
                "the person asked this server to stop asking; its questions are answered cancel"
            );
        }
        ElicitationResponse::Cancel
    }
}

fn consent_answer(outcome: &ConsentOutcome) -> ElicitationResponse {
    if outcome.consented() {
        ElicitationResponse::Accept(Map::new())
    } else if *outcome == ConsentOutcome::Declined {
        ElicitationResponse::Decline
    } else {
        ElicitationResponse::Cancel
    }
}

/// Show one request on `screen` and return the person's answer (no memory of earlier
/// answers, no "stop asking": see [`TerminalHandler::present_on`]).
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
                    remembered: false,
                },
            );
            match outcome {
                FormOutcome::Accept(content) => ElicitationResponse::Accept(content),
                FormOutcome::Decline => ElicitationResponse::Decline,
                _ => ElicitationResponse::Cancel,
            }
        }
        ElicitationKind::Url { review, .. } => {
            consent_answer(&run_consent(screen, &header, review, opener, action))
        }
        _ => ElicitationResponse::Cancel,
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
                tracing::info!(
                    key = %crate::sanitize::display_line(&request.origin.key, 80),
                    "request withdrawn before it was shown"
                );
                return ElicitationResponse::Cancel;
            };
            let waiting = turn.waiting();
            let handler = self.clone();
            let job = tokio::task::spawn_blocking(move || {
                let _turn = turn;
                let _quiet = crate::logs::hold();
                let mut screen = (handler.screen)();
                let answer = handler.present_on(&mut *screen, &request, waiting);
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
