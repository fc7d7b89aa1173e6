//! The 2025-11-25 [`Session`]: negotiated version, client capabilities and
//! log level, the server's outbound requests awaiting answers, the client's
//! in-flight requests, and the channel for messages unrelated to any request.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use frontdesk_wire::{ErrorObject, LoggingLevel, RequestId};
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::server::api::error::AskError;
use crate::server::contract::caps::{ClientCaps, Declared};
use crate::server::engine::subscribed::SessionSubscriptions;

/// What the client answered to one of our requests.
#[derive(Debug)]
pub(crate) enum ClientReply {
    /// A result object.
    Result(Map<String, Value>),
    /// A JSON-RPC error.
    Error(ErrorObject),
    /// A response with our id whose `result`/`error` is malformed.
    Malformed(String),
}

#[derive(Debug, Clone, Default)]
struct Negotiated {
    version: Option<String>,
    /// As compact JSON text with what the checks read of it (`None`: not
    /// declared yet, read as `null`): the value itself was two or three maps
    /// of several hundred bytes for each session, its text a few dozen bytes
    /// (issue 27).
    capabilities: Option<ClientCaps>,
    log_level: Option<LoggingLevel>,
}

/// One 2025-11-25 connection: a stdio process, or one HTTP `Mcp-Session-Id`.
///
/// Holds what `initialize` negotiated, the server's own outstanding requests
/// (answers from the client are routed back to the waiting question), the
/// client's in-flight requests (so `notifications/cancelled` can stop them),
/// and a channel for messages unrelated to any request (on HTTP: the GET
/// stream), such as `notifications/elicitation/complete` after a `-32042`.
/// 2026-07-28 requests use none of the protocol state; on stdio they still
/// register here so they can be cancelled.
pub struct Session {
    id: String,
    limits: SessionLimits,
    negotiated: Mutex<Negotiated>,
    next_id: AtomicU64,
    pending: Mutex<ById<oneshot::Sender<ClientReply>>>,
    inflight: Mutex<ById<CancellationToken>>,
    pub(crate) closed: CancellationToken,
    /// `true` once the client's `notifications/initialized` arrived.
    initialized: AtomicBool,
    /// Wakes those waiting for `initialized` (inline: a watch channel was
    /// a 350-byte allocation per session; issue 27).
    initialized_wake: Notify,
    /// Where messages unrelated to any request go.
    unsolicited: Mutex<Unsolicited>,
    /// The resources it subscribed to (emptied when it closes).
    subscriptions: Mutex<SessionSubscriptions>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A function a transport hands each unsolicited message to, at once.
pub(crate) type UnsolicitedHook = Box<dyn Fn(Value) + Send + Sync>;

/// Where a session's unsolicited messages go. Nothing is allocated for
/// them until one is sent or a transport takes them: a channel (an
/// unbounded tokio channel preallocates a block of 32 messages) for each
/// of thousands of HTTP sessions, most of which never send one, was
/// about 3 KiB each (issue 27).
enum Unsolicited {
    /// Not taken yet: messages wait here for whoever takes them.
    Held(Vec<Value>),
    /// Taken as a channel ([`Session::unsolicited`]).
    Channel(mpsc::UnboundedSender<Value>),
    /// Taken by a transport that writes them where they go at once (only
    /// the HTTP transport does).
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    Hook(UnsolicitedHook),
    /// Taken as a channel whose receiver is gone.
    Gone,
}

/// How much one session may have going at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionLimits {
    /// Requests of the client in flight.
    pub(crate) requests: usize,
    /// Our questions waiting for the client's answer.
    pub(crate) questions: usize,
}

/// A session's few entries by request id (at most
/// [`SessionLimits`]' counts, 32 and 16 by default), in a list: a hash map
/// with one entry, the usual case (one call waiting for one answer), was a
/// 216-byte allocation, twice per session; this is one entry's size.
#[derive(Debug)]
struct ById<V>(Vec<(RequestId, V)>);

