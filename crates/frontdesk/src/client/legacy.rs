//! 2025-11-25: the `initialize` handshake, and turning a `-32042`
//! (`URLElicitationRequiredError`) into the URL flows it lists and a retry of
//! the original call once the person is done. Live `elicitation/create`
//! requests are served by the connection core.

use frontdesk_wire::{
    ElicitAction, ElicitRequestParams, ErrorCode, InitializeRequestParams, InitializeResult,
    method, version,
};
use serde_json::{Map, Value};

use super::config::Notice;
use super::connection::Core;
use super::elicit::Outcome;
use super::error::ClientError;
use frontdesk_wire::Revision;

/// How often one call may be retried after `-32042`.
const MAX_URL_RETRIES: u32 = 3;

/// Run `initialize` → `notifications/initialized`, and learn the server.
pub(crate) async fn initialize(core: &Core) -> Result<(), ClientError> {
    let mut caps = super::declared_capabilities(&core.config, core.elicitor.handler.modes());
    // The tasks extension (SEP-2663) belongs to 2026-07-28; 2025-11-25 has
    // its own, different tasks surface, which this client does not speak.
    if let Some(ext) = caps.extensions.as_mut() {
        ext.remove(frontdesk_wire::extension::TASKS);
        if ext.is_empty() {
            caps.extensions = None;
        }
    }
    let params =
        InitializeRequestParams::new(version::V2025_11_25, caps, core.config.client_info.clone());
    let params = super::to_object(&params)?;
    let result = core.request(method::INITIALIZE, Some(params)).await?;
    let init: InitializeResult =
        serde_json::from_value(Value::Object(result.clone())).map_err(|e| {
            ClientError::Protocol(crate::Reason::from(format!("bad initialize result: {e}")))
        })?;
    if !version::HANDSHAKE.contains(&init.protocol_version.as_str()) {
        return Err(ClientError::Protocol(crate::Reason::from(format!(
            "the server answered initialize with version {}, which this client does not speak",
            init.protocol_version
        ))));
    }
    core.elicitor.set_server(init.server_info.clone());
    if let Ok(mut l) = core.learnt.write() {
        l.capabilities = Some(init.capabilities.clone());
        l.instructions.clone_from(&init.instructions);
    }
    core.settle(Revision::V2025_11_25);
    core.notify(method::INITIALIZED, None).await?;
    core.transport.initialized(&init.protocol_version).await;
    tracing::info!(server = %init.server_info.name, version = %init.protocol_version, "initialized");
    Ok(())
}

/// Send a request; on `-32042`, run the listed URL flows and retry.
pub(crate) async fn request(
    core: &Core,
    method: &str,
    params: Map<String, Value>,
    label: &str,
) -> Result<Map<String, Value>, ClientError> {
    let _call = core.call_started(label);
    let mut retries = 0;
    loop {
        match core.request(method, Some(params.clone())).await {
            Err(ClientError::Rpc(e))
                if e.code == ErrorCode::URL_ELICITATION_REQUIRED && retries < MAX_URL_RETRIES =>
            {
                retries += 1;
                let Some(Ok(data)) = e.url_elicitation_required_data() else {
                    return Err(ClientError::Rpc(e));
                };
                core.config.notice(Notice::UrlRequired {
                    count: data.elicitations.len(),
                });
                let ids: Vec<String> = data
                    .elicitations
                    .iter()
                    .filter_map(|p| p.elicitation_id.clone())
                    .collect();
                if ids.len() != data.elicitations.len() || ids.is_empty() {
                    return Err(ClientError::Rpc(e));
                }
                for id in &ids {
                    core.urls.expect(id);
                }
                if !run_url_flows(core, label, &data.elicitations).await {
                    core.urls.forget(&ids);
                    return Err(ClientError::Rpc(e));
                }
                let done = {
                    let _busy = core.elicitor.human.start();
                    tokio::time::timeout(core.config.human_wait, core.urls.wait_all(&ids)).await
                };
                core.urls.forget(&ids);
                if done.is_err() {
                    tracing::warn!("URL flows did not complete within the human-wait budget");
                    return Err(ClientError::Rpc(e));
                }
                tracing::info!(method, "URL flows complete; retrying the call");
            }
            other => return other,
        }
    }
}

/// Ask the person about each URL; `true` when every one was accepted.
async fn run_url_flows(
    core: &Core,
    label: &str,
    flows: &[frontdesk_wire::ElicitRequestUrlParams],
) -> bool {
    for p in flows {
        let key = p.elicitation_id.clone().unwrap_or_default();
        let params = ElicitRequestParams::Url(p.clone());
        let outcome = core
            .elicitor
            .elicit(
                Some(label.to_string()),
                key,
                &params,
                core.closed.child_token(),
            )
            .await;
        match outcome {
            Outcome::Answer(r) if r.action == ElicitAction::Accept => {}
            _ => return false,
        }
    }
    true
}
