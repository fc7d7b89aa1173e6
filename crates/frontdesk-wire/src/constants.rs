//! Names fixed by the protocol: revisions, method names, `_meta` keys and HTTP headers.

/// Protocol revision strings.
pub mod version {
    /// The legacy, handshake-based revision (`initialize`, server-to-client requests).
    pub const V2025_11_25: &str = "2025-11-25";
    /// The modern, stateless revision (per-request `_meta`, MRTR).
    pub const V2026_07_28: &str = "2026-07-28";
    /// Every revision this crate models, newest first (what a server lists in
    /// `server/discover` and in `-32022` data). See [`Revision`](crate::Revision).
    pub const SUPPORTED: &[&str] = &[V2026_07_28, V2025_11_25];
    /// The versions an `initialize` handshake may negotiate, newest first: a
    /// 2025-11-25 server answers a request for one of these with it, and
    /// anything else with the first.
    pub const HANDSHAKE: &[&str] = &[V2025_11_25, "2025-06-18", "2025-03-26"];
    /// What a 2025-11-25 HTTP server assumes when no version header is present.
    pub const HTTP_DEFAULT_ASSUMED: &str = "2025-03-26";
}

/// JSON-RPC method names.
pub mod method {
    /// `initialize` (2025-11-25 only).
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized` (2025-11-25 only).
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `ping` (2025-11-25 only).
    pub const PING: &str = "ping";
    /// `server/discover` (2026-07-28).
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// `tools/list`.
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`.
    pub const TOOLS_CALL: &str = "tools/call";
    /// `prompts/list`.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// `prompts/get`.
    pub const PROMPTS_GET: &str = "prompts/get";
    /// `resources/list`.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// `resources/templates/list`.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// `resources/read`.
    pub const RESOURCES_READ: &str = "resources/read";
    /// `elicitation/create`: a server-to-client request (2025-11-25) or an
    /// `inputRequests` entry (2026-07-28).
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `sampling/createMessage`.
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `roots/list`.
    pub const ROOTS_LIST: &str = "roots/list";
    /// `logging/setLevel` (2025-11-25 only).
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// `resources/subscribe` (2025-11-25 only).
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe` (2025-11-25 only).
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// `completion/complete`.
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// `subscriptions/listen` (2026-07-28).
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// `tasks/get` (Tasks extension, 2026-07-28).
    pub const TASKS_GET: &str = "tasks/get";
    /// `tasks/update` (Tasks extension, 2026-07-28).
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// `tasks/cancel` (Tasks extension, 2026-07-28).
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// `notifications/elicitation/complete` (2025-11-25 only).
    pub const NOTIFICATION_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// `notifications/subscriptions/acknowledged`: the first message of a
    /// `subscriptions/listen` stream (2026-07-28).
    pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
        "notifications/subscriptions/acknowledged";
    /// `notifications/cancelled`.
    pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
    /// `notifications/progress`.
    pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
    /// `notifications/message` (log message).
    pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
    /// `notifications/tools/list_changed`.
    pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`.
    pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// `notifications/resources/list_changed`.
    pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// `notifications/resources/updated`.
    pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";

    /// The methods whose 2026-07-28 result may be an `InputRequiredResult`.
    pub const MAY_REQUIRE_INPUT: &[&str] = &[TOOLS_CALL, PROMPTS_GET, RESOURCES_READ];

    /// Whether a 2026-07-28 server may answer `method` with `input_required`.
    pub fn may_require_input(method: &str) -> bool {
        MAY_REQUIRE_INPUT.contains(&method)
    }
}

/// Extension identifiers (keys of `capabilities.extensions`).
pub mod extension {
    /// The Tasks extension (SEP-2663).
    pub const TASKS: &str = "io.modelcontextprotocol/tasks";
}

/// Keys of `_meta` objects defined by the protocol.
pub mod meta_key {
    /// Request `_meta`: protocol revision of this request (2026-07-28, required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request `_meta`: the client's capabilities for this request (2026-07-28, required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request `_meta`: the client's `Implementation` (2026-07-28, recommended).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request `_meta`: requested log level (2026-07-28, deprecated).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Result `_meta`: the server's `Implementation` (2026-07-28).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification/result `_meta`: the `subscriptions/listen` request id (2026-07-28).
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// 2025-11-25: `{ "taskId": … }` on every message related to a task.
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// Request `_meta`: opt into progress notifications (both revisions).
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// URL-mode elicitation `_meta` (2025-11-25): a gateway's review of the
    /// URL, `{ "verdict": "allowed" | "allowed_with_warnings", "findings":
    /// [{ "code", "severity", "message" }] }`, for hosts that show it. The
    /// host still reviews the URL itself; this never makes a URL safer.
    pub const URL_REVIEW: &str = "io.github.frontdesk-mcp/urlReview";
    /// W3C trace context.
    pub const TRACEPARENT: &str = "traceparent";
    /// W3C trace context.
    pub const TRACESTATE: &str = "tracestate";
    /// W3C baggage.
    pub const BAGGAGE: &str = "baggage";
}

/// HTTP header names (compare case-insensitively).
pub mod header {
    /// Negotiated (2025-11-25) or per-request (2026-07-28) protocol revision.
    pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
    /// Session id (2025-11-25 only; ignored in 2026-07-28).
    pub const MCP_SESSION_ID: &str = "Mcp-Session-Id";
    /// Mirror of the JSON-RPC `method` (2026-07-28).
    pub const MCP_METHOD: &str = "Mcp-Method";
    /// Mirror of `params.name` / `params.uri` (2026-07-28).
    pub const MCP_NAME: &str = "Mcp-Name";
    /// Prefix of headers mirroring tool arguments marked `x-mcp-header` (2026-07-28).
    pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
    /// SSE resumption (2025-11-25 only).
    pub const LAST_EVENT_ID: &str = "Last-Event-ID";

    pub use crate::header_value::{decode_value, decode_value_in_place, encode_value};

    /// The body field `Mcp-Name` mirrors for `method` (2026-07-28):
    /// `params.name` for `tools/call` and `prompts/get`, `params.uri` for
    /// `resources/read`, `params.taskId` for the Tasks extension's
    /// `tasks/get`, `tasks/update` and `tasks/cancel`; `None` when the method
    /// carries no `Mcp-Name`.
    ///
    /// ```
    /// use frontdesk_wire::header::name_field;
    ///
    /// assert_eq!(name_field("resources/read"), Some("uri"));
    /// assert_eq!(name_field("tools/list"), None);
    /// ```
    pub fn name_field(method: &str) -> Option<&'static str> {
        use super::method as m;
        match method {
            m::TOOLS_CALL | m::PROMPTS_GET => Some("name"),
            m::RESOURCES_READ => Some("uri"),
            m::TASKS_GET | m::TASKS_UPDATE | m::TASKS_CANCEL => Some("taskId"),
            _ => None,
        }
    }
}
