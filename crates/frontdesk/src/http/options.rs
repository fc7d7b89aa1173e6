//! [`HttpOptions`]: the transport's settings and bounds, and [`HostPolicy`].
//!
//! Every bound has a default chosen so that one client cannot take the
//! server from everyone else: connections, header and body read times,
//! sessions (in total and per client), requests in flight per client, and
//! how long a GET stream lives. Over a bound the client gets an answer at
//! once (`503`, `429`, `408`, `413`, …) and nothing else is affected.

use std::time::Duration;

use super::archive;
use super::auth;
use super::origin::OriginPolicy;

/// Which `Host` header values the endpoint answers (DNS-rebinding defence:
/// a page on `evil.example` that resolves to 127.0.0.1 sends
/// `Host: evil.example`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostPolicy {
    /// Loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) when the
    /// listener is on a loopback address (and for [`router`](super::router),
    /// which does not know its address); any host otherwise.
    #[default]
    Auto,
    /// Loopback names plus the listed hosts (exact, without port, e.g.
    /// `mcp.example.com`).
    Loopback(Vec<String>),
    /// Exactly the listed hosts (any port).
    Only(Vec<String>),
    /// Any host (behind a proxy that checks it).
    Any,
}

impl HostPolicy {
    /// Whether a request with this `Host` value may proceed on a listener
    /// that is (`loopback == true`) or is not on a loopback address. A
    /// missing `Host` is allowed only where any host is.
    pub fn allows(&self, host: Option<&str>, loopback: bool) -> bool {
        let name = host.map(host_name);
        let listed =
            |list: &[String]| name.is_some_and(|n| list.iter().any(|h| h.eq_ignore_ascii_case(n)));
        match self {
            Self::Any => true,
            Self::Auto if !loopback => true,
            Self::Auto => name.is_some_and(is_loopback_name),
            Self::Loopback(list) => name.is_some_and(is_loopback_name) || listed(list),
            Self::Only(list) => listed(list),
        }
    }
}

/// The host part of a `Host` value (`[::1]:3000` → `[::1]`, `a.b:80` → `a.b`).
fn host_name(host: &str) -> &str {
    let host = host.trim();
    if host.starts_with('[') {
        // `[v6]` or `[v6]:port`; anything else after `]` is not a host name.
        return match host.find(']') {
            Some(i) => match &host[i + 1..] {
                "" => &host[..=i],
                rest if rest
                    .strip_prefix(':')
                    .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit())) =>
                {
                    &host[..=i]
                }
                _ => host,
            },
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn is_loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost") || name == "127.0.0.1" || name == "[::1]"
}

/// Transport settings, with builder-style setters.
///
/// ```
/// use std::time::Duration;
/// use frontdesk::http::{HttpOptions, OriginPolicy};
///
/// let options = HttpOptions::new()
///     .endpoint("/api/mcp")
///     .origins(OriginPolicy::Only(vec!["https://app.example".into()]))
///     .session_idle(Duration::from_secs(600));
/// assert_eq!(options.endpoint, "/api/mcp");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Path of the MCP endpoint (default `/mcp`).
    pub endpoint: String,
    /// Which browser origins may call (default: the server's own origin only,
    /// [`OriginPolicy::SameOrigin`]).
    pub origins: OriginPolicy,
    /// Which `Host` values are answered (default: [`HostPolicy::Auto`]);
    /// others get `403`.
    pub hosts: HostPolicy,
    /// Largest POST body, in bytes (default 4 MiB; larger is `413`).
    pub max_body_bytes: usize,
    /// A request answered within this time, with nothing pushed before its
    /// response, gets `application/json`; otherwise SSE (default 1 s).
    pub json_window: Duration,
    /// Interval of SSE keep-alive comments (default 15 s).
    pub keepalive: Duration,
    /// Events kept per stream for `Last-Event-ID` replay (default 256).
    pub replay_buffer: usize,
    /// Most concurrent 2025-11-25 sessions (default 10 000). When full, the
    /// least recently used idle session is ended; when none is idle, `503`.
    pub max_sessions: usize,
    /// Most concurrent 2025-11-25 sessions of one client (its principal, or
    /// its address when anonymous; default 256). A client at its limit ends
    /// its own least recently used idle session to start a new one.
    pub max_sessions_per_client: usize,
    /// A session unused this long, with nothing in flight, is ended
    /// (default 30 min); sessions are swept every tenth of this time.
    pub session_idle: Duration,
    /// Most open connections (default 512); more are answered `503` and
    /// closed.
    pub max_connections: usize,
    /// Most open connections from one address (default 64); more are
    /// answered `429` and closed, so one client cannot hold every connection.
    /// Behind a reverse proxy every client has the proxy's address: raise it
    /// there (or set it to `max_connections`).
    pub max_connections_per_client: usize,
    /// Time for a client to send a request's headers, from connecting or
    /// from the end of the previous response on a keep-alive connection
    /// (default 10 s): slow, silent and idle connections are closed.
    pub header_read_timeout: Duration,
    /// Time for a client to send a POST body (default 10 s; slower is `408`).
    pub body_read_timeout: Duration,
    /// Longest life of a GET stream (default 1 h); the client may open a new
    /// one.
    pub get_stream_lifetime: Duration,
    /// A GET stream that carried no message for this long is ended (default
    /// 10 min; keep-alive comments do not count).
    pub get_stream_idle: Duration,
    /// Most 2026-07-28 requests in flight from one client (default 64; more
    /// is `429`). A retry whose connection dropped counts until its round
    /// ends.
    pub max_requests_per_client: usize,
    /// How long open connections may take to finish at shutdown (default 5 s).
    /// The server first drains ([`Server::drain`](crate::server::Server::drain)):
    /// 2025-11-25 questions waiting for a person are withdrawn and their
    /// calls answered; streams end when no request is left or at this time.
    pub shutdown_grace: Duration,
    /// Answer `GET /healthz` (the process is alive) and `GET /readyz` (not
    /// draining, and the state store answers) beside the endpoint, for a
    /// load balancer or an orchestrator (default on). Turn it off when
    /// routes of your own use those paths.
    pub health: bool,
    /// The base URL pages of this listener are reached at, when the bound
    /// address is not what browsers should use (e.g. behind a proxy).
    /// Default: from the bound address.
    pub public_base_url: Option<String>,
    /// Who is calling (default: nobody checks; every request is anonymous).
    /// See [`auth`].
    pub authenticator: Option<auth::Authenticator>,
    /// Where 2025-11-25 session events are archived (default: nowhere), so
    /// a broken stream can be resumed with `Last-Event-ID` on another
    /// instance. POSTs of a session must still reach the instance holding
    /// it (a load balancer sticky on `Mcp-Session-Id`); see
    /// [`archive`].
    pub event_archive: Option<archive::Archive>,
}

