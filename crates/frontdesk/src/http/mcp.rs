//! The MCP endpoint: POST (both revisions), GET (the 2025-11-25 session
//! stream and resumption) and DELETE (end a 2025-11-25 session).
//!
//! Response rule, both revisions: a request answered within
//! [`HttpOptions::json_window`](super::HttpOptions::json_window) without
//! having pushed any related message gets `application/json`; otherwise the
//! answer is a `text/event-stream` carrying the related messages (progress,
//! log messages; on 2025-11-25 the `elicitation/create` requests and
//! `notifications/elicitation/complete`) and then the response, after which
//! the stream ends.
//!
//! 2025-11-25 request work runs in its own task: a disconnect is not a
//! cancellation, and the events land in the stream's replay buffer, so a GET
//! with `Last-Event-ID` picks them up. 2026-07-28 request work is owned by
//! the HTTP response: a disconnect drops it, which is the cancellation
//! (except a retry's round, which goes on to keep its reply; it keeps the
//! client's place among its requests in flight until it ends).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Extension, State};
use axum::http::header::AsHeaderName;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::{FutureExt as _, StreamExt};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::HttpOptions;
use super::headers::{self, names};
use super::listen::PeerAddr;
use super::respond::{self, HandleFuture, rpc_error};
use super::sessions::{Entry, Sessions};
use super::sse::{self, EventLog, parse_event_id};
use crate::fingerprint::fingerprint;
use crate::server::Server;
use crate::server::contract::incoming::Incoming;
use crate::server::contract::{Handled, OutboundSink, RequestInfo, into_text};
use crate::server::engine::load::Held;
use frontdesk_wire::Revision;
use frontdesk_wire::{ErrorCode, RequestId, method};

/// Everything the handlers share, behind one pointer: every request clones
/// it (one count, not one per member).
#[derive(Clone)]
pub(crate) struct AppState(Arc<AppShared>);

impl std::ops::Deref for AppState {
    type Target = AppShared;

    fn deref(&self) -> &AppShared {
        &self.0
    }
}

impl AppState {
    pub(crate) fn new(shared: AppShared) -> Self {
        Self(Arc::new(shared))
    }
}

/// What [`AppState`] points to.
pub(crate) struct AppShared {
    pub(crate) server: Server,
    pub(crate) options: Arc<HttpOptions>,
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) shutdown: CancellationToken,
    /// Whether the listener is on a loopback address ([`HostPolicy::Auto`](super::HostPolicy::Auto)).
    pub(crate) loopback: bool,
    pub(crate) in_flight: Arc<InFlight>,
    /// The event archive's writer, when sessions are archived.
    pub(crate) archive: Option<Arc<super::archive::Writer>>,
}

/// 2026-07-28 requests in flight per client, against
/// [`HttpOptions::max_requests_per_client`].
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    by_client: std::sync::Mutex<std::collections::HashMap<String, usize>>,
}

/// One request counted for its client until dropped.
pub(crate) struct InFlightSlot {
    table: Arc<InFlight>,
    client: String,
}

impl InFlight {
    /// Count a request of `client` unless it has `max` in flight; the slot
    /// keeps the key (one copy per request, made only when counted anew).
    fn enter(table: &Arc<Self>, client: String, max: usize) -> Option<InFlightSlot> {
        let mut map = table.by_client.lock().ok()?;
        match map.get_mut(&client) {
            Some(n) if *n >= max.max(1) => return None,
            Some(n) => *n += 1,
            None => {
                map.insert(client.clone(), 1);
            }
        }
        Some(InFlightSlot {
            table: Arc::clone(table),
            client,
        })
    }
}

impl Drop for InFlightSlot {
    fn drop(&mut self) {
        if let Ok(mut map) = self.table.by_client.lock()
            && let Some(n) = map.get_mut(&self.client)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.client);
            }
        }
    }
}

