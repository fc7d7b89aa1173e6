//! The accept loop: every connection is counted against
//! [`HttpOptions::max_connections`](super::HttpOptions::max_connections) and
//! served by hyper, HTTP/1.1 or HTTP/2, so a client that connects and says
//! nothing, sends its headers one byte at a time, or keeps an idle
//! HTTP/1.1 keep-alive connection open is closed after
//! [`header_read_timeout`](super::HttpOptions::header_read_timeout).
//!
//! Which HTTP: on a plain listener, a connection that opens with HTTP/2's
//! preface is HTTP/2 ("h2c with prior knowledge"), any other HTTP/1.1; over
//! TLS, what ALPN chose (`h2`, else HTTP/1.1). The preface and the TLS
//! handshake must arrive within the header-read time too. On HTTP/2 many
//! requests share one connection (hyper's limit: 200 streams at once; the
//! per-client cap on requests in flight applies as on HTTP/1.1), idle
//! connections are pinged every header-read time and closed when a ping
//! goes unanswered, and `:authority` stands in for `Host`. Over the
//! cap, a connection is answered `503` at once and closed; over
//! [`max_connections_per_client`](super::HttpOptions::max_connections_per_client)
//! from one address, `429`.
//!
//! Each request carries the peer's address ([`PeerAddr`]), which anonymous
//! clients are told apart by (quotas, fairness): an IPv4 address, or an
//! IPv6 address's /64, here as everywhere ([`ClientNet`]).
//!
//! A POST to the MCP endpoint (every message a client sends) goes to its
//! handler directly ([`Endpoint`]); the router serves the rest (GET and
//! DELETE on the endpoint, other methods, the application's pages, health).
//! It is the handler the router would have chosen, given what the router
//! would have given it, without the router's per-request boxing and
//! cloning of its services (issue 27).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::header::HOST;
use axum::http::{HeaderValue, Method, Request, Version};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::mcp;
use crate::server::contract::peer::ClientNet;

/// The address a request came from, as a request extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

impl PeerAddr {
    /// The client this address makes: the address, or an IPv6 address's
    /// /64 ([`ClientNet`]), as the quotas and caps key it.
    pub(crate) fn client(&self) -> String {
        ClientNet::of(self.0.ip()).to_string()
    }
}

/// What the loop needs from the options.
pub(crate) struct Limits {
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_client: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) shutdown_grace: Duration,
}

/// The MCP endpoint's path and the state its handlers share: a POST there
/// is served by [`mcp::post_from`] without going through the router (which
/// routes the same path and method to [`mcp::post`], the same handler).
pub(crate) struct Endpoint {
    pub(crate) path: String,
    pub(crate) state: mcp::AppState,
}

impl Endpoint {
    /// Whether `request` is a POST to this endpoint (the path as the
    /// router matches it: exactly, whatever the query).
    fn takes<B>(&self, request: &Request<B>) -> bool {
        request.method() == Method::POST && request.uri().path() == self.path
    }
}

/// How connections are encrypted: not at all, or TLS with this acceptor.
#[derive(Clone)]
pub(crate) enum Transport {
    Plain,
    #[cfg(feature = "tls")]
    Tls(tokio_rustls::TlsAcceptor),
}