impl std::fmt::Debug for HttpOptions {
    /// Every setting, so a log of the options shows the caps and timeouts
    /// in force; the authenticator only as whether there is one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("endpoint", &self.endpoint)
            .field("origins", &self.origins)
            .field("hosts", &self.hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("json_window", &self.json_window)
            .field("keepalive", &self.keepalive)
            .field("replay_buffer", &self.replay_buffer)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_client", &self.max_sessions_per_client)
            .field("session_idle", &self.session_idle)
            .field("max_connections", &self.max_connections)
            .field(
                "max_connections_per_client",
                &self.max_connections_per_client,
            )
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("get_stream_lifetime", &self.get_stream_lifetime)
            .field("get_stream_idle", &self.get_stream_idle)
            .field("max_requests_per_client", &self.max_requests_per_client)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("health", &self.health)
            .field("public_base_url", &self.public_base_url)
            .field("authenticator", &self.authenticator.is_some())
            .field("event_archive", &self.event_archive)
            .finish()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            endpoint: "/mcp".into(),
            origins: OriginPolicy::default(),
            hosts: HostPolicy::default(),
            max_body_bytes: 4 * 1024 * 1024,
            json_window: Duration::from_secs(1),
            keepalive: Duration::from_secs(15),
            replay_buffer: 256,
            max_sessions: 10_000,
            max_sessions_per_client: 256,
            session_idle: Duration::from_secs(1800),
            max_connections: 512,
            max_connections_per_client: 64,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            get_stream_lifetime: Duration::from_secs(3600),
            get_stream_idle: Duration::from_secs(600),
            max_requests_per_client: 64,
            shutdown_grace: Duration::from_secs(5),
            health: true,
            public_base_url: None,
            authenticator: None,
            event_archive: None,
        }
    }
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Self {
            self.$name = value;
            self
        }
    )*};
}

impl HttpOptions {
    /// The defaults; change them with the setters (builder style).
    pub fn new() -> Self {
        Self::default()
    }

    /// Path of the MCP endpoint.
    pub fn endpoint(mut self, path: impl Into<String>) -> Self {
        self.endpoint = path.into();
        self
    }

