//! Discovery: the protected resource metadata (RFC 9728) of the MCP server
//! and the metadata of its authorization server (RFC 8414 / OpenID
//! Connect Discovery), each checked before anything in it is used.
//!
//! Checks (each an attack it stops):
//! - a `resource_metadata` URL from a challenge must be on the endpoint's
//!   origin (scheme, host, port), where RFC 9728 §3 has a resource publish
//!   its metadata: a server cannot make the client request another host or
//!   another port of this machine (a blind request forgery, before anyone
//!   agreed to anything);
//! - the resource metadata's `resource` must be the MCP endpoint or a parent
//!   of it on the same origin (a server cannot make the client ask for a
//!   token for another resource);
//! - authorization server URLs and every endpoint in their metadata must be
//!   `https` (plain `http` only to loopback), without userinfo, the same
//!   review URL-mode URLs get;
//! - the metadata's `issuer` must be exactly the issuer it was fetched for
//!   (a poisoned document cannot name other endpoints as that issuer's);
//! - the authorization server must offer PKCE with `S256`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::AuthError;
use super::http::AuthHttp;

/// The MCP server's protected resource metadata.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResourceMetadata {
    /// The resource identifier, exactly as published (sent back as `resource`).
    pub resource: String,
    /// Authorization servers that issue tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource understands.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// Members not used here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An authorization server's metadata (the members this client uses).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ServerMetadata {
    /// Its issuer identifier.
    pub issuer: String,
    /// Where the person is sent to approve.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration (RFC 7591), when offered.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// Scopes it knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client authentication methods at the token endpoint.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether a client may use the URL of its metadata document as its id.
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Members not used here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ServerMetadata {
    /// Whether `scope` is among `scopes_supported`.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }

    /// The token endpoint authentication methods (RFC 8414's default when absent).
    pub fn auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".to_owned()])
    }
}

/// A URL the client may fetch or send a person to: `https`, or `http` to a
/// loopback host; no userinfo.
pub(crate) fn check_endpoint(what: &str, url: &str) -> Result<url::Url, AuthError> {
    let parsed = url::Url::parse(url).map_err(|e| {
        AuthError::Metadata(crate::Reason::from(format!(
            "{what} is not a URL ({e}): {url}"
        )))
    })?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let scheme_ok = parsed.scheme() == "https" || (parsed.scheme() == "http" && loopback);
    if !scheme_ok {
        return Err(AuthError::Metadata(crate::Reason::from(format!(
            "{what} must be https (plain http only to this machine): {url}"
        ))));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(AuthError::Metadata(crate::Reason::from(format!(
            "{what} must not carry a user name or password: {url}"
        ))));
    }
    if parsed.fragment().is_some() {
        return Err(AuthError::Metadata(crate::Reason::from(format!(
            "{what} must not have a fragment: {url}"
        ))));
    }
    Ok(parsed)
}

