//! The part of RFC 6570 URI templates resource templates use: literal text,
//! `{name}` (one value without `/`, `?` or `#`, percent-decoded) and
//! `{+name}` (reserved expansion: any non-empty value, slashes included).
//! Other operators and modifiers are refused when the template is built.
//! Matching takes time linear in the URI's length ([`UriTemplate::captures`]);
//! the server bounds that length too (`ServerConfig::max_uri_bytes`).

use std::fmt;
use std::ops::Range;

/// A URI template outside the supported subset, or malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("URI template {template:?}: {problem}")]
pub struct UriTemplateError {
    template: String,
    problem: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// A variable; `reserved` for `{+name}`.
    Var {
        name: String,
        reserved: bool,
    },
}

/// A parsed template; [`matches`](Self::matches) reads the variables out of
/// a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

impl UriTemplate {
    pub(crate) fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let fail = |problem: &str| UriTemplateError {
            template: template.to_string(),
            problem: problem.to_string(),
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                Some(i) if rest.as_bytes()[i] == b'}' => return Err(fail("a '}' without '{'")),
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Literal(rest[..i].to_string()));
                    }
                    let close = rest[i..]
                        .find('}')
                        .ok_or_else(|| fail("a '{' without '}'"))?;
                    let expr = &rest[i + 1..i + close];
                    let (reserved, name) = match expr.strip_prefix('+') {
                        Some(name) => (true, name),
                        None => (false, expr),
                    };
                    if !valid_name(name) {
                        return Err(fail(&format!(
                            "{{{expr}}} is not supported (only {{name}} and {{+name}}, one variable each)"
                        )));
                    }
                    if matches!(parts.last(), Some(Part::Var { .. })) {
                        return Err(fail("two variables need literal text between them"));
                    }
                    if parts
                        .iter()
                        .any(|p| matches!(p, Part::Var { name: n, .. } if n == name))
                    {
                        return Err(fail(&format!("variable {name:?} appears twice")));
                    }
                    parts.push(Part::Var {
                        name: name.to_string(),
                        reserved,
                    });
                    rest = &rest[i + close + 1..];
                }
                None => {
                    parts.push(Part::Literal(rest.to_string()));
                    rest = "";
                }
            }
        }
        Ok(Self {
            source: template.to_string(),
            parts,
        })
    }

    /// The variable names, in order.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri`, when it matches, percent-decoded.
    ///
    /// Variables are followed by literal text (checked at parse), so each
    /// takes the shortest value after which the rest still matches (the
    /// choice a backtracking matcher makes), found in time linear in the
    /// URI's length: see [`captures`](Self::captures).
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        self.captures(uri)?
            .into_iter()
            .map(|c| Some((c.name.to_string(), decode(uri.get(c.range)?, c.reserved)?)))
            .collect()
    }

    /// Where each variable's value lies in `uri`, when it matches.
    ///
    /// First, from the end, whether `parts[i..]` match `uri[p..]` for every
    /// part `i` and position `p` ([`Tails`]); then, from the start, each
    /// variable takes the first end after which the rest matches. Both passes
    /// are linear in `uri.len()` for a given template.
    pub(crate) fn captures(&self, uri: &str) -> Option<Vec<Capture<'_>>> {
        let bytes = uri.as_bytes();
        let tails = Tails::compute(&self.parts, bytes);
        if !tails.get(0, 0) {
            return None;
        }
        let mut out = Vec::new();
        let mut at = 0;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(lit) => at += lit.len(),
                Part::Var { name, reserved } => {
                    let start = at;
                    loop {
                        at = unit_end(bytes, at, *reserved)?;
                        if tails.get(i + 1, at) {
                            break;
                        }
                    }
                    out.push(Capture {
                        name,
                        reserved: *reserved,
                        range: start..at,
                    });
                }
            }
        }
        Some(out)
    }
}

