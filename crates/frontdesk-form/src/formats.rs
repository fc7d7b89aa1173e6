//! The four string formats of the elicitation subset, checked by their RFCs.
//!
//! - `email`: RFC 5322 `addr-spec` (dot-atom or quoted local part; dot-atom domain or
//!   domain literal), ASCII only, without comments or folding white space.
//! - `uri`: RFC 3986 `URI` (scheme ":" hier-part, optional query and fragment); relative
//!   references, spaces and bad percent-encoding are rejected.
//! - `date`: RFC 3339 `full-date` on the real calendar (leap years included).
//! - `date-time`: RFC 3339 `date-time`: `T`/`t` separator, mandatory offset (`Z`, `z` or
//!   `±hh:mm`), optional fractional seconds, second 60 only for a leap second at 23:59:60 UTC.

use std::net::Ipv6Addr;
use std::str::FromStr;

/// Is `s` an RFC 5322 `addr-spec`?
pub fn is_email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = if local.starts_with('"') {
        is_quoted_string(local)
    } else {
        is_dot_atom(local)
    };
    let domain_ok = if domain.starts_with('[') {
        is_domain_literal(domain)
    } else {
        is_dot_atom(domain)
    };
    local_ok && domain_ok
}

fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b)
}

fn is_dot_atom(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
}

