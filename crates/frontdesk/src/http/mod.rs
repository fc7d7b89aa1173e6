//! Streamable HTTP transport (axum): both revisions on one endpoint.
//!
//! - **2026-07-28** (a POST with `MCP-Protocol-Version: 2026-07-28`, or whose
//!   `params._meta` carries the modern keys): stateless. The mirrored headers
//!   are checked first (`-32020`, HTTP 400, before the core can answer
//!   `-32022`), `Mcp-Session-Id` is ignored, GET and DELETE without a
//!   session are `405`, and closing the response stream cancels the request.
//! - **2025-11-25**: `initialize` mints `Mcp-Session-Id`; later POSTs need it
//!   (missing `400`, unknown or ended `404`); POSTed notifications and
//!   responses (the answer to our `elicitation/create`) get `202`; GET opens
//!   the session stream (one at a time, `409` otherwise) or, with
//!   `Last-Event-ID`, resumes any stream of the session from its replay
//!   buffer; DELETE ends the session. With an event archive
//!   ([`HttpOptions::event_archive`]), a stream of a session held by another
//!   instance can be resumed here too (see [`archive`], which also says what
//!   still needs a sticky load balancer).
//!
//! Both: `Origin` checked (`403`), `Content-Type: application/json` (`415`),
//! `Accept` must admit JSON and SSE when sent (`406`), bodies bounded
//! (`413`), malformed JSON `400`/`-32700`. SSE frames are one compact JSON
//! `data:` line each, with `X-Accel-Buffering: no`, and keep-alive comments.
//! See [`mcp`] for the JSON-versus-SSE rule.
//!
//! The transport mounts the MCP endpoint and nothing else. A server whose URL
//! flows end on its own page (a sign-in, a payment) mounts that page next to
//! the endpoint with [`HttpListener::routes`] (its routes get the endpoint's
//! `Host` check and body bounds too) and completes the flow from it with
//! [`Server::complete_flow`], passing who the page identified (a stdio
//! server serves such a page alone with
//! [`HttpListener::serve_routes_with_shutdown`]):
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use axum::{Router, extract::{Query, State}, routing::get};
//! use frontdesk::http::{self, HttpOptions};
//! use frontdesk::server::Server;
//! use std::collections::HashMap;
//!
//! async fn done(State(server): State<Server>, Query(q): Query<HashMap<String, String>>) -> &'static str {
//!     // A real page identifies the person (session cookie, OAuth callback) first.
//!     let token = q.get("token").map(String::as_str).unwrap_or_default();
//!     match server.complete_flow(token, Some("user-42")).await {
//!         Ok(()) => "Connected. You can close this tab.",
//!         Err(_) => "This link is not valid.",
//!     }
//! }
//!
//! let listener = http::bind("127.0.0.1:3000".parse().unwrap(), HttpOptions::default()).await?;
//! let server = Server::builder("shop", "1.0.0").build();
//! let pages = Router::new().route("/connect/done", get(done)).with_state(server.clone());
//! listener.routes(pages).serve(server).await
//! # }
//! ```

pub mod archive;
pub mod auth;
pub mod headers;
mod health;
mod listen;
pub mod mcp;
mod options;
pub mod origin;
mod pages;
mod respond;
mod resume;
mod sessions;
pub mod sse;
mod status;
#[cfg(feature = "tls")]
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use listen::PeerAddr;
pub use options::{HostPolicy, HttpOptions};
pub use origin::OriginPolicy;

use crate::server::Server;

struct Built {
    router: Router,
    /// The endpoint's POSTs, served without the router (see [`listen`]).
    endpoint: listen::Endpoint,
    sessions: Arc<sessions::Sessions>,
    archive: Option<Arc<archive::Writer>>,
}

