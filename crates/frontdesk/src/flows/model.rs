//! The flow data model and its errors.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::Duration;

use crate::store::StoreError;

/// A flow's id: 128 random bits, URL-safe base64 (22 characters).
///
/// It is the 2025-11-25 `elicitationId`. It is not a secret (the client sees
/// it); the connect token is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FlowId(String);

impl FlowId {
    /// A fresh random id.
    pub fn random() -> Self {
        Self(random_token::<16>())
    }

    /// An id as received (e.g. from `requestState` or a callback URL).
    pub fn from_string(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for FlowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a flow stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum FlowStatus {
    /// Waiting for the person.
    Pending,
    /// The server's own page or callback completed it.
    Complete,
    /// It failed, was abandoned, or expired while pending.
    Failed {
        /// Why, for logs and for the server's own use; not for the client.
        reason: String,
    },
}

impl FlowStatus {
    /// Whether the flow still waits.
    pub fn is_pending(&self) -> bool {
        matches!(self, Self::Pending)
    }

    /// Whether the flow completed.
    pub fn is_complete(&self) -> bool {
        matches!(self, Self::Complete)
    }
}

/// One URL-mode elicitation in progress (or finished, until it expires).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    /// The flow's id.
    pub id: FlowId,
    /// Who started it: the authenticated subject, `""` if anonymous.
    pub principal: String,
    /// Created at, unix seconds.
    pub created_at: u64,
    /// Gone at, unix seconds (exclusive).
    pub expires_at: u64,
    /// Where it stands.
    pub status: FlowStatus,
    /// What it is for, for logs and pages ("connect GitHub").
    pub purpose: String,
    /// The server's own data for the flow (what to do on completion…).
    pub data: Value,
}

impl Flow {
    /// Whether `principal` started this flow.
    pub fn is_owned_by(&self, principal: &str) -> bool {
        self.principal == principal
    }
}

/// What [`FlowStore::create`](super::FlowStore::create) needs.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFlow {
    /// Who starts it.
    pub principal: String,
    /// How long it lives (rounded up to whole seconds, at least one).
    pub ttl: Duration,
    /// What it is for.
    pub purpose: String,
    /// The server's own data.
    pub data: Value,
}

impl NewFlow {
    /// A flow for `principal` living `ttl`, with no purpose or data yet.
    pub fn new(principal: impl Into<String>, ttl: Duration) -> Self {
        Self {
            principal: principal.into(),
            ttl,
            purpose: String::new(),
            data: Value::Null,
        }
    }

    /// Set the purpose.
    pub fn purpose(mut self, purpose: impl Into<String>) -> Self {
        self.purpose = purpose.into();
        self
    }

    /// Set the data.
    pub fn data(mut self, data: Value) -> Self {
        self.data = data;
        self
    }
}

/// A flow left `Pending`, published to [`FlowStore::subscribe`](super::FlowStore::subscribe) subscribers.
///
/// Serializable, so a shared store can carry it between instances.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowEvent {
    /// Which flow.
    pub id: FlowId,
    /// Its principal.
    pub principal: String,
    /// Its new status: `Complete`, or `Failed` (including expiry while pending).
    pub status: FlowStatus,
}

/// A flow operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// No such live flow (unknown, expired, or not the caller's).
    #[error("unknown or expired flow")]
    NotFound,
    /// The flow already finished the other way (complete after fail, or fail
    /// after complete).
    #[error("flow is no longer pending")]
    NotPending,
    /// A connect token was refused: unknown, used, expired, or its flow is no
    /// longer pending. One error for all of them.
    #[error("connect link is invalid or expired")]
    ConnectRejected,
    /// A live connect token was presented by someone other than the principal
    /// whose flow it is (a forwarded link). The token stays usable by its
    /// owner and the flow stays pending. Telling the person so leaks nothing
    /// they do not hold already: they have the link.
    #[error("connect link belongs to another user")]
    OtherPrincipal,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl FlowError {
    /// Who must act to get past it: the person, who holds a link that is
    /// no longer theirs to use (expired, finished, someone else's); the
    /// operator when the store failed.
    pub fn party(&self) -> crate::Party {
        match self {
            Self::Store(_) => crate::Party::Operator,
            _ => crate::Party::Person,
        }
    }
}

crate::errors::party_predicates!(FlowError);

/// `N` random bytes as unpadded URL-safe base64.
pub(crate) fn random_token<const N: usize>() -> String {
    let mut b = [0u8; N];
    rand::fill(&mut b[..]);
    URL_SAFE_NO_PAD.encode(b)
}

/// What stores keep of a connect token: its SHA-256.
pub(crate) fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Whole seconds, rounded up, at least one.
pub(crate) fn ttl_secs(ttl: Duration) -> u64 {
    (ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0)).max(1)
}
