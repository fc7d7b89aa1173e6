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
//!   buffer; DELETE ends the session.
//!
//! Both: `Origin` checked (`403`), `Content-Type: application/json` (`415`),
//! `Accept` must admit JSON and SSE when sent (`406`), bodies bounded
//! (`413`), malformed JSON `400`/`-32700`. SSE frames are one compact JSON
//! `data:` line each, with `X-Accel-Buffering: no`, and keep-alive comments.
//! See [`mcp`] for the JSON-versus-SSE rule.
//!
//! The demo's sign-in page (`GET`/`POST /signin`) is mounted next to the
//! endpoint; its links must point at this listener, so bind first and build
//! the demo with [`HttpListener::base_url`]:
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use frontdesk::demo::{self, DemoOptions};
//! use frontdesk::http::{self, HttpOptions};
//! use frontdesk::server::Server;
//!
//! let listener = http::bind("127.0.0.1:3000".parse().unwrap(), HttpOptions::default()).await?;
//! let server = demo::register(
//!     Server::builder("brightgrid", "1.0.0"),
//!     &listener.base_url(),
//!     &DemoOptions::default(),
//! )
//! .build();
//! listener.serve(server).await
//! # }
//! ```

pub mod headers;
pub mod mcp;
pub mod origin;
mod respond;
mod sessions;
pub mod signin;
pub mod sse;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use origin::OriginPolicy;

use crate::demo::{self, DemoOptions};
use crate::server::Server;

/// Transport settings.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Path of the MCP endpoint (default `/mcp`).
    pub endpoint: String,
    /// Which browser origins may call (default: loopback only).
    pub origins: OriginPolicy,
    /// Largest POST body, in bytes (default 4 MiB; larger is `413`).
    pub max_body_bytes: usize,
    /// A request answered within this time, with nothing pushed before its
    /// response, gets `application/json`; otherwise SSE (default 1 s).
    pub json_window: Duration,
    /// Interval of SSE keep-alive comments (default 15 s).
    pub keepalive: Duration,
    /// Events kept per stream for `Last-Event-ID` replay (default 256).
    pub replay_buffer: usize,
    /// Most concurrent 2025-11-25 sessions (default 10 000; more is `503`).
    pub max_sessions: usize,
    /// A session unused this long, with nothing in flight, is ended
    /// (default 1 h).
    pub session_idle: Duration,
    /// Mount the demo sign-in page at `/signin` (default `true`).
    pub signin_page: bool,
    /// The base URL to put into sign-in links, when the bound address is not
    /// what browsers should use (e.g. behind a proxy). Default: from the
    /// bound address.
    pub public_base_url: Option<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            endpoint: "/mcp".into(),
            origins: OriginPolicy::default(),
            max_body_bytes: 4 * 1024 * 1024,
            json_window: Duration::from_secs(1),
            keepalive: Duration::from_secs(15),
            replay_buffer: 256,
            max_sessions: 10_000,
            session_idle: Duration::from_secs(3600),
            signin_page: true,
            public_base_url: None,
        }
    }
}

struct Built {
    router: Router,
    sessions: Arc<sessions::Sessions>,
}

fn build(server: Server, options: HttpOptions, shutdown: CancellationToken) -> Built {
    let sessions = Arc::new(sessions::Sessions::new(
        options.max_sessions,
        options.session_idle,
    ));
    let endpoint = if options.endpoint.starts_with('/') {
        options.endpoint.clone()
    } else {
        format!("/{}", options.endpoint)
    };
    let signin_page = options.signin_page;
    let state = mcp::AppState {
        server,
        options: Arc::new(options),
        sessions: Arc::clone(&sessions),
        shutdown,
    };
    let mut router = Router::new().route(
        &endpoint,
        get(mcp::get)
            .post(mcp::post)
            .delete(mcp::delete)
            .fallback(mcp::other)
            .layer(DefaultBodyLimit::disable()),
    );
    if signin_page {
        router = router.route(
            "/signin",
            get(signin::show)
                .post(signin::submit)
                .layer(DefaultBodyLimit::max(16 * 1024)),
        );
    }
    Built {
        router: router.with_state(state),
        sessions,
    }
}

/// The MCP endpoint (and, if enabled, the sign-in page) as a router, for
/// embedding into a larger axum app. Its SSE streams end only with their
/// requests; use [`HttpListener::serve`] for graceful shutdown.
pub fn router(server: Server, options: HttpOptions) -> Router {
    build(server, options, CancellationToken::new()).router
}

/// A bound listener, not yet serving: learn its address, build the server
/// (the demo needs [`base_url`](Self::base_url) for its sign-in links), then
/// [`serve`](Self::serve).
#[derive(Debug)]
pub struct HttpListener {
    listener: TcpListener,
    addr: SocketAddr,
    options: HttpOptions,
}

/// Bind `addr` (use `127.0.0.1`; port `0` picks a free one).
pub async fn bind(addr: SocketAddr, options: HttpOptions) -> std::io::Result<HttpListener> {
    // Whoever serves HTTP here often talks HTTP too (tests, a sign-in step):
    // make the `reqwest` clients of this process usable (see the function).
    crate::client::install_default_tls_provider();
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "listening on a non-loopback address");
    }
    Ok(HttpListener {
        listener,
        addr,
        options,
    })
}

impl HttpListener {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<address>` as browsers on this machine reach it (an
    /// unspecified bind address becomes loopback), or
    /// [`HttpOptions::public_base_url`].
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
        format!("http://{}", SocketAddr::new(ip, self.addr.port()))
    }

    /// The MCP endpoint URL.
    pub fn endpoint_url(&self) -> String {
        format!("{}{}", self.base_url(), self.options.endpoint)
    }

    /// Serve until ctrl-c, then end open streams and sessions and stop.
    pub async fn serve(self, server: Server) -> std::io::Result<()> {
        self.serve_with_shutdown(server, async {
            if let Err(e) = tokio::signal::ctrl_c().await {
                tracing::error!(error = %e, "cannot listen for ctrl-c; serving until killed");
                std::future::pending::<()>().await;
            }
            tracing::info!("ctrl-c: shutting down");
        })
        .await
    }

    /// Serve until `signal` completes, then end open streams and sessions
    /// and stop.
    pub async fn serve_with_shutdown<F>(self, server: Server, signal: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let url = self.endpoint_url();
        let token = CancellationToken::new();
        let built = build(server, self.options, token.clone());
        eprintln!("frontdesk: MCP endpoint at {url}");
        tracing::info!(%url, "Streamable HTTP listening");
        let sessions = built.sessions;
        axum::serve(self.listener, built.router)
            .with_graceful_shutdown(async move {
                signal.await;
                token.cancel();
                sessions.close_all();
            })
            .await
    }
}

/// Bind `addr` and serve `server` until ctrl-c (logs the URL to stderr).
/// For the demo, whose sign-in links need the bound address, use [`bind`]
/// and [`serve_demo`] instead.
pub async fn serve(server: Server, addr: SocketAddr, options: HttpOptions) -> std::io::Result<()> {
    bind(addr, options).await?.serve(server).await
}

/// Bind `addr` and serve the brightgrid demo, its sign-in links pointing at
/// this listener, until ctrl-c.
pub async fn serve_demo(
    addr: SocketAddr,
    options: HttpOptions,
    demo_options: &DemoOptions,
) -> std::io::Result<()> {
    let listener = bind(addr, options).await?;
    let server = demo::register(
        Server::builder("brightgrid", env!("CARGO_PKG_VERSION")),
        &listener.base_url(),
        demo_options,
    )
    .build();
    listener.serve(server).await
}
