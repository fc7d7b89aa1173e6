//! Streamable HTTP, client side, for both revisions.
//!
//! - Every message is a POST to the endpoint; a response comes back as JSON or
//!   as an SSE stream that may carry server requests and notifications before
//!   it (those go to the inbound queue).
//! - 2026-07-28 requests (recognised by `params._meta` naming a version) carry
//!   `MCP-Protocol-Version` equal to it, `Mcp-Method`, and `Mcp-Name` for
//!   `tools/call`, `prompts/get` and `resources/read` (non-ASCII values in the
//!   `=?base64?…?=` form). A 4xx with a JSON-RPC body is that error response.
//! - 2025-11-25: `Mcp-Session-Id` from the `initialize` response on every later
//!   request, `MCP-Protocol-Version` after the handshake, the standalone GET
//!   stream (404/405/400 tolerated), resumption with `Last-Event-ID` when a
//!   stream breaks before its response, DELETE on close.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::auth::{Attempt, AuthHttp, AuthSession, BearerChallenge, OAuthConfig};
use super::error::ClientError;
use super::sse::{SseEvent, SseParser};
use super::tool_headers::{ParamHeaders, header_values};
use super::transport::{Inbound, Tap, Transport, id_key, is_response, not_json};
use crate::BoxFuture;
use frontdesk_wire::method::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use frontdesk_wire::{header, meta_key, method};

/// Largest SSE event or JSON body read (bytes).
const MAX_BODY: usize = 16 * 1024 * 1024;
/// How often a broken stream is resumed before giving up.
const MAX_RESUMES: u32 = 3;

pub(crate) struct HttpTransport {
    http: reqwest::Client,
    url: String,
    session_id: Mutex<Option<String>>,
    legacy_version: Mutex<Option<String>>,
    inbound: Inbound,
    tap: Tap,
    closed: CancellationToken,
    auth: Option<AuthSession>,
    mirrored: Mutex<HashMap<String, ParamHeaders>>,
}

/// The TLS settings of every HTTPS connection: rustls on the `ring` provider
/// (passed explicitly, so no process-wide default is installed), server
/// certificates checked against the platform's trust store plus
/// `extra_roots` (DER), HTTP/1.1 over ALPN.
///
/// A platform without any root certificates is an error for an `https` URL
/// (said at connect time, not as an opaque handshake failure); for a plain
/// `http` URL the TLS settings are never used, so it falls back to the extra
/// roots alone.
fn tls_config(extra_roots: &[Vec<u8>], https: bool) -> Result<rustls::ClientConfig, ClientError> {
    use rustls::pki_types::CertificateDer;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = || {
        extra_roots
            .iter()
            .map(|der| CertificateDer::from(der.clone()))
    };
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Transport(crate::Reason::from(format!("TLS: {e}"))))?;
    let mut config =
        match rustls_platform_verifier::Verifier::new_with_extra_roots(roots(), provider) {
            Ok(verifier) => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth(),
            Err(e) if https => {
                return Err(ClientError::Transport(crate::Reason::from(format!(
                    "TLS: cannot set up certificate verification: {e}"
                ))));
            }
            Err(e) => {
                tracing::debug!(error = %e, "no platform root certificates (plain HTTP: unused)");
                let mut store = rustls::RootCertStore::empty();
                let (_, ignored) = store.add_parsable_certificates(roots());
                if ignored > 0 {
                    tracing::warn!(ignored, "extra root certificates that do not parse");
                }
                builder.with_root_certificates(store).with_no_client_auth()
            }
        };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

impl HttpTransport {
    pub(super) fn new(
        url: String,
        extra_roots: &[Vec<u8>],
        oauth: Option<(
            OAuthConfig,
            frontdesk_url::UrlPolicy,
            Arc<super::policy::HumanClock>,
        )>,
        inbound: Inbound,
        tap: Tap,
    ) -> Result<Self, ClientError> {
        let https = url
            .get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .tls_backend_preconfigured(tls_config(extra_roots, https)?)
            .build()
            .map_err(ClientError::transport)?;
        let auth = match oauth {
            Some((config, policy, human)) => {
                // The authorization server may be on https even when the
                // MCP endpoint is plain loopback http.
                let tls =
                    tls_config(extra_roots, true).or_else(|_| tls_config(extra_roots, false))?;
                Some(AuthSession::new(
                    config,
                    &url,
                    AuthHttp::new(tls)?,
                    policy,
                    human,
                )?)
            }
            None => None,
        };
        Ok(Self {
            http,
            url,
            session_id: Mutex::new(None),
            legacy_version: Mutex::new(None),
            inbound,
            tap,
            closed: CancellationToken::new(),
            auth,
            mirrored: Mutex::new(HashMap::new()),
        })
    }

