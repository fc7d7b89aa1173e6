//! The accept loop: every connection is counted against
//! [`HttpOptions::max_connections`](super::HttpOptions::max_connections) and
//! served by hyper's HTTP/1.1 with a header-read timer, so a client that
//! connects and says nothing, sends its headers one byte at a time, or keeps
//! an idle keep-alive connection open is closed after
//! [`header_read_timeout`](super::HttpOptions::header_read_timeout). Over the
//! cap, a connection is answered `503` at once and closed; over
//! [`max_connections_per_client`](super::HttpOptions::max_connections_per_client)
//! from one address, `429`.
//!
//! Each request carries the peer's address ([`PeerAddr`]), which anonymous
//! clients are told apart by (quotas, fairness): an IPv4 address, or an
//! IPv6 address's /64, here as everywhere ([`ClientNet`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::server::contract::peer::ClientNet;

/// The address a request came from, as a request extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

/// What the loop needs from the options.
pub(crate) struct Limits {
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_client: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) shutdown_grace: Duration,
}

/// Serve `app` on `listener` until `signal`, then stop accepting, let open
/// connections finish for up to the grace time, and return.
pub(crate) async fn run<F>(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    signal: F,
    on_signal: impl FnOnce(),
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_client = Arc::new(PerClient::new(limits.max_connections_per_client));
    let graceful = GracefulShutdown::new();
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
            tokio::spawn(refuse(stream, TOO_MANY_FROM_YOU));
            continue;
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            tracing::warn!(%peer, limit = limits.max_connections, "connection refused: too many open connections");
            tokio::spawn(refuse(stream, TOO_MANY));
            continue;
        };
        // Small writes (an SSE event, a short JSON reply) go out at once
        // instead of waiting for the peer's delayed ACK (Nagle): without it a
        // 2025-11-25 round trip over SSE stalled about 40 ms per exchange.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
        }
        let app = app.clone();
        let service = tower::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(PeerAddr(peer));
            let app = app.clone();
            async move {
                let response = app.oneshot(request.map(Body::new)).await;
                Ok::<_, Infallible>(match response {
                    Ok(r) => r,
                    Err(never) => match never {},
                })
            }
        });
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .keep_alive(true);
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = watched.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
            drop(permit);
            drop(mine);
        });
    }
    on_signal();
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => tracing::debug!("every connection finished"),
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::info!("connections still open after the grace time; stopping anyway");
        }
    }
    Ok(())
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
