//! Response bodies: JSON, id-less/idful JSON-RPC errors, and the SSE bodies
//! (a session stream read from its [`EventLog`], and the request-scoped
//! 2026-07-28 stream that owns the `handle` future).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use frontdesk_wire::{ErrorCode, ErrorObject, RequestId};
use futures::StreamExt as _;
use futures::channel::mpsc::UnboundedReceiver;
use serde_json::Value;
use tokio::time::{Instant, Interval, interval_at};
use tokio_util::sync::CancellationToken;

use super::sse::{self, Attached, Event, Live};
use crate::server::RpcError;
use crate::server::contract::{Handled, into_text};

/// A boxed `Server::handle` future.
pub(crate) type HandleFuture = Pin<Box<dyn Future<Output = Handled> + Send>>;

/// A JSON body with `status`.
pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    json_text(status, sse::compact(body))
}

/// A response with `status` whose body is the JSON `text`, built directly
/// (the header value is a constant, not parsed per response).
pub(crate) fn json_text(status: StatusCode, text: String) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A JSON-RPC error response with `status` (`id` `None`: written as `null`).
pub(crate) fn rpc_error(
    status: StatusCode,
    id: Option<&RequestId>,
    code: ErrorCode,
    message: &str,
) -> Response {
    let error = RpcError::from(ErrorObject::new(code, message));
    json(status, &error.to_response(id))
}

/// The JSON (or `202`) response for a finished [`Handled`]: its text is
/// the body, not copied.
pub(crate) fn handled(h: Handled) -> Response {
    let status = super::status::of(&h);
    match h.response {
        Some(r) => json_text(status, into_text(r)),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Wrap an SSE byte stream as a response with the usual headers.
fn sse_response<S>(stream: S) -> Response
where
    S: futures::Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
{
    let mut r = Body::from_stream(stream).into_response();
    // Room for these three and no more: hyper keeps an HTTP/1.1 response's
    // header map for the connection's next request, and a map grown one
    // insert at a time has room for six (656 bytes instead of 328), for as
    // long as a pending 2025-11-25 call's connection lives.
    let h = r.headers_mut();
    *h = HeaderMap::with_capacity(3);
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

fn ticker(every: Duration) -> Interval {
    let every = every.max(Duration::from_millis(10));
    interval_at(Instant::now() + every, every)
}

/// How long a session stream may live, and stay quiet (keep-alive comments
/// do not count); the client may open a new one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamBounds {
    pub(crate) lifetime: Duration,
    pub(crate) idle: Duration,
}

struct LogState {
    replay: VecDeque<Event>,
    live: Option<Live>,
    tick: Interval,
    shutdown: CancellationToken,
    /// When the stream ends at the latest, and when it ends if nothing comes.
    ends: Option<(Instant, Instant, Duration)>,
}

/// An SSE response streaming a session stream: replay first, then live
/// events, keep-alive comments in between; ends with the stream, when a newer
/// subscriber replaces this one, at shutdown, or past `bounds`.
pub(crate) fn log_stream(
    attached: Attached,
    keepalive: Duration,
    shutdown: CancellationToken,
    bounds: Option<StreamBounds>,
) -> Response {
    let now = Instant::now();
    let state = LogState {
        replay: attached.replay.into(),
        live: attached.live,
        tick: ticker(keepalive),
        shutdown,
        ends: bounds.map(|b| (now + b.lifetime, now + b.idle, b.idle)),
    };
    sse_response(futures::stream::unfold(state, |mut st| async move {
        if let Some(e) = st.replay.pop_front() {
            if st.replay.is_empty() {
                // Replayed: the buffer is not kept while the stream waits.
                st.replay = VecDeque::new();
            }
            return Some((Ok(e.bytes), st));
        }
        let far = Instant::now() + Duration::from_secs(86_400 * 365);
        let deadline = st.ends.map_or(far, |(life, quiet, _)| life.min(quiet));
        let live = st.live.as_mut()?;
        let next = tokio::select! {
            biased;
            // At shutdown, what is already queued (a withdrawn question, the
            // answer of a call the drain ended) still goes out.
            () = st.shutdown.cancelled() => live.try_recv().map(|e| e.bytes),
            e = live.recv() => e.map(|e| e.bytes),
            () = tokio::time::sleep_until(deadline) => {
                tracing::info!("session stream ended: lifetime or quiet-time bound reached");
                None
            }
            _ = st.tick.tick() => return Some((Ok(sse::keepalive()), st)),
        };
        if let Some((_, quiet, idle)) = st.ends.as_mut() {
            *quiet = Instant::now() + *idle;
        }
        next.map(|b| (Ok(b), st))
    }))
}

struct RequestState {
    /// Messages to send, as JSON text.
    pending: VecDeque<String>,
    work: Option<HandleFuture>,
    rx: UnboundedReceiver<Value>,
    rx_open: bool,
    tick: Interval,
    shutdown: CancellationToken,
}

/// A request-scoped SSE response (2026-07-28): the messages already pushed,
/// then whatever the running `work` pushes, then its response; `data:` lines
/// only (no ids: nothing is resumable). Dropping the body (the client went
/// away) drops `work`, which cancels the request.
pub(crate) fn request_stream(
    pushed: Vec<String>,
    work: Option<HandleFuture>,
    rx: UnboundedReceiver<Value>,
    keepalive: Duration,
    shutdown: CancellationToken,
) -> Response {
    let state = RequestState {
        pending: pushed.into(),
        work,
        rx,
        rx_open: true,
        tick: ticker(keepalive),
        shutdown,
    };
    sse_response(futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(m) = st.pending.pop_front() {
                return Some((Ok(sse::frame(None, &m)), st));
            }
            let work = st.work.as_mut()?;
            tokio::select! {
                biased;
                () = st.shutdown.cancelled() => {
                    tracing::info!("shutting down; request stream closed");
                    return None;
                }
                m = st.rx.next(), if st.rx_open => match m {
                    Some(m) => st.pending.push_back(sse::compact(&m)),
                    None => st.rx_open = false,
                },
                h = work => {
                    st.work = None;
                    while let Ok(m) = st.rx.try_recv() {
                        st.pending.push_back(sse::compact(&m));
                    }
                    if let Some(r) = h.response {
                        st.pending.push_back(into_text(r));
                    }
                }
                _ = st.tick.tick() => return Some((Ok(sse::keepalive()), st)),
            }
        }
    }))
}