/// Who sent a request that passed the checks every request gets.
pub(crate) struct Caller {
    /// The authenticated principal, if any.
    pub(crate) principal: Option<String>,
    /// The client its address makes it (the address, or an IPv6 address's
    /// /64: [`ClientNet`](crate::server::contract::peer::ClientNet)); `None` when embedded
    /// without one.
    pub(crate) address: Option<String>,
}

impl Caller {
    /// What quotas count against: the principal, else the address.
    pub(crate) fn client(&self) -> String {
        crate::server::contract::quota_key(self.principal.as_deref(), self.address.as_deref())
    }

    /// What the core is told about the caller (moved, not copied).
    fn into_info(self) -> RequestInfo {
        RequestInfo {
            principal: self.principal,
            client: self.address,
        }
    }
}

/// The checks every request gets, in order: `Host` (`403`), `Origin`
/// (`403`), authentication (`401`/`403`); `address` is the client's
/// ([`PeerAddr::client`]), when the request came over a connection.
pub(crate) async fn admit(
    st: &AppState,
    h: &HeaderMap,
    address: Option<String>,
) -> Result<Caller, Response> {
    let host = header_str(h, header::HOST);
    if !st.options.hosts.allows(host, st.loopback) {
        tracing::warn!(host = ?host, "request for a disallowed Host");
        return Err(rpc_error(
            StatusCode::FORBIDDEN,
            None,
            ErrorCode::INVALID_REQUEST,
            "Forbidden: Host not allowed",
        ));
    }
    if let Some(r) = origin_rejected(st, h) {
        return Err(r);
    }
    Ok(Caller {
        principal: principal(st, h).await?,
        address,
    })
}

fn header_str(h: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// `403` with an id-less JSON-RPC error when `Origin` is not allowed.
pub(crate) fn origin_rejected(st: &AppState, h: &HeaderMap) -> Option<Response> {
    let origin = h.get(header::ORIGIN).map(HeaderValue::as_bytes);
    if st.options.origins.allows(origin) {
        return None;
    }
    tracing::warn!(origin = ?origin.map(String::from_utf8_lossy), "request from a disallowed Origin");
    Some(rpc_error(
        StatusCode::FORBIDDEN,
        None,
        ErrorCode::INVALID_REQUEST,
        "Forbidden: Origin not allowed",
    ))
}

/// The caller's principal, or the `401`/`403` response refusing it.
async fn principal(st: &AppState, h: &HeaderMap) -> Result<Option<String>, Response> {
    let Some(auth) = &st.options.authenticator else {
        return Ok(None);
    };
    auth.authenticate(h).await.map_err(|refused| {
        tracing::info!(status = refused.status.as_u16(), message = %refused.message, "request not authenticated");
        let mut r = rpc_error(
            refused.status,
            None,
            ErrorCode::INVALID_REQUEST,
            &refused.message,
        );
        if let Some(challenge) = refused
            .www_authenticate
            .as_deref()
            .and_then(|c| HeaderValue::from_str(c).ok())
        {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        }
        r
    })
}

/// The session `sid` if it exists and belongs to `principal` (another
/// principal's session is as unknown as a missing one).
fn session_of(st: &AppState, sid: &str, principal: Option<&str>) -> Option<Arc<Entry>> {
    st.sessions
        .get(sid)
        .filter(|e| e.principal.as_deref() == principal)
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut r = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorCode::INVALID_REQUEST,
        "Method not allowed",
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

/// Anything but GET, POST and DELETE on the endpoint.
pub(crate) async fn other() -> Response {
    method_not_allowed("GET, POST, DELETE")
}

/// Check the request line up to the body; then read and parse the body
/// (served in `revision` when the headers said which).
async fn read_message(
    st: &AppState,
    h: &HeaderMap,
    body: Body,
    revision: Option<Revision>,
) -> Result<Incoming, Response> {
    let content_type = header_str(h, header::CONTENT_TYPE).unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        tracing::warn!(content_type, "POST without application/json");
        return Err(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            ErrorCode::INVALID_REQUEST,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    if let Some(accept) = header_str(h, header::ACCEPT)
        && !(headers::accepts(accept, "application/json")
            && headers::accepts(accept, "text/event-stream"))
    {
        tracing::warn!(
            accept,
            "POST whose Accept lacks application/json or text/event-stream"
        );
        return Err(rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        ));
    }
    let limit = st.options.max_body_bytes;
    let too_large = || {
        tracing::warn!(limit, "POST body over the size limit");
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            ErrorCode::INVALID_REQUEST,
            &format!("Invalid request: message larger than {limit} bytes"),
        )
    };
    let declared = header_str(h, header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    // A body that arrives in one chunk (the usual case) is parsed where it
    // lies; only one in several chunks is gathered into `bytes`.
    let mut first: Option<axum::body::Bytes> = None;
    let mut bytes = Vec::new();
    let mut chunks = body.into_data_stream();
    let deadline = tokio::time::Instant::now() + st.options.body_read_timeout;
    loop {
        let chunk = match tokio::time::timeout_at(deadline, chunks.next()).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(_) => {
                tracing::warn!("POST body not received in time");
                return Err(rpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    "Request Timeout: the body did not arrive in time",
                ));
            }
        };
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                tracing::info!(error = %e, "could not read a POST body");
                return Err(rpc_error(
                    StatusCode::BAD_REQUEST,
                    None,
                    ErrorCode::PARSE_ERROR,
                    "Parse error: the body could not be read",
                ));
            }
        };
        let received = first.as_ref().map_or(0, |f| f.len()) + bytes.len();
        if received + chunk.len() > limit {
            return Err(too_large());
        }
        match first.take() {
            None if bytes.is_empty() => first = Some(chunk),
            earlier => {
                if let Some(earlier) = earlier {
                    bytes.extend_from_slice(&earlier);
                }
                bytes.extend_from_slice(&chunk);
            }
        }
    }
    let bytes: &[u8] = first.as_deref().unwrap_or(&bytes);
    let read = match revision {
        Some(revision) => st.server.parse_message_as(bytes, revision),
        None => st.server.parse_message(bytes),
    };
    read.map_err(|err| {
        let status = if bytes.len() > st.server.config().max_message_bytes {
            StatusCode::PAYLOAD_TOO_LARGE
        } else {
            StatusCode::BAD_REQUEST
        };
        respond::json(status, &err)
    })
}

