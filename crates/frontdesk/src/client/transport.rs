//! What the client needs from a transport: send a request and get its
//! response, send a notification or a response, and deliver everything the
//! server sends on its own (requests, notifications) to the inbound queue.

use frontdesk_wire::ErrorObject;
use serde_json::Value;
use tokio::sync::mpsc;

use super::config::{Direction, WireTap};
use super::error::ClientError;
use crate::BoxFuture;

/// How many messages the server sent on its own may wait to be read. The
/// connection reads them as they come (requests run on their own tasks, at
/// most [`MAX_SERVING`](super::connection::MAX_SERVING) at once), so only a
/// server flooding faster than that fills the queue; then the transport
/// stops reading until there is room (the server's writes block), and client
/// memory stays bounded.
pub(crate) const INBOUND_CAPACITY: usize = 256;

/// One thing the server sent on its own.
#[derive(Debug)]
pub(crate) enum FromServer {
    /// A JSON value that is not a response to one of our requests (a
    /// request, a notification, or something malformed).
    Message(Value),
    /// The same, sent on the response stream of our request with this id
    /// key (Streamable HTTP): it belongs to that request.
    #[cfg(feature = "http-client")]
    OnStream(Value, String),
    /// Bytes that cannot be read as JSON at all (not JSON, or over the
    /// size bound): the error to answer with, id `null`.
    Unreadable(ErrorObject),
    /// Not from the server: fired when everything queued before it has been
    /// served (see [`WeakInbound::barrier`]).
    Barrier(tokio::sync::oneshot::Sender<()>),
}

/// Where the transport puts the messages the server sent that are not
/// responses to our requests: a bounded queue.
#[derive(Debug, Clone)]
pub(crate) struct Inbound(mpsc::Sender<FromServer>);

/// The reading end of [`Inbound`].
pub(crate) type InboundReceiver = mpsc::Receiver<FromServer>;

/// A new inbound queue: the transport's sender, and the connection's end
/// (a weak sender for [`WeakInbound::barrier`] and the receiver).
pub(crate) fn inbound() -> (Inbound, (WeakInbound, InboundReceiver)) {
    let (tx, rx) = mpsc::channel(INBOUND_CAPACITY);
    let tx = Inbound(tx);
    let weak = tx.downgrade();
    (tx, (weak, rx))
}

impl Inbound {
    /// Queue `message`, waiting while the queue is full; `false` once the
    /// connection stopped reading.
    pub(crate) async fn deliver(&self, message: Value) -> bool {
        self.0.send(FromServer::Message(message)).await.is_ok()
    }

    /// Queue `message`, which came on the response stream of our request
    /// `request` (its id key), as [`deliver`](Self::deliver) does.
    #[cfg(feature = "http-client")]
    pub(crate) async fn deliver_on(&self, message: Value, request: &str) -> bool {
        self.0
            .send(FromServer::OnStream(message, request.to_owned()))
            .await
            .is_ok()
    }

    /// Queue the error for bytes that were no JSON message (see
    /// [`FromServer::Unreadable`]); `false` once the connection stopped
    /// reading.
    pub(crate) async fn unreadable(&self, error: ErrorObject) -> bool {
        self.0.send(FromServer::Unreadable(error)).await.is_ok()
    }

    /// A handle that does not keep the queue open (the connection ends
    /// when the transport drops its sender), for [`WeakInbound::barrier`].
    pub(crate) fn downgrade(&self) -> WeakInbound {
        WeakInbound(self.0.downgrade())
    }
}

/// The inbound queue, not kept open by this handle.
#[derive(Debug, Clone)]
pub(crate) struct WeakInbound(mpsc::WeakSender<FromServer>);

impl WeakInbound {
    /// Wait until every message queued so far has been served. A transport
    /// queues what the server sent before a response ahead of handing the
    /// response over, so after a response this is the moment its
    /// notifications (progress, logs) have reached their hooks. Returns at
    /// once when the connection stopped reading.
    pub(crate) async fn barrier(&self) {
        let Some(tx) = self.0.upgrade() else {
            return;
        };
        let (done, rx) = tokio::sync::oneshot::channel();
        if tx.send(FromServer::Barrier(done)).await.is_ok() {
            drop(tx);
            let _ = rx.await;
        }
    }
}

/// The error for bytes from the server that are not JSON (`-32700`); the
/// parser's message says where, never what.
pub(crate) fn not_json(e: &serde_json::Error) -> ErrorObject {
    ErrorObject::parse_error(format!("Parse error: {e}"))
}

/// The error for a message from the server over `limit` bytes (`-32600`,
/// as the server answers an over-size message).
pub(crate) fn too_large(limit: usize) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "Invalid request: message larger than {limit} bytes"
    ))
}

/// The wire tap, shared by the connection and its transport.
#[derive(Clone, Default)]
pub(crate) struct Tap(pub Option<WireTap>);

impl Tap {
    pub(super) fn outgoing(&self, message: &Value) {
        if let Some(tap) = &self.0 {
            tap(Direction::Outgoing, message);
        }
    }

    pub(super) fn incoming(&self, message: &Value) {
        if let Some(tap) = &self.0 {
            tap(Direction::Incoming, message);
        }
    }
}

/// Whether a JSON value is a JSON-RPC response (result or error, no method).
pub(crate) fn is_response(message: &Value) -> bool {
    message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// A key for matching ids (numbers and strings never collide).
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

/// One connection to one server.
pub(crate) trait Transport: Send + Sync {
    /// Send `message` (a request with id `id`) and wait for its response: the
    /// whole JSON-RPC response, result or error.
    fn request<'a>(
        &'a self,
        id: &'a Value,
        message: Value,
    ) -> BoxFuture<'a, Result<Value, ClientError>>;

    /// Send a notification or a response to a server request.
    fn send(&self, message: Value) -> BoxFuture<'_, Result<(), ClientError>>;

    /// The 2025-11-25 handshake finished with `version` (HTTP: send the
    /// version header from now on and open the GET stream).
    fn initialized<'a>(&'a self, version: &'a str) -> BoxFuture<'a, ()>;

    /// Whether dropping a request is its cancellation (2026-07-28 HTTP).
    /// Also: a 2026-07-28 client must not send responses over HTTP, so a
    /// server's request there gets none.
    fn is_http(&self) -> bool;

    /// Calls of `tool` mirror these arguments into `Mcp-Param-*` headers
    /// (2026-07-28 HTTP; other transports ignore it).
    fn mirror_params(&self, _tool: &str, _headers: super::tool_headers::ParamHeaders) {}

    /// End the connection (stdio: close stdin and reap the child; HTTP:
    /// DELETE the session).
    fn close(&self) -> BoxFuture<'_, ()>;
}