/// One variable of a matched URI: its name, its kind and where its raw
/// (not yet decoded) value lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capture<'t> {
    pub(crate) name: &'t str,
    pub(crate) reserved: bool,
    pub(crate) range: Range<usize>,
}

/// Whether `parts[i..]` match `uri[p..]`, one bit per part `i` (and the end)
/// and position `p`: `(parts + 1) * (len + 1)` bits.
///
/// Computed from the end. The end matches only at `len`. A literal matches
/// where it occurs (every occurrence, overlapping ones too, found in one
/// pass) and the rest matches after it. A variable's value decodes exactly
/// when it is a run of whole units (a character; for a simple variable, the
/// escapes of one encoded character). So a value can start at `p` with the
/// rest matching after it exactly when the first unit `p..q` is whole and
/// either the rest matches at `q` or a value can start at `q` with the rest
/// matching after it (a simple value stops before a `/`, `?` or `#`, which
/// never occur inside a unit). One look at each position.
struct Tails {
    width: usize,
    bits: Vec<u64>,
}

impl Tails {
    fn compute(parts: &[Part], uri: &[u8]) -> Self {
        let len = uri.len();
        let width = len + 1;
        let mut tails = Self {
            width,
            bits: vec![0; ((parts.len() + 1) * width).div_ceil(64)],
        };
        tails.set(parts.len(), len);
        for (i, part) in parts.iter().enumerate().rev() {
            match part {
                Part::Literal(lit) => {
                    let lit = lit.as_bytes();
                    for_each_occurrence(uri, lit, |p| {
                        if tails.get(i + 1, p + lit.len()) {
                            tails.set(i, p);
                        }
                    });
                }
                Part::Var { reserved, .. } => {
                    for p in (0..len).rev() {
                        if let Some(q) = unit_end(uri, p, *reserved)
                            && (tails.get(i + 1, q) || tails.get(i, q))
                        {
                            tails.set(i, p);
                        }
                    }
                }
            }
        }
        tails
    }

    fn get(&self, part: usize, at: usize) -> bool {
        let bit = part * self.width + at;
        self.bits
            .get(bit / 64)
            .is_some_and(|word| word & (1 << (bit % 64)) != 0)
    }

    fn set(&mut self, part: usize, at: usize) {
        let bit = part * self.width + at;
        if let Some(word) = self.bits.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    }
}

/// Call `found` with the start of every occurrence of `needle` in
/// `haystack`, overlapping ones included, in one pass (Knuth-Morris-Pratt):
/// linear in both lengths, whatever the literal.
fn for_each_occurrence(haystack: &[u8], needle: &[u8], mut found: impl FnMut(usize)) {
    if needle.is_empty() || needle.len() > haystack.len() {
        return;
    }
    // border[k]: the length of the longest proper prefix of needle[..=k]
    // that is also its suffix.
    let mut border = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = border[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        border[i] = k;
    }
    let mut k = 0;
    for (i, &b) in haystack.iter().enumerate() {
        while k > 0 && b != needle[k] {
            k = border[k - 1];
        }
        if b == needle[k] {
            k += 1;
        }
        if k == needle.len() {
            found(i + 1 - k);
            k = border[k - 1];
        }
    }
}

/// The end of the first unit of a variable's value starting at `at`: one
/// character, or for a simple variable the escapes of one encoded character
/// (`%C3%A9`). `None` when no value can start there: not a character
/// boundary, the end, or for a simple variable a `/`, `?` or `#`, or escapes
/// no value starting here can decode (a broken escape, or bytes that are
/// not one UTF-8 character, while a value's decoded bytes would start with
/// this character).
fn unit_end(uri: &[u8], at: usize, reserved: bool) -> Option<usize> {
    let first = *uri.get(at)?;
    if (first & 0xC0) == 0x80 {
        return None;
    }
    if reserved {
        return Some(at + char_width(first));
    }
    match first {
        b'/' | b'?' | b'#' => None,
        b'%' => {
            let lead = escaped_byte(uri, at)?;
            let width = match lead {
                0x00..=0x7F => 1,
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => return None,
            };
            let mut char_bytes = [lead, 0, 0, 0];
            for (k, byte) in char_bytes.iter_mut().enumerate().take(width).skip(1) {
                let escape = at + 3 * k;
                if uri.get(escape) != Some(&b'%') {
                    return None;
                }
                *byte = escaped_byte(uri, escape)?;
            }
            std::str::from_utf8(&char_bytes[..width]).ok()?;
            Some(at + 3 * width)
        }
        _ => Some(at + char_width(first)),
    }
}