/// POST: one JSON-RPC message of either revision.
pub(crate) async fn post(State(st): State<AppState>, request: axum::extract::Request) -> Response {
    let address = request.extensions().get::<PeerAddr>().map(PeerAddr::client);
    post_from(st, request, address).await
}

/// [`post`] of a request from the client at `address` (its
/// [`PeerAddr::client`]).
pub(crate) async fn post_from(
    st: AppState,
    request: axum::extract::Request,
    address: Option<String>,
) -> Response {
    // The headers are read in place (a `HeaderMap` extractor copies them).
    let (parts, body) = request.into_parts();
    let h = &parts.headers;
    let caller = match admit(&st, h, address).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let header_version = headers::protocol_version_in_place(h);
    // The header decides the revision when it says 2026-07-28; otherwise
    // the body does.
    let said = (header_version.as_deref() == Some(Revision::V2026_07_28.as_str()))
        .then_some(Revision::V2026_07_28);
    let message = match read_message(&st, h, body, said).await {
        Ok(m) => m,
        Err(r) => return r,
    };
    if message.revision() == Revision::V2026_07_28 {
        post_modern(st, h, message, caller).await
    } else {
        let header_version = header_version.map(std::borrow::Cow::into_owned);
        // Boxed: the 2025-11-25 path is the larger state machine; inline,
        // it would make the future of every POST (which axum moves into a
        // box) as large as itself.
        Box::pin(post_legacy(st, h, header_version, message, caller)).await
    }
}

