//! Evidence sentences: what the server sent, described so that no token, no
//! `requestState` and no answer content reaches the report unless the
//! operator asked for content (`--show-content`). Text the server controls
//! is escaped (control, bidi and invisible characters) and cut short.

use frontdesk_url::escape_for_display;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::call::End;

/// How much a report may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Disclosure {
    /// Show answer content and tool results (never tokens or states).
    pub content: bool,
}

/// Longest piece of server text quoted.
const QUOTE: usize = 160;

/// Server text, escaped and cut.
pub(crate) fn quote(text: &str) -> String {
    format!("\"{}\"", escape_for_display(text, QUOTE))
}

/// A short, stable fingerprint of an opaque value (a state, an id).
pub(crate) fn fingerprint(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// A `requestState`, by its length and fingerprint.
pub(crate) fn state(state: &str) -> String {
    format!(
        "requestState #{} ({} bytes)",
        fingerprint(state),
        state.len()
    )
}

/// An error, by code and message.
pub(crate) fn error(e: &frontdesk_wire::ErrorObject) -> String {
    format!("error {} {}", e.code.0, quote(&e.message))
}

/// How a call or request ended, in a few words.
pub(crate) fn end_brief(end: &End) -> String {
    match end {
        End::Complete(r) => {
            let kind = r
                .get("resultType")
                .and_then(Value::as_str)
                .unwrap_or("complete");
            if r.get("isError") == Some(&Value::Bool(true)) {
                format!("{kind} result with isError: true")
            } else {
                format!("{kind} result")
            }
        }
        End::Rpc(e) => error(e),
        End::Failed(why) => escape_for_display(why, QUOTE),
    }
}

/// How a call ended, with its result shown when content may be shown.
pub(crate) fn end(end: &End, disclosure: Disclosure) -> String {
    match end {
        End::Complete(r) => {
            let mut text = end_brief(end);
            let blocks = r
                .get("content")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if disclosure.content {
                let shown: Vec<String> = r
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .map(quote)
                    .collect();
                if !shown.is_empty() {
                    text.push_str(&format!(": {}", shown.join(", ")));
                }
            } else {
                text.push_str(&format!(
                    " ({blocks} content block{})",
                    if blocks == 1 { "" } else { "s" }
                ));
            }
            text
        }
        other => end_brief(other),
    }
}

/// An answer's content: its field names and value types, or (when content
/// may be shown) the JSON.
pub(crate) fn content(content: &Map<String, Value>, disclosure: Disclosure) -> String {
    if disclosure.content {
        return escape_for_display(&Value::Object(content.clone()).to_string(), QUOTE * 2);
    }
    let fields: Vec<String> = content
        .iter()
        .map(|(k, v)| format!("{}: {}", escape_for_display(k, 40), type_name(v)))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// The JSON type of a value, as a reader says it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A URL as the report shows it: the whole URL when content may be shown,
/// else its scheme and host (a path or query may carry a token).
pub(crate) fn url(url: &str, disclosure: Disclosure) -> String {
    if disclosure.content {
        return quote(url);
    }
    match url::Url::parse(url) {
        Ok(parsed) => {
            let host = parsed.host_str().unwrap_or("");
            let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
            let rest = if parsed.path() != "/" || parsed.query().is_some() {
                "/…"
            } else {
                ""
            };
            let userinfo = if parsed.username().is_empty() && parsed.password().is_none() {
                ""
            } else {
                "…@"
            };
            quote(&format!(
                "{}://{userinfo}{host}{port}{rest}",
                parsed.scheme()
            ))
        }
        Err(_) => format!("an unparsable URL of {} characters", url.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_is_hidden_unless_asked() {
        let answer = json!({"name": "Ada Lovelace", "age": 36, "ok": true});
        let answer = answer.as_object().unwrap();
        let hidden = content(answer, Disclosure::default());
        assert_eq!(hidden, "{name: string, age: integer, ok: boolean}");
        assert!(!hidden.contains("Ada"));
        assert!(content(answer, Disclosure { content: true }).contains("Ada Lovelace"));
        let result = End::Complete(
            json!({"content": [{"type": "text", "text": "booked for Ada"}]})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert_eq!(
            end(&result, Disclosure::default()),
            "complete result (1 content block)"
        );
        assert!(end(&result, Disclosure { content: true }).contains("booked for Ada"));
    }

    #[test]
    fn urls_lose_their_path_query_and_userinfo() {
        let shown = url(
            "https://alice:s3cret@pay.example.com:8443/flow?token=abc",
            Disclosure::default(),
        );
        assert_eq!(shown, "\"https://…@pay.example.com:8443/…\"");
        assert_eq!(
            url("https://example.com/", Disclosure::default()),
            "\"https://example.com\""
        );
    }

    #[test]
    fn states_are_fingerprinted_and_server_text_escaped() {
        let s = state("opaque-state-value");
        assert!(s.starts_with("requestState #") && s.ends_with("(18 bytes)"));
        assert!(!s.contains("opaque"));
        assert_eq!(quote("a\u{202e}b"), "\"a\\u{202E}b\"");
    }
}
