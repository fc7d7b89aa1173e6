//! What can go wrong in a client call.

use frontdesk_wire::ErrorObject;

/// A failed client operation.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("server error {0}")]
    Rpc(Box<ErrorObject>),
    /// The connection could not carry the message (I/O, HTTP status, closed).
    #[error("transport: {0}")]
    Transport(String),
    /// The server sent something the protocol does not allow.
    #[error("protocol: {0}")]
    Protocol(String),
    /// No answer within the request timeout, while nobody was answering a
    /// question.
    #[error("{method} timed out")]
    Timeout {
        /// The method that timed out.
        method: String,
    },
    /// A 2026-07-28 call needed more `input_required` rounds than allowed.
    #[error("gave up after {rounds} input_required rounds (max_rounds)")]
    TooManyRounds {
        /// Rounds run.
        rounds: u32,
    },
    /// The server asked for something this client refused to give
    /// (2026-07-28: a sampling request the person rejected or no model could
    /// answer, or a form that cannot be shown because its `requestedSchema`
    /// is not an object form); the call ends.
    #[error("{request} refused: {reason}")]
    Refused {
        /// What was asked (`sampling/createMessage`).
        request: String,
        /// Why.
        reason: String,
    },
    /// The call was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
    /// The connection is closed.
    #[error("connection closed")]
    Closed,
    /// The server wants a token and authorizing failed (HTTP with
    /// [`ClientConfig::oauth`](super::ClientConfig::oauth)).
    #[cfg(feature = "http-client")]
    #[error("{0}")]
    Auth(super::auth::AuthError),
}

#[cfg(feature = "http-client")]
impl From<super::auth::AuthError> for ClientError {
    fn from(e: super::auth::AuthError) -> Self {
        Self::Auth(e)
    }
}

impl ClientError {
    /// The JSON-RPC error, if the server sent one.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Self::Rpc(e) => Some(e.as_ref()),
            _ => None,
        }
    }

    /// The authorization error, if authorizing failed.
    #[cfg(feature = "http-client")]
    pub fn auth(&self) -> Option<&super::auth::AuthError> {
        match self {
            Self::Auth(e) => Some(e),
            _ => None,
        }
    }

    pub(crate) fn transport(e: impl std::fmt::Display) -> Self {
        Self::Transport(e.to_string())
    }

    /// A transport error with its whole chain of causes, so that e.g. a TLS
    /// failure says what failed, not only "error sending request".
    #[cfg(feature = "http-client")]
    pub(crate) fn transport_chain(e: &(dyn std::error::Error + 'static)) -> Self {
        let mut text = e.to_string();
        let mut tls = false;
        let mut source = e.source();
        while let Some(cause) = source {
            tls |= is_tls(cause);
            let more = cause.to_string();
            if !text.contains(&more) {
                text.push_str(": ");
                text.push_str(&more);
            }
            source = cause.source();
        }
        if tls {
            text = format!("TLS failed: {text}");
        }
        Self::Transport(text)
    }
}

/// Whether `e` is a rustls error, possibly wrapped in I/O errors.
#[cfg(feature = "http-client")]
fn is_tls(e: &(dyn std::error::Error + 'static)) -> bool {
    if e.is::<rustls::Error>() {
        return true;
    }
    match e
        .downcast_ref::<std::io::Error>()
        .and_then(std::io::Error::get_ref)
    {
        Some(inner) => is_tls(inner),
        None => false,
    }
}
