//! The data a transport and the server exchange: where a request's related
//! messages go ([`OutboundSink`]), what the transport knows of a request
//! ([`RequestInfo`]), and what handling it gave ([`Handled`]). Plain data, at
//! the bottom with the author's layer: the engine fills and reads it, the
//! transports (on top) build and drain it. Public as
//! [`crate::server::transport`]. Beside it, crate-private: a message read
//! once from its bytes ([`incoming`], [`read`]) and the client capabilities
//! a call keeps ([`caps`]).

use frontdesk_wire::Revision;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

pub(crate) mod caps;
pub(crate) mod incoming;
mod one_pass;
pub(crate) mod peer;
pub(crate) mod read;

use crate::server::api::error::Failure;
use peer::ClientNet;

/// Where messages related to one request go before its response (progress,
/// log messages, 2025-11-25 server requests). Cheap to clone.
#[derive(Debug, Clone)]
pub struct OutboundSink {
    tx: Option<SinkSender>,
}

#[derive(Debug, Clone)]
enum SinkSender {
    Values(mpsc::UnboundedSender<Value>),
    /// A channel that allocates per message queued, nothing ahead: a
    /// 2025-11-25 HTTP request holds its sink for as long as its call waits
    /// for an answer, and every 2026-07-28 HTTP request makes one that most
    /// never use (a tokio channel preallocates a block of 32 values, about
    /// 2.8 KiB; issue 27).
    #[cfg(feature = "http-server")]
    Small(futures::channel::mpsc::UnboundedSender<Value>),
    /// A transport's one queue of lines (stdio), where responses go too.
    #[cfg(feature = "stdio")]
    Lines(mpsc::UnboundedSender<Outgoing>),
}

/// One message a transport writes in order with the others: a message the
/// server built as a value, or a response already serialized.
#[cfg(feature = "stdio")]
#[derive(Debug)]
pub(crate) enum Outgoing {
    Message(Value),
    Text(Box<RawValue>),
}

impl OutboundSink {
    /// A sink and the receiver the transport drains.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Value>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self::from_sender(tx), rx)
    }

    /// [`channel`](Self::channel) with a receiver that costs little while
    /// nothing is queued.
    #[cfg(feature = "http-server")]
    pub(crate) fn small_channel() -> (Self, futures::channel::mpsc::UnboundedReceiver<Value>) {
        let (tx, rx) = futures::channel::mpsc::unbounded();
        let sink = Self {
            tx: Some(SinkSender::Small(tx)),
        };
        (sink, rx)
    }

    /// A sink feeding an existing sender.
    pub fn from_sender(tx: mpsc::UnboundedSender<Value>) -> Self {
        Self {
            tx: Some(SinkSender::Values(tx)),
        }
    }

    /// A sink feeding a transport's queue of lines.
    #[cfg(feature = "stdio")]
    pub(crate) fn into_lines(tx: mpsc::UnboundedSender<Outgoing>) -> Self {
        Self {
            tx: Some(SinkSender::Lines(tx)),
        }
    }

    /// A sink that drops everything (for transports that cannot stream).
    pub fn discard() -> Self {
        Self { tx: None }
    }

    /// Queue one message; `false` when the transport is gone.
    pub fn send(&self, message: Value) -> bool {
        match &self.tx {
            None => false,
            Some(SinkSender::Values(tx)) => tx.send(message).is_ok(),
            #[cfg(feature = "http-server")]
            Some(SinkSender::Small(tx)) => tx.unbounded_send(message).is_ok(),
            #[cfg(feature = "stdio")]
            Some(SinkSender::Lines(tx)) => tx.send(Outgoing::Message(message)).is_ok(),
        }
    }
}

/// What the transport knows about who sent a message. (The revision a
/// message is served in travels with the message:
/// [`Server::parse_message_as`](crate::server::Server::parse_message_as).)
///
/// ```
/// use frontdesk::server::transport::RequestInfo;
///
/// let info = RequestInfo::new().principal("user-42");
/// assert_eq!(info.principal.as_deref(), Some("user-42"));
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestInfo {
    /// The authenticated principal (e.g. the `sub` of an access token);
    /// `None` is anonymous. Sealed state and URL flows are bound to it.
    pub principal: Option<String>,
    /// Who the client is when it is anonymous (HTTP: its address, an IPv6
    /// address's /64; see [`RequestInfo::peer`]), so one anonymous client's
    /// quotas (URL flows, redeemed states, tasks) are not every anonymous
    /// client's. An authenticated client is its principal.
    pub client: Option<String>,
}

impl RequestInfo {
    /// Nothing known: anonymous.
    pub fn new() -> Self {
        Self::default()
    }

