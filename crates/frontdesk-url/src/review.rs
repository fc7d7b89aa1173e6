//! The review itself: parse, check, and collect what a renderer needs.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde::Serialize;
use url::{Host, Position, Url};

use crate::findings::{Finding, FindingCode, Severity, Verdict};
use crate::homograph;
use crate::policy::{NEVER_ALLOWED_SCHEMES, UrlPolicy};
use crate::raw::{self, escape_for_display, escape_non_ascii};

/// How many characters of an unreadable input a review keeps for display.
const PREVIEW_CHARS: usize = 200;

/// What kind of host a URL has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostKind {
    /// A domain name (`example.com`, `localhost`).
    Domain,
    /// An IPv4 address.
    Ipv4,
    /// An IPv6 address.
    Ipv6,
}

/// Everything a renderer needs to show a URL honestly, and whether it may be opened.
///
/// Made only by [`review`]. Fields that need a parsed URL are `None` when the input
/// could not be parsed (or was refused as too long before parsing).
///
/// It serializes (for a browser renderer) with the accessors' names, plus
/// `highlight`: the byte range `[start, end]` of the registrable domain in `url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlReview {
    verdict: Verdict,
    findings: Vec<Finding>,
    input_preview: String,
    url: Option<String>,
    scheme: Option<String>,
    host: Option<String>,
    host_unicode: Option<String>,
    host_kind: Option<HostKind>,
    registrable_domain: Option<String>,
    registrable_domain_unicode: Option<String>,
    port: Option<u16>,
    path: Option<String>,
    loopback: bool,
    highlight: Option<(usize, usize)>,
}

impl UrlReview {
    /// The verdict: derived from the findings' severities.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Whether the link may be opened (after explicit consent): not refused.
    pub fn may_open(&self) -> bool {
        self.verdict.may_open()
    }

    /// The findings, worst first.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Whether a finding with this code was made.
    pub fn has(&self, code: FindingCode) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }

    /// The input as received, made safe for display (control, bidi and invisible
    /// characters escaped, cut after 200 characters). Show it only when
    /// [`UrlReview::url`] is `None`.
    pub fn input_preview(&self) -> &str {
        &self.input_preview
    }

    /// The full URL exactly as it will be opened: normalized, host in ASCII
    /// (punycode), path and query percent-encoded. Always ASCII.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// The scheme, lower-case (`https`).
    pub fn scheme(&self) -> Option<&str> {
        self.scheme.as_deref()
    }

    /// The host as it will be opened (ASCII/punycode, or an IP address; IPv6 in brackets).
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// The host decoded to Unicode for reading (`аррӏе.com` for `xn--80ak6aa92e.com`).
    pub fn host_unicode(&self) -> Option<&str> {
        self.host_unicode.as_deref()
    }

    /// Whether the host is a name or an IP address.
    pub fn host_kind(&self) -> Option<HostKind> {
        self.host_kind
    }

    /// The registrable domain (eTLD+1 from the Public Suffix List) in ASCII form:
    /// the part to highlight. `None` for IP addresses and single-label hosts.
    pub fn registrable_domain(&self) -> Option<&str> {
        self.registrable_domain.as_deref()
    }

    /// The registrable domain decoded to Unicode.
    pub fn registrable_domain_unicode(&self) -> Option<&str> {
        self.registrable_domain_unicode.as_deref()
    }

    /// What to show as "the domain": the registrable domain, or else the whole host.
    pub fn display_domain(&self) -> Option<&str> {
        self.registrable_domain().or(self.host())
    }

    /// An explicit port that is not the scheme's default.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The path (percent-encoded).
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// Whether the host is a loopback address or `localhost`.
    pub fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// The full URL cut in three around the registrable domain, for renderers that
    /// highlight it: `("https://login.", "example.com", "/path")`.
    pub fn highlight_parts(&self) -> Option<(&str, &str, &str)> {
        let url = self.url.as_deref()?;
        let (start, end) = self.highlight?;
        Some((url.get(..start)?, url.get(start..end)?, url.get(end..)?))
    }

    /// A [`ConsentedUrl`] the host may hand to the system browser, or `None` when
    /// the review refused the link. Call this only after the person said yes to
    /// this very review.
    pub fn consented(&self) -> Option<ConsentedUrl> {
        if !self.may_open() {
            return None;
        }
        self.url.clone().map(|url| ConsentedUrl { url })
    }
}

