//! Who is calling: the authentication hook of the HTTP transport.
//!
//! An [`Authenticate`] turns the headers of each request into a principal
//! (for example the `sub` of a validated access token) or refuses the request
//! with `401`/`403` and a `WWW-Authenticate` challenge. The principal reaches
//! the server as [`RequestInfo::principal`](crate::server::transport::RequestInfo): sealed
//! request state, single-use redemption and URL flows are bound to it, and a
//! 2025-11-25 session belongs to the principal that created it (another
//! principal presenting its id gets `404`, as for an unknown session).
//!
//! Without an authenticator every request is anonymous.
//!
//! Two are ready:
//!
//! - `jwt::JwtAuthenticator` (feature `jwt`): OAuth 2.1
//!   bearer access tokens as MCP's authorization spec has a resource server
//!   check them — a JWT signed by a key of the authorization server's JWKS
//!   (a file or an URL), from the right issuer, for this server as audience,
//!   unexpired; the principal is its `sub`. Pair it with the
//!   [`ProtectedResource`](metadata::ProtectedResource) metadata document,
//!   whose URL every `401` names in `resource_metadata`.
//! - [`StaticTokens`](tokens::StaticTokens): a file of `principal token`
//!   lines, for development and tests.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};

use crate::BoxFuture;

#[cfg(feature = "jwt")]
pub mod jwt;
pub mod metadata;
pub mod tokens;

/// Identifies the caller of one HTTP request.
///
/// ```
/// use axum::http::{HeaderMap, StatusCode};
/// use frontdesk::http::auth::{Authenticate, Unauthorized};
/// use frontdesk::BoxFuture;
///
/// /// One fixed development token.
/// struct DevToken;
///
/// impl Authenticate for DevToken {
///     fn authenticate<'a>(
///         &'a self,
///         headers: &'a HeaderMap,
///     ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
///         Box::pin(async move {
///             match headers.get("authorization").and_then(|v| v.to_str().ok()) {
///                 Some("Bearer let-me-in") => Ok(Some("dev-user".to_owned())),
///                 _ => Err(Unauthorized::bearer("invalid_token", "a valid bearer token is required")),
///             }
///         })
///     }
/// }
/// # let _ = StatusCode::OK;
/// ```
pub trait Authenticate: Send + Sync + 'static {
    /// The principal of the request with these headers; `Ok(None)` lets it
    /// through anonymously, `Err` refuses it.
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>>;
}

/// A refused request: the status (`401` or `403`), the `WWW-Authenticate`
/// challenge to send, and a message for the JSON-RPC error body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unauthorized {
    /// `401 Unauthorized` (no or bad credentials) or `403 Forbidden`
    /// (credentials without the needed scope).
    pub status: StatusCode,
    /// The `WWW-Authenticate` header value, if any.
    pub www_authenticate: Option<String>,
    /// What went wrong, for the person reading the client's error.
    pub message: String,
}

impl Unauthorized {
    /// A `401` with a `Bearer` challenge carrying `error` (RFC 6750:
    /// `invalid_request`, `invalid_token`, …) and its description.
    pub fn bearer(error: &str, description: &str) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            www_authenticate: Some(format!(
                "Bearer error=\"{}\", error_description=\"{}\"",
                quote_safe(error),
                quote_safe(description)
            )),
            message: format!("Unauthorized: {description}"),
        }
    }

    /// Replace the challenge (e.g. to add `resource_metadata="…"`).
    pub fn with_challenge(mut self, challenge: impl Into<String>) -> Self {
        self.www_authenticate = Some(challenge.into());
        self
    }
}

