//! What one server holds for every request: its registries, stores, tables
//! and configuration ([`ServerInner`]), and who made a request ([`Caller`]).

use std::sync::Arc;

use frontdesk_wire::{Implementation, JsonRpcMessage, JsonRpcNotification, Revision};
use serde_json::Value;

use crate::server::api::config::ServerConfig;
use crate::server::api::prompt::PromptRegistry;
use crate::server::api::resource_registry::ResourceRegistry;
use crate::server::api::tool::ToolRegistry;
use crate::server::engine::{drain, flow_port, invoke, load, notify, replies, states, tasks};
use crate::state::{NonceStore, StateSealer};

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `_meta` of every 2026-07-28 result (who answered), built once.
    pub(crate) info_meta: invoke::InfoMeta,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: ToolRegistry,
    pub(crate) prompts: PromptRegistry,
    pub(crate) resources: ResourceRegistry,
    /// Whether the server announces list changes (`listChanged`).
    pub(crate) list_changed: bool,
    pub(crate) subscribers: Arc<notify::Subscribers>,
    pub(crate) tasks: tasks::Tasks,
    pub(crate) states: states::States,
    pub(crate) config: ServerConfig,
    pub(crate) sealer: StateSealer,
    pub(crate) nonces: Option<Arc<dyn NonceStore>>,
    pub(crate) flows: flow_port::Flows,
    pub(crate) load: Arc<load::Load>,
    /// Replies of recent 2026-07-28 retries, by state id.
    pub(crate) retries: replies::RetryReplies,
    /// Whether the server is shutting down ([`Server::drain`](crate::server::Server::drain)).
    pub(crate) drain: drain::Drain,
    /// The one revision served, when limited to one
    /// ([`ServerBuilder::only_revision`](crate::server::ServerBuilder::only_revision)).
    pub(crate) only: Option<Revision>,
}

impl ServerInner {
    /// Whether requests of `revision` are served.
    pub(crate) fn serves(&self, revision: Revision) -> bool {
        self.only.is_none_or(|only| only == revision)
    }

    /// The revisions served, newest first, as `supportedVersions` lists them.
    pub(crate) fn supported_versions(&self) -> Vec<String> {
        frontdesk_wire::version::SUPPORTED
            .iter()
            .filter(|v| self.only.is_none_or(|only| only.as_str() == **v))
            .map(|v| (*v).to_string())
            .collect()
    }
}

/// Who made a request: the principal state is bound to, and the key its
/// quotas count against.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub(crate) principal: String,
    pub(crate) quota_key: String,
}

/// A notification whose params serialize from a wire type (`None`, logged,
/// if they do not serialize to an object, which the wire types always do).
pub(crate) fn typed_notification<P: serde::Serialize>(method: &str, params: &P) -> Option<Value> {
    match JsonRpcNotification::with_params(method, params) {
        Ok(n) => Some(JsonRpcMessage::from(n).to_value()),
        Err(e) => {
            tracing::error!(method, error = %e, "could not serialize a notification");
            None
        }
    }
}
