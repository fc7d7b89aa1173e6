//! The page is protected like a local admin page:
//!
//! - it listens on `127.0.0.1` only;
//! - every path starts with a secret made for this launch (32 random bytes, hex):
//!   without it, `404`; the one exception is `/open/CODE`, the address the
//!   browser is started with (a command line is readable by every local user, so
//!   it must not hold the secret): a one-time code, 32 random bytes, that works
//!   once within [`OPEN_CODE_TTL`] of being made and sends the browser on to the
//!   page (`303`), then `404` like any other wrong address;
//! - `Host` must name this listener (`127.0.0.1:PORT` or `localhost:PORT`), so a
//!   DNS-rebinding page cannot reach it: otherwise `403`;
//! - `Origin`, when sent, must be this page's origin, and every request that
//!   changes something (anything but `GET`/`HEAD`) must send it: otherwise `403`;
//! - every response carries a strict Content-Security-Policy (scripts and styles
//!   from this page only, no inline script, nothing else), a `same-origin`
//!   referrer policy (the address, secret included, is never sent to another
//!   site; `no-referrer` would make the browser send `Origin: null` on the page's
//!   own form posts), no framing, no sniffing and no caching.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The Content-Security-Policy of every response.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

/// How long a one-time opening code works: long enough for a browser to start
/// on a slow machine; its being usable once is what protects it.
pub(crate) const OPEN_CODE_TTL: Duration = Duration::from_secs(30);
/// Opening codes outstanding at once (a new one pushes out the oldest).
const MAX_OPEN_CODES: usize = 4;
/// The path prefix of the one-time opening addresses.
pub(crate) const OPEN_PREFIX: &str = "/open/";

/// What a request must match.
#[derive(Debug)]
pub(crate) struct Guard {
    /// The launch secret, the first segment of every path.
    pub secret: String,
    hosts: [String; 2],
    origins: [String; 2],
    /// One-time opening codes not used yet, with when they were made.
    open_codes: Mutex<Vec<(String, Instant)>>,
}

/// 32 random bytes as hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Guard {
    /// A guard with a fresh secret for a listener on `127.0.0.1:port`.
    pub(crate) fn new(port: u16) -> Guard {
        Guard::with_secret(port, random_hex())
    }

    /// A guard with a given secret (tests).
    pub(crate) fn with_secret(port: u16, secret: String) -> Guard {
        Guard {
            secret,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
            open_codes: Mutex::new(Vec::new()),
        }
    }

    /// A fresh one-time opening code.
    pub(crate) fn new_open_code(&self) -> String {
        let code = random_hex();
        let mut codes = self
            .open_codes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if codes.len() >= MAX_OPEN_CODES {
            codes.remove(0);
        }
        codes.push((code.clone(), Instant::now()));
        code
    }

    /// Use up `code` at `now`: whether it was a code not used yet and made
    /// within [`OPEN_CODE_TTL`]. Expired codes go too.
    pub(crate) fn redeem_open_code(&self, code: &str, now: Instant) -> bool {
        let mut codes = self
            .open_codes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        codes.retain(|(_, made)| now.saturating_duration_since(*made) < OPEN_CODE_TTL);
        match codes
            .iter()
            .position(|(c, _)| same(c.as_bytes(), code.as_bytes()))
        {
            Some(i) => {
                codes.remove(i);
                true
            }
            None => false,
        }
    }

    /// Why a request is refused, if it is.
    pub(crate) fn refuse(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
    ) -> Option<Refusal> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| self.hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h))) {
            return Some(Refusal::Host);
        }
        let origin = headers.get(header::ORIGIN).map(HeaderValue::as_bytes);
        let safe = matches!(*method, Method::GET | Method::HEAD);
        match origin {
            Some(o) if !self.origins.iter().any(|ok| ok.as_bytes() == o) => {
                return Some(Refusal::Origin);
            }
            None if !safe => return Some(Refusal::Origin),
            _ => {}
        }
        // The one-time opening address is checked by its route.
        if safe && path.starts_with(OPEN_PREFIX) {
            return None;
        }
        let first = path
            .strip_prefix('/')
            .and_then(|p| p.split('/').next())
            .unwrap_or("");
        if !same(first.as_bytes(), self.secret.as_bytes()) {
            return Some(Refusal::Secret);
        }
        None
    }
}