/// The router and what outlives a request; `loopback` says whether the
/// listener is on a loopback address (for [`HostPolicy::Auto`]).
fn build(
    server: Server,
    options: HttpOptions,
    shutdown: CancellationToken,
    loopback: bool,
) -> Built {
    let sessions = Arc::new(sessions::Sessions::new(
        options.max_sessions,
        options.max_sessions_per_client,
        options.session_idle,
    ));
    sessions::sweep_periodically(&sessions, shutdown.clone());
    let archive = options.event_archive.as_ref().map(|a| {
        archive::Writer::start(
            a,
            archive::Keep {
                events: options.replay_buffer.max(1),
                idle: options.session_idle,
            },
        )
    });
    let endpoint = if options.endpoint.starts_with('/') {
        options.endpoint.clone()
    } else {
        format!("/{}", options.endpoint)
    };
    let state = mcp::AppState::new(mcp::AppShared {
        server,
        options: Arc::new(options),
        sessions: Arc::clone(&sessions),
        shutdown,
        loopback,
        in_flight: Arc::new(mcp::InFlight::default()),
        archive: archive.clone(),
    });
    let direct = listen::Endpoint {
        path: endpoint.clone(),
        state: state.clone(),
    };
    let router = Router::new().route(
        &endpoint,
        get(mcp::get)
            .post(mcp::post)
            .delete(mcp::delete)
            .fallback(mcp::other)
            .layer(DefaultBodyLimit::disable()),
    );
    Built {
        router: router.with_state(state),
        endpoint: direct,
        sessions,
        archive,
    }
}

/// Longest wait at shutdown for the event archive's last writes.
const ARCHIVE_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

/// The MCP endpoint as a router, for embedding into a larger axum app. Its
/// SSE streams end only with their requests; use [`HttpListener::serve`] for
/// graceful shutdown and the connection bounds. Under [`HostPolicy::Auto`]
/// it answers loopback host names only. Requests without a [`PeerAddr`]
/// extension count as one anonymous client.
pub fn router(server: Server, options: HttpOptions) -> Router {
    build(server, options, CancellationToken::new(), true).router
}

/// A bound listener, not yet serving: learn its address (pages that hand out
/// links need [`base_url`](Self::base_url)), build the server, mount any
/// pages of your own with [`routes`](Self::routes), then
/// [`serve`](Self::serve).
pub struct HttpListener {
    listener: TcpListener,
    addr: SocketAddr,
    options: HttpOptions,
    routes: Option<Router>,
    #[cfg(feature = "tls")]
    tls: Option<tls::Tls>,
}

impl std::fmt::Debug for HttpListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpListener")
            .field("addr", &self.addr)
            .field("options", &self.options)
            .field("routes", &self.routes.is_some())
            .field("tls", &self.is_tls())
            .finish()
    }
}

/// Bind `addr` (use `127.0.0.1`; port `0` picks a free one).
pub async fn bind(addr: SocketAddr, options: HttpOptions) -> std::io::Result<HttpListener> {
    // Whoever serves HTTP here often talks HTTP too (tests, a sign-in step):
    // make the `reqwest` clients of this process usable (see the function).
    #[cfg(any(feature = "http-client", feature = "jwt"))]
    crate::tls_default::install_default_tls_provider();
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "listening on a non-loopback address");
    }
    Ok(HttpListener {
        listener,
        addr,
        options,
        routes: None,
        #[cfg(feature = "tls")]
        tls: None,
    })
}

impl HttpListener {
    /// Serve `routes` (the application's own pages, e.g. where its URL flows
    /// end) on this listener next to the MCP endpoint. Their paths must not
    /// clash with the endpoint's. Calling it again adds more routes. They
    /// answer the same `Host` names as the endpoint ([`HttpOptions::hosts`])
    /// and read bodies within the same bounds.
    pub fn routes(mut self, routes: Router) -> Self {
        self.routes = Some(match self.routes.take() {
            Some(existing) => existing.merge(routes),
            None => routes,
        });
        self
    }