async fn post_modern(st: AppState, h: &HeaderMap, message: Incoming, caller: Caller) -> Response {
    let id = message.id().cloned();
    if let Err(e) =
        headers::check_modern(h, &message).and_then(|()| headers::check_params(h, &message))
    {
        tracing::warn!(id = ?id, error = %e, "2026-07-28 header check failed");
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id.as_ref(),
            ErrorCode::HEADER_MISMATCH,
            &e.to_string(),
        );
    }
    if message.is_response() {
        tracing::warn!(id = ?id, "2026-07-28 client sent a response");
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id.as_ref(),
            ErrorCode::INVALID_REQUEST,
            "Invalid request: 2026-07-28 clients do not send responses",
        );
    }
    let Some(slot) = InFlight::enter(
        &st.in_flight,
        caller.client(),
        st.options.max_requests_per_client,
    ) else {
        crate::metrics::refused("client_requests");
        tracing::warn!(id = ?id, client = %caller.client(), "request refused: the client has its most requests in flight");
        let mut r = rpc_error(
            StatusCode::TOO_MANY_REQUESTS,
            id.as_ref(),
            ErrorCode::SERVER_BUSY,
            "Too many requests in flight from this client; wait for one to finish",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
    let info = caller.into_info();
    let (sink, mut rx) = OutboundSink::small_channel();
    let server = st.server.clone();
    // The client's place goes with the request's work: a retry's round that
    // outlives a dropped connection still counts against the client's cap.
    let held = Held::transport(slot);
    let mut work: HandleFuture = Box::pin(async move {
        server
            .handle_holding(None, message, &sink, &info, held)
            .await
    });
    // Most requests finish in their first poll: only one that does not arms
    // the JSON window's timer.
    // What the handler pushed before its response, as JSON text.
    let mut pushed: Vec<String> = Vec::new();
    let finished = match (&mut work).now_or_never() {
        Some(h) => Some(h),
        None => {
            let window = tokio::time::sleep(st.options.json_window);
            tokio::pin!(window);
            tokio::select! {
                biased;
                h = &mut work => Some(h),
                m = rx.next() => {
                    pushed.extend(m.as_ref().map(sse::compact));
                    None
                }
                () = &mut window => None,
            }
        }
    };
    let keepalive = st.options.keepalive;
    match finished {
        Some(handled) => {
            while let Ok(m) = rx.try_recv() {
                pushed.push(sse::compact(&m));
            }
            if pushed.is_empty() || super::status::of(&handled) != StatusCode::OK {
                return respond::handled(handled);
            }
            pushed.extend(handled.response.map(into_text));
            respond::request_stream(pushed, None, rx, keepalive, st.shutdown.clone())
        }
        None => respond::request_stream(pushed, Some(work), rx, keepalive, st.shutdown.clone()),
    }
}

pub(crate) fn session_error(status: StatusCode, id: Option<&RequestId>, message: &str) -> Response {
    tracing::info!(id = ?id, status = status.as_u16(), message, "session check failed");
    rpc_error(status, id, ErrorCode::INVALID_REQUEST, message)
}

async fn post_legacy(
    st: AppState,
    h: &HeaderMap,
    header_version: Option<String>,
    message: Incoming,
    caller: Caller,
) -> Response {
    let id = message.id().cloned();
    let client = caller.client();
    let info = caller.into_info();
    let is_request = message.is_request();
    if is_request && message.method() == Some(method::INITIALIZE) {
        return initialize(st, message, info, client).await;
    }
    if let Some(v) = &header_version
        && !frontdesk_wire::version::HANDSHAKE.contains(&v.as_str())
    {
        return session_error(
            StatusCode::BAD_REQUEST,
            id.as_ref(),
            &format!("Bad Request: unsupported MCP-Protocol-Version {v:?}"),
        );
    }
    let Some(sid) = header_str(h, names::SESSION_ID) else {
        return session_error(
            StatusCode::BAD_REQUEST,
            id.as_ref(),
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    let Some(entry) = session_of(&st, sid, info.principal.as_deref()) else {
        return session_error(StatusCode::NOT_FOUND, id.as_ref(), "Session not found");
    };
    if !is_request {
        let handled = st
            .server
            .handle(
                Some(&entry.session),
                message,
                &OutboundSink::discard(),
                &info,
            )
            .await;
        return respond::handled(handled);
    }
    let (decided_tx, decided_rx) = oneshot::channel();
    tokio::spawn(legacy_work(
        st.server.clone(),
        Arc::clone(&entry),
        Box::new(message),
        info,
        st.options.json_window,
        decided_tx,
    ));
    match decided_rx.await {
        Ok(Decided::Json(handled)) => respond::handled(handled),
        Ok(Decided::Stream(log)) => respond::log_stream(
            log.attach(None),
            st.options.keepalive,
            st.shutdown.clone(),
            None,
        ),
        Err(_) => {
            tracing::error!(id = ?id, "request task ended without an outcome");
            rpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                id.as_ref(),
                ErrorCode::INTERNAL_ERROR,
                "Internal error",
            )
        }
    }
}

async fn initialize(
    st: AppState,
    message: Incoming,
    info: RequestInfo,
    client: String,
) -> Response {
    let session = st.server.session();
    let id = message.id().cloned();
    let handled = st
        .server
        .handle(Some(&session), message, &OutboundSink::discard(), &info)
        .await;
    let ok = handled.response.is_some() && handled.failure.is_none();
    if !ok {
        session.close();
        return respond::handled(handled);
    }
    let entry = Entry::new(
        session,
        info.principal.clone(),
        client,
        st.options.replay_buffer,
        st.archive.as_ref(),
    );
    let Ok(value) = HeaderValue::from_str(entry.id()) else {
        entry.close();
        return rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            ErrorCode::INTERNAL_ERROR,
            "Internal error",
        );
    };
    if st.sessions.insert(Arc::clone(&entry)).is_err() {
        entry.close();
        crate::metrics::refused("sessions");
        tracing::warn!("session table full; initialize refused");
        return rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            id.as_ref(),
            ErrorCode::INTERNAL_ERROR,
            "Too many sessions; try again later",
        );
    }
    tracing::info!(session = %fingerprint(entry.id()), "session started");
    let mut r = respond::handled(handled);
    r.headers_mut().insert(names::SESSION_ID, value);
    r
}