    /// `request` with the current access token, if any.
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self.auth.as_ref().and_then(AuthSession::bearer) {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    fn session(&self) -> Option<String> {
        self.session_id.lock().ok().and_then(|s| s.clone())
    }

    /// POST one JSON-RPC message to the endpoint with the headers its
    /// revision needs and the access token; a `401` (or a `403` for a
    /// missing scope) is answered by authorizing and sending it again.
    async fn post(&self, message: &Value) -> Result<reqwest::Response, ClientError> {
        let body = serde_json::to_vec(message).map_err(ClientError::transport)?;
        let mut attempt = Attempt::default();
        loop {
            attempt.sent = self.auth.as_ref().and_then(AuthSession::bearer);
            let request = self
                .http
                .post(&self.url)
                .headers(self.headers_for(message))
                .body(body.clone());
            let response = self
                .authorized(request)
                .send()
                .await
                .map_err(|e| ClientError::transport_chain(&e))?;
            let status = response.status().as_u16();
            let Some(auth) = self
                .auth
                .as_ref()
                .filter(|_| status == 401 || status == 403)
            else {
                return Ok(response);
            };
            let challenge = BearerChallenge::from_headers(
                response
                    .headers()
                    .get_all(reqwest::header::WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|v| v.to_str().ok()),
            );
            if status == 403
                && !challenge
                    .as_ref()
                    .is_some_and(BearerChallenge::insufficient_scope)
            {
                return Ok(response);
            }
            auth.refused(status, challenge, &mut attempt).await?;
        }
    }

    fn headers_for(&self, message: &Value) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let params = message.get("params");
        let modern_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta_key::PROTOCOL_VERSION))
            .and_then(Value::as_str);
        let mut put = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                h.insert(name, v);
            }
        };
        if let Some(version) = modern_version {
            put(header::MCP_PROTOCOL_VERSION, version);
            if let Some(m) = message.get("method").and_then(Value::as_str) {
                put(header::MCP_METHOD, &header::encode_value(m));
                let name = match m {
                    method::TOOLS_CALL | method::PROMPTS_GET => params.and_then(|p| p.get("name")),
                    method::RESOURCES_READ => params.and_then(|p| p.get("uri")),
                    TASKS_GET | TASKS_UPDATE | TASKS_CANCEL => params.and_then(|p| p.get("taskId")),
                    _ => None,
                };
                if let Some(n) = name.and_then(Value::as_str) {
                    put(header::MCP_NAME, &header::encode_value(n));
                }
                if m == method::TOOLS_CALL
                    && let Some(tool) = name.and_then(Value::as_str)
                    && let Some(mirrored) =
                        self.mirrored.lock().ok().and_then(|m| m.get(tool).cloned())
                {
                    let arguments = params
                        .and_then(|p| p.get("arguments"))
                        .and_then(Value::as_object);
                    for (name, value) in header_values(&mirrored, arguments) {
                        if let (Ok(n), Ok(v)) = (
                            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
                            HeaderValue::from_str(&value),
                        ) {
                            h.insert(n, v);
                        }
                    }
                }
            }
        } else {
            if let Some(v) = self.legacy_version.lock().ok().and_then(|v| v.clone()) {
                put(header::MCP_PROTOCOL_VERSION, &v);
            }
            if let Some(sid) = self.session() {
                put(header::MCP_SESSION_ID, &sid);
            }
        }
        h
    }

    /// Read an SSE body until the response with `id` (if any) arrives; other
    /// messages go inbound. Returns the response, and the last event id and
    /// retry delay seen (for resumption).
    async fn read_stream(
        &self,
        response: reqwest::Response,
        id: Option<&str>,
        last_id: &mut Option<String>,
        retry: &mut Option<Duration>,
    ) -> Option<Value> {
        let mut parser = SseParser::new(MAX_BODY);
        let mut body = response.bytes_stream();
        loop {
            let chunk = tokio::select! {
                c = body.next() => c,
                () = self.closed.cancelled() => return None,
            };
            let Some(Ok(chunk)) = chunk else {
                return None;
            };
            for ev in parser.feed(&chunk) {
                if let Some(found) = self.event(ev, id, last_id, retry).await {
                    return Some(found);
                }
            }
        }
    }

    async fn event(
        &self,
        ev: SseEvent,
        id: Option<&str>,
        last_id: &mut Option<String>,
        retry: &mut Option<Duration>,
    ) -> Option<Value> {
        if ev.id.is_some() {
            last_id.clone_from(&ev.id);
        }
        if ev.retry.is_some() {
            *retry = ev.retry;
        }
        if ev.data.trim().is_empty() {
            return None;
        }
        let message: Value = match serde_json::from_str(&ev.data) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "unparseable SSE event from the server");
                self.inbound.unreadable(not_json(&e)).await;
                return None;
            }
        };
        self.tap.incoming(&message);
        if is_response(&message) {
            let key = message.get("id").map(id_key);
            if key.as_deref() == id {
                return Some(message);
            }
            tracing::debug!(id = ?key, "response to no pending request on this stream");
            return None;
        }
        match id {
            Some(request) => self.inbound.deliver_on(message, request).await,
            None => self.inbound.deliver(message).await,
        };
        None
    }

    /// Resume a broken stream with `GET` + `Last-Event-ID` (2025-11-25).
    async fn resume(
        &self,
        key: &str,
        mut last_id: Option<String>,
        mut retry: Option<Duration>,
    ) -> Result<Value, ClientError> {
        for attempt in 0..MAX_RESUMES {
            let Some(event_id) = last_id.clone() else {
                break;
            };
            tokio::time::sleep(retry.unwrap_or(Duration::from_millis(100))).await;
            tracing::debug!(attempt, %event_id, "resuming the response stream");
            let Ok(resp) = self.get(Some(&event_id)).send().await else {
                continue;
            };
            if !resp.status().is_success() {
                break;
            }
            if let Some(found) = self
                .read_stream(resp, Some(key), &mut last_id, &mut retry)
                .await
            {
                return Ok(found);
            }
        }
        Err(ClientError::Transport(crate::Reason::from(
            "the response stream ended before the response",
        )))
    }

    fn get(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let mut req = self.authorized(self.http.get(&self.url).header(ACCEPT, "text/event-stream"));
        if let Some(sid) = self.session() {
            req = req.header(header::MCP_SESSION_ID, sid);
        }
        if let Some(v) = self.legacy_version.lock().ok().and_then(|v| v.clone()) {
            req = req.header(header::MCP_PROTOCOL_VERSION, v);
        }
        if let Some(id) = last_event_id {
            req = req.header(header::LAST_EVENT_ID, id);
        }
        req
    }

    async fn read_body(response: reqwest::Response) -> Result<Vec<u8>, ClientError> {
        let mut out = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(ClientError::transport)?;
            if out.len() + chunk.len() > MAX_BODY {
                return Err(ClientError::Transport(crate::Reason::from(
                    "response body too large",
                )));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }

    /// The standalone GET stream of a 2025-11-25 session: server requests and
    /// notifications not tied to a request. `first` is the already opened
    /// stream; it is resumed with `Last-Event-ID` while the connection lives.
    async fn get_stream(self: std::sync::Arc<Self>, first: reqwest::Response) {
        let mut last_id: Option<String> = None;
        let mut retry: Option<Duration> = None;
        self.read_stream(first, None, &mut last_id, &mut retry)
            .await;
        let mut failures = 0u32;
        while !self.closed.is_cancelled() && failures <= MAX_RESUMES {
            tokio::time::sleep(retry.unwrap_or(Duration::from_millis(500))).await;
            let resp = tokio::select! {
                r = self.get(last_id.as_deref()).send() => r,
                () = self.closed.cancelled() => return,
            };
            match resp {
                Ok(r) if r.status().is_success() => {
                    failures = 0;
                    self.read_stream(r, None, &mut last_id, &mut retry).await;
                    if last_id.is_none() {
                        failures += 1;
                    }
                }
                Ok(r) => {
                    tracing::debug!(status = %r.status(), "the GET stream cannot be resumed");
                    return;
                }
                Err(e) => {
                    failures += 1;
                    tracing::debug!(error = %e, "GET stream failed");
                }
            }
        }
    }
}

