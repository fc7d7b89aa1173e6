//! What a held call runs upstream: a tool call, a prompt's `prompts/get`
//! or a resource's `resources/read`. Each may carry the upstream's
//! questions to the client in front (see `held`); each ends with its own
//! kind of result.

use frontdesk::client::{CallOptions, Client, ClientError};
use frontdesk::wire::{CallToolResult, GetPromptResult, ReadResourceResult};
use serde_json::{Map, Value};

/// One upstream request a held call runs.
pub(crate) enum Upstream {
    /// `tools/call`.
    Tool {
        name: String,
        arguments: Map<String, Value>,
    },
    /// `prompts/get`.
    Prompt {
        name: String,
        arguments: Map<String, Value>,
    },
    /// `resources/read`.
    Resource { uri: String },
}

/// What an upstream request ended with.
pub(crate) enum Finished {
    Tool(CallToolResult),
    Prompt(GetPromptResult),
    Resource(ReadResourceResult),
}

impl Upstream {
    /// How the audit names it: a tool by its name, `prompt NAME`,
    /// `resource URI`.
    pub(crate) fn label(&self) -> String {
        match self {
            Self::Tool { name, .. } => name.clone(),
            Self::Prompt { name, .. } => format!("prompt {name}"),
            Self::Resource { uri } => format!("resource {uri}"),
        }
    }

    /// Send it on `client` (progress and logs of a tool call through
    /// `options`) and wait for its end, its questions answered meanwhile.
    pub(crate) async fn run(
        self,
        client: &Client,
        options: CallOptions,
    ) -> Result<Finished, ClientError> {
        match self {
            Self::Tool { name, arguments } => client
                .call_tool_with(&name, Value::Object(arguments), options)
                .await
                .map(Finished::Tool),
            Self::Prompt { name, arguments } => client
                .get_prompt(&name, Some(arguments))
                .await
                .map(Finished::Prompt),
            Self::Resource { uri } => client.read_resource(&uri).await.map(Finished::Resource),
        }
    }
}
