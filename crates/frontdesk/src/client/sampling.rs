//! The other two things a server may ask a client for, next to elicitation:
//! a model completion (`sampling/createMessage`) and the client's roots
//! (`roots/list`), on both revisions (a live request on 2025-11-25, an
//! `inputRequests` entry on 2026-07-28), each served by its own handler.
//!
//! The client declares `sampling` only with a [`SamplingHandler`] and
//! `roots` only with a [`RootsHandler`]. A sampling request the person
//! rejects, or that no model can answer, is refused: a JSON-RPC error on
//! 2025-11-25 (code `-1`, as the spec's example), the end of the call on
//! 2026-07-28 (whose `inputResponses` have no place for a refusal). Never a
//! made-up completion.

use std::sync::Arc;

use frontdesk_wire::{CreateMessageRequestParams, CreateMessageResult, ListRootsResult, Root};
use tokio_util::sync::CancellationToken;

use super::handler::ElicitationOrigin;
use crate::BoxFuture;

/// One request for a completion, for the person to approve.
#[derive(Debug, Clone)]
pub struct SamplingRequest {
    /// Who asks and for which call.
    pub origin: ElicitationOrigin,
    /// What the server wants sampled: the messages, system prompt, limits.
    pub params: CreateMessageRequestParams,
    /// Fires when the request is withdrawn: stop, answer nothing.
    pub cancelled: CancellationToken,
}

/// What became of a sampling request.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingResponse {
    /// The approved completion.
    Completed(CreateMessageResult),
    /// The person rejected the request (the reason is told to the server).
    Rejected(String),
    /// Nothing here can answer it (no model): the reason is told to the server.
    Unavailable(String),
}

/// Answers `sampling/createMessage`, with the person in the loop.
pub trait SamplingHandler: Send + Sync {
    /// Show the request, get the person's approval, and sample (or refuse).
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, SamplingResponse>;

    /// Whether `sampling` is declared, and served, now. The default: always.
    /// A relay answering for another client (a gateway) says `false` while
    /// that client did not declare it; a request then is treated as if no
    /// handler were set (`-32601` on 2025-11-25, the call ends on
    /// 2026-07-28). Asked for each 2026-07-28 request's capabilities and
    /// each request served.
    fn declared(&self) -> bool {
        true
    }
}

/// Answers `roots/list`.
pub trait RootsHandler: Send + Sync {
    /// The roots to tell the server about.
    fn roots(&self) -> BoxFuture<'_, Vec<Root>>;

    /// The roots, or why there are none to give (told to the server: a
    /// JSON-RPC error on 2025-11-25, the end of the call on 2026-07-28).
    /// The default is [`roots`](Self::roots); a relay whose own client may
    /// fail says so here rather than invent an empty list.
    fn try_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, String>> {
        Box::pin(async move { Ok(self.roots().await) })
    }

    /// Whether `roots` is declared, and served, now; as
    /// [`SamplingHandler::declared`].
    fn declared(&self) -> bool {
        true
    }
}

/// A fixed list of roots (e.g. from configuration).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StaticRoots(pub Vec<Root>);

impl RootsHandler for StaticRoots {
    fn roots(&self) -> BoxFuture<'_, Vec<Root>> {
        Box::pin(async move { self.0.clone() })
    }
}

/// Why a server's sampling or roots request was not answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// No handler: the capability was not declared.
    NotDeclared,
    /// The handler refused, with this reason.
    Refused(String),
    /// The request was withdrawn.
    Withdrawn,
}

/// Serve one sampling request through `handler`.
pub(crate) async fn sample(
    handler: Option<&Arc<dyn SamplingHandler>>,
    request: SamplingRequest,
) -> Result<CreateMessageResult, Refusal> {
    let Some(handler) = handler.filter(|h| h.declared()) else {
        return Err(Refusal::NotDeclared);
    };
    let cancelled = request.cancelled.clone();
    let response = tokio::select! {
        r = handler.sample(request) => r,
        () = cancelled.cancelled() => return Err(Refusal::Withdrawn),
    };
    match response {
        SamplingResponse::Completed(result) => Ok(result),
        SamplingResponse::Rejected(reason) => {
            tracing::info!(%reason, "sampling request rejected");
            Err(Refusal::Refused(reason))
        }
        SamplingResponse::Unavailable(reason) => {
            tracing::info!(%reason, "sampling request cannot be answered");
            Err(Refusal::Refused(reason))
        }
    }
}

/// Serve one roots request through `handler`.
pub(crate) async fn list_roots(
    handler: Option<&Arc<dyn RootsHandler>>,
) -> Result<ListRootsResult, Refusal> {
    let Some(handler) = handler.filter(|h| h.declared()) else {
        return Err(Refusal::NotDeclared);
    };
    Ok(ListRootsResult {
        roots: handler.try_roots().await.map_err(Refusal::Refused)?,
        meta: None,
        extra: serde_json::Map::new(),
    })
}
