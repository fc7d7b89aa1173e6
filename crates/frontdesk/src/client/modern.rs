//! 2026-07-28: per-request `_meta`, `server/discover`, the `-32022` retry,
//! and the dual-era probe of MRTR C.3.

use frontdesk_wire::{
    ErrorCode, Implementation, Meta, ServerCapabilities, meta_key, method, version,
};
use serde_json::{Map, Value};

use super::connection::Core;
use super::error::ClientError;
use frontdesk_wire::Revision;

/// Modern versions this client speaks, best first.
const MODERN_VERSIONS: &[&str] = &[Revision::V2026_07_28.as_str()];

/// The `_meta` every 2026-07-28 request carries.
pub(crate) fn request_meta(core: &Core, version: &str) -> Meta {
    let caps = super::declared_capabilities(&core.config, core.elicitor.handler.modes());
    Meta::modern_request(version, &caps, Some(&core.config.client_info))
}

/// Put a fresh, complete `_meta` into `params`, keeping keys the caller set
/// (e.g. `progressToken`).
pub(super) fn with_meta(
    core: &Core,
    mut params: Map<String, Value>,
    version: &str,
) -> Map<String, Value> {
    let fresh = request_meta(core, version);
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    for (k, v) in fresh.0 {
        meta.insert(k, v);
    }
    params.insert("_meta".into(), Value::Object(meta));
    params
}

/// Send a 2026-07-28 request. On `-32022` the request is retried once with
/// a version from `data.supported` that this client speaks.
pub(crate) async fn request(
    core: &Core,
    method: &str,
    params: Map<String, Value>,
) -> Result<Map<String, Value>, ClientError> {
    request_with_timeout(core, method, params, core.config.request_timeout).await
}

pub(crate) async fn request_with_timeout(
    core: &Core,
    method: &str,
    params: Map<String, Value>,
    timeout: std::time::Duration,
) -> Result<Map<String, Value>, ClientError> {
    let first = with_meta(core, params.clone(), version::V2026_07_28);
    match core
        .request_with_timeout(method, Some(first), timeout)
        .await
    {
        Err(ClientError::Rpc(e)) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = e
                .unsupported_protocol_version_data()
                .and_then(Result::ok)
                .map(|d| d.supported)
                .unwrap_or_default();
            let Some(pick) = MODERN_VERSIONS
                .iter()
                .find(|v| supported.iter().any(|s| s == *v))
            else {
                return Err(ClientError::Rpc(e));
            };
            tracing::info!(
                version = pick,
                ?supported,
                "server rejected the version; retrying"
            );
            let retry = with_meta(core, params, pick);
            core.request_with_timeout(method, Some(retry), timeout)
                .await
        }
        other => other,
    }
}

/// What `server/discover` said.
#[derive(Debug, Clone, Default)]
pub(crate) struct Discovered {
    pub supported: Vec<String>,
    pub capabilities: Option<ServerCapabilities>,
    pub instructions: Option<String>,
    pub server: Option<Implementation>,
}

fn read_discover(result: &Map<String, Value>) -> Discovered {
    let supported = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let server = result
        .get("_meta")
        .and_then(|m| m.get(meta_key::SERVER_INFO))
        .or_else(|| result.get("serverInfo"))
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    Discovered {
        supported,
        capabilities: result
            .get("capabilities")
            .and_then(|v| serde_json::from_value(v.clone()).ok()),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(String::from),
        server,
    }
}

/// Remember what discovery said and mark the connection modern.
pub(crate) fn adopt(core: &Core, d: Discovered) {
    if let Some(server) = d.server {
        core.elicitor.set_server(server);
    }
    if let Ok(mut l) = core.learnt.write() {
        l.capabilities = d.capabilities;
        l.instructions = d.instructions;
        l.supported_versions = d.supported;
    }
    core.settle(Revision::V2026_07_28);
}

/// Result of the dual-era probe.
pub(crate) enum Probe {
    /// The server speaks 2026-07-28.
    Modern(Box<Discovered>),
    /// Fall back to `initialize`.
    Legacy(String),
}

/// `server/discover` as the first message (MRTR C.3): a result or a
/// recognised modern error means modern; anything else (another error, a
/// timeout, an unrecognised HTTP 400) means legacy. The fallback never keys
/// on one specific error code.
pub(crate) async fn probe(core: &Core) -> Result<Probe, ClientError> {
    match request_with_timeout(
        core,
        method::SERVER_DISCOVER,
        Map::new(),
        core.config.probe_timeout,
    )
    .await
    {
        Ok(result) => {
            let d = read_discover(&result);
            if d.supported
                .iter()
                .any(|v| MODERN_VERSIONS.contains(&v.as_str()))
                || d.supported.is_empty()
            {
                Ok(Probe::Modern(Box::new(d)))
            } else {
                Ok(Probe::Legacy(format!(
                    "server/discover lists only {:?}",
                    d.supported
                )))
            }
        }
        Err(ClientError::Rpc(e))
            if e.code == ErrorCode::HEADER_MISMATCH
                || e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY =>
        {
            Ok(Probe::Modern(Box::default()))
        }
        Err(ClientError::Rpc(e)) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
            // No modern version in common (the retry above already ran).
            let supported = e
                .unsupported_protocol_version_data()
                .and_then(Result::ok)
                .map(|d| d.supported)
                .unwrap_or_default();
            if supported.iter().any(|v| v == version::V2025_11_25) {
                Ok(Probe::Legacy("the server offers 2025-11-25".into()))
            } else {
                Err(ClientError::Rpc(e))
            }
        }
        Err(ClientError::Closed) => Err(ClientError::Closed),
        // Authorizing failed: the other revision would meet the same server.
        #[cfg(feature = "http-client")]
        Err(e @ ClientError::Auth(_)) => Err(e),
        Err(e) => Ok(Probe::Legacy(e.to_string())),
    }
}

/// `server/discover` when the revision is configured: errors are logged, not
/// fatal (the method is optional for clients).
pub(crate) async fn discover_optional(core: &Core) -> Result<(), ClientError> {
    match request(core, method::SERVER_DISCOVER, Map::new()).await {
        Ok(result) => adopt(core, read_discover(&result)),
        Err(ClientError::Closed) => return Err(ClientError::Closed),
        Err(e) => {
            tracing::info!(error = %e, "server/discover failed; continuing with 2026-07-28");
            adopt(core, Discovered::default());
        }
    }
    Ok(())
}
