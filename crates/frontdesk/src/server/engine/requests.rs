//! What serving a request needs on either revision: typed params with the
//! server's wording for the common mistakes, finding the tool, prompt or
//! resource, the listings, and the capabilities the server declares.

use std::sync::Arc;

use frontdesk_wire::{
    ErrorCode, ListChangedCapability, ParamsError, Prompt, RequestId, ResourcesCapability,
    Revision, ServerCapabilities, extension, method,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::server::api::error::RpcError;
use crate::server::api::prompt::PromptDef;
use crate::server::api::tool::ToolDef;
use crate::server::engine::inner::ServerInner;

/// A request's result object, or the error it is answered with.
pub(crate) type Reply = Result<ResultJson, RpcError>;

/// A result object serialized once, from its typed value: the `result` of
/// the response, written as it is.
pub(crate) type ResultJson = Box<serde_json::value::RawValue>;

/// A request whose params its serving step reads as a JSON object: every
/// method but a `tools/call` read in its typed form.
pub(crate) struct ObjectRequest<'a> {
    pub(crate) id: &'a RequestId,
    pub(crate) method: &'a str,
    /// The params (`None` when absent or `null`).
    pub(crate) params: Option<Map<String, Value>>,
}

impl ObjectRequest<'_> {
    /// The params as `P` (absent params read as `{}`).
    pub(crate) fn parse_params<P: DeserializeOwned>(&self) -> Result<P, ParamsError> {
        frontdesk_wire::parse_params(self.method, self.params.as_ref())
    }
}

/// The typed params of `request`, or the `-32602` naming what is wrong. The
/// wire type decides; the common mistakes keep the server's short wording.
pub(crate) fn params<P: DeserializeOwned>(request: &ObjectRequest<'_>) -> Result<P, RpcError> {
    request.parse_params().map_err(|e: ParamsError| {
        let raw = |key: &str| request.params.as_ref().and_then(|p| p.get(key));
        let detail = match request.method {
            method::INITIALIZE if !raw("protocolVersion").is_some_and(Value::is_string) => {
                "protocolVersion is required"
            }
            method::INITIALIZE => return RpcError::invalid_params(e.to_string()),
            method::RESOURCES_READ if !raw("uri").is_some_and(Value::is_string) => {
                "uri is required"
            }
            method::RESOURCES_READ => return RpcError::invalid_params(e.to_string()),
            _ if !raw("name").is_some_and(Value::is_string) => "name is required",
            _ if raw("arguments").is_some_and(|a| !(a.is_object() || a.is_null())) => {
                "arguments must be an object"
            }
            _ => return RpcError::invalid_params(e.to_string()),
        };
        RpcError::invalid_params(format!("Invalid params: {detail}"))
    })
}

/// The typed params of `request`, or `-32602` with the reader's reason.
pub(crate) fn typed<P: DeserializeOwned>(request: &ObjectRequest<'_>) -> Result<P, RpcError> {
    request
        .parse_params()
        .map_err(|e: ParamsError| RpcError::invalid_params(format!("Invalid params: {e}")))
}

/// A read of a URI no resource or template answers: `-32002` on
/// 2025-11-25, `-32602` on 2026-07-28; the URI in `data`.
pub(crate) fn resource_not_found(uri: &str, revision: Revision) -> RpcError {
    let code = match revision {
        Revision::V2025_11_25 => ErrorCode::RESOURCE_NOT_FOUND,
        Revision::V2026_07_28 => ErrorCode::INVALID_PARAMS,
    };
    RpcError::new(code, "Resource not found").with_data(json!({"uri": uri}))
}

/// `-32602` for a client's resource URI longer than
/// [`ServerConfig::max_uri_bytes`](crate::server::api::config::ServerConfig::max_uri_bytes),
/// checked before any lookup or template matching.
pub(crate) fn check_uri_length(server: &ServerInner, uri: &str) -> Result<(), RpcError> {
    let limit = server.config.max_uri_bytes;
    if uri.len() > limit {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: resource URI is {} bytes; the limit is {limit} \
             (ServerConfig::max_uri_bytes)",
            uri.len()
        )));
    }
    Ok(())
}

/// Whether `completion/complete` is served (some prompt or template has a
/// completion handler).
pub(crate) fn has_completions(server: &ServerInner) -> bool {
    server.prompts.has_completions() || server.resources.has_completions()
}

/// Whether there is anything to subscribe to (resources, or lists the server
/// announces changes of).
pub(crate) fn has_subscriptions(server: &ServerInner) -> bool {
    !server.resources.is_empty() || server.list_changed
}

/// The tool a `tools/call` named (found when the request was read), or the
/// `-32602` for a name no tool has.
pub(crate) fn known_tool(tool: Option<Arc<ToolDef>>, name: &str) -> Result<Arc<ToolDef>, RpcError> {
    tool.ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))
}

pub(crate) fn find_prompt(server: &ServerInner, name: &str) -> Result<Arc<PromptDef>, RpcError> {
    server
        .prompts
        .find(name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))
}

pub(crate) fn prompt_listing(server: &ServerInner) -> Vec<Prompt> {
    server.prompts.listing()
}

/// What the server declares: tools, prompts and resources when it has them
/// (`listChanged` when it announces list changes; resource subscriptions
/// always), `completions` when some argument can be completed, `logging`
/// on 2025-11-25 (2026-07-28 clients ask for logs per request), and on
/// 2026-07-28 the Tasks extension when a tool may continue as a task.
pub(crate) fn capabilities(server: &ServerInner, revision: Revision) -> ServerCapabilities {
    let list_changed = server.list_changed.then_some(true);
    let lists = || ListChangedCapability {
        list_changed,
        ..ListChangedCapability::default()
    };
    let tasks = revision == Revision::V2026_07_28 && server.tools.has_tasks();
    ServerCapabilities {
        tools: (!server.tools.is_empty()).then(lists),
        prompts: (!server.prompts.is_empty()).then(lists),
        resources: (!server.resources.is_empty()).then(|| ResourcesCapability {
            subscribe: Some(true),
            list_changed,
            ..ResourcesCapability::default()
        }),
        logging: (revision == Revision::V2025_11_25).then(Map::new),
        completions: has_completions(server).then(Map::new),
        extensions: tasks.then(|| {
            let mut e = Map::new();
            e.insert(extension::TASKS.into(), Value::Object(Map::new()));
            e
        }),
        ..ServerCapabilities::default()
    }
}
