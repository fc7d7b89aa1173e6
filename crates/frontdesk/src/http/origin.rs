//! `Origin` validation (DNS-rebinding defence): no `Origin` is a non-browser
//! client and is allowed; a present `Origin` must be allowed by the policy.
//!
//! The default is the server's own origin only ([`OriginPolicy::SameOrigin`]):
//! a page served from another port of this machine is another site, and may
//! be hostile (any local program can serve one, and a DNS-rebinding page can
//! be made to come from one). Browser tools on another local port, such as
//! MCP Inspector's page talking to the server directly
//! (`http://localhost:6274`), are listed by name.

/// Which browser origins may talk to the endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPolicy {
    /// The server's own origin plus the listed ones (exact, e.g.
    /// `https://app.example`); the default. The own origin is that of the
    /// listener's bound address (on loopback, under each of `localhost`,
    /// `127.0.0.1` and `[::1]` at that port) and of
    /// [`HttpOptions::public_base_url`](super::HttpOptions::public_base_url);
    /// [`HttpListener`](super::HttpListener) fills it in when it serves. Where
    /// no listener does ([`router`](super::router)), only the listed origins
    /// are allowed: list yours, or use [`resolve_for`](Self::resolve_for).
    SameOrigin(Vec<String>),
    /// `http`/`https` on `localhost`, `127.0.0.1` or `[::1]`, any port, plus
    /// the listed origins (exact, e.g. `https://app.example`): every page
    /// served on this machine.
    Loopback(Vec<String>),
    /// Exactly the listed origins.
    Only(Vec<String>),
    /// Any origin (only for servers behind their own origin checks).
    Any,
}

impl Default for OriginPolicy {
    fn default() -> Self {
        Self::SameOrigin(Vec::new())
    }
}

impl OriginPolicy {
    /// This policy for a server reached at `base_urls` (e.g.
    /// `http://127.0.0.1:8080`, `https://mcp.example.com`):
    /// [`SameOrigin`](Self::SameOrigin) becomes [`Only`](Self::Only) its
    /// listed origins and those of `base_urls` (see [`origins_of`]); the
    /// other policies stay as they are.
    pub fn resolve_for(self, base_urls: &[&str]) -> Self {
        match self {
            Self::SameOrigin(mut listed) => {
                for base in base_urls {
                    for own in origins_of(base) {
                        if !listed.iter().any(|o| o.eq_ignore_ascii_case(&own)) {
                            listed.push(own);
                        }
                    }
                }
                Self::Only(listed)
            }
            other => other,
        }
    }

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
            Self::Only(list) | Self::SameOrigin(list) => listed(list),
            Self::Loopback(list) => is_loopback_origin(origin) || listed(list),
        }
    }
}

/// The origins a browser sends for pages of the server at `base_url`:
/// its scheme and authority, lowercased, without the scheme's default port;
/// on a loopback host, the same under each of `localhost`, `127.0.0.1` and
/// `[::1]`. Nothing for what is not an `http(s)` URL.
///
/// ```
/// use frontdesk::http::origin::origins_of;
/// assert_eq!(origins_of("https://MCP.example.com:443/prefix"), ["https://mcp.example.com"]);
/// assert_eq!(
///     origins_of("http://127.0.0.1:8080"),
///     ["http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"]
/// );
/// ```
pub fn origins_of(base_url: &str) -> Vec<String> {
    let lower = base_url.trim().to_ascii_lowercase();
    let Some((scheme, rest)) = lower.split_once("://") else {
        return Vec::new();
    };
    let default_port = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return Vec::new(),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() || authority.contains('@') {
        return Vec::new();
    }
    let authority = authority.strip_suffix(default_port).unwrap_or(authority);
    let (host, port) = if let Some(after) = authority.strip_prefix("[::1]") {
        ("[::1]", after)
    } else if authority.starts_with('[') {
        (authority, "")
    } else {
        match authority.rfind(':') {
            Some(i) => authority.split_at(i),
            None => (authority, ""),
        }
    };
    if matches!(host, "localhost" | "127.0.0.1" | "[::1]") {
        ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|h| format!("{scheme}://{h}{port}"))
            .collect()
    } else {
        vec![format!("{scheme}://{authority}")]
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
    fn the_default_is_the_servers_own_origin() {
        let p = OriginPolicy::default().resolve_for(&["http://127.0.0.1:8080"]);
        for ok in [
            "http://127.0.0.1:8080",
            "http://localhost:8080",
            "HTTP://LOCALHOST:8080",
            "http://[::1]:8080",
        ] {
            assert!(p.allows(Some(ok.as_bytes())), "{ok}");
        }
        for bad in [
            "http://localhost:3000",
            "https://127.0.0.1:8080",
            "http://localhost",
            "http://evil.example",
            "null",
        ] {
            assert!(!p.allows(Some(bad.as_bytes())), "{bad}");
        }
        assert!(p.allows(None));
        // Unresolved (no listener): only what is listed.
        let listed = OriginPolicy::SameOrigin(vec!["http://localhost:6274".into()]);
        assert!(listed.allows(Some(b"http://localhost:6274")));
        assert!(!listed.allows(Some(b"http://localhost:8080")));
        let both = listed.resolve_for(&["https://mcp.example.com", "http://0.0.0.0:9"]);
        assert!(both.allows(Some(b"http://localhost:6274")));
        assert!(both.allows(Some(b"https://mcp.example.com")));
        assert!(
            !both.allows(Some(b"http://localhost:9")),
            "0.0.0.0 is no origin"
        );
        assert_eq!(
            OriginPolicy::Any.resolve_for(&["http://x"]),
            OriginPolicy::Any
        );
    }

    #[test]
    fn origins_of_base_urls() {
        assert_eq!(origins_of("http://example.com:80"), ["http://example.com"]);
        assert_eq!(
            origins_of("https://a.example:8443/x/"),
            ["https://a.example:8443"]
        );
        assert_eq!(
            origins_of("https://[::1]"),
            ["https://localhost", "https://127.0.0.1", "https://[::1]"]
        );
        assert!(origins_of("ftp://example.com").is_empty());
        assert!(origins_of("http://user@example.com").is_empty());
        assert!(origins_of("example.com").is_empty());
    }

    #[test]
    fn loopback_origins() {
        let p = OriginPolicy::Loopback(Vec::new());
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
