//! The authorization code grant with PKCE (through the `oauth2` crate): the
//! authorization URL, the checks of the redirect that answers it, and the
//! token endpoint (code exchange and refresh).

use std::time::{SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet,
    EndpointSet, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError,
    Scope, TokenResponse, TokenUrl,
};

use super::AuthError;
use super::http::AuthHttp;
use super::metadata::ServerMetadata;
use super::store::{RegisteredClient, Tokens};

type OAuthClient =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// An authorization request waiting for its redirect.
pub(crate) struct Pending {
    /// The URL to send the person to.
    pub url: String,
    state: CsrfToken,
    verifier: PkceCodeVerifier,
    redirect_uri: String,
    resource: String,
    scopes: Vec<String>,
}

fn oauth_client(
    server: &ServerMetadata,
    client: &RegisteredClient,
    redirect_uri: Option<&str>,
) -> Result<OAuthClient, AuthError> {
    let bad = |what: &str, e: url::ParseError| {
        AuthError::Metadata(crate::Reason::from(format!("{what}: {e}")))
    };
    let mut c = BasicClient::new(ClientId::new(client.client_id.clone()))
        .set_auth_uri(
            AuthUrl::new(server.authorization_endpoint.clone())
                .map_err(|e| bad("authorization endpoint", e))?,
        )
        .set_token_uri(
            TokenUrl::new(server.token_endpoint.clone()).map_err(|e| bad("token endpoint", e))?,
        )
        .set_auth_type(match client.auth_method.as_str() {
            "client_secret_post" | "none" => AuthType::RequestBody,
            _ => AuthType::BasicAuth,
        });
    if client.auth_method != "none"
        && let Some(secret) = &client.client_secret
    {
        c = c.set_client_secret(ClientSecret::new(secret.clone()));
    }
    if let Some(uri) = redirect_uri {
        c = c.set_redirect_uri(
            RedirectUrl::new(uri.to_owned()).map_err(|e| bad("redirect URI", e))?,
        );
    }
    Ok(c)
}

/// The authorization URL for `scopes` and `resource` (PKCE S256, a random
/// `state`).
pub(crate) fn start(
    server: &ServerMetadata,
    client: &RegisteredClient,
    redirect_uri: &str,
    scopes: &[String],
    resource: &str,
) -> Result<Pending, AuthError> {
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state) = oauth_client(server, client, Some(redirect_uri))?
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_scopes(scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", resource)
        .url();
    Ok(Pending {
        url: url.to_string(),
        state,
        verifier,
        redirect_uri: redirect_uri.to_owned(),
        resource: resource.to_owned(),
        scopes: scopes.to_vec(),
    })
}

/// The one value of query parameter `name`; an error when it is repeated.
fn single(url: &url::Url, name: &str) -> Result<Option<String>, AuthError> {
    let mut values = url.query_pairs().filter(|(k, _)| k == name).map(|(_, v)| v);
    let first = values.next().map(|v| v.into_owned());
    if values.next().is_some() {
        return Err(AuthError::Callback(crate::Reason::from(format!(
            "{name} appears more than once"
        ))));
    }
    Ok(first)
}

impl Pending {
    /// The request's `state`.
    pub(super) fn state(&self) -> &str {
        self.state.secret()
    }

    /// Check the redirect URL and return its code: the `state` must be this
    /// request's, an `iss` must be exactly the issuer (and is required when
    /// the server advertises it, RFC 9207), an `error` is the server's refusal.
    pub(super) fn code(
        &self,
        redirect: &str,
        server: &ServerMetadata,
    ) -> Result<String, AuthError> {
        let url = url::Url::parse(redirect)
            .map_err(|e| AuthError::Callback(crate::Reason::from(format!("not a URL: {e}"))))?;
        if single(&url, "state")?.as_deref() != Some(self.state.secret().as_str()) {
            return Err(AuthError::Callback(crate::Reason::from(
                "its state is not this request's (a forged or stale redirect)",
            )));
        }
        match single(&url, "iss")? {
            Some(iss) if iss != server.issuer => {
                return Err(AuthError::Callback(crate::Reason::from(format!(
                    "it comes from issuer {iss}, not {}",
                    server.issuer
                ))));
            }
            None if server.authorization_response_iss_parameter_supported == Some(true) => {
                return Err(AuthError::Callback(crate::Reason::from(
                    "it has no iss although the authorization server promises one",
                )));
            }
            _ => {}
        }
        if let Some(error) = single(&url, "error")? {
            let description = single(&url, "error_description")?.unwrap_or_default();
            return Err(AuthError::Denied(crate::Reason::from(
                format!("{error} {description}")
                    .trim()
                    .replace(char::is_control, " "),
            )));
        }
        match single(&url, "code")? {
            Some(code) if !code.is_empty() => Ok(code),
            _ => Err(AuthError::Callback(crate::Reason::from(
                "it carries no code",
            ))),
        }
    }

    /// Exchange `code` for tokens.
    pub(super) async fn exchange(
        self,
        http: &AuthHttp,
        server: &ServerMetadata,
        client: &RegisteredClient,
        code: String,
    ) -> Result<Tokens, AuthError> {
        let oauth = oauth_client(server, client, Some(&self.redirect_uri))?;
        let send = |request| {
            let http = http.clone();
            async move { http.execute(request).await }
        };
        let response = oauth
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(self.verifier)
            .add_extra_param("resource", self.resource)
            .request_async(&send)
            .await
            .map_err(token_error)?;
        Ok(tokens(&response, &self.scopes, None))
    }
}

/// Use a refresh token.
pub(crate) async fn refresh(
    http: &AuthHttp,
    server: &ServerMetadata,
    client: &RegisteredClient,
    refresh_token: &str,
    resource: &str,
    asked: &[String],
) -> Result<Tokens, AuthError> {
    let oauth = oauth_client(server, client, None)?;
    let send = |request| {
        let http = http.clone();
        async move { http.execute(request).await }
    };
    let token = RefreshToken::new(refresh_token.to_owned());
    let response = oauth
        .exchange_refresh_token(&token)
        .add_extra_param("resource", resource)
        .request_async(&send)
        .await
        .map_err(token_error)?;
    Ok(tokens(&response, asked, Some(refresh_token)))
}

/// Unix seconds now (for expiry checks).
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn tokens(response: &BasicTokenResponse, asked: &[String], old_refresh: Option<&str>) -> Tokens {
    Tokens {
        access_token: response.access_token().secret().clone(),
        refresh_token: response
            .refresh_token()
            .map(|t| t.secret().clone())
            .or_else(|| old_refresh.map(str::to_owned)),
        expires_at: response.expires_in().map(|d| unix_now() + d.as_secs()),
        scopes: match response.scopes() {
            Some(granted) => granted.iter().map(|s| s.to_string()).collect(),
            None => asked.to_vec(),
        },
    }
}

fn token_error(e: RequestTokenError<AuthError, BasicErrorResponse>) -> AuthError {
    match e {
        RequestTokenError::ServerResponse(r) => {
            let mut text = r.error().to_string();
            if let Some(d) = r.error_description() {
                text.push_str(": ");
                text.push_str(d);
            }
            AuthError::Token(crate::Reason::from(text.replace(char::is_control, " ")))
        }
        RequestTokenError::Request(e) => e,
        RequestTokenError::Parse(e, _) => {
            AuthError::Token(crate::Reason::from(format!("unusable token response: {e}")))
        }
        RequestTokenError::Other(e) => AuthError::Token(crate::Reason::from(e)),
    }
}