    setters! {
        /// Which browser origins may call.
        origins: OriginPolicy,
        /// Which `Host` values are answered.
        hosts: HostPolicy,
        /// Largest POST body, in bytes.
        max_body_bytes: usize,
        /// How long a request may take and still be answered as JSON.
        json_window: Duration,
        /// Interval of SSE keep-alive comments.
        keepalive: Duration,
        /// Events kept per stream for `Last-Event-ID` replay.
        replay_buffer: usize,
        /// Most concurrent 2025-11-25 sessions.
        max_sessions: usize,
        /// Most concurrent 2025-11-25 sessions of one client.
        max_sessions_per_client: usize,
        /// How long an unused session lives.
        session_idle: Duration,
        /// Most open connections.
        max_connections: usize,
        /// Most open connections from one address.
        max_connections_per_client: usize,
        /// Time to send a request's headers (also the idle keep-alive limit).
        header_read_timeout: Duration,
        /// Time to send a POST body.
        body_read_timeout: Duration,
        /// Longest life of a GET stream.
        get_stream_lifetime: Duration,
        /// Longest quiet time of a GET stream.
        get_stream_idle: Duration,
        /// Most 2026-07-28 requests in flight from one client.
        max_requests_per_client: usize,
        /// How long open connections may take to finish at shutdown.
        shutdown_grace: Duration,
        /// Whether `/healthz` and `/readyz` are answered.
        health: bool,
    }

    /// The base URL browsers reach this listener at.
    pub fn public_base_url(mut self, url: impl Into<String>) -> Self {
        self.public_base_url = Some(url.into());
        self
    }

    /// Identify callers with `authenticator` (see [`auth`]).
    pub fn authenticator(mut self, authenticator: impl auth::Authenticate) -> Self {
        self.authenticator = Some(std::sync::Arc::new(authenticator));
        self
    }

    /// Archive every 2025-11-25 session event to `archive`, written in the
    /// background (a full queue drops and counts, never slows a response),
    /// so that a `GET` with `Mcp-Session-Id` and `Last-Event-ID` reaching
    /// an instance that does not hold the session replays what the client
    /// missed and follows the stream to its end. Give every instance the
    /// same archive (e.g. Redis with the same prefix).
    ///
    /// What still needs stickiness: the session lives on the instance that
    /// created it, so its POSTs (answers to questions, new calls) must
    /// reach that instance; only its streams can be resumed anywhere (after
    /// a drain, a client whose connection broke still gets the withdrawn
    /// question's `notifications/cancelled` and its call's answer). A stream
    /// of an instance that was killed ends on the others once its heartbeat
    /// in the archive runs out. See [`archive`].
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")]
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use frontdesk::http::HttpOptions;
    /// use frontdesk::http::archive::Archive;
    /// use frontdesk::stores::redis::RedisEventArchive;
    ///
    /// let events = RedisEventArchive::connect("redis://10.0.0.5:6379", "frontdesk:").await?;
    /// let options = HttpOptions::new().event_archive(Archive::new(Arc::new(events)).queue(8192));
    /// assert!(options.event_archive.is_some());
    /// # Ok(()) }
    /// ```
    pub fn event_archive(mut self, archive: archive::Archive) -> Self {
        self.event_archive = Some(archive);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let auto = HostPolicy::Auto;
        for ok in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:9",
            "[::1]:80",
            "LOCALHOST",
        ] {
            assert!(auto.allows(Some(ok), true), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:3000",
            "127.0.0.1.evil.example",
            "[::1].x",
        ] {
            assert!(!auto.allows(Some(bad), true), "{bad}");
        }
        assert!(!auto.allows(None, true), "no Host on loopback");
        assert!(
            auto.allows(Some("evil.example"), false),
            "not loopback: any"
        );
        let listed = HostPolicy::Loopback(vec!["mcp.example.com".into()]);
        assert!(listed.allows(Some("mcp.example.com:443"), true));
        assert!(listed.allows(Some("localhost"), false));
        assert!(!listed.allows(Some("other.example"), false));
        let only = HostPolicy::Only(vec!["mcp.example.com".into()]);
        assert!(!only.allows(Some("localhost"), true));
        assert!(only.allows(Some("MCP.example.com"), true));
    }

    /// The options' `Debug` (what a log of them shows) has every cap and
    /// timeout, with the values set, and no authenticator's secrets.
    #[test]
    fn debug_shows_every_cap_and_timeout() {
        let options = HttpOptions::default()
            .max_sessions_per_client(7)
            .max_requests_per_client(9)
            .session_idle(Duration::from_secs(11));
        let shown = format!("{options:?}");
        for field in [
            "max_sessions_per_client: 7",
            "max_requests_per_client: 9",
            "session_idle: 11s",
            "header_read_timeout: 10s",
            "body_read_timeout: 10s",
            "get_stream_lifetime: 3600s",
            "get_stream_idle: 600s",
            "shutdown_grace: 5s",
            "json_window: 1s",
            "keepalive: 15s",
            "replay_buffer: 256",
            "health: true",
            "authenticator: false",
        ] {
            assert!(shown.contains(field), "{field} missing from {shown}");
        }
        assert!(!shown.contains(".."), "every field shown: {shown}");
    }
}
