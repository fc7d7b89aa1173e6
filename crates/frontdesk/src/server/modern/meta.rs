//! The per-request `_meta` every 2026-07-28 request carries, checked in the
//! order the conformance suite probes it: missing `_meta` or version
//! (`-32602`), unsupported version (`-32022`), missing capabilities
//! (`-32602`).

use frontdesk_wire::{
    ErrorObject, LoggingLevel, MetaRef, ProgressToken, Revision, meta_key, version,
};
use serde_json::{Map, Value};

use crate::server::api::error::RpcError;

/// What a valid request `_meta` says.
pub(crate) struct RequestMeta {
    /// The client capabilities of this request.
    pub(crate) capabilities: Value,
    pub(crate) progress_token: Option<ProgressToken>,
    /// The lowest level the client wants log messages at, if any.
    pub(crate) log_level: Option<LoggingLevel>,
}

/// Check `params._meta` of a 2026-07-28 request, and take its client
/// capabilities out of it (the round keeps them; nothing reads them from
/// the params again).
pub(crate) fn validate(meta: Option<&mut Map<String, Value>>) -> Result<RequestMeta, RpcError> {
    let meta = meta.ok_or_else(|| RpcError::missing_meta("_meta"))?;
    let view = MetaRef(meta);
    let requested = view.protocol_version().ok_or_else(|| {
        RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::PROTOCOL_VERSION))
    })?;
    if requested != Revision::V2026_07_28.as_str() {
        return Err(ErrorObject::unsupported_protocol_version(
            requested,
            version::SUPPORTED.iter().copied(),
        )
        .into());
    }
    let readable = matches!(view.client_capabilities(), Some(Ok(_)));
    let progress_token = view.progress_token().and_then(Result::ok);
    let log_level = view.log_level().and_then(Result::ok);
    let capabilities = readable
        .then(|| meta.shift_remove(meta_key::CLIENT_CAPABILITIES))
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
