//! What serving a request needs on either revision: typed params with the
//! server's wording for the common mistakes, finding the tool or prompt, the
//! listings, and the capabilities the server declares.

use frontdesk_wire::{
    JsonRpcRequest, ListChangedCapability, ParamsError, Prompt, Revision, ServerCapabilities,
    method,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::ServerInner;
use super::error::RpcError;
use super::prompt::PromptDef;
use super::tool::ToolDef;

/// A request's result object, or the error it is answered with.
pub(crate) type Reply = Result<Map<String, Value>, RpcError>;

/// The typed params of `request`, or the `-32602` naming what is wrong. The
/// wire type decides; the common mistakes keep the server's short wording.
pub(crate) fn params<P: DeserializeOwned>(request: &JsonRpcRequest) -> Result<P, RpcError> {
    request.parse_params().map_err(|e: ParamsError| {
        let raw = |key: &str| request.params.as_ref().and_then(|p| p.get(key));
        let detail = match request.method.as_str() {
            method::INITIALIZE if !raw("protocolVersion").is_some_and(Value::is_string) => {
                "protocolVersion is required"
            }
            method::INITIALIZE => return RpcError::invalid_params(e.to_string()),
            _ if !raw("name").is_some_and(Value::is_string) => "name is required",
            _ if raw("arguments").is_some_and(|a| !(a.is_object() || a.is_null())) => {
                "arguments must be an object"
            }
            _ => return RpcError::invalid_params(e.to_string()),
        };
        RpcError::invalid_params(format!("Invalid params: {detail}"))
    })
}

pub(crate) fn find_tool<'a>(server: &'a ServerInner, name: &str) -> Result<&'a ToolDef, RpcError> {
    server
        .tools
        .get(name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))
}

pub(crate) fn find_prompt<'a>(
    server: &'a ServerInner,
    name: &str,
) -> Result<&'a PromptDef, RpcError> {
    server
        .prompts
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))
}

pub(crate) fn prompt_listing(server: &ServerInner) -> Vec<Prompt> {
    server.prompts.iter().map(PromptDef::to_listing).collect()
}

/// What the server declares: tools and prompts when it has them; `logging`
/// on 2025-11-25 (2026-07-28 clients ask for logs per request).
pub(crate) fn capabilities(server: &ServerInner, revision: Revision) -> ServerCapabilities {
    ServerCapabilities {
        tools: (!server.tools.is_empty()).then(ListChangedCapability::default),
        prompts: (!server.prompts.is_empty()).then(ListChangedCapability::default),
        logging: (revision == Revision::V2025_11_25).then(Map::new),
        ..ServerCapabilities::default()
    }
}
