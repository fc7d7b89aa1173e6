//! The HTTP status of a handled message. The core says what kind of failure
//! a response carries; which status that is belongs to Streamable HTTP.

use axum::http::StatusCode;
use frontdesk_wire::{ErrorCode, Revision};

use crate::server::transport::{Failure, Handled};

/// The status to answer `handled` with: `202` without a body; `400` for an
/// unreadable message and a 2026-07-28 request without its `_meta`; `429`
/// for a client over its share and `503` for a server at a bound; on
/// 2026-07-28, the statuses the revision assigns (`400` for `-32020`,
/// `-32021`, `-32022`; `404` for `-32601`) and `500` for `-32603`; `200`
/// otherwise (JSON-RPC errors the spec gives no status, and every
/// 2025-11-25 error to a readable request).
pub(crate) fn of(handled: &Handled) -> StatusCode {
    if handled.response.is_none() {
        return StatusCode::ACCEPTED;
    }
    match handled.failure {
        None => StatusCode::OK,
        Some(Failure::Unreadable | Failure::MissingMeta) => StatusCode::BAD_REQUEST,
        Some(Failure::Busy) => StatusCode::TOO_MANY_REQUESTS,
        Some(Failure::Overloaded) => StatusCode::SERVICE_UNAVAILABLE,
        Some(Failure::Error(code)) if handled.revision == Some(Revision::V2026_07_28) => {
            match code.http_status_2026() {
                Some(s) => StatusCode::from_u16(s).unwrap_or(StatusCode::BAD_REQUEST),
                None if code == ErrorCode::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
                None => StatusCode::OK,
            }
        }
        Some(_) => StatusCode::OK,
    }
}
