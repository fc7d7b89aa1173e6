//! The per-request `_meta` every 2026-07-28 request carries, checked in the
//! order the conformance suite probes it: missing `_meta` or version
//! (`-32602`), unsupported version (`-32022`), missing capabilities
//! (`-32602`).

use frontdesk_wire::{
    ClientCapabilities, ErrorObject, LoggingLevel, ProgressToken, Revision, meta_key, version,
};
use serde::Deserialize;
use serde_json::Value;

use crate::server::api::error::RpcError;
use crate::server::contract::incoming::MetaFields;

/// What a valid request `_meta` says.
pub(crate) struct RequestMeta {
    /// The client capabilities of this request.
    pub(crate) capabilities: Value,
    pub(crate) progress_token: Option<ProgressToken>,
    /// The lowest level the client wants log messages at, if any.
    pub(crate) log_level: Option<LoggingLevel>,
}

/// Check the `_meta` of a 2026-07-28 request (`None`: absent, or not an
/// object) and take its client capabilities (the round keeps them).
pub(crate) fn validate(meta: Option<MetaFields>) -> Result<RequestMeta, RpcError> {
    let meta = meta.ok_or_else(|| RpcError::missing_meta("_meta"))?;
    let requested = meta.version().ok_or_else(|| {
        RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::PROTOCOL_VERSION))
    })?;
    if requested != Revision::V2026_07_28.as_str() {
        return Err(ErrorObject::unsupported_protocol_version(
            requested,
            version::SUPPORTED.iter().copied(),
        )
        .into());
    }
    let readable = meta
        .client_capabilities
        .as_ref()
        .is_some_and(|c| ClientCapabilities::deserialize(c).is_ok());
    let progress_token = meta.progress_token();
    let log_level = meta
        .log_level
        .as_ref()
        .and_then(|l| LoggingLevel::deserialize(l).ok());
    let capabilities = readable
        .then_some(meta.client_capabilities)
        .flatten()
        .ok_or_else(|| {
            RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::CLIENT_CAPABILITIES))
        })?;
    Ok(RequestMeta {
        capabilities,
        progress_token,
        log_level,
    })
}