/// Serve `app` (and `endpoint`'s POSTs directly, when given) on `listener`
/// until `signal`, then stop accepting, run what `on_signal` returns (the
/// server's drain), let open connections finish, and return once both are
/// done or the grace time is over.
pub(crate) async fn run<F, S>(
    listener: TcpListener,
    app: Router,
    endpoint: Option<Endpoint>,
    limits: Limits,
    transport: Transport,
    signal: F,
    on_signal: impl FnOnce() -> S,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send,
    S: Future<Output = ()> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_client = Arc::new(PerClient::new(limits.max_connections_per_client));
    let graceful = GracefulShutdown::new();
    // Shared: each connection's task holds a pointer to the builders, not
    // a copy of them (hyper's connection keeps what it needs of them).
    let http = Arc::new(builder(&limits));
    let endpoint = endpoint.map(Arc::new);
    tokio::pin!(signal);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: pause instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        let Some(mine) = PerClient::admit(&per_client, peer.ip()) else {
            tracing::warn!(%peer, limit = limits.max_connections_per_client, "connection refused: too many open connections from this address");
            crate::metrics::refused("client_connections");
            tokio::spawn(refuse(stream, TOO_MANY_FROM_YOU));
            continue;
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tracing::warn!(%peer, limit = limits.max_connections, "connection refused: too many open connections");
            crate::metrics::refused("connections");
            tokio::spawn(refuse(stream, TOO_MANY));
            continue;
        };
        // Small writes (an SSE event, a short JSON reply) go out at once
        // instead of waiting for the peer's delayed ACK (Nagle): without it a
        // 2025-11-25 round trip over SSE stalled about 40 ms per exchange.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
        }
        let service = Handler {
            app: app.clone(),
            endpoint: endpoint.clone(),
            peer,
            client: PeerAddr(peer).client().into(),
        };
        let watcher = graceful.watcher();
        let http = Arc::clone(&http);
        let transport = transport.clone();
        let wait = limits.header_read_timeout;
        tokio::spawn(async move {
            match transport {
                Transport::Plain => match opens_with_h2_preface(&stream, wait).await {
                    Some(h2) => {
                        serve(&http, h2, TokioIo::new(stream), service, watcher, peer).await
                    }
                    None => tracing::debug!(%peer, "connection closed before a request"),
                },
                // Boxed: inline, the TLS connection's state would make every
                // plain connection's task as large as its own.
                #[cfg(feature = "tls")]
                Transport::Tls(acceptor) => {
                    Box::pin(async move {
                        match tokio::time::timeout(wait, acceptor.accept(stream)).await {
                            Ok(Ok(tls)) => {
                                let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
                                serve(&http, h2, TokioIo::new(tls), service, watcher, peer).await;
                            }
                            Ok(Err(e)) => {
                                tracing::debug!(%peer, error = %e, "TLS handshake failed");
                            }
                            Err(_) => tracing::debug!(%peer, "TLS handshake took too long"),
                        }
                    })
                    .await;
                }
            }
            drop(permit);
            drop(mine);
        });
    }
    // Its own task: ending the sessions' streams is what lets their
    // connections finish.
    let settling = tokio::spawn(on_signal());
    drop(listener);
    let finished = async {
        graceful.shutdown().await;
        // What the drain still writes (a task's end) is done before the
        // process may exit.
        let _ = settling.await;
    };
    tokio::select! {
        () = finished => tracing::debug!("every connection finished"),
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::info!("connections still open after the grace time; stopping anyway");
        }
    }
    Ok(())
}

/// The router as hyper's service for one connection (a POST to the MCP
/// endpoint served directly): each request comes with the peer's address
/// (for the router, as a [`PeerAddr`] extension; for the endpoint's POST,
/// as the client it makes, an argument), and on HTTP/2 with its
/// `:authority` as `Host`.
#[derive(Clone)]
struct Handler {
    app: Router,
    endpoint: Option<Arc<Endpoint>>,
    peer: SocketAddr,
    /// The peer's [`PeerAddr::client`], written once per connection rather
    /// than once per request (formatting an address was about 1,500
    /// instructions of a request's 110,000).
    client: Arc<str>,
}

/// A request's future, boxed: hyper keeps room for it as long as an
/// HTTP/1.1 connection lives (a pending 2025-11-25 call's connection lives
/// as long as the call), and an HTTP/2 stream's task is as large as it for
/// as long as the stream's response is sent; inline (a tower `Oneshot`
/// holding the request) it was 600 bytes there (issue 27).
type HandlerFuture =
    std::pin::Pin<Box<dyn Future<Output = Result<axum::response::Response, Infallible>> + Send>>;

impl hyper::service::Service<Request<Incoming>> for Handler {
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = HandlerFuture;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        host_from_authority(&mut request);
        if let Some(endpoint) = self.endpoint.as_ref().filter(|e| e.takes(&request)) {
            // The client given as an argument: no extensions map to
            // allocate, no address to format.
            let state = endpoint.state.clone();
            let client = Some(String::from(&*self.client));
            return Box::pin(async move {
                Ok(mcp::post_from(state, request.map(Body::new), client).await)
            });
        }
        request.extensions_mut().insert(PeerAddr(self.peer));
        let app = self.app.clone();
        Box::pin(async move {
            let response = app.oneshot(request.map(Body::new)).await;
            Ok(match response {
                Ok(r) => r,
                Err(never) => match never {},
            })
        })
    }
}

/// hyper's connection builders: HTTP/1.1 with the header-read timer, HTTP/2
/// (only) with keep-alive pings.
struct Builders {
    /// hyper's own: an HTTP/1.1 connection's state without room for an
    /// HTTP/2 connection's, which the auto builder's connection keeps
    /// (each pending 2025-11-25 call holds an HTTP/1.1 connection).
    h1: http1::Builder,
    h2: auto::Builder<TokioExecutor>,
}

