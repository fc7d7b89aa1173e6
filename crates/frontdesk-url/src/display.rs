//! A plain-text presentation of a review that a terminal renderer can print as is.

use std::fmt::Write as _;

use crate::findings::{Severity, Verdict};
use crate::review::{HostKind, UrlReview};

impl UrlReview {
    /// The review as plain text: the full URL as it will be opened (never a
    /// clickable link, never the raw input unless it could not be parsed), the
    /// domain to check, the Unicode reading of an IDN host, the verdict and every
    /// finding, worst first.
    ///
    /// ```text
    /// URL:      https://xn--80ak6aa92e.com/login
    /// Domain:   xn--80ak6aa92e.com
    /// Reads as: аррӏе.com
    /// Verdict:  refused - this link will not be opened
    ///   ! refusal: The name “аррӏе” (xn--80ak6aa92e) imitates apple.com, …
    /// ```
    ///
    /// All text is safe to print: the URL is ASCII, and raw input is escaped.
    pub fn plain_text(&self) -> String {
        let mut s = String::new();
        match self.url() {
            Some(url) => line(&mut s, "URL:", url),
            None if self.input_preview().is_empty() => line(&mut s, "Input:", "(empty)"),
            None => line(
                &mut s,
                "Input:",
                &format!("{} (not a usable URL)", self.input_preview()),
            ),
        }
        match (self.host_kind(), self.registrable_domain(), self.host()) {
            (Some(HostKind::Ipv4 | HostKind::Ipv6), _, Some(host)) => {
                line(&mut s, "Address:", &format!("{host} (IP address)"));
            }
            (_, Some(domain), _) => line(&mut s, "Domain:", domain),
            (_, None, Some(host)) => line(&mut s, "Host:", host),
            _ => {}
        }
        if let (Some(host), Some(unicode)) = (self.host(), self.host_unicode())
            && host != unicode
        {
            line(&mut s, "Reads as:", unicode);
        }
        if let Some(port) = self.port() {
            line(&mut s, "Port:", &port.to_string());
        }
        let verdict = match self.verdict() {
            Verdict::Allowed => "allowed - open it only if you expected it",
            Verdict::AllowedWithWarnings => "allowed with warnings - read them before you open it",
            Verdict::Refused => "refused - this link will not be opened",
        };
        line(&mut s, "Verdict:", verdict);
        for f in self.findings() {
            let mark = match f.severity {
                Severity::Refusal | Severity::Warning => '!',
                Severity::Info => '-',
            };
            let _ = writeln!(s, "  {mark} {}: {}", f.severity, f.message);
        }
        s
    }
}

fn line(s: &mut String, label: &str, value: &str) {
    let _ = writeln!(s, "{label:<9} {value}");
}
