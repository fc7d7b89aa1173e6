//! The messages a test client sends before anything else, written once: the `_meta`
//! every 2026-07-28 request carries, and the 2025-11-25 handshake (`initialize`, then
//! `notifications/initialized`). The tests send them over their own transport (stdio
//! lines, HTTP, raw bytes); only the messages are shared.

use serde_json::{Value, json};

/// The revision of the `initialize` handshake.
pub const LEGACY: &str = "2025-11-25";
/// The revision whose requests carry `_meta`.
pub const MODERN: &str = "2026-07-28";

/// Who a test client says it is and what it can do.
///
/// ```
/// use frontdesk_testkit::TestClient;
/// use serde_json::json;
///
/// let client = TestClient::new("shop-test", "1");
/// assert_eq!(
///     client.meta(),
///     json!({
///         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
///         "io.modelcontextprotocol/clientInfo": {"name": "shop-test", "version": "1"},
///         "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}}
///     })
/// );
/// let form_only = client.capabilities(json!({"elicitation": {"form": {}}}));
/// assert_eq!(form_only.initialize(json!(0))["params"]["capabilities"]["elicitation"], json!({"form": {}}));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TestClient {
    name: String,
    version: String,
    capabilities: Value,
}

impl TestClient {
    /// A client named `name` at `version` that takes form and URL elicitation.
    pub fn new(name: &str, version: &str) -> TestClient {
        TestClient {
            name: name.to_owned(),
            version: version.to_owned(),
            capabilities: json!({"elicitation": {"form": {}, "url": {}}}),
        }
    }

    /// The same client declaring `capabilities` instead.
    pub fn capabilities(mut self, capabilities: Value) -> TestClient {
        self.capabilities = capabilities;
        self
    }

    /// `clientInfo`: `{"name": …, "version": …}`.
    pub fn info(&self) -> Value {
        json!({"name": self.name, "version": self.version})
    }

    /// The `_meta` of a 2026-07-28 request: the revision, `clientInfo` and the client
    /// capabilities, in that order.
    pub fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": self.info(),
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        })
    }

    /// The 2025-11-25 `initialize` request with this `id`.
    pub fn initialize(&self, id: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": self.initialize_params()})
    }

    /// The params of [`TestClient::initialize`]: the revision, the capabilities and
    /// `clientInfo`.
    pub fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": LEGACY,
            "capabilities": self.capabilities,
            "clientInfo": self.info(),
        })
    }
}

/// `notifications/initialized`, which ends the 2025-11-25 handshake.
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}
