//! The OAuth 2.1 client of MCP's authorization spec, for Streamable HTTP.
//!
//! Give [`ClientConfig::oauth`](super::ClientConfig::oauth) an
//! [`OAuthConfig`] and the HTTP transport answers a `401` by authorizing:
//!
//! 1. the protected resource metadata, from the challenge's
//!    `resource_metadata` (only on the endpoint's own origin: RFC 9728 §3
//!    publishes it under the resource's own URL, and a URL elsewhere would
//!    make the client request whatever the server names before anyone
//!    agreed) or the well-known locations; its `resource` must cover the
//!    endpoint ([`AuthError::ResourceMismatch`]);
//! 2. the authorization server's metadata (OAuth, then OpenID Connect
//!    locations); its `issuer` must be exactly the one asked for
//!    ([`AuthError::IssuerMismatch`]), its endpoints `https` (or loopback),
//!    PKCE with `S256` offered;
//! 3. scopes: the challenge's `scope`, else the resource's
//!    `scopes_supported`, else none; `offline_access` when the authorization
//!    server lists it; on a re-authorization the union with what was asked
//!    before;
//! 4. the person's consent, through the [`UserAgent`]: who asks (the
//!    endpoint), the authorization server, the scopes, and its authorization
//!    endpoint reviewed like a URL-mode URL. Until the person agrees, the
//!    client has only read metadata: nothing is registered and nothing is
//!    opened;
//! 5. a client identity: a pre-registered client (bound to the one issuer it
//!    is registered with), a client ID metadata document URL when the server
//!    accepts those, else dynamic registration (`application_type: native`),
//!    sent only now, after consent; credentials are bound to the issuer that
//!    issued them and never sent to another;
//! 6. the authorization request (PKCE `S256`, `state`, `resource`), its URL
//!    reviewed again and handed to the user agent, which opens it and brings
//!    back the redirect;
//! 7. the redirect checked (`state`, and `iss` against the issuer: required
//!    when the server advertises it, compared whenever present, no
//!    normalization), the code exchanged with the token endpoint's
//!    authentication method (`none`, `client_secret_basic`,
//!    `client_secret_post`), the grant kept in the [`TokenStore`].
//!
//! A later `401` first tries the refresh token; a `403` with
//! `insufficient_scope` re-authorizes with the union of scopes, unless the
//! token already has them. One request triggers at most
//! [`OAuthConfig::max_authorizations`] authorizations.
//!
//! Tokens and secrets are never logged or printed.

mod challenge;
mod grant;
mod http;
mod loopback;
mod metadata;
mod registration;
mod session;
mod store;

use std::fmt;
use std::sync::Arc;

use frontdesk_url::UrlReview;

pub use challenge::BearerChallenge;
pub use loopback::LoopbackRedirect;
pub use metadata::{ResourceMetadata, ServerMetadata};
pub use store::{
    FileTokenStore, MemoryTokenStore, RegisteredClient, StoredGrant, TokenStore, Tokens,
};

pub(crate) use http::AuthHttp;
/// Discovery's checks, for the hostile-input benchmark (`fuzzing::hostile`).
#[cfg(feature = "fuzzing")]
pub(crate) use metadata::{check_endpoint, resource_covers};
pub(crate) use session::{Attempt, AuthSession};

use crate::{BoxFuture, Party, Reason};

/// What went wrong while authorizing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The authorization server or metadata could not be reached.
    #[error("authorization: {0}")]
    Network(Reason),
    /// A metadata document is missing, malformed or unsafe.
    #[error("authorization metadata: {0}")]
    Metadata(Reason),
    /// The resource metadata names a resource that is not this server.
    #[error(
        "the server's resource metadata names {published}, not {endpoint}: refusing to authorize"
    )]
    ResourceMismatch {
        /// The `resource` published.
        published: String,
        /// The endpoint connected to.
        endpoint: String,
    },
    /// The authorization server's metadata names another issuer.
    #[error("the authorization server metadata says issuer {found}, not {expected}")]
    IssuerMismatch {
        /// The issuer the metadata was fetched for.
        expected: String,
        /// The `issuer` inside it.
        found: String,
    },
    /// The client could not get a client id.
    #[error("client registration: {0}")]
    Registration(Reason),
    /// The person declined or dismissed the sign-in.
    #[error("sign-in was not approved")]
    NotApproved,
    /// Signing in needs a person, and the user agent has none to ask.
    #[error("the server needs a sign-in and there is nobody here to approve it")]
    Unattended,
    /// The authorization server refused (`error` in the redirect).
    #[error("the authorization server refused: {0}")]
    Denied(Reason),
    /// The redirect was not a valid answer to this request (state, `iss`, code).
    #[error("the authorization response was refused: {0}")]
    Callback(Reason),
    /// The token endpoint refused or answered something unusable.
    #[error("token request: {0}")]
    Token(Reason),
    /// The token store failed.
    #[error("token store: {0}")]
    Store(Reason),
    /// The server still refuses after the allowed number of authorizations.
    #[error("still unauthorized after {0} authorizations; giving up")]
    TooManyAttempts(u32),
    /// A `403` for scopes the token already has: authorizing again cannot help.
    #[error("the server refuses the request although the token has the scopes it names ({0})")]
    Forbidden(Reason),
}

