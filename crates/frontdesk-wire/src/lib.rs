//! frontdesk wire layer: JSON-RPC 2.0 and the MCP messages (tools, prompts,
//! resources, completion, subscriptions, elicitation, sampling, roots, and
//! the Tasks extension) for protocol revisions 2025-11-25 and 2026-07-28,
//! as plain serde types.
//!
//! No async, no I/O, no decisions: this crate only reads and writes messages.
//!
//! ```
//! use frontdesk_wire::{
//!     method, CallToolRequestParams, CallToolResult, ElicitRequestParams, InputRequests,
//!     InputRequiredResult, JsonRpcMessage, JsonRpcResponse, MaybeInputRequired,
//! };
//!
//! // Classify one incoming line; the runtime dispatches on the method.
//! let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_issue"}}"#;
//! let JsonRpcMessage::Request(request) = line.parse::<JsonRpcMessage>()? else { panic!() };
//! assert_eq!(request.method, method::TOOLS_CALL);
//! let params: CallToolRequestParams = request.parse_params()?;
//! assert_eq!(params.name, "create_issue");
//!
//! // A 2026-07-28 server answers with a form elicitation instead of a result.
//! let schema = serde_json::json!({"type": "object", "properties": {}});
//! let ask = ElicitRequestParams::form("Which repository?", schema.as_object().cloned().unwrap_or_default());
//! let interim = InputRequiredResult::new(Some(InputRequests::new().with("repo", ask)), None);
//! let response = JsonRpcResponse::with_result(request.id.clone(), &interim)?;
//!
//! // The client tells the two kinds of result apart.
//! match response.parse_result::<MaybeInputRequired<CallToolResult>>()? {
//!     MaybeInputRequired::InputRequired(r) => assert!(r.input_requests.is_some()),
//!     _ => unreachable!(),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Conventions:
//!
//! - Every struct keeps members it does not know in `extra`, so parse → serialize
//!   round-trips; optional members are skipped when `None`.
//! - `_meta` is a [`Meta`] with typed accessors for the keys in [`meta_key`].
//! - Envelope `params`/`result` stay JSON objects; typed parameters parse out of
//!   them per method ([`JsonRpcRequest::parse_params`]).
//! - `requestedSchema`, tool schemas and other open-ended objects stay raw
//!   (`serde_json::Map`, insertion order preserved).

mod util;

mod capabilities;
mod completion;
mod constants;
mod content;
mod elicitation;
mod error;
mod header_value;
mod id;
mod jsonrpc;
mod lifecycle;
mod meta;
mod mrtr;
mod notifications;
mod prompts;
mod raw_message;
mod resources;
mod result;
mod revision;
mod sampling;
mod subscriptions;
pub mod tasks;
mod tools;

pub use capabilities::{
    ClientCapabilities, ElicitationCapability, ElicitationModes, Icon, Implementation,
    ListChangedCapability, ResourcesCapability, ServerCapabilities,
};
pub use completion::{
    CompleteRequestParams, CompleteResult, Completion, CompletionArgument, CompletionContext,
    CompletionReference, PromptRefTag, PromptReference, ResourceRefTag, ResourceTemplateReference,
};
pub use constants::{extension, header, meta_key, method, version};
pub use content::{
    Annotations, AudioContent, AudioTag, BlobResourceContents, ContentBlock, EmbeddedResource,
    EmbeddedResourceTag, ImageContent, ImageTag, Resource, ResourceContents, ResourceLink,
    ResourceLinkTag, Role, TextContent, TextResourceContents, TextTag, ToolResultContent,
    ToolResultTag, ToolUseContent, ToolUseTag,
};
pub use elicitation::{
    ElicitAction, ElicitRequest, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, ElicitResult, ElicitationCompleteParams, ElicitationCreateMethod,
    ElicitationMode, FormMode, UrlMode,
};
pub use error::{
    ErrorCode, ErrorObject, MissingRequiredClientCapabilityData, UnsupportedProtocolVersionData,
    UrlElicitationRequiredData,
};
pub use id::{Integer, ProgressToken, RequestId};
pub use jsonrpc::{
    JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse,
    JsonRpcResponseText, JsonRpcVersion, MessageError, MessageErrorKind, ParamsError, parse_params,
};
pub use lifecycle::{
    DiscoverResult, InitializeRequestParams, InitializeRequestParamsLenient, InitializeResult,
};
pub use meta::{Meta, MetaError, MetaRef, RequestMetaFields, request_fields};
pub use mrtr::{
    InputRequest, InputRequests, InputRequiredError, InputRequiredResult, InputRequiredTag,
    InputResponse, InputResponses, RetryFields, RetryParams,
};
pub use notifications::{
    CancelledNotificationParams, LoggingLevel, LoggingMessageNotificationParams,
    ProgressNotificationParams, ResourceUpdatedNotificationParams,
};
pub use prompts::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument,
    PromptMessage,
};
pub use raw_message::RawMessage;
pub use resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceTemplate, SubscribeRequestParams,
};
pub use result::{
    CacheScope, EmptyResult, MaybeInputRequired, MetaParams, ResultType, ResultTypeError,
};
pub use revision::{Revision, UnknownRevision};
pub use sampling::{
    CreateMessageMethod, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ListRootsMethod, ListRootsRequest, ListRootsResult, Root, SamplingContent, SamplingMessage,
};
pub use subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
pub use tasks::{
    CreateTaskResult, GetTaskResult, Task, TaskRequestParams, TaskResultTag, TaskStatus,
    UpdateTaskRequestParams,
};
pub use tools::{
    CallToolRequestParams, CallToolResult, ListToolsResult, PaginatedRequestParams, Tool,
    ToolAnnotations,
};