/// A URL that passed review and that the person agreed to open. The only thing a
/// host should pass to its opener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsentedUrl {
    url: String,
}

impl ConsentedUrl {
    /// The normalized URL to open.
    pub fn as_str(&self) -> &str {
        &self.url
    }
}

/// Review a URL-mode URL under a policy.
///
/// Never panics, does no I/O, and looks at the raw string as well as at the parsed URL.
///
/// ```
/// use frontdesk_url::{review, FindingCode, UrlPolicy, Verdict};
///
/// let r = review("https://good.example@evil.example/", &UrlPolicy::default());
/// assert_eq!(r.verdict(), Verdict::Refused);
/// assert!(r.has(FindingCode::Userinfo));
/// assert_eq!(r.host(), Some("evil.example"));
/// ```
pub fn review(input: &str, policy: &UrlPolicy) -> UrlReview {
    let mut findings = raw::scan(input);
    let trimmed = raw::trimmed(input);
    let mut out = UrlReview {
        verdict: Verdict::Allowed,
        findings: Vec::new(),
        input_preview: escape_for_display(trimmed, PREVIEW_CHARS),
        url: None,
        scheme: None,
        host: None,
        host_unicode: None,
        host_kind: None,
        registrable_domain: None,
        registrable_domain_unicode: None,
        port: None,
        path: None,
        loopback: false,
        highlight: None,
    };
    if input.len() > policy.max_length() {
        findings.push(too_long(input.len(), policy));
        return out.finish(findings);
    }
    let url = match Url::parse(trimmed) {
        Ok(url) => url,
        Err(e) => {
            findings.push(Finding::new(
                FindingCode::Malformed,
                format!("This is not a link that can be opened ({e})."),
            ));
            return out.finish(findings);
        }
    };
    if url.as_str().len() > policy.max_length() {
        findings.push(too_long(url.as_str().len(), policy));
    }
    let scheme = url.scheme().to_owned();
    let special = scheme == "https" || scheme == "http";
    out.url = Some(url.as_str().to_owned());
    out.path = Some(url.path().to_owned());
    out.port = url.port();

    check_scheme(&scheme, policy, &mut findings);
    check_userinfo(&url, trimmed, &mut findings);

    match url.host() {
        None if special => findings.push(Finding::new(
            FindingCode::Malformed,
            "The link has no host to go to.",
        )),
        None => {}
        Some(Host::Domain(d)) if special => check_domain(&mut out, &url, d, trimmed, &mut findings),
        Some(Host::Domain(d)) => {
            out.host = Some(d.to_owned());
            out.host_unicode = Some(d.to_owned());
            out.host_kind = Some(HostKind::Domain);
        }
        Some(Host::Ipv4(ip)) => check_ipv4(&mut out, ip, trimmed, &mut findings),
        Some(Host::Ipv6(ip)) => check_ipv6(&mut out, ip, &mut findings),
    }
    out.scheme = Some(scheme.clone());

    if scheme == "http" {
        if out.loopback && policy.loopback_http_allowed() {
            findings.push(Finding::new(
                FindingCode::LoopbackHttp,
                "This is a plain-http link to this computer (a development server). It is \
                 not encrypted.",
            ));
        } else {
            findings.push(Finding::new(
                FindingCode::InsecureHttp,
                "This link uses plain http: anyone on the network could read or change what \
                 you send. Only https links are opened.",
            ));
        }
    }
    if let Some(port) = out.port {
        let f = Finding::new(
            FindingCode::NonDefaultPort,
            format!("The link goes to port {port}, not the usual port for {scheme}."),
        );
        findings.push(if out.loopback {
            f.with_severity(Severity::Info)
        } else {
            f
        });
    }
    apply_trust(&out, policy, &mut findings);
    out.finish(findings)
}