/// What the request task tells the HTTP handler.
enum Decided {
    Json(Handled),
    Stream(Arc<EventLog>),
}

/// Run one 2025-11-25 request: answer as JSON when it finishes quickly with
/// nothing pushed, otherwise open a POST stream (priming event first) and log
/// every related message and the response onto it.
async fn legacy_work(
    server: Server,
    entry: Arc<Entry>,
    message: Box<Incoming>,
    info: RequestInfo,
    window: std::time::Duration,
    decided: oneshot::Sender<Decided>,
) {
    let (sink, mut rx) = OutboundSink::small_channel();
    let session = Arc::clone(&entry.session);
    // The message boxed until the work takes it apart, and the work made
    // by `handle_holding` (`Server::handle` is an `async fn`): as an
    // argument of each, it stayed in this task twice, about 260 bytes each,
    // for as long as the request waits (issue 27).
    let work = async move {
        server
            .handle_holding(Some(&session), *message, &sink, &info, Held::default())
            .await
    };
    tokio::pin!(work);
    let timer = tokio::time::sleep(window);
    tokio::pin!(timer);
    let mut first = None;
    let early = tokio::select! {
        biased;
        h = &mut work => Some(h),
        m = rx.next() => {
            first = m;
            None
        }
        () = &mut timer => None,
    };
    if early.is_some() {
        // Finished in the window: JSON, unless it pushed something.
        first = rx.try_recv().ok();
        if first.is_none() {
            if let Some(handled) = early {
                let _ = decided.send(Decided::Json(handled));
            }
            return;
        }
    }
    let log = entry.new_stream();
    if entry.primes() {
        log.push(None);
    }
    // Pushed and dropped: the question's message (its whole schema as a
    // JSON value) is not kept for as long as the call waits for its answer.
    if let Some(m) = first.take() {
        log.push(Some(&m));
    }
    let _ = decided.send(Decided::Stream(Arc::clone(&log)));
    let handled = match early {
        Some(h) => h,
        None => loop {
            tokio::select! {
                biased;
                m = rx.next() => match m {
                    Some(m) => {
                        log.push(Some(&m));
                    }
                    None => break work.await,
                },
                h = &mut work => break h,
            }
        },
    };
    while let Ok(m) = rx.try_recv() {
        log.push(Some(&m));
    }
    if let Some(r) = &handled.response {
        log.push_text(Some(r.get()));
    }
    log.end();
}

