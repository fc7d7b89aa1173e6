//! Checks on the string exactly as the server sent it, before URL parsing
//! normalizes it (parsing silently drops tabs, maps fullwidth letters, decodes
//! percent-escapes in the host, turns `\` into `/`, …).

use crate::findings::{Finding, FindingCode};

/// What kind of character this is, for the raw-input checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CharClass {
    /// Bidirectional formatting controls.
    Bidi,
    /// Default-ignorable and blank-looking characters.
    Invisible,
    /// Fullwidth ASCII forms and ideographic full stops.
    Fullwidth,
    /// C0/C1 controls and Unicode whitespace.
    Control,
    /// Anything else.
    Plain,
}

/// Classify one character.
pub(crate) fn classify(c: char) -> CharClass {
    match c {
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => CharClass::Bidi,
        '\u{00AD}'
        | '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206A}'..='\u{206F}'
        | '\u{2800}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}' => CharClass::Invisible,
        '\u{FF01}'..='\u{FF5E}' | '\u{3002}' | '\u{FF61}' => CharClass::Fullwidth,
        c if c.is_control() || c.is_whitespace() => CharClass::Control,
        _ => CharClass::Plain,
    }
}

/// The characters URL parsing trims from both ends: C0 controls and space.
fn is_trimmed(c: char) -> bool {
    c <= ' '
}

/// The input without what URL parsing trims from both ends.
pub(crate) fn trimmed(raw: &str) -> &str {
    raw.trim_matches(is_trimmed)
}

/// Findings about the characters of the raw input.
pub(crate) fn scan(raw: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let inner = trimmed(raw);
    if inner.len() != raw.len() {
        findings.push(Finding::new(
            FindingCode::SurroundingWhitespace,
            "Spaces or control characters around the link were removed.",
        ));
    }
    let (mut bidi, mut invisible, mut fullwidth, mut control, mut backslash) =
        (false, false, false, false, false);
    for c in inner.chars() {
        match classify(c) {
            CharClass::Bidi => bidi = true,
            CharClass::Invisible => invisible = true,
            CharClass::Fullwidth => fullwidth = true,
            CharClass::Control => control = true,
            CharClass::Plain => backslash |= c == '\\',
        }
    }
    if bidi {
        findings.push(Finding::new(
            FindingCode::BidiControl,
            "The link contains bidirectional control characters, which change the order in \
             which its parts are displayed. It is built to look like something it is not.",
        ));
    }
    if invisible {
        findings.push(Finding::new(
            FindingCode::InvisibleChars,
            "The link contains invisible characters (such as zero-width spaces), so it does \
             not read the way it is written.",
        ));
    }
    if fullwidth {
        findings.push(Finding::new(
            FindingCode::FullwidthChars,
            "The link uses fullwidth or ideographic look-alikes of ordinary characters.",
        ));
    }
    if control {
        findings.push(Finding::new(
            FindingCode::ControlChars,
            "The link contains spaces, line breaks or control characters inside it, which \
             are silently dropped or encoded when it is opened.",
        ));
    }
    if backslash {
        findings.push(Finding::new(
            FindingCode::Backslash,
            "The link contains backslashes, which browsers read as \"/\": it may go \
             somewhere else than it seems to.",
        ));
    }
    findings
}

/// The authority (`user@host:port`) as written in the (trimmed) raw input, when the
/// input has one.
pub(crate) fn authority(trimmed: &str) -> Option<&str> {
    let colon = trimmed.find(':')?;
    let scheme = &trimmed[..colon];
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let rest = &trimmed[colon + 1..];
    let special = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    let after_slashes = if special {
        rest.trim_start_matches(['/', '\\'])
    } else {
        rest.strip_prefix("//")?
    };
    let end = after_slashes
        .find(['/', '\\', '?', '#'])
        .unwrap_or(after_slashes.len());
    Some(&after_slashes[..end])
}

/// The host as written in the (trimmed) raw input: what a person reading the raw
/// string would take for the host. `None` when there is no authority to speak of.
pub(crate) fn raw_host(trimmed: &str) -> Option<&str> {
    let authority = authority(trimmed)?;
    let host_port = match authority.rfind('@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    if host_port.starts_with('[') {
        let close = host_port.find(']').map_or(host_port.len(), |i| i + 1);
        return Some(&host_port[..close]);
    }
    Some(match host_port.rfind(':') {
        Some(i) => &host_port[..i],
        None => host_port,
    })
}

/// A version of `s` that is safe to put in front of a person: control, bidi and
/// invisible characters are shown as `\u{…}` escapes, and it is cut after
/// `max_chars` characters.
pub fn escape_for_display(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i >= max_chars {
            out.push('…');
            break;
        }
        match classify(c) {
            CharClass::Bidi | CharClass::Invisible => {
                out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
            }
            CharClass::Control if c != ' ' => {
                out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
            }
            _ => out.push(c),
        }
    }
    out
}

/// Like [`escape_for_display`], but every non-ASCII character is escaped too: for
/// quoting a raw host whose lookalike characters are the point (`paypa\u{217C}.com`).
pub(crate) fn escape_non_ascii(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i >= max_chars {
            out.push('…');
            break;
        }
        if c.is_ascii_graphic() || c == ' ' {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_host_extraction() {
        assert_eq!(raw_host("https://a.com/x"), Some("a.com"));
        assert_eq!(raw_host("https://u:p@a.com:8080/x"), Some("a.com"));
        assert_eq!(raw_host("https://good.com@evil.com"), Some("evil.com"));
        assert_eq!(raw_host("https://evil.com\\@good.com"), Some("evil.com"));
        assert_eq!(raw_host("https:\\\\a.com"), Some("a.com"));
        assert_eq!(raw_host("https://[::1]:80/"), Some("[::1]"));
        assert_eq!(raw_host("HTTPS://A.COM"), Some("A.COM"));
        assert_eq!(raw_host("javascript:alert(1)"), None);
        assert_eq!(raw_host("myapp://cb/x"), Some("cb"));
        assert_eq!(raw_host("://x"), None);
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape_for_display("a\u{202E}b\tc", 10),
            "a\\u{202E}b\\u{0009}c"
        );
        assert_eq!(escape_for_display("abcdef", 3), "abc…");
        assert_eq!(
            escape_non_ascii("paypa\u{217C}.com", 20),
            "paypa\\u{217C}.com"
        );
    }
}