fn is_quoted_string(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
        return false;
    }
    let mut i = 1;
    let end = b.len() - 1;
    while i < end {
        let c = b[i];
        if c == b'\\' {
            // quoted-pair = "\" (VCHAR / WSP)
            match b.get(i + 1) {
                Some(&n)
                    if i + 1 < end && ((0x21..=0x7e).contains(&n) || n == b' ' || n == b'\t') =>
                {
                    i += 2
                }
                _ => return false,
            }
        } else if c == b' '
            || c == b'\t'
            || c == 33
            || (35..=91).contains(&c)
            || (93..=126).contains(&c)
        {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_domain_literal(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2
        && b[0] == b'['
        && b[b.len() - 1] == b']'
        && b[1..b.len() - 1]
            .iter()
            .all(|&c| (33..=90).contains(&c) || (94..=126).contains(&c))
}

/// Is `s` an RFC 3986 `URI` (absolute, with a scheme; a fragment is allowed)?
pub fn is_uri(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s[..colon];
    let mut sb = scheme.bytes();
    match sb.next() {
        Some(c) if c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    if !sb.all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.') {
        return false;
    }
    let rest = &s[colon + 1..];
    let (rest, fragment) = match rest.find('#') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (hier, query) = match rest.find('?') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if let Some(q) = query
        && !all_chars(q, |c| is_pchar(c) || c == b'/' || c == b'?')
    {
        return false;
    }
    if let Some(f) = fragment
        && !all_chars(f, |c| is_pchar(c) || c == b'/' || c == b'?')
    {
        return false;
    }
    if let Some(after) = hier.strip_prefix("//") {
        let end = after.find('/').unwrap_or(after.len());
        let (authority, path) = after.split_at(end);
        is_authority(authority) && all_chars(path, |c| is_pchar(c) || c == b'/')
    } else {
        all_chars(hier, |c| is_pchar(c) || c == b'/')
    }
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

fn is_pchar(c: u8) -> bool {
    is_unreserved(c) || is_sub_delim(c) || c == b':' || c == b'@'
}

/// Every byte satisfies `ok`, except `%` which must start a valid `pct-encoded` triple.
fn all_chars(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            match (b.get(i + 1), b.get(i + 2)) {
                (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => i += 3,
                _ => return false,
            }
        } else if ok(b[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_authority(a: &str) -> bool {
    let (userinfo, hostport) = match a.rfind('@') {
        Some(i) => (Some(&a[..i]), &a[i + 1..]),
        None => (None, a),
    };
    if let Some(u) = userinfo
        && !all_chars(u, |c| is_unreserved(c) || is_sub_delim(c) || c == b':')
    {
        return false;
    }
    let (host, port) = if hostport.starts_with('[') {
        let Some(close) = hostport.find(']') else {
            return false;
        };
        let literal = &hostport[1..close];
        if !is_ip_literal(literal) {
            return false;
        }
        let after = &hostport[close + 1..];
        match after.strip_prefix(':') {
            Some(p) => (None, Some(p)),
            None if after.is_empty() => (None, None),
            None => return false,
        }
    } else {
        match hostport.rfind(':') {
            Some(i) => (Some(&hostport[..i]), Some(&hostport[i + 1..])),
            None => (Some(hostport), None),
        }
    };
    if let Some(h) = host
        && !all_chars(h, |c| is_unreserved(c) || is_sub_delim(c))
    {
        return false;
    }
    port.is_none_or(|p| p.bytes().all(|c| c.is_ascii_digit()))
}

fn is_ip_literal(s: &str) -> bool {
    if let Some(future) = s.strip_prefix('v').or_else(|| s.strip_prefix('V')) {
        let Some(dot) = future.find('.') else {
            return false;
        };
        let (hex, rest) = (&future[..dot], &future[dot + 1..]);
        return !hex.is_empty()
            && hex.bytes().all(|c| c.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest
                .bytes()
                .all(|c| is_unreserved(c) || is_sub_delim(c) || c == b':');
    }
    // RFC 3986 IPv6address has no zone identifier; std's parser agrees.
    !s.contains('%') && Ipv6Addr::from_str(s).is_ok()
}

/// Is `s` an RFC 3339 `full-date` that exists on the calendar?
pub fn is_date(s: &str) -> bool {
    parse_date(s.as_bytes()).is_some()
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        b.iter()
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0')),
    )
}

fn is_leap(year: u32) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn parse_date(b: &[u8]) -> Option<(u32, u32, u32)> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month)
        .contains(&day)
        .then_some((year, month, day))
}

/// Is `s` an RFC 3339 `date-time` (with a mandatory offset)?
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't') || parse_date(&b[..10]).is_none() {
        return false;
    }
    let t = &b[11..];
    // partial-time = hh ":" mm ":" ss [ "." 1*DIGIT ]
    if t.len() < 9 || t[2] != b':' || t[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&t[0..2]), digits(&t[3..5]), digits(&t[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    // time-offset = "Z" / ("+" / "-") hh ":" mm
    let offset_minutes: i32 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let total = (oh * 60 + om) as i32;
            if *sign == b'-' { -total } else { total }
        }
        _ => return false,
    };
    if second == 60 {
        // A leap second is only ever inserted at 23:59:60 UTC.
        let local = (hour * 60 + minute) as i32;
        let utc = (local - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        for ok in [
            "a@b",
            "user@localhost",
            "name@example.com",
            "first.last+tag@sub.example.co.uk",
            "\"quoted local\"@example.com",
            "\"a\\\"b\"@example.com",
            "user@[127.0.0.1]",
            "user@[IPv6:2001:db8::1]",
            "!#$%&'*+-/=?^_`{|}~@example.com",
        ] {
            assert!(is_email(ok), "{ok} should be an email");
        }
        for bad in [
            "",
            "plain",
            "@example.com",
            "user@",
            "user@@example.com",
            ".user@example.com",
            "user.@example.com",
            "us..er@example.com",
            "user@example..com",
            "user name@example.com",
            "user@exämple.com",
            "üser@example.com",
            "\"unterminated@example.com",
            "user@[1.2.3.4",
            "user@exa mple.com",
            "user@example.com.",
        ] {
            assert!(!is_email(bad), "{bad} should not be an email");
        }
    }

    #[test]
    fn uris() {
        for ok in [
            "https://example.com",
            "https://example.com/a/b?c=d#e",
            "mailto:a@b.c",
            "urn:isbn:0451450523",
            "https://xn--80ak6aa92e.com/",
            "http://[2001:db8::1]:8080/",
            "http://user:pw@host:80/p%20q",
            "file:///etc/hosts",
            "javascript:alert(1)",
            "x:",
            "http://[v1.fe80::a+en1]/",
        ] {
            assert!(is_uri(ok), "{ok} should be a uri");
        }
        for bad in [
            "",
            "/relative/path",
            "relative/path",
            "//example.com/x",
            "not a uri",
            "https://exa mple.com",
            "https://example.com/%zz",
            "https://example.com/%4",
            "1http://example.com",
            "http://[::1/",
            "http://[fe80::1%25en0]/",
            "http://host:8a/",
            "https://example.com/a b",
            "https://example.com/é",
            "http://exa<mple.com/",
            "https://example.com#a#b",
        ] {
            assert!(!is_uri(bad), "{bad} should not be a uri");
        }
    }

    #[test]
    fn dates() {
        for ok in ["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-04-31",
            "2024-13-01",
            "2024-00-10",
            "2024-01-00",
            "20261129",
            "2024-1-01",
            "2024-01-01T00:00:00Z",
            "２０２４-01-01",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }

    #[test]
    fn date_times() {
        for ok in [
            "2026-11-29T10:00:00Z",
            "2026-11-29t10:00:00z",
            "2026-11-29T10:00:00.123456+01:00",
            "2016-12-31T23:59:60Z",
            "2016-12-31T15:59:60-08:00",
            "2017-01-01T00:59:60+01:00",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2026-11-29T10:00:00",
            "2026-11-29 10:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T10:60:00Z",
            "2026-11-29T10:00:61Z",
            "2026-11-29T10:00:60Z",
            "2026-11-29T10:00:00.Z",
            "2026-11-29T10:00:00+0100",
            "2026-11-29T10:00:00+24:00",
            "2026-02-30T10:00:00Z",
            "2026-11-29T10:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }
}