/// The byte of the escape at `at` (a `%`), read as [`decode`] reads it: the
/// next two characters as a base-16 number (`u8::from_str_radix`, which also
/// takes a `+` and one digit: `%+1` is byte 1, as it has always been).
fn escaped_byte(uri: &[u8], at: usize) -> Option<u8> {
    let hex = std::str::from_utf8(uri.get(at + 1..at + 3)?).ok()?;
    u8::from_str_radix(hex, 16).ok()
}

/// The length of the UTF-8 character whose first byte is `first`.
fn char_width(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0x80..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Percent-decode a simple variable's value (a reserved one is taken as is);
/// `None` when the escapes are broken or not UTF-8.
fn decode(raw: &str, reserved: bool) -> Option<String> {
    if reserved || !raw.contains('%') {
        return Some(raw.to_string());
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = raw.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod reference;

#[cfg(test)]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().matches(uri)
    }

    #[test]
    fn simple_and_reserved_variables() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(vec![("id".into(), "123".into())])
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            vars("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![("path".into(), "a/b/c.txt".into())])
        );
        assert_eq!(
            vars("db://{table}/{row}", "db://users/caf%C3%A9"),
            Some(vec![
                ("table".into(), "users".into()),
                ("row".into(), "café".into())
            ])
        );
        assert_eq!(vars("db://{table}/{row}", "db://users/%zz"), None);
        assert_eq!(
            vars("x://{a}.json", "x://v1.2.json"),
            Some(vec![("a".into(), "v1.2".into())])
        );
        assert_eq!(vars("x://fixed", "x://fixed"), Some(vec![]));
    }

    #[test]
    fn overlapping_literals_are_all_found() {
        let found = |haystack: &str, needle: &str| {
            let mut at = Vec::new();
            for_each_occurrence(haystack.as_bytes(), needle.as_bytes(), |p| at.push(p));
            at
        };
        assert_eq!(found("aaaa", "aa"), [0, 1, 2]);
        assert_eq!(found("abababa", "aba"), [0, 2, 4]);
        assert_eq!(found("aabaabaaab", "aabaaab"), [3]);
        assert_eq!(found("ab", "abc"), [] as [usize; 0]);
        assert_eq!(
            vars("x://{a}aa", "x://baaa"),
            Some(vec![("a".into(), "ba".into())])
        );
        assert_eq!(
            vars("x://{+a}/{b}/z", "x://1/2/3/z"),
            Some(vec![("a".into(), "1/2".into()), ("b".into(), "3".into())])
        );
        assert_eq!(
            vars("x://{a}.{b}", "x://%C3%A9.%E6%97%A5.x"),
            Some(vec![("a".into(), "é".into()), ("b".into(), "日.x".into())])
        );
        assert_eq!(vars("x://{a}.x", "x://%C3.x"), None);
        assert_eq!(vars("x://{a}.x", "x://%C3%A9%A9.x"), None);
    }

    #[test]
    fn unsupported_templates_are_refused() {
        for t in [
            "x://{?q}",
            "x://{a,b}",
            "x://{a*}",
            "x://{a}{b}",
            "x://{a}/{a}",
            "x://{",
            "x://}",
            "x://{}",
        ] {
            assert!(UriTemplate::parse(t).is_err(), "{t}");
        }
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["id"]);
        assert_eq!(t.to_string(), "test://template/{id}/data");
    }
}
