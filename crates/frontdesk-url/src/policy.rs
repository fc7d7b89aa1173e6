//! What the host (and the person) allow: safe defaults, a few knobs for development.

use serde::Serialize;

/// Schemes that stay refused even if a policy lists them with [`UrlPolicy::allow_scheme`]:
/// they run code or read local data in the opener.
pub const NEVER_ALLOWED_SCHEMES: &[&str] = &[
    "javascript",
    "vbscript",
    "data",
    "file",
    "blob",
    "filesystem",
    "about",
    "view-source",
    "jar",
    "chrome",
    "chrome-extension",
    "moz-extension",
    "resource",
    "ms-settings",
    "shell",
];

/// The default [`UrlPolicy::max_url_length`], in bytes.
pub const DEFAULT_MAX_URL_LENGTH: usize = 4096;

/// How strict a review is.
///
/// [`UrlPolicy::default`] is the safe setting: `https` only, plus plain `http` to
/// loopback hosts (flagged), no extra schemes, no trusted domains, URLs up to
/// [`DEFAULT_MAX_URL_LENGTH`] bytes.
///
/// ```
/// use frontdesk_url::UrlPolicy;
///
/// let dev = UrlPolicy::default()
///     .allow_loopback_http(true)
///     .allow_scheme("myapp")
///     .trust_domain("example.com");
/// assert!(dev.is_trusted("login.example.com"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlPolicy {
    allow_loopback_http: bool,
    extra_schemes: Vec<String>,
    trusted_domains: Vec<String>,
    max_url_length: usize,
}

impl Default for UrlPolicy {
    fn default() -> Self {
        UrlPolicy {
            allow_loopback_http: true,
            extra_schemes: Vec::new(),
            trusted_domains: Vec::new(),
            max_url_length: DEFAULT_MAX_URL_LENGTH,
        }
    }
}

impl UrlPolicy {
    /// The safe default (same as [`UrlPolicy::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// The strictest setting: like the default, but plain `http` is refused even to loopback.
    pub fn strict() -> Self {
        Self::default().allow_loopback_http(false)
    }

    /// Whether `http://localhost`, `http://127.0.0.1`, `http://[::1]` (any port) are
    /// allowed, with a warning. On by default (local development servers); when off,
    /// they are refused like any other plain `http`.
    pub fn allow_loopback_http(mut self, allow: bool) -> Self {
        self.allow_loopback_http = allow;
        self
    }

    /// Allow an extra scheme (e.g. `myapp` for a desktop app's callback) for
    /// development. Such URLs are allowed with a warning. Schemes in
    /// [`NEVER_ALLOWED_SCHEMES`] stay refused, and `http`/`https` are not affected
    /// (plain `http` is governed by [`UrlPolicy::allow_loopback_http`] only).
    pub fn allow_scheme(mut self, scheme: &str) -> Self {
        let scheme = scheme.trim().trim_end_matches(':').to_ascii_lowercase();
        if !scheme.is_empty() && !self.extra_schemes.contains(&scheme) {
            self.extra_schemes.push(scheme);
        }
        self
    }

    /// Trust a domain and its subdomains (`example.com` covers `login.example.com`).
    ///
    /// Trust lowers some warnings about the host (IDN, mixed scripts, lookalike
    /// letters, right-to-left labels, brand names in subdomains, non-default port) to
    /// `info`. It never lifts a refusal: userinfo, `javascript:`, plain `http`,
    /// bidi controls and lookalikes of well-known domains stay refused.
    pub fn trust_domain(mut self, domain: &str) -> Self {
        if let Some(d) = normalize_domain(domain)
            && !self.trusted_domains.contains(&d)
        {
            self.trusted_domains.push(d);
        }
        self
    }

    /// The longest URL (in bytes, as received) that is not refused outright.
    pub fn max_url_length(mut self, max: usize) -> Self {
        self.max_url_length = max;
        self
    }

    /// Whether plain `http` to loopback hosts is allowed.
    pub fn loopback_http_allowed(&self) -> bool {
        self.allow_loopback_http
    }

    /// The extra schemes allowed for development (lower-case).
    pub fn extra_schemes(&self) -> &[String] {
        &self.extra_schemes
    }

    /// The trusted domains, in ASCII (punycode) lower-case form.
    pub fn trusted_domains(&self) -> &[String] {
        &self.trusted_domains
    }

    /// The URL length limit in bytes.
    pub fn max_length(&self) -> usize {
        self.max_url_length
    }

    /// Whether `scheme` (lower-case) is allowed for development by this policy.
    pub fn is_extra_scheme(&self, scheme: &str) -> bool {
        !NEVER_ALLOWED_SCHEMES.contains(&scheme)
            && scheme != "http"
            && scheme != "https"
            && self.extra_schemes.iter().any(|s| s == scheme)
    }

    /// Whether `host` (ASCII or Unicode) is a trusted domain or below one.
    pub fn is_trusted(&self, host: &str) -> bool {
        let Some(host) = normalize_domain(host) else {
            return false;
        };
        self.trusted_domains.iter().any(|t| {
            host == *t
                || host
                    .strip_suffix(t.as_str())
                    .is_some_and(|rest| rest.ends_with('.'))
        })
    }
}

/// Lower-case ASCII (punycode) form of a domain name without a trailing dot, or
/// `None` if it is not a valid domain.
fn normalize_domain(domain: &str) -> Option<String> {
    let d = domain.trim().trim_end_matches('.');
    if d.is_empty() {
        return None;
    }
    idna::domain_to_ascii(d).ok().filter(|d| !d.is_empty())
}
