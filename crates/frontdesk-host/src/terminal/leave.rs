//! What Esc offers at any prompt of a request: decline, cancel, stop asking (every
//! later question from this server is answered `cancel` until the connection ends),
//! or back to where the person was.

use crate::screen::{Interrupted, Screen};

/// How the person chose to leave a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// Tell the server no.
    Decline,
    /// Dismiss this request.
    Cancel,
    /// Dismiss this request and every later one from the same server.
    StopAsking,
    /// Not leaving after all: back to the prompt.
    Back,
}

/// Ask how to leave, after Esc. Esc again (or Ctrl-C) cancels.
pub fn how_to_leave(screen: &mut dyn Screen, server: &str) -> Leave {
    screen.show(&format!("Leave this request from {server}?"));
    let key = screen.key(
        "",
        &[
            ('d', "decline: tell the server no"),
            ('c', "cancel: dismiss it"),
            (
                's',
                "stop asking: cancel all its questions until you disconnect",
            ),
            ('b', "back"),
        ],
    );
    match key {
        Ok('d') => Leave::Decline,
        Ok('s') => Leave::StopAsking,
        Ok('b') => Leave::Back,
        Ok(_) | Err(Interrupted::Escape | Interrupted::Cancel) => Leave::Cancel,
    }
}

/// What the screen says when the person declined.
pub const DECLINED: &str = "Declined: the server was told no; none of your answers were sent.";

/// What the screen says when the person cancelled.
pub const CANCELLED: &str =
    "Cancelled: the server was told you dismissed it; none of your answers were sent.";

/// What the screen says when the person stopped the server's questions.
pub fn stopped_asking(server: &str) -> String {
    format!(
        "Cancelled. {server} will not ask you anything more on this connection: \
         its questions are answered cancel until you disconnect."
    )
}