/// Compare without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `Host` does not name this listener.
    Host,
    /// A foreign `Origin`, or none on a request that changes something.
    Origin,
    /// The path does not start with the secret.
    Secret,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, text) = match self {
            Refusal::Host => (
                StatusCode::FORBIDDEN,
                "Refused: this page answers only on its own loopback address.",
            ),
            Refusal::Origin => (
                StatusCode::FORBIDDEN,
                "Refused: the request does not come from this page.",
            ),
            Refusal::Secret => (StatusCode::NOT_FOUND, "Not found."),
        };
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response()
    }
}

/// The middleware: refuse what does not match, and put the security headers on
/// every response.
pub(crate) async fn guard(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let refused = guard.refuse(request.method(), request.uri().path(), request.headers());
    let mut response = match refused {
        Some(refusal) => {
            if refusal != Refusal::Secret {
                tracing::warn!(?refusal, method = %request.method(), "refused a request to the web host");
            }
            refusal.into_response()
        }
        None => next.run(request).await,
    };
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(list: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in list {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn each_rule_refuses_on_its_own() {
        let g = Guard::with_secret(4000, "abc".into());
        let ok = headers(&[("host", "127.0.0.1:4000")]);
        assert_eq!(g.refuse(&Method::GET, "/abc/", &ok), None);
        assert_eq!(g.refuse(&Method::GET, "/abd/", &ok), Some(Refusal::Secret));
        assert_eq!(g.refuse(&Method::GET, "/abcd/", &ok), Some(Refusal::Secret));
        assert_eq!(g.refuse(&Method::GET, "/", &ok), Some(Refusal::Secret));
        let rebound = headers(&[("host", "evil.example:4000")]);
        assert_eq!(
            g.refuse(&Method::GET, "/abc/", &rebound),
            Some(Refusal::Host)
        );
        let other_port = headers(&[("host", "127.0.0.1:4001")]);
        assert_eq!(
            g.refuse(&Method::GET, "/abc/", &other_port),
            Some(Refusal::Host)
        );
        assert_eq!(
            g.refuse(&Method::POST, "/abc/call", &ok),
            Some(Refusal::Origin)
        );
        let foreign = headers(&[
            ("host", "127.0.0.1:4000"),
            ("origin", "http://evil.example"),
        ]);
        assert_eq!(
            g.refuse(&Method::POST, "/abc/call", &foreign),
            Some(Refusal::Origin)
        );
        assert_eq!(
            g.refuse(&Method::GET, "/abc/", &foreign),
            Some(Refusal::Origin)
        );
        let own = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:4000"),
        ]);
        assert_eq!(g.refuse(&Method::POST, "/abc/call", &own), None);
    }

    #[test]
    fn an_opening_code_works_once_and_not_for_long() {
        let g = Guard::with_secret(4000, "abc".into());
        let now = Instant::now();
        let code = g.new_open_code();
        assert_eq!(code.len(), 64);
        assert!(!g.redeem_open_code("nope", now));
        assert!(g.redeem_open_code(&code, now));
        assert!(!g.redeem_open_code(&code, now), "once");
        let late = g.new_open_code();
        let later = Instant::now() + OPEN_CODE_TTL;
        assert!(!g.redeem_open_code(&late, later), "expired");
        let codes: Vec<String> = (0..=MAX_OPEN_CODES).map(|_| g.new_open_code()).collect();
        assert!(!g.redeem_open_code(&codes[0], now), "pushed out");
        assert!(g.redeem_open_code(&codes[MAX_OPEN_CODES], now));
        // The route itself is behind Host and Origin like everything else.
        let ok = headers(&[("host", "127.0.0.1:4000")]);
        assert_eq!(g.refuse(&Method::GET, "/open/x", &ok), None);
        let rebound = headers(&[("host", "evil.example:4000")]);
        assert_eq!(
            g.refuse(&Method::GET, "/open/x", &rebound),
            Some(Refusal::Host)
        );
        assert_eq!(
            g.refuse(&Method::POST, "/open/x", &ok),
            Some(Refusal::Origin)
        );
    }

    #[test]
    fn secrets_are_fresh_and_long() {
        let (a, b) = (Guard::new(1), Guard::new(1));
        assert_ne!(a.secret, b.secret);
        assert_eq!(a.secret.len(), 64);
        assert!(a.secret.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