    /// Serve HTTPS with `tls` (feature `tls`): HTTP/2 or HTTP/1.1 as ALPN
    /// chooses; [`base_url`](Self::base_url) becomes `https://…`.
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: tls::Tls) -> Self {
        self.tls = Some(tls);
        self
    }

    fn is_tls(&self) -> bool {
        #[cfg(feature = "tls")]
        {
            self.tls.is_some()
        }
        #[cfg(not(feature = "tls"))]
        {
            false
        }
    }

    fn transport(&self) -> listen::Transport {
        #[cfg(feature = "tls")]
        if let Some(tls) = &self.tls {
            return listen::Transport::Tls(tls.acceptor());
        }
        listen::Transport::Plain
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<address>` (`https://` when it serves TLS, feature `tls`) as browsers
    /// on this machine reach it (an unspecified bind address becomes
    /// loopback), or [`HttpOptions::public_base_url`].
    pub fn base_url(&self) -> String {
        if let Some(base) = &self.options.public_base_url {
            return base.trim_end_matches('/').to_string();
        }
        let ip = match self.addr.ip() {
            std::net::IpAddr::V4(v4) if v4.is_unspecified() => {
                std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
            }
            std::net::IpAddr::V6(v6) if v6.is_unspecified() => {
                std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)
            }
            ip => ip,
        };
        let scheme = if self.is_tls() { "https" } else { "http" };
        format!("{scheme}://{}", SocketAddr::new(ip, self.addr.port()))
    }

    /// The MCP endpoint URL.
    pub fn endpoint_url(&self) -> String {
        format!("{}{}", self.base_url(), self.options.endpoint)
    }

    /// Serve until Ctrl-C or SIGTERM, then end open streams and sessions and
    /// stop.
    pub async fn serve(self, server: Server) -> std::io::Result<()> {
        self.serve_with_shutdown(server, crate::shutdown::requested())
            .await
    }

    /// Serve until `signal` completes, then end open streams and sessions
    /// and stop.
    pub async fn serve_with_shutdown<F>(mut self, server: Server, signal: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let url = self.endpoint_url();
        self.resolve_origins();
        let token = CancellationToken::new();
        let limits = self.limits();
        let loopback = self.addr.ip().is_loopback();
        let routes = self
            .routes
            .take()
            .map(|r| pages::bounded(r, &self.options, loopback));
        let transport = self.transport();
        let health = self.options.health.then(|| health::routes(server.clone()));
        let grace = self.options.shutdown_grace;
        let built = build(server.clone(), self.options, token.clone(), loopback);
        tracing::info!(%url, "Streamable HTTP listening");
        let sessions = built.sessions;
        let archive = built.archive;
        let endpoint = built.endpoint;
        let mut app = built.router;
        if let Some(routes) = routes {
            app = app.merge(routes);
        }
        if let Some(health) = health {
            app = app.merge(health);
        }
        let served = listen::run(
            self.listener,
            app,
            Some(endpoint),
            limits,
            transport,
            signal,
            move || {
                // Withdraw the questions waiting for people and let their calls
                // answer; then end the streams (GET streams would otherwise
                // hold their connections for the whole grace time).
                server.drain();
                async move {
                    if !server.settled(grace).await {
                        tracing::info!("requests still running at the end of the grace time");
                    }
                    token.cancel();
                    sessions.close_all();
                }
            },
        )
        .await;
        // The streams' last events (a drain's withdrawals and answers) to
        // the archive, so a client whose connection broke gets them from
        // another instance.
        if let Some(archive) = archive {
            archive.finish(ARCHIVE_FLUSH).await;
        }
        served
    }

    /// Serve only the [`routes`](Self::routes), without an MCP endpoint (the
    /// page of a stdio server's URL flows, say), with the same bounds:
    /// connections, header and body times and sizes, `Host`; until `signal`
    /// completes.
    pub async fn serve_routes_with_shutdown<F>(mut self, signal: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let limits = self.limits();
        let loopback = self.addr.ip().is_loopback();
        let routes = self.routes.take().unwrap_or_default();
        let app = pages::bounded(routes, &self.options, loopback);
        tracing::info!(url = %self.base_url(), "pages listening");
        let transport = self.transport();
        listen::run(
            self.listener,
            app,
            None,
            limits,
            transport,
            signal,
            || async {},
        )
        .await
    }

    fn limits(&self) -> listen::Limits {
        listen::Limits {
            max_connections: self.options.max_connections,
            max_connections_per_client: self.options.max_connections_per_client,
            header_read_timeout: self.options.header_read_timeout,
            shutdown_grace: self.options.shutdown_grace,
        }
    }

    /// [`OriginPolicy::SameOrigin`] becomes the origins this listener is
    /// reached at: its public base URL and its bound address.
    fn resolve_origins(&mut self) {
        let bound = {
            let public = self.options.public_base_url.take();
            let bound = self.base_url();
            self.options.public_base_url = public;
            bound
        };
        let public = self.options.public_base_url.clone();
        let mut bases = vec![bound.as_str()];
        bases.extend(public.as_deref());
        let origins = std::mem::take(&mut self.options.origins);
        self.options.origins = origins.resolve_for(&bases);
    }
}

/// Bind `addr` and serve `server` until Ctrl-C or SIGTERM.
pub async fn serve(server: Server, addr: SocketAddr, options: HttpOptions) -> std::io::Result<()> {
    bind(addr, options).await?.serve(server).await
}
