//! Which client identity to present to an authorization server: a
//! pre-registered client, the registration kept from before, a client ID
//! metadata document URL, or a new dynamic registration (RFC 7591).
//!
//! A registration belongs to the issuer that made it: one kept for another
//! authorization server (the resource moved to a new one) is never reused,
//! and a pre-registered client is used only with the issuer it names.
//! Dynamic registration is called only after the person consented.

use serde::Deserialize;
use serde_json::json;

use super::http::AuthHttp;
use super::metadata::ServerMetadata;
use super::store::RegisteredClient;
use super::{AuthError, OAuthConfig};

/// What a registration endpoint answers (the members used).
#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// The client identity for `server` (whose issuer is `issuer`), given what
/// was kept and the redirect URI of this authorization.
pub(crate) async fn client_for(
    config: &OAuthConfig,
    http: &AuthHttp,
    server: &ServerMetadata,
    kept: Option<&RegisteredClient>,
    redirect_uri: &str,
) -> Result<RegisteredClient, AuthError> {
    let issuer = server.issuer.as_str();
    match &config.preregistered {
        Some(pre) if pre.issuer != issuer => tracing::info!(
            registered_with = %pre.issuer,
            %issuer,
            "the pre-registered client belongs to another authorization server; not used"
        ),
        _ => {}
    }
    if let Some(pre) = &config.preregistered
        && pre.issuer == issuer
    {
        return Ok(RegisteredClient {
            issuer: issuer.to_owned(),
            client_id: pre.client_id.clone(),
            client_secret: pre.client_secret.clone(),
            auth_method: secret_method(server, pre.client_secret.is_some()),
            redirect_uri: None,
            dynamic: false,
        });
    }
    if let Some(kept) = kept.filter(|k| k.issuer == issuer)
        && (!kept.dynamic || kept.redirect_uri.as_deref() == Some(redirect_uri))
    {
        return Ok(kept.clone());
    }
    if let Some(url) = &config.client_metadata_url
        && server.client_id_metadata_document_supported == Some(true)
    {
        return Ok(RegisteredClient {
            issuer: issuer.to_owned(),
            client_id: url.clone(),
            client_secret: None,
            auth_method: "none".to_owned(),
            redirect_uri: None,
            dynamic: false,
        });
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(AuthError::Registration(crate::Reason::from(format!(
            "{issuer} offers no dynamic registration and no client is configured for it \
             (a pre-registered client id is needed)"
        ))));
    };
    register(config, http, server, endpoint, redirect_uri).await
}

/// The method a client with (or without) a secret uses, from those the
/// server supports.
fn secret_method(server: &ServerMetadata, has_secret: bool) -> String {
    let methods = server.auth_methods();
    let has = |m: &str| methods.iter().any(|x| x == m);
    let pick = if !has_secret {
        "none"
    } else if has("client_secret_basic") {
        "client_secret_basic"
    } else if has("client_secret_post") {
        "client_secret_post"
    } else {
        "client_secret_basic"
    };
    pick.to_owned()
}

/// The method to ask for in a dynamic registration: a public client
/// (`none`, right for a native app) when the server allows it.
fn requested_method(server: &ServerMetadata) -> &'static str {
    let methods = server.auth_methods();
    let has = |m: &str| methods.iter().any(|x| x == m);
    if has("none") {
        "none"
    } else if has("client_secret_basic") {
        "client_secret_basic"
    } else if has("client_secret_post") {
        "client_secret_post"
    } else {
        "none"
    }
}

async fn register(
    config: &OAuthConfig,
    http: &AuthHttp,
    server: &ServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<RegisteredClient, AuthError> {
    let asked = requested_method(server);
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
        "application_type": "native",
    });
    let answer = http.post_json(endpoint, &body).await?;
    if !(200..300).contains(&answer.status) {
        let detail = String::from_utf8_lossy(&answer.body[..answer.body.len().min(200)])
            .replace(char::is_control, " ");
        return Err(AuthError::Registration(crate::Reason::from(format!(
            "{endpoint} answered HTTP {}: {detail}",
            answer.status
        ))));
    }
    let reply: RegistrationResponse = serde_json::from_slice(&answer.body).map_err(|e| {
        AuthError::Registration(crate::Reason::from(format!(
            "unusable registration response: {e}"
        )))
    })?;
    let auth_method = match (&reply.token_endpoint_auth_method, &reply.client_secret) {
        (Some(m), _) => m.clone(),
        (None, Some(_)) => secret_method(server, true),
        (None, None) => "none".to_owned(),
    };
    tracing::info!(issuer = %server.issuer, %auth_method, "registered a client dynamically");
    Ok(RegisteredClient {
        issuer: server.issuer.clone(),
        client_id: reply.client_id,
        client_secret: reply.client_secret,
        auth_method,
        redirect_uri: Some(redirect_uri.to_owned()),
        dynamic: true,
    })
}