impl Unauthorized {
    /// A `401` for a request that carried no credentials: per RFC 6750 §3.1
    /// the challenge names no error, only (when given) where the protected
    /// resource metadata is, so a client can discover how to get a token.
    pub fn missing_token(resource_metadata: Option<&str>) -> Self {
        let challenge = match resource_metadata {
            Some(url) => format!("Bearer resource_metadata=\"{}\"", quote_safe(url)),
            None => "Bearer".to_owned(),
        };
        Self {
            status: StatusCode::UNAUTHORIZED,
            www_authenticate: Some(challenge),
            message: "Unauthorized: a bearer access token is required".to_owned(),
        }
    }

    /// A `403` with `error="insufficient_scope"` and the `scope` needed.
    pub fn insufficient_scope(scope: &str) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            www_authenticate: Some(format!(
                "Bearer error=\"insufficient_scope\", scope=\"{}\"",
                quote_safe(scope)
            )),
            message: format!("Forbidden: the access token lacks scope {scope:?}"),
        }
    }

    /// Add `resource_metadata="url"` to the `Bearer` challenge (RFC 9728
    /// §5.1), if not there already; `None` changes nothing.
    pub fn resource_metadata(mut self, url: Option<&str>) -> Self {
        if let (Some(url), Some(challenge)) = (url, self.www_authenticate.as_mut())
            && !challenge.contains("resource_metadata=")
        {
            let sep = if challenge.trim_end() == "Bearer" {
                " "
            } else {
                ", "
            };
            challenge.push_str(&format!("{sep}resource_metadata=\"{}\"", quote_safe(url)));
        }
        self
    }
}

/// The token of an `Authorization: Bearer …` header: `Ok(None)` when there is
/// no `Authorization` header, `Err` when there is one but it is not a single
/// well-formed bearer credential (another scheme, two headers, an empty or
/// non-ASCII token).
pub fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, Unauthorized> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let malformed = || {
        Unauthorized::bearer(
            "invalid_request",
            "the Authorization header must be one Bearer token",
        )
    };
    if values.next().is_some() {
        return Err(malformed());
    }
    let text = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = text.trim().split_once(' ').ok_or_else(malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() || token.contains(' ') {
        return Err(malformed());
    }
    Ok(Some(token))
}

/// Drop what cannot appear inside a quoted-string of a header.
fn quote_safe(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '"' && *c != '\\' && (' '..='~').contains(c))
        .collect()
}

/// A shared authenticator.
pub type Authenticator = Arc<dyn Authenticate>;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_auth(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("authorization", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert_eq!(bearer_token(&HeaderMap::new()).unwrap(), None);
        assert_eq!(
            bearer_token(&with_auth(&["Bearer abc"])).unwrap(),
            Some("abc")
        );
        assert_eq!(
            bearer_token(&with_auth(&["bearer  abc "])).unwrap(),
            Some("abc")
        );
        for bad in [
            &["Basic abc"][..],
            &["Bearer"],
            &["Bearer a b"],
            &["Bearer a", "Bearer b"],
        ] {
            let e = bearer_token(&with_auth(bad)).unwrap_err();
            assert_eq!(e.status, StatusCode::UNAUTHORIZED, "{bad:?}");
        }
    }

    #[test]
    fn challenges_name_the_metadata_document() {
        let url = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            Unauthorized::missing_token(Some(url))
                .www_authenticate
                .unwrap(),
            format!("Bearer resource_metadata=\"{url}\"")
        );
        assert_eq!(
            Unauthorized::missing_token(None).www_authenticate.unwrap(),
            "Bearer"
        );
        let bad = Unauthorized::bearer("invalid_token", "expired").resource_metadata(Some(url));
        assert_eq!(
            bad.www_authenticate.unwrap(),
            format!(
                "Bearer error=\"invalid_token\", error_description=\"expired\", resource_metadata=\"{url}\""
            )
        );
        let scope = Unauthorized::insufficient_scope("mcp:tools");
        assert_eq!(scope.status, StatusCode::FORBIDDEN);
        assert!(
            scope
                .www_authenticate
                .unwrap()
                .contains("scope=\"mcp:tools\"")
        );
    }
}
