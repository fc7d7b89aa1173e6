//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3,
//! RFC 9728 §5.1): which scopes the resource wants, where its protected
//! resource metadata is, and why the token was refused.

/// What a `401` or `403` said about the bearer token it wants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// `scope`: the scopes needed, space separated.
    pub scope: Option<String>,
    /// `resource_metadata`: the URL of the protected resource metadata.
    pub resource_metadata: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`, …).
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The `Bearer` challenge among the header values, if any (the first one
    /// wins when a server sends several).
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        values.into_iter().find_map(parse)
    }

    /// The scopes of `scope`, in order, without duplicates.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or(""))
    }

    /// Whether the resource says the token lacks a scope (`403`).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Space-separated scopes, in order, without duplicates or empty entries.
pub(crate) fn split_scopes(text: &str) -> Vec<String> {
    // A set of those seen, not a search of `out`: a header may carry a
    // hundred thousand scopes (issue 24: linear in outside input).
    let mut seen = std::collections::HashSet::new();
    text.split(' ')
        .filter(|s| !s.is_empty() && seen.insert(*s))
        .map(str::to_owned)
        .collect()
}

/// `more` added to `scopes` in order, those already there left out: linear
/// in both (a set of those seen, not a search of the list).
pub(crate) fn merge_scopes(mut scopes: Vec<String>, more: Vec<String>) -> Vec<String> {
    let mut seen: std::collections::HashSet<String> = scopes.iter().cloned().collect();
    for s in more {
        if seen.insert(s.clone()) {
            scopes.push(s);
        }
    }
    scopes
}

/// Parse one header value; `None` unless it holds a `Bearer` challenge.
fn parse(value: &str) -> Option<BearerChallenge> {
    let mut rest = value.trim_start();
    // A header may list several challenges (`Basic realm="x", Bearer …`):
    // find the Bearer scheme as a token of its own.
    loop {
        let (scheme, after) = split_token(rest);
        if scheme.eq_ignore_ascii_case("bearer") {
            rest = after;
            break;
        }
        // Skip to the next comma-separated item and try it as a scheme.
        let next = skip_item(after)?;
        rest = next;
    }
    let mut challenge = BearerChallenge::default();
    for (name, value) in params(rest) {
        let slot = match name.to_ascii_lowercase().as_str() {
            "scope" => &mut challenge.scope,
            "resource_metadata" => &mut challenge.resource_metadata,
            "error" => &mut challenge.error,
            "error_description" => &mut challenge.error_description,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(value);
        }
    }
    Some(challenge)
}

/// The leading token and what follows it.
fn split_token(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| c.is_ascii_whitespace() || c == ',' || c == '=')
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Past the current item (up to and including its comma, quotes respected).
fn skip_item(s: &str) -> Option<&str> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => return Some(s[i + 1..].trim_start()),
            _ => {}
        }
    }
    None
}

/// The `name=value` parameters after the scheme (values as tokens or quoted
/// strings, unescaped). Stops at anything that is not a parameter (the next
/// challenge's scheme).
fn params(mut s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        let (name, after) = split_token(s);
        let Some(after) = after.trim_start().strip_prefix('=') else {
            return out;
        };
        if name.is_empty() {
            return out;
        }
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut escaped = false;
            let mut end = None;
            for (i, c) in quoted.char_indices() {
                match c {
                    _ if escaped => {
                        value.push(c);
                        escaped = false;
                    }
                    '\\' => escaped = true,
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    _ => value.push(c),
                }
            }
            let Some(end) = end else { return out };
            (value, &quoted[end..])
        } else {
            let end = after
                .find(|c: char| c == ',' || c.is_ascii_whitespace())
                .unwrap_or(after.len());
            (after[..end].to_owned(), &after[end..])
        };
        out.push((name.to_owned(), value));
        s = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_and_token_parameters() {
        let c = BearerChallenge::from_headers([
            r#"Bearer error="insufficient_scope", scope="mcp:write mcp:read", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", error_description="a \"quoted\" word""#,
        ])
        .expect("a bearer challenge");
        assert!(c.insufficient_scope());
        assert_eq!(c.scopes(), ["mcp:write", "mcp:read"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://localhost:1/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.error_description.as_deref(), Some(r#"a "quoted" word"#));
        let t = BearerChallenge::from_headers(["bearer error=invalid_token"]).expect("bearer");
        assert_eq!(t.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn bearer_after_another_scheme_and_none_without() {
        let c = BearerChallenge::from_headers([r#"Basic realm="a, b", Bearer scope="x""#])
            .expect("the bearer one");
        assert_eq!(c.scope.as_deref(), Some("x"));
        assert_eq!(BearerChallenge::from_headers([r#"Basic realm="x""#]), None);
        assert_eq!(
            BearerChallenge::from_headers(["Bearer"]),
            Some(BearerChallenge::default())
        );
    }
}
