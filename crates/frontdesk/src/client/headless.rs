//! A handler for hosts where nothing can show a request to a person.

use super::handler::{Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes};
use crate::BoxFuture;

/// Answers every elicitation `cancel` and logs why: it never invents a
/// `decline` and never accepts.
///
/// By default it declares no elicitation modes at all, so honest servers do
/// not ask (and a 2025-11-25 server that asks anyway gets `-32602`). A host
/// that normally shows forms but runs without a terminal this time can keep
/// declaring its usual modes with [`HeadlessHandler::declaring`]; then every
/// question is answered `cancel` with the logged reason.
#[derive(Debug, Clone)]
pub struct HeadlessHandler {
    modes: HandlerModes,
    reason: String,
}

impl HeadlessHandler {
    /// Declares nothing; `reason` is logged if a question arrives anyway.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            modes: HandlerModes::default(),
            reason: reason.into(),
        }
    }

    /// Declare these modes anyway and cancel every question (builder style).
    pub fn declaring(mut self, modes: HandlerModes) -> Self {
        self.modes = modes;
        self
    }

    /// Why requests are cancelled.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl ElicitationHandler for HeadlessHandler {
    fn modes(&self) -> HandlerModes {
        self.modes
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            tracing::warn!(
                server = %request.origin.server.name,
                request = request.origin.request.as_deref().unwrap_or("-"),
                key = %request.origin.key,
                reason = %self.reason,
                "nothing can show this request; answering cancel"
            );
            ElicitationResponse::Cancel
        })
    }
}
