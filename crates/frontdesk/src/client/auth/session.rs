//! One MCP endpoint's authorization state: the token to send, and what to do
//! when the server refuses it (`401`: refresh, else authorize; `403` with
//! `insufficient_scope`: authorize for more scopes). Flows are serialized:
//! requests refused together wait for one authorization and all use its
//! token.

use std::sync::{Arc, RwLock};

use frontdesk_url::UrlPolicy;

use super::super::policy::HumanClock;
use super::challenge::BearerChallenge;
use super::grant;
use super::http::AuthHttp;
use super::metadata::{self, ResourceMetadata, ServerMetadata};
use super::registration;
use super::store::{RegisteredClient, StoredGrant, Tokens};
use super::{AuthError, AuthorizationPrompt, AuthorizationRequest, OAuthConfig};

/// What one request has been through, so it cannot loop.
#[derive(Debug, Default)]
pub(crate) struct Attempt {
    /// The token the refused request carried.
    pub sent: Option<String>,
    authorizations: u32,
    refreshed: bool,
}

/// The authorization state of one endpoint.
pub(crate) struct AuthSession {
    config: OAuthConfig,
    endpoint: url::Url,
    key: String,
    http: AuthHttp,
    url_policy: UrlPolicy,
    current: RwLock<StoredGrant>,
    /// Marks the person's time on the sign-in (request timeouts pause).
    human: Arc<HumanClock>,
    /// Scopes asked for so far (re-authorizations ask for the union).
    asked: tokio::sync::Mutex<Vec<String>>,
}

impl AuthSession {
    /// The state for `endpoint`, starting from what the store kept.
    pub(crate) fn new(
        config: OAuthConfig,
        endpoint: &str,
        http: AuthHttp,
        url_policy: UrlPolicy,
        human: Arc<HumanClock>,
    ) -> Result<Self, AuthError> {
        let parsed = url::Url::parse(endpoint).map_err(|e| {
            AuthError::Metadata(crate::Reason::from(format!(
                "the endpoint is not a URL: {e}"
            )))
        })?;
        let kept = config.store.load(endpoint)?.unwrap_or_default();
        let asked = kept
            .tokens
            .as_ref()
            .map(|t| t.scopes.clone())
            .unwrap_or_default();
        Ok(Self {
            config,
            endpoint: parsed,
            key: endpoint.to_owned(),
            http,
            url_policy,
            current: RwLock::new(kept),
            human,
            asked: tokio::sync::Mutex::new(asked),
        })
    }

    fn grant(&self) -> StoredGrant {
        self.current.read().map(|g| g.clone()).unwrap_or_default()
    }

    fn keep(&self, grant: StoredGrant) -> Result<(), AuthError> {
        self.config.store.save(&self.key, &grant)?;
        if let Ok(mut g) = self.current.write() {
            *g = grant;
        }
        Ok(())
    }

    /// The access token to send, if there is one.
    pub(crate) fn bearer(&self) -> Option<String> {
        self.current
            .read()
            .ok()
            .and_then(|g| g.tokens.as_ref().map(|t| t.access_token.clone()))
    }

    /// The server refused a request with `status` (401 or 403) and
    /// `challenge`: get a token worth retrying with, or say why not.
    pub(crate) async fn refused(
        &self,
        status: u16,
        challenge: Option<BearerChallenge>,
        attempt: &mut Attempt,
    ) -> Result<(), AuthError> {
        let mut asked = self.asked.lock().await;
        // Another request got a new token while this one waited: use it.
        if let Some(now) = self.bearer()
            && attempt.sent.as_deref() != Some(now.as_str())
        {
            return Ok(());
        }
        let challenge = challenge.unwrap_or_default();
        let wanted = challenge.scopes();
        if status == 403 {
            let granted: std::collections::HashSet<String> = self
                .grant()
                .tokens
                .map(|t| t.scopes.into_iter().collect())
                .unwrap_or_default();
            if !challenge.insufficient_scope()
                || (!wanted.is_empty() && wanted.iter().all(|s| granted.contains(s)))
            {
                return Err(AuthError::Forbidden(crate::Reason::from(
                    if wanted.is_empty() {
                        challenge.error.unwrap_or_else(|| "no reason given".into())
                    } else {
                        wanted.join(" ")
                    },
                )));
            }
        } else if !attempt.refreshed
            && self
                .grant()
                .tokens
                .is_some_and(|t| t.refresh_token.is_some())
        {
            attempt.refreshed = true;
            match self.refresh(&challenge, &asked).await {
                Ok(()) => return Ok(()),
                Err(e) => tracing::info!(error = %e, "refreshing the token failed; authorizing"),
            }
        }
        if attempt.authorizations >= self.config.max_authorizations {
            return Err(AuthError::TooManyAttempts(attempt.authorizations));
        }
        attempt.authorizations += 1;
        let scopes = super::challenge::merge_scopes(asked.clone(), wanted);
        let used = self.authorize(&challenge, scopes).await?;
        *asked = used;
        Ok(())
    }

