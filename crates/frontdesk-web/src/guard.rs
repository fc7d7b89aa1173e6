//! The page is protected like a local admin page:
//!
//! - it listens on `127.0.0.1` only;
//! - every path starts with a secret made for this launch (32 random bytes, hex):
//!   without it, `404`;
//! - `Host` must name this listener (`127.0.0.1:PORT` or `localhost:PORT`), so a
//!   DNS-rebinding page cannot reach it: otherwise `403`;
//! - `Origin`, when sent, must be this page's origin, and every request that
//!   changes something (anything but `GET`/`HEAD`) must send it: otherwise `403`;
//! - every response carries a strict Content-Security-Policy (scripts and styles
//!   from this page only, no inline script, nothing else), a `same-origin`
//!   referrer policy (the address, secret included, is never sent to another
//!   site; `no-referrer` would make the browser send `Origin: null` on the page's
//!   own form posts), no framing, no sniffing and no caching.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The Content-Security-Policy of every response.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

/// What a request must match.
#[derive(Debug)]
pub(crate) struct Guard {
    /// The launch secret, the first segment of every path.
    pub secret: String,
    hosts: [String; 2],
    origins: [String; 2],
}

impl Guard {
    /// A guard with a fresh secret for a listener on `127.0.0.1:port`.
    pub fn new(port: u16) -> Guard {
        let mut bytes = [0u8; 32];
        rand::fill(&mut bytes[..]);
        let secret = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Guard::with_secret(port, secret)
    }

    /// A guard with a given secret (tests).
    pub fn with_secret(port: u16, secret: String) -> Guard {
        Guard {
            secret,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
        }
    }

    /// Why a request is refused, if it is.
    pub fn refuse(&self, method: &Method, path: &str, headers: &HeaderMap) -> Option<Refusal> {
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
    fn secrets_are_fresh_and_long() {
        let (a, b) = (Guard::new(1), Guard::new(1));
        assert_ne!(a.secret, b.secret);
        assert_eq!(a.secret.len(), 64);
        assert!(a.secret.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
