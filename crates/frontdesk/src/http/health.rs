//! `GET /healthz` and `GET /readyz`, for load balancers and orchestrators:
//! alive is "the process answers"; ready is "not draining, and the state
//! store answers within a second". Plain text, never cached, no detail of a
//! failure (that goes to the log).

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::server::Server;

/// How long `/readyz` waits for the store.
const STORE_WAIT: Duration = Duration::from_secs(1);

/// The two routes, for `server`.
pub(crate) fn routes(server: Server) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .with_state(server)
}

async fn healthz() -> Response {
    text(StatusCode::OK, "alive\n")
}

async fn readyz(State(server): State<Server>) -> Response {
    if server.is_draining() {
        return text(StatusCode::SERVICE_UNAVAILABLE, "draining\n");
    }
    match tokio::time::timeout(STORE_WAIT, server.store_ready()).await {
        Ok(Ok(())) => text(StatusCode::OK, "ready\n"),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "not ready: the state store failed");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "the state store is unavailable\n",
            )
        }
        Err(_) => {
            tracing::warn!(
                wait_ms = STORE_WAIT.as_millis() as u64,
                "not ready: the state store did not answer in time"
            );
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "the state store did not answer in time\n",
            )
        }
    }
}

fn text(status: StatusCode, body: &'static str) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
