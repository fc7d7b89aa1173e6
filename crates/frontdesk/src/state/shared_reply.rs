//! What a shared [`NonceStore`](super::NonceStore) knows of a redeemed
//! state's reply, for a retry that reaches another instance.
//!
//! A 2026-07-28 retry redeems its state before its round runs. When its
//! request goes away mid-round (a load balancer cut the connection to an
//! instance it took out of service, say) and the client sends the same retry
//! again, the balancer may route it to another instance, where the state is
//! already redeemed. The instance that ran the round keeps the reply in the
//! shared store ([`NonceStore::keep_reply`](super::NonceStore::keep_reply));
//! the other finds it there ([`NonceStore::kept_reply`](super::NonceStore::kept_reply))
//! and answers with it instead of refusing the state. The state still opens
//! only once; only its reply is repeated, and only to a request that opened
//! the same state (same principal, method, name and arguments).

/// What a shared store knows of the reply to a redeemed state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedReply {
    /// The reply, as its instance kept it ([`NonceStore::keep_reply`](super::NonceStore::keep_reply)).
    Kept(String),
    /// Its instance lost the request and is still running the round: the
    /// reply comes when the round ends.
    Running,
    /// No reply kept; the state was redeemed at this time (unix seconds).
    Redeemed(u64),
    /// Nothing known: not redeemed, forgotten, or a store that keeps no
    /// replies (every store one instance uses alone).
    Unknown,
}