    async fn discover(
        &self,
        challenge: &BearerChallenge,
    ) -> Result<(ResourceMetadata, ServerMetadata), AuthError> {
        let resource = metadata::discover_resource(
            &self.http,
            &self.endpoint,
            challenge.resource_metadata.as_deref(),
        )
        .await?;
        // The pre-registered client's own issuer when the resource lists
        // it, else the first one listed.
        let preferred = self.config.preregistered.as_ref().and_then(|pre| {
            resource
                .authorization_servers
                .iter()
                .find(|issuer| **issuer == pre.issuer)
        });
        let Some(issuer) = preferred.or(resource.authorization_servers.first()) else {
            return Err(AuthError::Metadata(crate::Reason::from(
                "the resource metadata names no authorization server",
            )));
        };
        let server = metadata::discover_server(&self.http, issuer).await?;
        Ok((resource, server))
    }

    async fn refresh(
        &self,
        challenge: &BearerChallenge,
        asked: &[String],
    ) -> Result<(), AuthError> {
        let kept = self.grant();
        let (Some(client), Some(tokens)) = (kept.client, kept.tokens) else {
            return Err(AuthError::Token(crate::Reason::from("nothing to refresh")));
        };
        let Some(refresh_token) = tokens.refresh_token.as_deref() else {
            return Err(AuthError::Token(crate::Reason::from("no refresh token")));
        };
        let (resource, server) = self.discover(challenge).await?;
        if client.issuer != server.issuer {
            return Err(AuthError::Token(crate::Reason::from(
                "the resource moved to another authorization server",
            )));
        }
        let fresh = grant::refresh(
            &self.http,
            &server,
            &client,
            refresh_token,
            &resource.resource,
            asked,
        )
        .await?;
        tracing::info!(issuer = %server.issuer, "access token refreshed");
        self.keep(StoredGrant {
            client: Some(client),
            tokens: Some(fresh),
        })
    }

    /// A whole authorization; returns the scopes asked for.
    async fn authorize(
        &self,
        challenge: &BearerChallenge,
        mut scopes: Vec<String>,
    ) -> Result<Vec<String>, AuthError> {
        let (resource, server) = self.discover(challenge).await?;
        if scopes.is_empty() {
            scopes = resource.scopes_supported.clone().unwrap_or_default();
        }
        if server.supports_scope("offline_access") && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        let mut redirect = self.config.user_agent.prepare().await?;
        let redirect_uri = redirect.redirect_uri();
        let endpoint = frontdesk_url::review(&server.authorization_endpoint, &self.url_policy);
        if !endpoint.may_open() {
            return Err(refused_by_review(&endpoint));
        }
        let prompt = AuthorizationPrompt {
            server: self.key.clone(),
            issuer: server.issuer.clone(),
            scopes: scopes.clone(),
            review: endpoint,
        };
        {
            let _busy = self.human.start();
            redirect.consent(&prompt).await?;
        }
        // Only now does the client send the authorization server anything
        // (a dynamic registration, when it needs one).
        let kept = self.grant().client;
        if kept.as_ref().is_some_and(|k| k.issuer != server.issuer) {
            tracing::info!(issuer = %server.issuer, "the resource moved to another authorization server; registering anew");
        }
        let client: RegisteredClient = registration::client_for(
            &self.config,
            &self.http,
            &server,
            kept.as_ref(),
            &redirect_uri,
        )
        .await?;
        let pending = grant::start(&server, &client, &redirect_uri, &scopes, &resource.resource)?;
        let review = frontdesk_url::review(&pending.url, &self.url_policy);
        if !review.may_open() {
            return Err(refused_by_review(&review));
        }
        if !same_page(&pending.url, &server.authorization_endpoint) {
            return Err(AuthError::Metadata(crate::Reason::from(
                "the authorization URL is not on the endpoint the person agreed to",
            )));
        }
        let request = AuthorizationRequest {
            review,
            state: pending.state().to_owned(),
        };
        let answer = {
            let _busy = self.human.start();
            redirect.complete(request).await?
        };
        let code = pending.code(&answer, &server)?;
        let tokens: Tokens = pending.exchange(&self.http, &server, &client, code).await?;
        tracing::info!(issuer = %server.issuer, scopes = %scopes.join(" "), "authorized");
        self.keep(StoredGrant {
            client: Some(client),
            tokens: Some(tokens),
        })?;
        Ok(scopes)
    }
}

fn refused_by_review(review: &frontdesk_url::UrlReview) -> AuthError {
    AuthError::Metadata(crate::Reason::from(format!(
        "the authorization URL is refused by the URL review: {}",
        review.plain_text().replace('\n', "; ")
    )))
}

/// Whether the authorization URL `url` is the page `endpoint` (same origin
/// and path; the query is the request's own).
fn same_page(url: &str, endpoint: &str) -> bool {
    match (url::Url::parse(url), url::Url::parse(endpoint)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin() && a.path() == b.path(),
        _ => false,
    }
}
