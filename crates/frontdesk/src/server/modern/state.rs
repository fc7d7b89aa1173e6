//! What a 2026-07-28 call carries from round to round, sealed into its
//! `requestState`: the answers so far (each pinned to a digest of its exact
//! question), the questions just asked, the URL flows in progress, and the
//! results of steps run [`once`](crate::server::ToolContext::once).
//!
//! The state is sealed (encrypted and authenticated) and bound to the
//! principal and to the request (method, name, arguments); every failure to
//! open it is the same `-32602`.

use std::time::SystemTime;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::server::ServerInner;
use crate::server::error::RpcError;
use crate::state::{Binding, RedeemError, RequestDigest, open_single_use};

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

/// The sealed payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundState {
    /// Answers so far, by question key.
    #[serde(default)]
    pub(crate) answers: IndexMap<String, RecordedAnswer>,
    /// Questions asked in the last round: key → question digest.
    #[serde(default)]
    pub(crate) pending: IndexMap<String, String>,
    /// URL flows, by question key.
    #[serde(default)]
    pub(crate) flows: IndexMap<String, FlowRef>,
    /// Results of `once` steps, by step key.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub(crate) once: IndexMap<String, Value>,
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

/// Open the state of a retry (redeeming it, when single use is on); every
/// failure is [`rejected`].
pub(crate) async fn open(
    server: &ServerInner,
    token: &str,
    binding: &Binding,
) -> Result<RoundState, RpcError> {
    let opened = match &server.nonces {
        Some(store) => open_single_use(
            &server.sealer,
            store.as_ref(),
            token,
            binding,
            SystemTime::now(),
        )
        .await
        .map_err(|e| match e {
            RedeemError::Store(e) => {
                tracing::error!(error = %e, "nonce store failed");
                RpcError::internal("Internal error: request state store unavailable")
            }
            _ => rejected(),
        })?,
        None => server
            .sealer
            .open(token, binding, SystemTime::now())
            .map_err(|_| rejected())?,
    };
    serde_json::from_value(opened.into_payload()).map_err(|_| rejected())
}

/// Seal `state` for the next round.
pub(crate) fn seal(
    server: &ServerInner,
    state: &RoundState,
    binding: &Binding,
) -> Result<String, RpcError> {
    let payload = serde_json::to_value(state).map_err(|e| {
        tracing::error!(error = %e, "could not serialize request state");
        RpcError::internal("Internal error: could not seal request state")
    })?;
    server
        .sealer
        .seal(binding, &payload, server.config.state_ttl)
        .map_err(|e| {
            tracing::error!(error = %e, "could not seal request state");
            RpcError::internal("Internal error: could not seal request state")
        })
}
