//! What every store shares: the error type and the boxed future its methods return.
//!
//! Store traits ([`NonceStore`](crate::state::NonceStore),
//! [`FlowStore`](crate::flows::FlowStore)) are held by the server as
//! `Arc<dyn Trait>`, so they must be dyn-compatible. Native `async fn` in traits
//! is not (yet) dyn-compatible, so their methods return a
//! [`BoxFuture`](crate::BoxFuture) instead;
//! implementations write `Box::pin(async move { … })`. This avoids a proc-macro
//! dependency and costs one allocation per call, which is small next to any real
//! store round trip.

/// A store could not do what was asked (as opposed to answering "no").
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store holds as many live entries as it is allowed to; it refuses new
    /// ones rather than forget live ones.
    #[error("store is full ({limit} live entries)")]
    Full {
        /// The configured limit.
        limit: usize,
    },
    /// The backing store failed (connection, I/O, corruption…).
    #[error("store backend failed: {0}")]
    Backend(crate::Reason),
}

impl StoreError {
    /// Who must act to get past it: always the operator (the store is full or its backend failed).
    pub fn party(&self) -> crate::Party {
        crate::Party::Operator
    }
}

crate::errors::party_predicates!(StoreError);