/// Wraps the transport so the GET task can hold it.
pub(crate) struct SharedHttp(pub std::sync::Arc<HttpTransport>);

impl Transport for SharedHttp {
    fn request<'a>(
        &'a self,
        id: &'a Value,
        message: Value,
    ) -> BoxFuture<'a, Result<Value, ClientError>> {
        Box::pin(async move {
            let t = &self.0;
            let key = id_key(id);
            let is_init = message.get("method").and_then(Value::as_str) == Some(method::INITIALIZE);
            let modern = message
                .get("params")
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get(meta_key::PROTOCOL_VERSION))
                .is_some();
            let mut reissued = 0;
            let resp = loop {
                let resp = t.post(&message).await?;
                if is_init
                    && let Some(sid) = resp
                        .headers()
                        .get(header::MCP_SESSION_ID)
                        .and_then(|v| v.to_str().ok())
                    && let Ok(mut s) = t.session_id.lock()
                {
                    *s = Some(sid.to_string());
                }
                let is_sse = resp
                    .headers()
                    .get(CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                if !(is_sse && resp.status().is_success()) {
                    break resp;
                }
                let mut last_id = None;
                let mut retry = None;
                if let Some(found) = t
                    .read_stream(resp, Some(&key), &mut last_id, &mut retry)
                    .await
                {
                    return Ok(found);
                }
                if t.closed.is_cancelled() {
                    return Err(ClientError::Closed);
                }
                if !modern {
                    // 2025-11-25: resume the stream with GET + Last-Event-ID.
                    return t.resume(&key, last_id, retry).await;
                }
                // 2026-07-28 has no stream to resume: the request is sent
                // again (after the server's `retry:`), a bounded number of times.
                if reissued >= MAX_RESUMES {
                    return Err(ClientError::Transport(crate::Reason::from(
                        "the response stream broke before the response, every time",
                    )));
                }
                reissued += 1;
                tracing::info!(
                    attempt = reissued,
                    "the response stream broke; sending the request again"
                );
                tokio::select! {
                    () = tokio::time::sleep(retry.unwrap_or(Duration::from_millis(200))) => {}
                    () = t.closed.cancelled() => return Err(ClientError::Closed),
                }
            };
            let status = resp.status();
            let body = HttpTransport::read_body(resp).await?;
            match serde_json::from_slice::<Value>(&body) {
                Ok(v) if is_response(&v) => {
                    t.tap.incoming(&v);
                    Ok(v)
                }
                _ => Err(ClientError::Transport(crate::Reason::from(format!(
                    "HTTP {status}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(200)])
                )))),
            }
        })
    }

    fn send(&self, message: Value) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let t = &self.0;
            let resp = t.post(&message).await?;
            let status = resp.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(ClientError::Transport(crate::Reason::from(format!(
                    "HTTP {status}"
                ))))
            }
        })
    }

    fn initialized<'a>(&'a self, version: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Ok(mut v) = self.0.legacy_version.lock() {
                *v = Some(version.to_string());
            }
            // Open the GET stream before returning, so a server that sends
            // requests there (not on the POST streams) finds it open.
            let opened =
                tokio::time::timeout(Duration::from_secs(10), self.0.get(None).send()).await;
            match opened {
                Ok(Ok(r)) if r.status().is_success() => {
                    tokio::spawn(self.0.clone().get_stream(r));
                }
                Ok(Ok(r)) => tracing::debug!(status = %r.status(), "no standalone GET stream"),
                Ok(Err(e)) => tracing::debug!(error = %e, "GET stream failed"),
                Err(_) => tracing::debug!("GET stream did not open in time"),
            }
        })
    }

    fn is_http(&self) -> bool {
        true
    }

    fn mirror_params(&self, tool: &str, headers: ParamHeaders) {
        if let Ok(mut m) = self.0.mirrored.lock() {
            if headers.is_empty() {
                m.remove(tool);
            } else {
                m.insert(tool.to_owned(), headers);
            }
        }
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let t = &self.0;
            t.closed.cancel();
            if let Some(sid) = t.session() {
                let mut req = t
                    .authorized(t.http.delete(&t.url))
                    .header(header::MCP_SESSION_ID, sid)
                    .timeout(Duration::from_secs(5));
                if let Some(v) = t.legacy_version.lock().ok().and_then(|v| v.clone()) {
                    req = req.header(header::MCP_PROTOCOL_VERSION, v);
                }
                match req.send().await {
                    Ok(r) => tracing::debug!(status = %r.status(), "session deleted"),
                    Err(e) => tracing::debug!(error = %e, "DELETE failed"),
                }
            }
        })
    }
}