impl AuthError {
    /// Who must act to get past it: the person for a sign-in they did not
    /// approve or the authorization server refused them; the caller for a
    /// sign-in with nobody to approve it or a redirect that is not this
    /// request's; the server's author for metadata that is malformed,
    /// unsafe or names another resource or issuer; the operator for the
    /// network, registration, tokens, their store, and a server that keeps
    /// refusing.
    pub fn party(&self) -> Party {
        match self {
            Self::NotApproved | Self::Denied(_) => Party::Person,
            Self::Unattended | Self::Callback(_) => Party::Caller,
            Self::Metadata(_) | Self::ResourceMismatch { .. } | Self::IssuerMismatch { .. } => {
                Party::Author
            }
            Self::Network(_)
            | Self::Registration(_)
            | Self::Token(_)
            | Self::Store(_)
            | Self::TooManyAttempts(_)
            | Self::Forbidden(_) => Party::Operator,
        }
    }
}

crate::errors::party_predicates!(AuthError);

/// One authorization for the person to approve: who asks, where, and what
/// for. Shown before the client sends the authorization server anything
/// but reads of its metadata.
#[derive(Debug, Clone)]
pub struct AuthorizationPrompt {
    /// The MCP endpoint that asked for a token.
    pub server: String,
    /// The authorization server.
    pub issuer: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// The review of the authorization server's authorization endpoint: the
    /// page the person will be sent to (the request's parameters are the
    /// client's own, added once the person agreed). Show it whole; never go
    /// on when the review refused it.
    pub review: UrlReview,
}

/// The authorization request to open once the person agreed: its whole URL,
/// reviewed (on the endpoint the person agreed to), and its `state`.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    /// The review of the whole authorization URL. Open it only when the
    /// review allows it.
    pub review: UrlReview,
    /// The request's `state`: the redirect that answers it carries it, so a
    /// listener takes only that one (see [`LoopbackRedirect::wait`]).
    pub state: String,
}

/// The user-agent part of an authorization: where the authorization server
/// sends its answer, and getting the person there.
pub trait UserAgent: Send + Sync {
    /// Get ready for one authorization response (e.g. listen on a loopback
    /// port) and say where the authorization server must send it.
    fn prepare(&self) -> BoxFuture<'_, Result<Box<dyn PendingRedirect>, AuthError>>;
}

/// One prepared authorization response.
pub trait PendingRedirect: Send {
    /// The `redirect_uri` to register and to put in the request.
    fn redirect_uri(&self) -> String;

    /// Show `prompt` to the person and wait for their decision: `Ok` when
    /// they agree to sign in, [`AuthError::NotApproved`] when they do not.
    /// Open nothing yet. The client registers itself (when it must) and
    /// builds the request only after this returned `Ok`.
    fn consent<'a>(
        &'a mut self,
        prompt: &'a AuthorizationPrompt,
    ) -> BoxFuture<'a, Result<(), AuthError>>;

    /// The person agreed: open `request` (its URL is on the endpoint they
    /// agreed to), wait for the redirect, and return the full URL the
    /// authorization server redirected to.
    fn complete(
        self: Box<Self>,
        request: AuthorizationRequest,
    ) -> BoxFuture<'static, Result<String, AuthError>>;
}

/// A client registered with one authorization server beforehand.
///
/// It is bound to that server's issuer: used only when the resource's
/// authorization server is exactly `issuer`, so its secret is sent only to
/// the token endpoint of that issuer's own metadata, never to one a server
/// names. With any other authorization server the client identifies as it
/// would without it (metadata document, or dynamic registration after
/// consent).
#[derive(Clone, PartialEq, Eq)]
pub struct PreregisteredClient {
    /// The issuer of the authorization server it is registered with,
    /// exactly as that server's metadata writes it.
    pub issuer: String,
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for a confidential client.
    pub client_secret: Option<String>,
}

impl fmt::Debug for PreregisteredClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreregisteredClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .finish()
    }
}

/// How the client authorizes.
#[derive(Clone)]
pub struct OAuthConfig {
    /// Shows the authorization URL and brings back the redirect.
    pub user_agent: Arc<dyn UserAgent>,
    /// Keeps registrations and tokens (default: in memory).
    pub store: Arc<dyn TokenStore>,
    /// `client_name` for dynamic registration.
    pub client_name: String,
    /// A pre-registered client, used only with its own issuer.
    pub preregistered: Option<PreregisteredClient>,
    /// The URL of this client's metadata document, used as its `client_id`
    /// where the authorization server supports that.
    pub client_metadata_url: Option<String>,
    /// Authorizations one request may trigger (default 3).
    pub max_authorizations: u32,
}

impl fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_name", &self.client_name)
            .field("preregistered", &self.preregistered)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("max_authorizations", &self.max_authorizations)
            .finish_non_exhaustive()
    }
}

impl OAuthConfig {
    /// Authorize through `user_agent`, keeping tokens in memory.
    pub fn new(user_agent: impl UserAgent + 'static) -> Self {
        Self {
            user_agent: Arc::new(user_agent),
            store: Arc::new(MemoryTokenStore::default()),
            client_name: "frontdesk".to_owned(),
            preregistered: None,
            client_metadata_url: None,
            max_authorizations: 3,
        }
    }

    /// Keep tokens in `store` (builder style).
    pub fn store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Use a pre-registered client (builder style).
    pub fn preregistered(mut self, client: PreregisteredClient) -> Self {
        self.preregistered = Some(client);
        self
    }

    /// Identify with a client ID metadata document at `url` (builder style).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The `client_name` for dynamic registration (builder style).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }
}
