//! The OAuth 2.0 Protected Resource Metadata document (RFC 9728) that MCP's
//! authorization spec has every protected server publish: which resource
//! this is, and which authorization servers issue tokens for it. Clients find
//! it from the `resource_metadata` parameter of a `401` challenge, or at the
//! well-known path.
//!
//! Mount [`ProtectedResource::router`] next to the endpoint with
//! [`HttpListener::routes`](crate::http::HttpListener::routes), and name
//! [`ProtectedResource::metadata_url`] in the authenticator's challenges:
//!
//! ```
//! use frontdesk::http::auth::metadata::ProtectedResource;
//!
//! let resource = ProtectedResource::new("https://mcp.example.com/mcp")
//!     .authorization_server("https://auth.example.com")
//!     .scope("mcp:tools");
//! assert_eq!(
//!     ProtectedResource::metadata_url("https://mcp.example.com", "/mcp"),
//!     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
//! );
//! assert_eq!(resource.document()["authorization_servers"][0], "https://auth.example.com");
//! let _pages = resource.router("/mcp");
//! ```

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

/// The well-known path prefix of RFC 9728 §3.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What the metadata document says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes: Vec<String>,
    name: Option<String>,
}

impl ProtectedResource {
    /// The document for `resource`: this server's canonical URI, the audience
    /// its access tokens must name (e.g. `https://mcp.example.com/mcp`).
    pub fn new(resource: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes: Vec::new(),
            name: None,
        }
    }

    /// Add an authorization server (its issuer identifier).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Add a scope to `scopes_supported`.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// A human-readable name (`resource_name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The resource identifier.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The JSON document.
    pub fn document(&self) -> Value {
        let mut doc = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes.is_empty() {
            doc["scopes_supported"] = json!(self.scopes);
        }
        if let Some(name) = &self.name {
            doc["resource_name"] = json!(name);
        }
        doc
    }

    /// Where the document is for an endpoint at `endpoint_path` on
    /// `base_url` (scheme and authority): the well-known prefix with the
    /// endpoint's path appended (RFC 9728 §3.1), the URL that challenges name.
    pub fn metadata_url(base_url: &str, endpoint_path: &str) -> String {
        format!(
            "{}{}",
            base_url.trim_end_matches('/'),
            Self::path_for(endpoint_path)
        )
    }

    fn path_for(endpoint_path: &str) -> String {
        let path = endpoint_path.trim_matches('/');
        if path.is_empty() {
            WELL_KNOWN.to_owned()
        } else {
            format!("{WELL_KNOWN}/{path}")
        }
    }

    /// `GET` routes serving the document at the path-aware well-known URL of
    /// `endpoint_path` and at the bare well-known URL (clients try both).
    pub fn router(&self, endpoint_path: &str) -> Router {
        let body = self.document().to_string();
        let serve = move || {
            let body = body.clone();
            async move { json_response(body) }
        };
        let specific = Self::path_for(endpoint_path);
        let mut router = Router::new().route(&specific, get(serve.clone()));
        if specific != WELL_KNOWN {
            router = router.route(WELL_KNOWN, get(serve));
        }
        router
    }
}

fn json_response(body: String) -> Response {
    let mut r = super::super::respond::json_text(StatusCode::OK, body);
    let h = r.headers_mut();
    // Public metadata: any web client may read it.
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=300"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_and_paths() {
        let r = ProtectedResource::new("https://mcp.example.com/mcp")
            .authorization_server("https://auth.example.com")
            .scope("mcp")
            .name("Brightgrid");
        assert_eq!(
            r.document(),
            json!({"resource": "https://mcp.example.com/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["mcp"],
                "resource_name": "Brightgrid"})
        );
        assert_eq!(
            ProtectedResource::metadata_url("http://127.0.0.1:1/", "/"),
            "http://127.0.0.1:1/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            ProtectedResource::metadata_url("http://h", "/api/mcp"),
            "http://h/.well-known/oauth-protected-resource/api/mcp"
        );
    }
}