impl<V> Default for ById<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> ById<V> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, id: &RequestId) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == id).map(|(_, v)| v)
    }

    fn contains_key(&self, id: &RequestId) -> bool {
        self.get(id).is_some()
    }

    /// Add `id`, or replace its value when it is there already.
    fn insert(&mut self, id: RequestId, value: V) {
        if let Some(slot) = self.0.iter_mut().find(|(k, _)| *k == id) {
            slot.1 = value;
            return;
        }
        if self.0.capacity() == 0 {
            self.0.reserve_exact(1);
        }
        self.0.push((id, value));
    }

    fn remove(&mut self, id: &RequestId) -> Option<V> {
        let at = self.0.iter().position(|(k, _)| k == id)?;
        Some(self.0.swap_remove(at).1)
    }

    fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl Session {
    pub(crate) fn new(limits: SessionLimits) -> Self {
        let mut b = [0u8; 16];
        rand::fill(&mut b[..]);
        Self {
            id: b.iter().map(|x| format!("{x:02x}")).collect(),
            limits,
            negotiated: Mutex::new(Negotiated::default()),
            next_id: AtomicU64::new(0),
            pending: Mutex::new(ById::default()),
            inflight: Mutex::new(ById::default()),
            closed: CancellationToken::new(),
            initialized: AtomicBool::new(false),
            initialized_wake: Notify::new(),
            unsolicited: Mutex::new(Unsolicited::Held(Vec::new())),
            subscriptions: Mutex::new(SessionSubscriptions::default()),
        }
    }

    /// A random id (32 hex characters), usable as the HTTP `Mcp-Session-Id`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The version `initialize` negotiated, if it happened.
    pub fn protocol_version(&self) -> Option<String> {
        self.negotiated.lock().ok().and_then(|n| n.version.clone())
    }

    /// The capabilities the client declared in `initialize` (`{}` before).
    pub fn client_capabilities(&self) -> Value {
        self.negotiated
            .lock()
            .ok()
            .and_then(|n| n.capabilities.as_ref().map(ClientCaps::to_value))
            .unwrap_or(Value::Null)
    }

    /// What the checks read of [`client_capabilities`](Self::client_capabilities),
    /// read once from their text when `initialize` set them.
    pub(crate) fn declared_capabilities(&self) -> Declared {
        self.negotiated
            .lock()
            .ok()
            .and_then(|n| n.capabilities.as_ref().map(ClientCaps::declared))
            .unwrap_or_default()
    }

    /// Whether `initialize` succeeded on this session.
    pub fn is_initialized(&self) -> bool {
        self.negotiated.lock().is_ok_and(|n| n.version.is_some())
    }

    /// Take the receiver of unsolicited messages (once; later calls get `None`).
    /// On HTTP, drain it into the session's GET stream.
    pub fn unsolicited(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        let mut outlet = self.unsolicited.lock().ok()?;
        let Unsolicited::Held(held) = &mut *outlet else {
            return None;
        };
        let (tx, rx) = mpsc::unbounded_channel();
        for m in held.drain(..) {
            let _ = tx.send(m);
        }
        *outlet = Unsolicited::Channel(tx);
        Some(rx)
    }

    /// Take the unsolicited messages as calls of `hook` (those sent so far
    /// at once, later ones as they are sent), instead of
    /// [`unsolicited`](Self::unsolicited)'s channel; `false` when they were
    /// taken already.
    #[cfg(feature = "http-server")]
    pub(crate) fn unsolicited_to(&self, hook: UnsolicitedHook) -> bool {
        let Ok(mut outlet) = self.unsolicited.lock() else {
            return false;
        };
        let Unsolicited::Held(held) = &mut *outlet else {
            return false;
        };
        for m in held.drain(..) {
            hook(m);
        }
        *outlet = Unsolicited::Hook(hook);
        true
    }

    /// The client went away: every question waiting on it ends with
    /// [`AskError::Disconnected`], every in-flight request is cancelled, and
    /// its resource subscriptions are given back.
    pub fn close(&self) {
        self.closed.cancel();
        if let Ok(map) = self.inflight.lock() {
            for token in map.values() {
                token.cancel();
            }
        }
        self.subscriptions().clear();
    }

    /// The resources the session subscribed to.
    pub(crate) fn subscriptions(&self) -> std::sync::MutexGuard<'_, SessionSubscriptions> {
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    pub(crate) fn set_negotiated(&self, version: String, capabilities: Value) {
        if let Ok(mut n) = self.negotiated.lock() {
            n.version = Some(version);
            n.capabilities = serde_json::value::to_raw_value(&capabilities)
                .ok()
                .map(ClientCaps::from_text);
        }
    }

    pub(crate) fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Release);
        self.initialized_wake.notify_waiters();
    }

    /// Wait until the client sent `notifications/initialized` (the server
    /// should send it no requests before), at most until `deadline`.
    pub(crate) async fn initialized_by(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<(), AskError> {
        // Registered before the flag is read, so a `mark_initialized`
        // between the two is not missed.
        let woken = self.initialized_wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        if self.initialized.load(Ordering::Acquire) {
            return Ok(());
        }
        tracing::debug!("waiting for notifications/initialized before asking");
        tokio::select! {
            () = woken => Ok(()),
            () = self.closed.cancelled() => Err(AskError::Disconnected),
            () = tokio::time::sleep_until(deadline) => {
                tracing::info!("no notifications/initialized within the human-wait budget");
                Err(AskError::TimedOut)
            }
        }
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        if let Ok(mut n) = self.negotiated.lock() {
            n.log_level = Some(level);
        }
    }

    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        self.negotiated.lock().ok().and_then(|n| n.log_level)
    }

    pub(crate) fn push_unsolicited(&self, msg: Value) {
        let Ok(mut outlet) = self.unsolicited.lock() else {
            return;
        };
        match &mut *outlet {
            Unsolicited::Held(held) => held.push(msg),
            Unsolicited::Channel(tx) => {
                if tx.send(msg).is_err() {
                    *outlet = Unsolicited::Gone;
                }
            }
            Unsolicited::Hook(hook) => hook(msg),
            Unsolicited::Gone => {}
        }
    }

    /// Register an inbound request so `notifications/cancelled` can stop it.
    /// `None` when the session already has its most requests in flight.
    pub(crate) fn begin_request(&self, id: &RequestId) -> Option<CancellationToken> {
        let token = self.closed.child_token();
        let mut map = self.inflight.lock().ok()?;
        if map.len() >= self.limits.requests {
            return None;
        }
        map.insert(id.clone(), token.clone());
        Some(token)
    }

    /// How many of the client's requests are in flight (the HTTP session
    /// sweep keeps a busy session).
    #[cfg(feature = "http-server")]
    pub(crate) fn in_flight(&self) -> usize {
        self.inflight.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub(crate) fn end_request(&self, id: &RequestId) {
        if let Ok(mut map) = self.inflight.lock() {
            map.remove(id);
        }
    }

    /// The client cancelled request `id`.
    pub(crate) fn cancel_request(&self, id: &RequestId) -> bool {
        let token = self.inflight.lock().ok().and_then(|m| m.get(id).cloned());
        match token {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// A response from the client to one of our requests.
    pub(crate) fn route_response(&self, id: &RequestId, reply: ClientReply) -> bool {
        let waiter = self.pending.lock().ok().and_then(|mut m| m.remove(id));
        match waiter {
            Some(tx) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Whether `id` is one of our requests still waiting for its answer.
    pub(crate) fn is_waiting_for(&self, id: &RequestId) -> bool {
        self.pending.lock().is_ok_and(|m| m.contains_key(id))
    }

    /// A new outstanding request of ours; `None` when the session already
    /// has its most questions waiting.
    pub(crate) fn register(&self) -> Option<(RequestId, oneshot::Receiver<ClientReply>)> {
        let mut m = self.pending.lock().ok()?;
        if m.len() >= self.limits.questions {
            return None;
        }
        let n = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let id = RequestId::from(format!("fd-{n}"));
        let (tx, rx) = oneshot::channel();
        m.insert(id.clone(), tx);
        Some((id, rx))
    }

    pub(crate) fn forget(&self, id: &RequestId) {
        if let Ok(mut m) = self.pending.lock() {
            m.remove(id);
        }
    }
}