impl UrlReview {
    fn finish(mut self, mut findings: Vec<Finding>) -> UrlReview {
        findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
        self.verdict = Verdict::from_findings(&findings);
        self.findings = findings;
        self
    }
}

fn too_long(len: usize, policy: &UrlPolicy) -> Finding {
    Finding::new(
        FindingCode::UrlTooLong,
        format!(
            "The link is {len} bytes long, more than the {} allowed; it is too long to check \
             by eye.",
            policy.max_length()
        ),
    )
}

fn check_scheme(scheme: &str, policy: &UrlPolicy, findings: &mut Vec<Finding>) {
    if scheme == "https" || scheme == "http" {
        return;
    }
    if policy.is_extra_scheme(scheme) {
        findings.push(Finding::new(
            FindingCode::DevelopmentScheme,
            format!(
                "\u{201C}{scheme}:\u{201D} links are allowed by a development setting; they \
                 open another application, not a web page."
            ),
        ));
    } else if NEVER_ALLOWED_SCHEMES.contains(&scheme) {
        findings.push(Finding::new(
            FindingCode::DisallowedScheme,
            format!(
                "\u{201C}{scheme}:\u{201D} links can run code or read local data; they are \
                 never opened. Only https links are."
            ),
        ));
    } else {
        findings.push(Finding::new(
            FindingCode::DisallowedScheme,
            format!(
                "\u{201C}{scheme}:\u{201D} links are not web pages and are not opened. Only \
                 https links are."
            ),
        ));
    }
}

fn check_userinfo(url: &Url, trimmed: &str, findings: &mut Vec<Finding>) {
    let raw_at = raw::authority(trimmed).is_some_and(|a| a.contains('@'));
    if url.username().is_empty() && url.password().is_none() && !raw_at {
        return;
    }
    let host = url.host_str().unwrap_or("");
    findings.push(Finding::new(
        FindingCode::Userinfo,
        format!(
            "The link has a user name or password before an \u{201C}@\u{201D}. Whatever \
             comes before the \u{201C}@\u{201D} is not where it goes: it goes to \u{201C}{}\u{201D}.",
            escape_for_display(host, 80)
        ),
    ));
}

fn check_domain(
    out: &mut UrlReview,
    url: &Url,
    d: &str,
    trimmed: &str,
    findings: &mut Vec<Finding>,
) {
    let bare = d.trim_end_matches('.');
    let (unicode, _) = idna::domain_to_unicode(d);
    out.host = Some(d.to_owned());
    out.host_unicode = Some(unicode.clone());
    out.host_kind = Some(HostKind::Domain);
    out.loopback = bare == "localhost" || bare.ends_with(".localhost");

    let labels: Vec<&str> = bare.split('.').collect();
    if labels.iter().any(|l| l.is_empty()) {
        findings.push(Finding::new(
            FindingCode::Malformed,
            "The host has an empty name between dots.",
        ));
    }
    let too_long = bare.len() > 253 || labels.iter().any(|l| l.len() > 63);
    if too_long {
        findings.push(Finding::new(
            FindingCode::HostTooLong,
            "The host name is longer than a real domain name can be.",
        ));
    }

    let registrable = psl::domain_str(bare).map(str::to_owned);
    if let Some(reg) = &registrable {
        out.registrable_domain_unicode = Some(idna::domain_to_unicode(reg).0);
        let after_host = url[..Position::AfterHost].len();
        let end = after_host - (d.len() - bare.len());
        if let Some(start) = end.checked_sub(reg.len())
            && url.as_str().get(start..end) == Some(reg.as_str())
        {
            out.highlight = Some((start, end));
        }
    }
    if !too_long {
        findings.extend(homograph::check_host(d, registrable.as_deref()));
    }
    out.registrable_domain = registrable;

    if let Some(raw_host) = raw::raw_host(trimmed) {
        if raw_host.contains('%') {
            findings.push(Finding::new(
                FindingCode::EncodedHost,
                "The host is written with percent-escapes (like %65), which hide its real name.",
            ));
        }
        let lower = raw_host.to_lowercase();
        if lower != d && lower != unicode {
            findings.push(Finding::new(
                FindingCode::HostNormalized,
                format!(
                    "The host is written as \u{201C}{}\u{201D} but the link really goes to \
                     \u{201C}{}\u{201D}. The way it is written disguises the destination.",
                    escape_non_ascii(raw_host, 80),
                    d
                ),
            ));
        }
    }
}