    /// The authenticated principal.
    pub fn principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Who an anonymous client is (e.g. its address).
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// An anonymous client known by the address it connects from, keyed as
    /// the HTTP transport keys it: an IPv4 address as itself, an IPv6
    /// address as its /64 (one host usually has the whole /64), an
    /// IPv4-mapped IPv6 address as its IPv4 address.
    ///
    /// ```
    /// use frontdesk::server::transport::RequestInfo;
    ///
    /// let a = RequestInfo::new().peer("2001:db8:1:2::1".parse().unwrap());
    /// let b = RequestInfo::new().peer("2001:db8:1:2::beef".parse().unwrap());
    /// assert_eq!(a.client, b.client);
    /// assert_eq!(a.client.as_deref(), Some("2001:db8:1:2::/64"));
    /// ```
    pub fn peer(mut self, ip: std::net::IpAddr) -> Self {
        self.client = Some(ClientNet::of(ip).to_string());
        self
    }

    /// The key quotas count against: the principal, else the transport's
    /// client, else `"anonymous"`.
    pub(crate) fn quota_key(&self) -> String {
        quota_key(self.principal.as_deref(), self.client.as_deref())
    }
}

/// The outcome of [`Server::handle`](crate::server::Server::handle).
#[derive(Debug, Clone)]
pub struct Handled {
    /// The response to send, if any (`None` for notifications, the client's
    /// answers to our requests, and cancelled requests), as the JSON text a
    /// transport writes: the result is serialized once, from its typed
    /// value. [`Handled::response_value`] parses it, for a look inside.
    pub response: Option<Box<RawValue>>,
    /// The revision the message was served in (`None` when it could not be
    /// read).
    pub revision: Option<Revision>,
    /// When the response is an error, what kind (for the transport's status).
    pub failure: Option<Failure>,
}

impl Handled {
    /// No response to send.
    pub(crate) fn nothing(revision: Option<Revision>) -> Self {
        Self {
            response: None,
            revision,
            failure: None,
        }
    }

    /// The response parsed as a JSON value (`None` without a response).
    ///
    /// ```
    /// # async fn run() {
    /// use frontdesk::server::Server;
    /// use frontdesk::server::transport::{OutboundSink, RequestInfo};
    /// let server = Server::builder("demo", "1.0.0").build();
    /// let ping = server.parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
    /// let handled = server.handle(None, ping, &OutboundSink::discard(), &RequestInfo::new()).await;
    /// assert_eq!(handled.response_value().unwrap()["result"], serde_json::json!({}));
    /// # }
    /// ```
    pub fn response_value(&self) -> Option<Value> {
        let text = self.response.as_ref()?;
        match serde_json::from_str(text.get()) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "a response that is not JSON");
                None
            }
        }
    }
}

impl PartialEq for Handled {
    fn eq(&self, other: &Self) -> bool {
        self.response.as_ref().map(|r| r.get()) == other.response.as_ref().map(|r| r.get())
            && self.revision == other.revision
            && self.failure == other.failure
    }
}

/// A serialized message's text, taken rather than copied (a transport's
/// body or line).
#[cfg(any(feature = "stdio", feature = "http-server"))]
pub(crate) fn into_text(message: Box<RawValue>) -> String {
    String::from(Box::<str>::from(message))
}

/// `message` as the JSON text a transport writes (`None`, logged, in the
/// case serialization fails, which a [`Value`] does not).
pub(crate) fn message_text(message: &Value) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(message)
        .map_err(|e| tracing::error!(error = %e, "could not serialize an outgoing message"))
        .ok()
}

/// The key quotas count against: `principal:…` for an authenticated caller,
/// else `client:…` for the transport's client, else `"anonymous"`.
///
/// Joined with `concat` rather than `format!`: it is built for every
/// request, and the formatting machinery cost ten times the copy.
pub(crate) fn quota_key(principal: Option<&str>, client: Option<&str>) -> String {
    match (principal, client) {
        (Some(p), _) if !p.is_empty() => ["principal:", p].concat(),
        (_, Some(c)) => ["client:", c].concat(),
        _ => "anonymous".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::quota_key;

    #[test]
    fn the_quota_key_names_the_principal_else_the_client() {
        assert_eq!(
            quota_key(Some("alice"), Some("10.0.0.1")),
            "principal:alice"
        );
        assert_eq!(quota_key(Some(""), Some("10.0.0.1")), "client:10.0.0.1");
        assert_eq!(
            quota_key(None, Some("2001:db8::/64")),
            "client:2001:db8::/64"
        );
        assert_eq!(quota_key(Some(""), None), "anonymous");
        assert_eq!(quota_key(None, None), "anonymous");
    }
}