/// GET: the 2025-11-25 session stream, or resumption of any stream of the
/// session with `Last-Event-ID`. Without a session id: `405` (2026-07-28
/// has no GET).
pub(crate) async fn get(
    State(st): State<AppState>,
    peer: Option<Extension<PeerAddr>>,
    h: HeaderMap,
) -> Response {
    let caller = match admit(&st, &h, peer.as_deref().map(PeerAddr::client)).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(sid) = header_str(&h, names::SESSION_ID) else {
        return method_not_allowed("POST");
    };
    if let Some(accept) = header_str(&h, header::ACCEPT)
        && !headers::accepts(accept, "text/event-stream")
    {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    let Some(entry) = session_of(&st, sid, caller.principal.as_deref()) else {
        // Not held here: another instance may hold it and have archived
        // its events.
        return super::resume::from_archive(
            &st,
            sid,
            caller.principal.as_deref(),
            header_str(&h, names::LAST_EVENT_ID),
        )
        .await;
    };
    let keepalive = st.options.keepalive;
    let busy = || {
        session_error(
            StatusCode::CONFLICT,
            None,
            "Conflict: this stream already has a reader",
        )
    };
    if let Some(last) = header_str(&h, names::LAST_EVENT_ID) {
        let Some((stream, seq)) = parse_event_id(last) else {
            return session_error(
                StatusCode::BAD_REQUEST,
                None,
                "Bad Request: unknown Last-Event-ID",
            );
        };
        let Some(log) = entry.stream(stream) else {
            return session_error(
                StatusCode::BAD_REQUEST,
                None,
                "Bad Request: that stream is no longer available",
            );
        };
        // A live reader keeps its stream: resuming is for a reader that is gone.
        let Some(attached) = log.attach_exclusive(Some(seq)) else {
            tracing::warn!(
                session = %fingerprint(sid),
                stream,
                "resume refused: the stream has a live reader"
            );
            return busy();
        };
        tracing::info!(session = %fingerprint(sid), stream, after = seq, "stream resumed");
        let bounds = (stream == 0).then(|| get_bounds(&st));
        return respond::log_stream(attached, keepalive, st.shutdown.clone(), bounds);
    }
    if entry.primes() && !entry.get_log.has_live() {
        entry.get_log.push(None);
    }
    let Some(attached) = entry.get_log.attach_exclusive(None) else {
        return busy();
    };
    tracing::info!(session = %fingerprint(sid), "GET stream opened");
    respond::log_stream(
        attached,
        keepalive,
        st.shutdown.clone(),
        Some(get_bounds(&st)),
    )
}

pub(crate) fn get_bounds(st: &AppState) -> respond::StreamBounds {
    respond::StreamBounds {
        lifetime: st.options.get_stream_lifetime,
        idle: st.options.get_stream_idle,
    }
}

/// DELETE: end a 2025-11-25 session (`204`); unknown → `404`; without a
/// session id → `405`.
pub(crate) async fn delete(
    State(st): State<AppState>,
    peer: Option<Extension<PeerAddr>>,
    h: HeaderMap,
) -> Response {
    let caller = match admit(&st, &h, peer.as_deref().map(PeerAddr::client)).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(sid) = header_str(&h, names::SESSION_ID) else {
        return method_not_allowed("POST");
    };
    if let Some(entry) = session_of(&st, sid, caller.principal.as_deref())
        && st.sessions.remove(sid)
    {
        entry.forget();
        tracing::info!(session = %fingerprint(sid), "session ended by the client");
        StatusCode::NO_CONTENT.into_response()
    } else {
        session_error(StatusCode::NOT_FOUND, None, "Session not found")
    }
}
