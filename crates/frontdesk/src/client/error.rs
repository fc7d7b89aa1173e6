//! What can go wrong in a client call.

use frontdesk_wire::{ErrorCode, ErrorObject};

use crate::{Party, Reason};

/// A failed client operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("server error {0}")]
    Rpc(Box<ErrorObject>),
    /// The connection could not carry the message (I/O, HTTP status, closed).
    #[error("transport: {0}")]
    Transport(Reason),
    /// The server sent something the protocol does not allow.
    #[error("protocol: {0}")]
    Protocol(Reason),
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

    /// Who must act to get past it: the caller for a request the server
    /// refused as wrong, a cancelled call or a closed connection; the
    /// person for what they refused; the server's author for a server that
    /// breaks the protocol, fails inside, or keeps asking; the operator for
    /// the network, a server that is busy or slow, and sign-in trouble of
    /// their making (see [`AuthError::party`](super::auth::AuthError::party)).
    pub fn party(&self) -> Party {
        match self {
            Self::Rpc(e) if e.code == ErrorCode::INTERNAL_ERROR => Party::Author,
            Self::Rpc(e) if e.code == ErrorCode::SERVER_BUSY => Party::Operator,
            Self::Rpc(_) | Self::Cancelled | Self::Closed => Party::Caller,
            Self::Transport(_) | Self::Timeout { .. } => Party::Operator,
            Self::Protocol(_) | Self::TooManyRounds { .. } => Party::Author,
            Self::Refused { .. } => Party::Person,
            #[cfg(feature = "http-client")]
            Self::Auth(e) => e.party(),
        }
    }

    pub(crate) fn transport(e: impl std::fmt::Display) -> Self {
        Self::Transport(crate::Reason::new(e))
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
        Self::Transport(crate::Reason::from(text))
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

crate::errors::party_predicates!(ClientError);