fn builder(limits: &Limits) -> Builders {
    let mut h1 = http1::Builder::new();
    h1.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let mut h2 = auto::Builder::new(TokioExecutor::new());
    h2.http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.header_read_timeout))
        .keep_alive_timeout(limits.header_read_timeout);
    Builders {
        h1,
        h2: h2.http2_only(),
    }
}

/// Serve one connection, HTTP/2 when `h2`, else HTTP/1.1.
async fn serve<I, S>(
    http: &Builders,
    h2: bool,
    io: TokioIo<I>,
    service: S,
    watcher: Watcher,
    peer: SocketAddr,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::Service<
            Request<Incoming>,
            Response = axum::response::Response,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    // The HTTP/2 connection boxed: one serves many requests, and inline
    // its state would be in every HTTP/1.1 connection's task too.
    let ended: Result<(), Box<dyn std::error::Error + Send + Sync>> = if h2 {
        Box::pin(watcher.watch(http.h2.serve_connection(io, service))).await
    } else {
        watcher
            .watch(http.h1.serve_connection(io, service))
            .await
            .map_err(Into::into)
    };
    if let Err(e) = ended {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}

/// HTTP/2's connection preface (RFC 9113 §3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether `stream` opens with HTTP/2's preface (looked at, not read), as
/// soon as its first bytes tell; `None` when it closes or says too little
/// within `wait`.
async fn opens_with_h2_preface(stream: &TcpStream, wait: Duration) -> Option<bool> {
    let look = async {
        let mut buf = [0u8; H2_PREFACE.len()];
        loop {
            let n = stream.peek(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            if buf[..n] != H2_PREFACE[..n] {
                return Some(false);
            }
            if n == H2_PREFACE.len() {
                return Some(true);
            }
            // Part of the preface so far (rare: it is one small segment);
            // peeking again at once would see the same bytes.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(wait, look).await.ok().flatten()
}

/// On HTTP/2 the host is the `:authority` pseudo-header, in the URI; give
/// it to the `Host` checks as the `Host` header it replaces.
fn host_from_authority<B>(request: &mut Request<B>) {
    if request.version() != Version::HTTP_2 || request.headers().contains_key(HOST) {
        return;
    }
    let host = request
        .uri()
        .authority()
        .and_then(|a| HeaderValue::from_str(a.as_str()).ok());
    if let Some(host) = host {
        request.headers_mut().insert(HOST, host);
    }
}

/// The answer to a connection over the server's cap.
const TOO_MANY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
/// The answer to a connection over its address's cap.
const TOO_MANY_FROM_YOU: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";

/// Open connections per client (address, or IPv6 /64).
struct PerClient {
    limit: usize,
    open: Mutex<HashMap<ClientNet, usize>>,
}

/// One counted connection; uncounted when dropped.
struct Counted {
    table: Arc<PerClient>,
    net: ClientNet,
}

impl PerClient {
    fn new(limit: usize) -> Self {
        Self {
            limit: limit.max(1),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Count a connection from `ip`, unless its client has its limit open
    /// already.
    fn admit(table: &Arc<Self>, ip: IpAddr) -> Option<Counted> {
        let net = ClientNet::of(ip);
        let mut open = table.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(net).or_insert(0);
        if *n >= table.limit {
            return None;
        }
        *n += 1;
        Some(Counted {
            table: Arc::clone(table),
            net,
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut open = self
            .table
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.net) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.net);
            }
        }
    }
}

/// Tell a connection over a cap to come back later, and close it.
async fn refuse(mut stream: TcpStream, response: &'static [u8]) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(response).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn two_addresses_of_one_ipv6_64_share_one_share() {
        let table = Arc::new(PerClient::new(1));
        let first = PerClient::admit(&table, ip("2001:db8:1:2::1"));
        assert!(first.is_some());
        assert!(
            PerClient::admit(&table, ip("2001:db8:1:2:abcd::9")).is_none(),
            "another address of the same /64 is the same client"
        );
        let other = PerClient::admit(&table, ip("2001:db8:1:3::1"));
        assert!(other.is_some(), "another /64 is another client");
        drop(first);
        assert!(PerClient::admit(&table, ip("2001:db8:1:2:abcd::9")).is_some());
    }

    #[test]
    fn an_ipv4_mapped_address_shares_the_ipv4_share() {
        let table = Arc::new(PerClient::new(1));
        let v4 = PerClient::admit(&table, ip("192.0.2.7"));
        assert!(v4.is_some());
        assert!(PerClient::admit(&table, ip("::ffff:192.0.2.7")).is_none());
        assert!(PerClient::admit(&table, ip("192.0.2.8")).is_some());
    }
}
