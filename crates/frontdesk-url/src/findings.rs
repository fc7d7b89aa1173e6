//! What a review can find: codes, severities, findings and the verdict they add up to.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much a finding matters.
///
/// Ordered: `Info < Warning < Refusal`, so the worst finding is the `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth showing, no reason for concern on its own.
    Info,
    /// The link may be opened after consent, but the person should read this first.
    Warning,
    /// The link must not be opened, whatever the person says.
    Refusal,
}

impl Severity {
    /// The stable lower-case name (`info`, `warning`, `refusal`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Refusal => "refusal",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of a review, derived from the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing worse than `Info`: ask for consent, then open.
    Allowed,
    /// At least one `Warning`: show the warnings, ask for consent, then open.
    AllowedWithWarnings,
    /// At least one `Refusal`: never open, do not even offer to.
    Refused,
}

impl Verdict {
    /// The verdict for a set of findings: any refusal refuses, any warning warns.
    pub fn from_findings(findings: &[Finding]) -> Verdict {
        match findings.iter().map(|f| f.severity).max() {
            Some(Severity::Refusal) => Verdict::Refused,
            Some(Severity::Warning) => Verdict::AllowedWithWarnings,
            Some(Severity::Info) | None => Verdict::Allowed,
        }
    }

    /// The stable snake_case name (`allowed`, `allowed_with_warnings`, `refused`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::AllowedWithWarnings => "allowed_with_warnings",
            Verdict::Refused => "refused",
        }
    }

    /// Whether the link may be opened (after the person's explicit consent).
    pub fn may_open(self) -> bool {
        !matches!(self, Verdict::Refused)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Verdict {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Verdict::Allowed,
            Verdict::AllowedWithWarnings,
            Verdict::Refused,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
        .ok_or_else(|| UnknownName { name: s.to_owned() })
    }
}

/// A name that is not one of the stable names of a [`FindingCode`] or [`Verdict`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    name: String,
}

impl UnknownName {
    /// The name that was read.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown name {:?}", self.name)
    }
}

impl std::error::Error for UnknownName {}

macro_rules! finding_codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident; )*) => {
        /// What a finding is about. The snake_case names are stable: renderers,
        /// logs and tests may match on them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum FindingCode {
            $( $(#[$doc])* $variant, )*
        }

        impl FindingCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [FindingCode] = &[$(FindingCode::$variant,)*];

            /// The stable snake_case name, as serialized.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( FindingCode::$variant => $name, )*
                }
            }

            /// The severity this code has unless the policy lowers it
            /// (see [`crate::UrlPolicy::trust_domain`]) or the context does (loopback).
            pub fn default_severity(self) -> Severity {
                match self {
                    $( FindingCode::$variant => Severity::$severity, )*
                }
            }
        }
    };
}

finding_codes! {
    /// The input is not an absolute URL that can be opened (or has no usable host).
    Malformed = "malformed", Refusal;
    /// A scheme other than `https`/`http` (`javascript:`, `data:`, `file:`, `blob:`, custom).
    DisallowedScheme = "disallowed_scheme", Refusal;
    /// Plain `http` to a host that is not loopback (or loopback http is not allowed).
    InsecureHttp = "insecure_http", Refusal;
    /// The URL carries a user name or password (`https://good.com@evil.com/`).
    Userinfo = "userinfo", Refusal;
    /// The URL is longer than the policy allows.
    UrlTooLong = "url_too_long", Refusal;
    /// The host is longer than 253 characters or has a label longer than 63.
    HostTooLong = "host_too_long", Refusal;
    /// Bidirectional control characters (e.g. U+202E) that reorder what is displayed.
    BidiControl = "bidi_control", Refusal;
    /// A label or the domain looks like a well-known domain but is not it.
    LookalikeDomain = "lookalike_domain", Refusal;
    /// Plain `http` to a loopback host: allowed for development, never encrypted.
    LoopbackHttp = "loopback_http", Warning;
    /// A scheme the policy allows for development only.
    DevelopmentScheme = "development_scheme", Warning;
    /// The host is an IP address rather than a name.
    IpAddressHost = "ip_address_host", Warning;
    /// The IP address was written in a disguised form (decimal, octal, hex, shortened).
    ObfuscatedIp = "obfuscated_ip", Warning;
    /// An explicit port other than the scheme's default.
    NonDefaultPort = "non_default_port", Warning;
    /// The host has internationalized (punycode, `xn--`) labels.
    Idn = "idn", Warning;
    /// A label mixes scripts (e.g. Latin and Cyrillic letters).
    MixedScript = "mixed_script", Warning;
    /// A non-ASCII label that reads exactly like an ASCII one.
    LatinLookalike = "latin_lookalike", Warning;
    /// A label contains right-to-left letters, which can reorder how the host is displayed.
    RtlLabel = "rtl_label", Warning;
    /// A well-known brand appears as a subdomain of an unrelated domain.
    BrandInSubdomain = "brand_in_subdomain", Warning;
    /// The host as written differs from the host that will be opened.
    HostNormalized = "host_normalized", Warning;
    /// Fullwidth forms of ASCII characters.
    FullwidthChars = "fullwidth_chars", Warning;
    /// Percent-encoded characters in the host.
    EncodedHost = "encoded_host", Warning;
    /// Backslashes, which browsers read as `/`.
    Backslash = "backslash", Warning;
    /// Invisible characters (zero-width, soft hyphen, variation selectors, tags).
    InvisibleChars = "invisible_chars", Warning;
    /// Whitespace or control characters inside the URL.
    ControlChars = "control_chars", Warning;
    /// Leading or trailing whitespace that was trimmed.
    SurroundingWhitespace = "surrounding_whitespace", Info;
    /// The domain is on the person's list of trusted domains.
    TrustedDomain = "trusted_domain", Info;
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FindingCode {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FindingCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownName { name: s.to_owned() })
    }
}

/// One thing the review noticed, with a sentence for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What it is about (stable name).
    pub code: FindingCode,
    /// How much it matters.
    pub severity: Severity,
    /// One or two sentences for the person deciding whether to open the link.
    /// Never contains raw control, bidi or invisible characters.
    pub message: String,
}

impl Finding {
    /// A finding with the code's default severity.
    pub fn new(code: FindingCode, message: impl Into<String>) -> Finding {
        Finding {
            code,
            severity: code.default_severity(),
            message: message.into(),
        }
    }

    /// The same finding with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.severity, self.code, self.message)
    }
}
