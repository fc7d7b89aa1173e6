//! The per-request `_meta` every 2026-07-28 request carries, checked in the
//! order the conformance suite probes it: missing `_meta` or version
//! (`-32602`), unsupported version (`-32022`), missing capabilities
//! (`-32602`).

use frontdesk_wire::{
    ClientCapabilities, ErrorObject, LoggingLevel, ProgressToken, Revision, meta_key, version,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::server::api::error::RpcError;
use crate::server::contract::caps::ClientCaps;
use crate::server::contract::incoming::MetaFields;

/// What a valid request `_meta` says.
pub(crate) struct RequestMeta {
    /// The client capabilities of this request.
    pub(crate) capabilities: ClientCaps,
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
    let readable = meta.client_capabilities.as_deref().is_some_and(readable);
    let progress_token = meta.progress_token();
    let log_level = meta
        .log_level
        .as_ref()
        .and_then(|l| LoggingLevel::deserialize(l).ok());
    let capabilities = readable
        .then_some(meta.client_capabilities)
        .flatten()
        .map(ClientCaps::from_text)
        .ok_or_else(|| {
            RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::CLIENT_CAPABILITIES))
        })?;
    Ok(RequestMeta {
        capabilities,
        progress_token,
        log_level,
    })
}

/// Whether `caps` reads as the wire's `ClientCapabilities`, as its value
/// would: read from the text, and only when that fails from the value (a
/// member given twice is refused by the typed reading of text and taken
/// once, the last, by a value).
fn readable(caps: &RawValue) -> bool {
    serde_json::from_str::<ClientCapabilities>(caps.get()).is_ok()
        || serde_json::from_str::<Value>(caps.get())
            .is_ok_and(|v| ClientCapabilities::deserialize(&v).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::contract::caps::Elicitation;
    use serde_json::json;

    fn with_caps(text: &str) -> Result<RequestMeta, RpcError> {
        validate(Some(MetaFields {
            protocol_version: Some(json!("2026-07-28")),
            client_capabilities: Some(RawValue::from_string(text.into()).unwrap()),
            ..MetaFields::default()
        }))
    }

    #[test]
    fn capabilities_are_read_as_their_value_would_be() {
        // Twice the same member: the typed reading of the text refuses it,
        // a value keeps the last; the value decides, as before.
        let twice = with_caps(r#"{"elicitation":{"url":{}},"elicitation":{"form":{}}}"#)
            .map(|m| m.capabilities.declared().elicitation);
        assert_eq!(
            twice.ok().flatten(),
            Some(Elicitation::Object {
                form: true,
                url: false
            })
        );
        // Nested past serde_json's recursion limit: the text is kept (its
        // syntax is all that is checked when the request is read), and
        // neither reading takes it.
        let deep = format!(r#"{{"x":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        for unreadable in [
            r#"{"elicitation":5}"#,
            "[]",
            "null",
            r#"{"roots":[]}"#,
            &deep,
        ] {
            let e = with_caps(unreadable).err().map(|e| e.code().0);
            assert_eq!(e, Some(-32602), "{unreadable}");
        }
        let usual =
            with_caps(r#"{"elicitation":{"form":{}},"x":1}"#).map(|m| m.capabilities.to_value());
        assert_eq!(
            usual.ok(),
            Some(json!({"elicitation": {"form": {}}, "x": 1}))
        );
    }
}