/// Where to look for the resource metadata of `endpoint`: the URL the
/// challenge named, else the path-based well-known location, then the root.
pub(crate) fn resource_metadata_urls(
    endpoint: &url::Url,
    from_challenge: Option<&str>,
) -> Vec<String> {
    if let Some(url) = from_challenge {
        return vec![url.to_owned()];
    }
    let origin = origin_of(endpoint);
    let path = endpoint.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// Where to look for the metadata of the authorization server `issuer`
/// (MCP's order: OAuth with the path inserted, OpenID Connect with it
/// inserted, OpenID Connect appended).
pub(crate) fn server_metadata_urls(issuer: &url::Url) -> Vec<String> {
    let origin = origin_of(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

fn origin_of(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether `resource` names `endpoint` or a parent of it: same origin, and
/// its path a whole-segment prefix of the endpoint's.
pub(crate) fn resource_covers(resource: &str, endpoint: &url::Url) -> bool {
    let Ok(resource) = url::Url::parse(resource) else {
        return false;
    };
    if resource.origin() != endpoint.origin() || resource.fragment().is_some() {
        return false;
    }
    let want = resource.path().trim_end_matches('/');
    let have = endpoint.path().trim_end_matches('/');
    want.is_empty() || have == want || have.starts_with(&format!("{want}/"))
}

/// Find and check the MCP server's resource metadata.
pub(crate) async fn discover_resource(
    http: &AuthHttp,
    endpoint: &url::Url,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, AuthError> {
    if let Some(url) = from_challenge {
        let parsed = check_endpoint("the resource metadata URL", url)?;
        if parsed.origin() != endpoint.origin() {
            return Err(AuthError::Metadata(crate::Reason::from(format!(
                "the resource metadata URL {url} is not on the server's origin {}; \
                 it was not fetched",
                origin_of(endpoint)
            ))));
        }
    }
    let mut found = None;
    for url in resource_metadata_urls(endpoint, from_challenge) {
        if let Some(doc) = http.get_json::<ResourceMetadata>(&url).await? {
            found = Some(doc);
            break;
        }
    }
    let metadata = found.ok_or_else(|| {
        AuthError::Metadata(crate::Reason::from(
            "the server publishes no protected resource metadata",
        ))
    })?;
    if !resource_covers(&metadata.resource, endpoint) {
        return Err(AuthError::ResourceMismatch {
            published: metadata.resource,
            endpoint: endpoint.to_string(),
        });
    }
    Ok(metadata)
}

/// Find and check the metadata of the authorization server `issuer`.
pub(crate) async fn discover_server(
    http: &AuthHttp,
    issuer: &str,
) -> Result<ServerMetadata, AuthError> {
    let parsed = check_endpoint("the authorization server", issuer)?;
    let mut found = None;
    for url in server_metadata_urls(&parsed) {
        if let Some(doc) = http.get_json::<ServerMetadata>(&url).await? {
            found = Some(doc);
            break;
        }
    }
    let metadata = found.ok_or_else(|| {
        AuthError::Metadata(crate::Reason::from(format!(
            "{issuer} publishes no authorization server metadata"
        )))
    })?;
    if metadata.issuer != issuer {
        return Err(AuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: metadata.issuer,
        });
    }
    check_endpoint(
        "the authorization endpoint",
        &metadata.authorization_endpoint,
    )?;
    check_endpoint("the token endpoint", &metadata.token_endpoint)?;
    if let Some(r) = &metadata.registration_endpoint {
        check_endpoint("the registration endpoint", r)?;
    }
    let pkce = metadata
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|m| m.iter().any(|m| m == "S256"));
    if !pkce {
        return Err(AuthError::Metadata(crate::Reason::from(format!(
            "{issuer} does not offer PKCE with S256, which MCP requires"
        ))));
    }
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).expect("a test URL")
    }

    #[test]
    fn well_known_locations_in_mcp_order() {
        assert_eq!(
            resource_metadata_urls(&url("https://a.example/mcp"), None),
            [
                "https://a.example/.well-known/oauth-protected-resource/mcp",
                "https://a.example/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            server_metadata_urls(&url("https://as.example/tenant1")),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls(&url("http://localhost:9/")),
            [
                "http://localhost:9/.well-known/oauth-authorization-server",
                "http://localhost:9/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn a_resource_covers_its_endpoint_and_nothing_else() {
        let endpoint = url("http://localhost:5/mcp");
        assert!(resource_covers("http://localhost:5/mcp", &endpoint));
        assert!(resource_covers("http://localhost:5", &endpoint));
        assert!(resource_covers("http://localhost:5/", &endpoint));
        assert!(!resource_covers("https://evil.example.com/mcp", &endpoint));
        assert!(!resource_covers("http://localhost:6/mcp", &endpoint));
        assert!(!resource_covers("http://localhost:5/mc", &endpoint));
        assert!(!resource_covers("http://localhost:5/mcp/deeper", &endpoint));
    }

    #[test]
    fn endpoints_must_be_https_or_loopback_without_userinfo() {
        assert!(check_endpoint("x", "https://as.example/authorize").is_ok());
        assert!(check_endpoint("x", "http://127.0.0.1:8/authorize").is_ok());
        assert!(check_endpoint("x", "http://localhost:8/authorize").is_ok());
        assert!(check_endpoint("x", "http://as.example/authorize").is_err());
        assert!(check_endpoint("x", "javascript:alert(1)").is_err());
        assert!(check_endpoint("x", "https://good.example@evil.example/").is_err());
        assert!(check_endpoint("x", "file:///etc/passwd").is_err());
    }
}
