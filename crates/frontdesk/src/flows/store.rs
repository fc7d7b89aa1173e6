//! The flow store interface.

use std::time::Duration;

use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::model::{Flow, FlowError, FlowEvent, FlowId, NewFlow};
use crate::BoxFuture;

/// Keeps flows and their connect tokens, and tells subscribers when a flow
/// leaves `Pending`.
///
/// Dyn-compatible (methods return [`BoxFuture`]): the server holds
/// `Arc<dyn FlowStore>`. An implementation shared by several instances must
/// publish its events to every instance (e.g. Redis pub/sub), because the
/// instance holding a 2025-11-25 session may not be the one whose callback
/// completed the flow.
///
/// An expired flow does not exist: `get` returns `None` for it and every
/// operation on it is [`FlowError::NotFound`].
pub trait FlowStore: Send + Sync {
    /// Create a pending flow with a fresh random id.
    fn create(&self, new: NewFlow) -> BoxFuture<'_, Result<Flow, FlowError>>;

    /// The live flow with this id, if any.
    fn get<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Option<Flow>, FlowError>>;

    /// Mark a pending flow complete and publish it. Completing a complete flow
    /// returns it unchanged (idempotent, no second event); completing a failed
    /// one is [`FlowError::NotPending`].
    fn complete<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Flow, FlowError>>;

    /// Mark a pending flow failed and publish it. Failing a failed flow returns
    /// it unchanged; failing a complete one is [`FlowError::NotPending`].
    fn fail<'a>(&'a self, id: &'a FlowId, reason: String)
    -> BoxFuture<'a, Result<Flow, FlowError>>;

    /// Drop expired flows and connect tokens; pending flows that expire are
    /// published as `Failed { reason: "expired" }`. Returns how many flows went.
    /// Stores also do this on their own as they are used.
    fn purge_expired(&self) -> BoxFuture<'_, Result<usize, FlowError>>;

    /// Events for every flow that leaves `Pending` from now on.
    fn subscribe(&self) -> broadcast::Receiver<FlowEvent>;

    /// A single-use connect token for a pending flow of `principal`, valid for
    /// `ttl` but never past the flow's own expiry. Only its hash is stored.
    /// A flow of another principal is [`FlowError::NotFound`].
    fn issue_connect_token<'a>(
        &'a self,
        flow_id: &'a FlowId,
        principal: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<String, FlowError>>;

    /// Redeem a connect token, once. With `Some(principal)` (the person the
    /// page identified), it must be the flow's principal: a mismatch is
    /// [`FlowError::OtherPrincipal`] and leaves the token usable by its owner.
    /// `None` means the page cannot identify the person and the token alone is
    /// trusted (see the threat model in [`crate::flows`]).
    ///
    /// Every other refusal is [`FlowError::ConnectRejected`].
    fn redeem_connect_token<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<FlowId, FlowError>>;

    /// The live flow with this id if `principal` started it.
    fn get_for<'a>(
        &'a self,
        id: &'a FlowId,
        principal: &'a str,
    ) -> BoxFuture<'a, Result<Option<Flow>, FlowError>> {
        Box::pin(async move {
            Ok(self
                .get(id)
                .await?
                .filter(|flow| flow.is_owned_by(principal)))
        })
    }

    /// Wait up to `timeout` for the flow to leave `Pending`, then return it as
    /// it stands (still `Pending` on timeout). [`FlowError::NotFound`] if it does
    /// not exist or expires meanwhile.
    fn wait_for_completion<'a>(
        &'a self,
        id: &'a FlowId,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(wait_until_done(self, id, timeout, None))
    }
}

/// The body of [`FlowStore::wait_for_completion`]: wait for an event about
/// `id`, looking at the store again after each one, and also every `recheck`
/// when given (for stores whose events may be lost, e.g. while a pub/sub
/// connection is re-established).
pub(crate) async fn wait_until_done<S: FlowStore + ?Sized>(
    store: &S,
    id: &FlowId,
    timeout: Duration,
    recheck: Option<Duration>,
) -> Result<Flow, FlowError> {
    // Subscribe before looking, so a completion in between is not lost.
    let mut events = store.subscribe();
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let flow = store.get(id).await?.ok_or(FlowError::NotFound)?;
        if !flow.status.is_pending() {
            return Ok(flow);
        }
        loop {
            let now = tokio::time::Instant::now();
            let until = recheck.map_or(deadline, |r| deadline.min(now + r));
            match tokio::time::timeout_at(until, events.recv()).await {
                // Timed out: report the flow as it is now.
                Err(_) if until >= deadline => {
                    return store.get(id).await?.ok_or(FlowError::NotFound);
                }
                // Time to look again without an event.
                Err(_) => break,
                Ok(Ok(event)) if event.id == *id => break,
                Ok(Ok(_)) => {}
                // Missed events: look again.
                Ok(Err(RecvError::Lagged(_))) => break,
                // No more events will come; wait out the time, then look.
                Ok(Err(RecvError::Closed)) => {
                    tokio::time::sleep_until(until).await;
                    if until >= deadline {
                        return store.get(id).await?.ok_or(FlowError::NotFound);
                    }
                    break;
                }
            }
        }
    }
}
