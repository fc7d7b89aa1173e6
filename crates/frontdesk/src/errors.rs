//! What every error type of this crate shares: who must act to get past it
//! ([`Party`], asked with `party()` and the `is_caller()`, `is_person()`,
//! `is_author()`, `is_operator()` predicates, as rustls groups its errors
//! by blame and hyper answers `is_*()`), and [`Reason`], the words of a
//! failure whose cause has no type of its own to offer.

use std::fmt;

/// Who must act to get past an error.
///
/// ```
/// use frontdesk::Party;
/// use frontdesk::server::AskError;
///
/// let e = AskError::TimedOut;
/// assert_eq!(e.party(), Party::Person);
/// assert!(e.is_person() && !e.is_operator());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Party {
    /// The caller: the client, or the code calling this API, sent something
    /// it should not have or must do something else (declare a capability,
    /// send a valid message, wait for one of its own requests to finish).
    Caller,
    /// The person: they declined, did not answer in time, answered what
    /// does not fit, or hold a link that is no longer theirs to use.
    Person,
    /// The server's author: the code registered with the server (a handler,
    /// a schema) failed or is wrong. On the client side: the server that
    /// answered does not follow the protocol.
    Author,
    /// The operator: whoever runs the server or the client (its
    /// configuration, its bounds, its stores, the network).
    Operator,
}

/// The words of a failure whose cause has no type of its own to offer (an
/// I/O or HTTP failure, a malformed document, a store that failed): what
/// happened, for a log or a person. Its text is not part of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    message: String,
}

impl Reason {
    /// A reason in these words.
    pub fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }

    /// What happened.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for Reason {
    fn from(message: String) -> Self {
        Self { message }
    }
}

impl From<&str> for Reason {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// The four predicates of an error type with a `party()` method.
macro_rules! party_predicates {
    ($($t:ty),* $(,)?) => {$(
        impl $t {
            /// Whether the caller must act (see [`Party::Caller`](crate::Party::Caller)).
            pub fn is_caller(&self) -> bool {
                self.party() == $crate::Party::Caller
            }

            /// Whether the person must act (see [`Party::Person`](crate::Party::Person)).
            pub fn is_person(&self) -> bool {
                self.party() == $crate::Party::Person
            }

            /// Whether the server's author must act (see
            /// [`Party::Author`](crate::Party::Author)).
            pub fn is_author(&self) -> bool {
                self.party() == $crate::Party::Author
            }

            /// Whether the operator must act (see
            /// [`Party::Operator`](crate::Party::Operator)).
            pub fn is_operator(&self) -> bool {
                self.party() == $crate::Party::Operator
            }
        }
    )*};
}
pub(crate) use party_predicates;
