//! The lines above every request: which server asks, for which call, how many more
//! requests wait, and the server's message.

use frontdesk::client::ElicitationOrigin;

use crate::sanitize::{MAX_MESSAGE_CHARS, display_line, display_text, server_label};
use crate::screen::Screen;

/// Who asks and what they say, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `brightgrid 0.1.0`, escaped.
    pub server: String,
    /// `tools/call book_return`, escaped, when known.
    pub request: Option<String>,
    /// The message, escaped, line breaks kept.
    pub message: String,
    /// Requests waiting behind this one.
    pub waiting: usize,
}

impl Header {
    /// The header of a request from `origin` with `message`.
    pub fn new(origin: &ElicitationOrigin, message: &str, waiting: usize) -> Header {
        Header {
            server: server_label(&origin.server),
            request: origin.request.as_deref().map(|r| display_line(r, 200)),
            message: display_text(message, MAX_MESSAGE_CHARS),
            waiting,
        }
    }

    /// The title line: `brightgrid 0.1.0 — tools/call book_return`.
    pub fn title(&self) -> String {
        match &self.request {
            Some(r) => format!("{} — {r}", self.server),
            None => self.server.clone(),
        }
    }

    /// Print the header: a rule with the title, the waiting count, then the message.
    pub fn show(&self, screen: &mut dyn Screen, what: &str) {
        screen.show("");
        screen.show(&format!("── {} ──", self.title()));
        let mut line = format!("{} {what}", self.server);
        if self.waiting > 0 {
            line.push_str(&format!("   ({} more waiting)", self.waiting));
        }
        screen.show(&line);
        for l in self.message.lines() {
            screen.show(&format!("  │ {l}"));
        }
        screen.show("");
    }
}
