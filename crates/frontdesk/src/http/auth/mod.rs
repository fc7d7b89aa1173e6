//! Who is calling: the authentication hook of the HTTP transport.
//!
//! An [`Authenticate`] turns the headers of each request into a principal
//! (for example the `sub` of a validated access token) or refuses the request
//! with `401`/`403` and a `WWW-Authenticate` challenge. The principal reaches
//! the server as [`RequestInfo::principal`](crate::server::RequestInfo): sealed
//! request state, single-use redemption and URL flows are bound to it, and a
//! 2025-11-25 session belongs to the principal that created it (another
//! principal presenting its id gets `404`, as for an unknown session).
//!
//! Without an authenticator every request is anonymous.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};

use crate::store::BoxFuture;

/// Identifies the caller of one HTTP request.
///
/// ```
/// use axum::http::{HeaderMap, StatusCode};
/// use frontdesk::http::auth::{Authenticate, Unauthorized};
/// use frontdesk::store::BoxFuture;
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

/// Drop what cannot appear inside a quoted-string of a header.
fn quote_safe(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '"' && *c != '\\' && (' '..='~').contains(c))
        .collect()
}

/// A shared authenticator.
pub type Authenticator = Arc<dyn Authenticate>;