fn check_ipv4(out: &mut UrlReview, ip: Ipv4Addr, trimmed: &str, findings: &mut Vec<Finding>) {
    let shown = ip.to_string();
    out.host = Some(shown.clone());
    out.host_unicode = Some(shown.clone());
    out.host_kind = Some(HostKind::Ipv4);
    out.loopback = ip.is_loopback();
    push_ip_finding(out.loopback, &shown, findings);
    if let Some(raw_host) = raw::raw_host(trimmed) {
        if raw_host.contains('%') {
            findings.push(Finding::new(
                FindingCode::EncodedHost,
                "The host is written with percent-escapes (like %31), which hide its real value.",
            ));
        }
        if raw_host.to_lowercase() != shown {
            findings.push(Finding::new(
                FindingCode::ObfuscatedIp,
                format!(
                    "The host is written as \u{201C}{}\u{201D}, a disguised form of the IP \
                     address {shown}.",
                    escape_non_ascii(raw_host, 80)
                ),
            ));
        }
    }
}

fn check_ipv6(out: &mut UrlReview, ip: Ipv6Addr, findings: &mut Vec<Finding>) {
    let shown = format!("[{ip}]");
    out.host = Some(shown.clone());
    out.host_unicode = Some(shown.clone());
    out.host_kind = Some(HostKind::Ipv6);
    out.loopback = ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback());
    push_ip_finding(out.loopback, &shown, findings);
}

fn push_ip_finding(loopback: bool, shown: &str, findings: &mut Vec<Finding>) {
    if loopback {
        findings.push(
            Finding::new(
                FindingCode::IpAddressHost,
                format!("The link goes to {shown}, this computer."),
            )
            .with_severity(Severity::Info),
        );
    } else {
        findings.push(Finding::new(
            FindingCode::IpAddressHost,
            format!(
                "The link goes to the bare IP address {shown}, not to a named site; there is \
                 no name to check it against."
            ),
        ));
    }
}

/// Codes that trust in the domain lowers from warning to info.
const LOWERED_BY_TRUST: &[FindingCode] = &[
    FindingCode::Idn,
    FindingCode::MixedScript,
    FindingCode::LatinLookalike,
    FindingCode::RtlLabel,
    FindingCode::BrandInSubdomain,
    FindingCode::NonDefaultPort,
];

fn apply_trust(out: &UrlReview, policy: &UrlPolicy, findings: &mut Vec<Finding>) {
    if out.host_kind != Some(HostKind::Domain) {
        return;
    }
    let Some(host) = out.host.as_deref() else {
        return;
    };
    if !policy.is_trusted(host) {
        return;
    }
    for f in findings.iter_mut() {
        if f.severity == Severity::Warning && LOWERED_BY_TRUST.contains(&f.code) {
            f.severity = Severity::Info;
        }
    }
    findings.push(Finding::new(
        FindingCode::TrustedDomain,
        format!(
            "{} is on your list of trusted domains.",
            out.registrable_domain.as_deref().unwrap_or(host)
        ),
    ));
}
