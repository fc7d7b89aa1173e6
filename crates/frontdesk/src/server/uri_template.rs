//! The part of RFC 6570 URI templates resource templates use: literal text,
//! `{name}` (one value without `/`, `?` or `#`, percent-decoded) and
//! `{+name}` (reserved expansion: any non-empty value, slashes included).
//! Other operators and modifiers are refused when the template is built.

use std::fmt;

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

    /// The variables of `uri`, when it matches.
    ///
    /// Variables are followed by literal text (checked at parse), so each
    /// takes the shortest value after which the rest still matches.
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        match_parts(&self.parts, uri, &mut out).then_some(out)
    }
}

fn match_parts(parts: &[Part], uri: &str, out: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(lit) => uri
            .strip_prefix(lit.as_str())
            .is_some_and(|after| match_parts(rest, after, out)),
        Part::Var { name, reserved } => {
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            for end in (1..=limit).filter(|e| uri.is_char_boundary(*e)) {
                let Some(value) = decode(&uri[..end], *reserved) else {
                    continue;
                };
                let mark = out.len();
                out.push((name.clone(), value));
                if match_parts(rest, &uri[end..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
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
