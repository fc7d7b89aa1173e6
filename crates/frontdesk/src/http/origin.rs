//! `Origin` validation (DNS-rebinding defence): no `Origin` is a non-browser
//! client and is allowed; a present `Origin` must be allowed by the policy.

/// Which browser origins may talk to the endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPolicy {
    /// `http`/`https` on `localhost`, `127.0.0.1` or `[::1]`, any port, plus
    /// the listed origins (exact, e.g. `https://app.example`).
    Loopback(Vec<String>),
    /// Exactly the listed origins.
    Only(Vec<String>),
    /// Any origin (only for servers behind their own origin checks).
    Any,
}

impl Default for OriginPolicy {
    fn default() -> Self {
        Self::Loopback(Vec::new())
    }
}

impl OriginPolicy {
    /// Whether a request with this `Origin` value (raw bytes) may proceed;
    /// `None` (no header) always may.
    pub fn allows(&self, origin: Option<&[u8]>) -> bool {
        let Some(raw) = origin else {
            return true;
        };
        let Ok(origin) = std::str::from_utf8(raw) else {
            return false;
        };
        let origin = origin.trim();
        let listed = |list: &[String]| {
            list.iter()
                .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
        };
        match self {
            Self::Any => true,
            Self::Only(list) => listed(list),
            Self::Loopback(list) => is_loopback_origin(origin) || listed(list),
        }
    }
}

/// `http(s)://localhost|127.0.0.1|[::1]` with an optional numeric port and
/// nothing else.
pub fn is_loopback_origin(origin: &str) -> bool {
    let lower = origin.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
    else {
        return false;
    };
    let (host, port) = if let Some(after) = rest.strip_prefix("[::1]") {
        ("[::1]", after)
    } else {
        match rest.find(':') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        }
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
        });
    port_ok && matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins() {
        let p = OriginPolicy::default();
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:80",
            "HTTP://LOCALHOST:1",
        ] {
            assert!(p.allows(Some(ok.as_bytes())), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:80",
            "http://localhost:80/x",
            "http://localhost:",
            "ftp://localhost",
            "http://user@localhost",
        ] {
            assert!(!p.allows(Some(bad.as_bytes())), "{bad}");
        }
        assert!(p.allows(None));
    }

    #[test]
    fn listed_origins() {
        let p = OriginPolicy::Loopback(vec!["https://app.example".into()]);
        assert!(p.allows(Some(b"https://app.example")));
        let p = OriginPolicy::Only(vec!["https://app.example/".into()]);
        assert!(p.allows(Some(b"https://app.example")));
        assert!(!p.allows(Some(b"http://localhost")));
        assert!(OriginPolicy::Any.allows(Some(b"http://evil.example")));
    }
}
