//! Authentication in front of an HTTP endpoint (`serve`, `gateway`): bearer
//! tokens from a file for development, or OAuth 2.1 bearer JWTs checked
//! against a JWKS, with the protected-resource metadata served beside the
//! endpoint and named in each refusal.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use anyhow::Context as _;
use axum::Router;
use axum::http::HeaderMap;
use clap::Args;
use frontdesk::BoxFuture;
use frontdesk::http::HttpOptions;
use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator, JwtConfig};
use frontdesk::http::auth::metadata::ProtectedResource;
use frontdesk::http::auth::tokens::StaticTokens;
use frontdesk::http::auth::{Authenticate, Authenticator, Unauthorized};

/// The authentication flags.
#[derive(Debug, Clone, Args)]
pub(crate) struct AuthArgs {
    /// Check OAuth 2.1 bearer JWTs against this JWKS (a file, or an https URL).
    #[arg(long, value_name = "FILE|URL", requires_all = ["auth_issuer", "auth_audience"], conflicts_with = "auth_tokens")]
    pub(crate) auth_jwks: Option<String>,
    /// The issuer (`iss`) the JWTs must name; listed as the authorization server.
    #[arg(long, value_name = "ISSUER", requires = "auth_jwks")]
    pub(crate) auth_issuer: Option<String>,
    /// The audience (`aud`) the JWTs must name: this server's canonical URL.
    #[arg(long, value_name = "URL", requires = "auth_jwks")]
    pub(crate) auth_audience: Option<String>,
    /// Accept the bearer tokens of this file (`PRINCIPAL TOKEN` lines), for development.
    #[arg(long, value_name = "FILE")]
    pub(crate) auth_tokens: Option<PathBuf>,
}

/// An authenticator whose refusals name the protected-resource metadata,
/// whose URL is known only once the listener is bound.
struct NamingMetadata {
    inner: Authenticator,
    url: Arc<OnceLock<String>>,
}

impl Authenticate for NamingMetadata {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
        Box::pin(async move {
            self.inner
                .authenticate(headers)
                .await
                .map_err(|e| e.resource_metadata(self.url.get().map(String::as_str)))
        })
    }
}

/// Where the protected-resource metadata is served, once the base URL is known.
#[derive(Default)]
pub(crate) struct Metadata(Arc<OnceLock<String>>);

impl AuthArgs {
    /// The configured authenticator, if any.
    pub(crate) async fn authenticator(&self) -> anyhow::Result<Option<Authenticator>> {
        if let Some(path) = &self.auth_tokens {
            let tokens = StaticTokens::from_file(path)?;
            tracing::info!(
                tokens = tokens.len(),
                "bearer tokens from a file (development)"
            );
            return Ok(Some(Arc::new(tokens)));
        }
        let (Some(jwks), Some(issuer), Some(audience)) =
            (&self.auth_jwks, &self.auth_issuer, &self.auth_audience)
        else {
            return Ok(None);
        };
        let config = JwtConfig::new(JwksSource::parse(jwks), issuer, audience);
        let jwt = JwtAuthenticator::new(config)
            .await
            .context("cannot set up JWT authentication")?;
        tracing::info!(%issuer, %audience, "bearer JWTs checked against the JWKS");
        Ok(Some(Arc::new(jwt)))
    }

    /// Put `auth` in front of the endpoint of `options` (with JWTs, its
    /// refusals name the metadata the returned [`Metadata`] will serve).
    pub(crate) fn protect(
        &self,
        options: &mut HttpOptions,
        auth: Option<Authenticator>,
    ) -> Metadata {
        let metadata = Metadata::default();
        if let Some(inner) = auth {
            options.authenticator = Some(if self.auth_jwks.is_some() {
                Arc::new(NamingMetadata {
                    inner,
                    url: Arc::clone(&metadata.0),
                })
            } else {
                inner
            });
        }
        metadata
    }

    /// With JWTs, the protected-resource metadata's routes for the endpoint
    /// at `base` + `endpoint`, the resource called `name`.
    pub(crate) fn metadata_routes(
        &self,
        metadata: &Metadata,
        base: &str,
        endpoint: &str,
        name: &str,
    ) -> Option<Router> {
        let (Some(_), Some(issuer), Some(audience)) =
            (&self.auth_jwks, &self.auth_issuer, &self.auth_audience)
        else {
            return None;
        };
        let _ = metadata
            .0
            .set(ProtectedResource::metadata_url(base, endpoint));
        let resource = ProtectedResource::new(audience)
            .authorization_server(issuer)
            .name(name);
        Some(resource.router(endpoint))
    }
}
