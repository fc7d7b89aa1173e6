//! The application's own routes on the listener ([`HttpListener::routes`]:
//! a sign-in page, the protected-resource metadata) get the MCP endpoint's
//! bounds: the same [`HostPolicy`] (a DNS-rebinding page must not reach them
//! either), and a request body bounded in size
//! ([`HttpOptions::max_body_bytes`], `413`) and in time
//! ([`HttpOptions::body_read_timeout`], `408`), read before the route runs.
//! Connections and header read times are bounded by the accept loop for
//! every route alike.
//!
//! [`HttpListener::routes`]: super::HttpListener::routes

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use super::{HostPolicy, HttpOptions};

/// What every page request is checked against.
struct Bounds {
    hosts: HostPolicy,
    loopback: bool,
    max_body: usize,
    body_timeout: Duration,
}

/// `routes` behind the bounds of `options` on a listener that is (or is
/// not) on a loopback address.
pub(crate) fn bounded(routes: Router, options: &HttpOptions, loopback: bool) -> Router {
    let bounds = Arc::new(Bounds {
        hosts: options.hosts.clone(),
        loopback,
        max_body: options.max_body_bytes,
        body_timeout: options.body_read_timeout,
    });
    routes.layer(axum::middleware::from_fn_with_state(bounds, check))
}

fn refuse(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

async fn check(State(bounds): State<Arc<Bounds>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if !bounds.hosts.allows(host, bounds.loopback) {
        tracing::warn!(host = ?host, path = %request.uri().path(), "page request for a disallowed Host");
        return refuse(StatusCode::FORBIDDEN, "Forbidden: Host not allowed");
    }
    let too_large = || refuse(StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large");
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > bounds.max_body as u64) {
        return too_large();
    }
    let (parts, body) = request.into_parts();
    let mut chunks = body.into_data_stream();
    let mut bytes = Vec::new();
    let deadline = tokio::time::Instant::now() + bounds.body_timeout;
    loop {
        match tokio::time::timeout_at(deadline, chunks.next()).await {
            Ok(None) => break,
            Ok(Some(Ok(chunk))) => {
                if bytes.len() + chunk.len() > bounds.max_body {
                    return too_large();
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Some(Err(e))) => {
                tracing::info!(error = %e, "could not read a page request's body");
                return refuse(StatusCode::BAD_REQUEST, "Bad Request");
            }
            Err(_) => {
                tracing::warn!("page request body not received in time");
                return refuse(StatusCode::REQUEST_TIMEOUT, "Request Timeout");
            }
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
