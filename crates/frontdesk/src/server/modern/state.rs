//! What a 2026-07-28 call carries from round to round, sealed into its
//! `requestState`: the answers so far (each pinned to a digest of its exact
//! question), the questions just asked, the URL flows in progress, and the
//! results of steps run [`once`](crate::server::api::context::ToolContext::once).
//!
//! The state is sealed (encrypted and authenticated) and bound to the
//! principal and to the request (method, name, arguments); every failure to
//! open it is the same `-32602`.

use std::time::SystemTime;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::server::api::error::RpcError;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::requests::Reply;
use crate::state::{Binding, Redemption, RequestDigest, StateId};

/// An answer carried from an earlier round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedAnswer {
    /// Digest of the question it answers.
    #[serde(rename = "d")]
    pub(crate) digest: String,
    /// The client's (validated) result.
    #[serde(rename = "r")]
    pub(crate) result: Value,
}

/// A URL flow started in an earlier round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FlowRef {
    /// The flow id.
    pub(crate) id: String,
    /// The URL the person was sent to.
    pub(crate) url: String,
}

/// A map of the state keyed by the handler's own keys (question and step
/// keys), in the order they were added: keys from the server's code or from
/// an authenticated state, never of a client's choosing
/// ([`OwnKeysHasher`](crate::server::OwnKeysHasher)).
pub(crate) type Keyed<V> = IndexMap<String, V, crate::server::OwnKeysHasher>;

/// The sealed payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundState {
    /// Answers so far, by question key.
    #[serde(default)]
    pub(crate) answers: Keyed<RecordedAnswer>,
    /// Questions asked in the last round: key → question digest.
    #[serde(default)]
    pub(crate) pending: Keyed<String>,
    /// URL flows, by question key.
    #[serde(default)]
    pub(crate) flows: Keyed<FlowRef>,
    /// Results of `once` steps, by step key.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) once: Keyed<Value>,
    /// Who the call's states are charged to in the nonce store: the quota
    /// key of the client that started the call, carried unchanged from
    /// round to round (so presenting a state from elsewhere changes nothing).
    #[serde(rename = "o", default, skip_serializing_if = "String::is_empty")]
    pub(crate) owner: String,
    /// The trace context of the round that asked (only while traces are
    /// exported), so the call's rounds are one trace.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<crate::server::trace::Carried>,
}

/// The one error every unacceptable `requestState` gets.
pub(crate) fn rejected() -> RpcError {
    RpcError::invalid_params("Invalid params: requestState is invalid or expired")
}

/// What a state is bound to: the principal and the request.
pub(crate) fn binding(principal: &str, method: &str, name: &str, arguments: &Value) -> Binding {
    Binding::new(
        principal,
        RequestDigest::new(method, Some(name), Some(arguments)),
    )
}

/// A retry's state, opened (authentic, unexpired, bound to this request)
/// but not yet redeemed.
pub(crate) struct Opened {
    pub(crate) id: StateId,
    issued_at: u64,
    expires_at: u64,
    pub(crate) state: RoundState,
}

/// Open the state of a retry; every failure is [`rejected`].
pub(crate) fn open(
    server: &ServerInner,
    token: &str,
    binding: &Binding,
) -> Result<Opened, RpcError> {
    let opened = server
        .sealer
        .open_for_reason::<RoundState>(token, binding, SystemTime::now())
        .map_err(|reason| {
            crate::metrics::state_refused(reason);
            rejected()
        })?;
    let (id, issued_at, expires_at) = (opened.state_id(), opened.issued_at(), opened.expires_at());
    let state = opened.into_payload();
    crate::metrics::state("opened");
    Ok(Opened {
        id,
        issued_at,
        expires_at,
        state,
    })
}

impl Opened {
    /// Count the time the person took for this round's questions, which went
    /// out when the state was sealed (none when it asked nothing).
    pub(crate) fn record_answer_time(&self) {
        if self.state.pending.is_empty() {
            return;
        }
        let now = crate::clock::unix_secs(SystemTime::now());
        let took = std::time::Duration::from_secs(now.saturating_sub(self.issued_at));
        crate::metrics::answer_time(frontdesk_wire::Revision::V2026_07_28, took);
    }
}

/// How a retry's state was redeemed.
pub(crate) enum Redeemed {
    /// Now, by this request: run the round.
    Now,
    /// Before, by the same retry on another instance, whose reply this is.
    Elsewhere(Reply),
}

/// Redeem an opened state (when single use is on), charged to its owner: a
/// state already redeemed is [`rejected`], unless the instance that
/// redeemed it lost the request and kept its reply in the shared store.
pub(crate) async fn redeem(server: &ServerInner, opened: &Opened) -> Result<Redeemed, RpcError> {
    let Some(store) = &server.nonces else {
        return Ok(Redeemed::Now);
    };
    let redemption = Redemption::of_parts(opened.id, opened.issued_at, opened.expires_at)
        .owner(&opened.state.owner);
    let redeemed = crate::metrics::timed_store("redeem", store.redeem_for(redemption)).await;
    match redeemed {
        Ok(true) => Ok(Redeemed::Now),
        Ok(false) => {
            if let Some(reply) = super::elsewhere::reply(server, opened.id).await {
                tracing::debug!("a retry another instance ran: its kept reply");
                crate::metrics::state("resent");
                return Ok(Redeemed::Elsewhere(reply));
            }
            tracing::debug!(reason = "replayed", "request state rejected");
            crate::metrics::state_refused("replayed");
            Err(rejected())
        }
        Err(e) => {
            tracing::error!(error = %e, "nonce store failed");
            Err(RpcError::internal(
                "Internal error: request state store unavailable",
            ))
        }
    }
}

/// Seal `state` for the next round.
pub(crate) fn seal(
    server: &ServerInner,
    state: &RoundState,
    binding: &Binding,
) -> Result<String, RpcError> {
    server
        .sealer
        .seal(binding, state, server.config.state_ttl)
        .inspect(|_| crate::metrics::state("sealed"))
        .map_err(|e| {
            tracing::error!(error = %e, "could not seal request state");
            RpcError::internal("Internal error: could not seal request state")
        })
}
