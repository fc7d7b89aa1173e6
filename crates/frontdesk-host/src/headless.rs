//! No person, no script: every request is answered `cancel`, with the reason logged.
//! Never `decline` (nobody said no) and never an invented `accept`.

use frontdesk::client::{
    BoxFuture, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};

/// An [`ElicitationHandler`] for when nothing can show a request.
#[derive(Debug, Clone)]
pub struct HeadlessHandler {
    reason: String,
}

impl HeadlessHandler {
    /// Cancel every request, logging `reason` (e.g. "no terminal and no --answers file").
    pub fn new(reason: impl Into<String>) -> HeadlessHandler {
        HeadlessHandler {
            reason: reason.into(),
        }
    }

    /// Why requests are cancelled.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl ElicitationHandler for HeadlessHandler {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            tracing::warn!(
                server = %request.origin.server.name,
                request = request.origin.request.as_deref().unwrap_or("-"),
                reason = %self.reason,
                "cannot show this request to anyone; answered cancel"
            );
            ElicitationResponse::Cancel
        })
    }
}
