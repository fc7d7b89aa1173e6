//! Per-label checks of a domain host: IDN, mixed scripts, lookalikes (UTS #39
//! skeletons), right-to-left letters, brand names in subdomains.
//!
//! Checks are per label, not per host: `аррӏе.com` is a whole-Cyrillic label under a
//! Latin TLD, and the host as a whole is "mixed" only because of the TLD.

use unicode_security::MixedScript;

use crate::findings::{Finding, FindingCode};
use crate::known_domains::{is_known, known, skeleton_of};

/// Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko, … and their
/// presentation forms), by block.
fn is_rtl(c: char) -> bool {
    matches!(c,
        '\u{0590}'..='\u{08FF}'
        | '\u{FB1D}'..='\u{FDFF}'
        | '\u{FE70}'..='\u{FEFF}'
        | '\u{10800}'..='\u{10FFF}'
        | '\u{1E800}'..='\u{1EFFF}')
}

/// A skeleton made only of ASCII letters, digits and hyphens: the label reads
/// exactly like an ASCII label.
fn is_ascii_skeleton(skel: &str) -> bool {
    !skel.is_empty() && skel.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// One label of the host, in both forms.
struct Label {
    /// As serialized (ASCII, `xn--` for IDN).
    ascii: String,
    /// Decoded to Unicode for reading.
    unicode: String,
}

fn labels(ascii_host: &str) -> Vec<Label> {
    ascii_host
        .trim_end_matches('.')
        .split('.')
        .map(|a| {
            let unicode = if a.starts_with("xn--") {
                idna::domain_to_unicode(a).0
            } else {
                a.to_owned()
            };
            Label {
                ascii: a.to_owned(),
                unicode,
            }
        })
        .collect()
}

/// All homograph findings for a domain host.
///
/// `ascii_host` is the serialized host (lower-case, punycode); `registrable` its
/// eTLD+1 in the same form, when the Public Suffix List gives one.
pub(crate) fn check_host(ascii_host: &str, registrable: Option<&str>) -> Vec<Finding> {
    let labels = labels(ascii_host);
    let mut findings = Vec::new();

    let idn: Vec<&str> = labels
        .iter()
        .filter(|l| l.ascii.starts_with("xn--"))
        .map(|l| l.unicode.as_str())
        .collect();
    if !idn.is_empty() {
        findings.push(Finding::new(
            FindingCode::Idn,
            format!(
                "The address contains internationalized (punycode) names: {}. Check that \
                 they are what you expect; letters from other alphabets can imitate Latin ones.",
                quote_list(&idn)
            ),
        ));
    }

    for label in labels.iter().filter(|l| !l.unicode.is_ascii()) {
        let u = label.unicode.as_str();
        if !u.is_single_script() {
            findings.push(Finding::new(
                FindingCode::MixedScript,
                format!(
                    "The name \u{201C}{u}\u{201D} mixes letters from different alphabets, a \
                     common trick to imitate another name."
                ),
            ));
        }
        let skel = skeleton_of(u);
        if is_ascii_skeleton(&skel) {
            findings.push(Finding::new(
                FindingCode::LatinLookalike,
                format!(
                    "The name \u{201C}{u}\u{201D} ({}) is not plain ASCII but looks exactly \
                     like \u{201C}{}\u{201D}.",
                    label.ascii,
                    skel.to_ascii_lowercase()
                ),
            ));
        }
        if u.chars().any(is_rtl) {
            findings.push(Finding::new(
                FindingCode::RtlLabel,
                format!(
                    "The name \u{201C}{}\u{201D} contains right-to-left letters, which can \
                     change the order in which the parts of the address are displayed.",
                    label.ascii
                ),
            ));
        }
    }

    // The owner of a well-known domain controls its subdomains: no lookalike or brand
    // checks below it.
    if registrable.is_some_and(is_known) {
        return findings;
    }
    findings.extend(lookalikes(&labels));
    if let Some(reg) = registrable {
        findings.extend(brands_in_subdomain(&labels, reg));
    }
    findings
}

/// Labels or domain suffixes whose skeleton equals a well-known domain's, without
/// being that domain.
fn lookalikes(labels: &[Label]) -> Vec<Finding> {
    let mut out = Vec::new();
    let label_skeletons: Vec<String> = labels.iter().map(|l| skeleton_of(&l.unicode)).collect();
    for k in known() {
        let by_label = labels
            .iter()
            .zip(&label_skeletons)
            .find(|(l, s)| l.unicode != k.brand && **s == k.brand_skeleton)
            .map(|(l, _)| l);
        let suffix_matches = labels.len() >= k.label_count && {
            let suffix: Vec<&str> = labels[labels.len() - k.label_count..]
                .iter()
                .map(|l| l.unicode.as_str())
                .collect();
            let suffix = suffix.join(".");
            suffix != k.domain && skeleton_of(&suffix) == k.domain_skeleton
        };
        if let Some(l) = by_label {
            out.push(Finding::new(
                FindingCode::LookalikeDomain,
                format!(
                    "The name \u{201C}{}\u{201D} ({}) imitates {}, but this link does not go \
                     to {}.",
                    l.unicode, l.ascii, k.domain, k.domain
                ),
            ));
        } else if suffix_matches {
            out.push(Finding::new(
                FindingCode::LookalikeDomain,
                format!(
                    "The domain imitates {}, but this link does not go to {}.",
                    k.domain, k.domain
                ),
            ));
        }
    }
    out
}

/// A well-known brand used as a subdomain label of an unrelated registrable domain
/// (`paypal.com.account-check.example`).
fn brands_in_subdomain(labels: &[Label], registrable: &str) -> Vec<Finding> {
    let reg_labels = registrable.trim_end_matches('.').split('.').count();
    let sub = &labels[..labels.len().saturating_sub(reg_labels)];
    let mut out = Vec::new();
    for k in known() {
        if sub.iter().any(|l| l.unicode == k.brand) {
            out.push(Finding::new(
                FindingCode::BrandInSubdomain,
                format!(
                    "The address starts with \u{201C}{}\u{201D}, but it belongs to {}, not to {}.",
                    k.brand, registrable, k.domain
                ),
            ));
        }
    }
    out
}

fn quote_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("\u{201C}{s}\u{201D}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(host: &str) -> Vec<&'static str> {
        let reg = psl::domain_str(host);
        let mut c: Vec<_> = check_host(host, reg)
            .iter()
            .map(|f| f.code.as_str())
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    #[test]
    fn whole_cyrillic_label_under_latin_tld() {
        assert_eq!(
            codes("xn--80ak6aa92e.com"),
            ["idn", "latin_lookalike", "lookalike_domain"]
        );
    }

    #[test]
    fn honest_hosts_are_quiet() {
        assert!(codes("example.com").is_empty());
        assert!(codes("accounts.google.com").is_empty());
        assert_eq!(codes("xn--mnchen-3ya.de"), ["idn"]);
    }

    #[test]
    fn ascii_lookalikes_and_brands() {
        assert_eq!(codes("paypa1.com"), ["lookalike_domain"]);
        assert_eq!(codes("paypal.corn"), ["lookalike_domain"]);
        assert_eq!(codes("paypal.com.evil.example"), ["brand_in_subdomain"]);
    }
}
