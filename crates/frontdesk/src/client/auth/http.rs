//! The HTTP the authorization flow does itself: metadata documents, dynamic
//! registration, and the token endpoint (through `oauth2`'s async client
//! interface). Redirects are never followed (an authorization server that
//! answers a metadata or token request with a redirect is refused, so a
//! request cannot be bounced to a host nobody reviewed), bodies are bounded,
//! and nothing here logs a body (token responses carry secrets).

use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde::de::DeserializeOwned;

use super::AuthError;

/// Largest metadata, registration or token response read (bytes).
const MAX_BODY: usize = 256 * 1024;

/// The client the flow uses for its own requests.
#[derive(Clone)]
pub(crate) struct AuthHttp {
    client: reqwest::Client,
}

/// A response read in full.
pub(crate) struct Fetched {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl AuthHttp {
    /// A client with the same TLS settings as the MCP connection.
    pub(crate) fn new(tls: rustls::ClientConfig) -> Result<Self, AuthError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .tls_backend_preconfigured(tls)
            .build()
            .map_err(|e| AuthError::Network(crate::Reason::new(e)))?;
        Ok(Self { client })
    }

    /// `GET url` expecting JSON; `Ok(None)` for a 4xx (try the next
    /// candidate), an error for anything else that is not a 200 JSON object.
    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        url: &str,
    ) -> Result<Option<T>, AuthError> {
        let response = self
            .client
            .get(url)
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| AuthError::Network(crate::Reason::from(format!("{url}: {e}"))))?;
        let fetched = read(response).await?;
        if (400..500).contains(&fetched.status) {
            return Ok(None);
        }
        if fetched.status != 200 {
            return Err(AuthError::Metadata(crate::Reason::from(format!(
                "{url} answered HTTP {}",
                fetched.status
            ))));
        }
        serde_json::from_slice(&fetched.body)
            .map(Some)
            .map_err(|e| {
                AuthError::Metadata(crate::Reason::from(format!(
                    "{url} is not the expected document: {e}"
                )))
            })
    }

    /// `POST url` with a JSON body.
    pub(crate) async fn post_json(
        &self,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<Fetched, AuthError> {
        let response = self
            .client
            .post(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .json(body)
            .send()
            .await
            .map_err(|e| AuthError::Network(crate::Reason::from(format!("{url}: {e}"))))?;
        read(response).await
    }

    /// Run one `oauth2` request (the token endpoint).
    pub(crate) async fn execute(
        &self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, AuthError> {
        let (parts, body) = request.into_parts();
        let method = reqwest::Method::from_bytes(parts.method.as_str().as_bytes())
            .map_err(|e| AuthError::Network(crate::Reason::new(e)))?;
        let mut builder = self
            .client
            .request(method, parts.uri.to_string())
            .body(body);
        for (name, value) in &parts.headers {
            builder = builder.header(name.as_str(), value.as_bytes());
        }
        let response = builder
            .send()
            .await
            .map_err(|e| AuthError::Network(crate::Reason::from(format!("{}: {e}", parts.uri))))?;
        let fetched = read(response).await?;
        let mut out = http::Response::builder().status(fetched.status);
        for (name, value) in &fetched.headers {
            out = out.header(name.as_str(), value.as_bytes());
        }
        out.body(fetched.body)
            .map_err(|e| AuthError::Network(crate::Reason::new(e)))
    }
}

async fn read(response: reqwest::Response) -> Result<Fetched, AuthError> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| AuthError::Network(crate::Reason::new(e)))?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(AuthError::Network(crate::Reason::from(
                "response body too large",
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched {
        status,
        headers,
        body,
    })
}
