//! 2026-07-28 header checks: `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name` must mirror the body, values may use the base64 sentinel
//! `=?base64?…?=`. Every failure is `-32020` (HTTP 400).

use axum::http::HeaderMap;
use base64::Engine as _;
use serde_json::Value;

use crate::server::http_rules;

/// `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28).
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28).
pub const NAME: &str = "mcp-name";
/// `Mcp-Session-Id` (2025-11-25).
pub const SESSION_ID: &str = "mcp-session-id";
/// `Last-Event-ID` (2025-11-25 resumability).
pub const LAST_EVENT_ID: &str = "last-event-id";

/// Why a header check failed (the message of the `-32020` error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMismatch(pub String);

impl std::fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Decode one header value: plain visible ASCII as is, or the sentinel
/// `=?base64?<base64 of UTF-8>?=`. `None` when the value is not visible
/// ASCII or the sentinel does not decode to UTF-8.
pub fn decode_value(raw: &[u8]) -> Option<String> {
    if !raw.iter().all(|b| (0x20..=0x7e).contains(b) || *b == b'\t') {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?.trim_matches([' ', '\t']);
    let Some(inner) = text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(text.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// Encode a value for a header the way clients do (for tests and clients):
/// plain when it is visible ASCII without surrounding spaces and does not look
/// like the sentinel, otherwise the base64 sentinel.
pub fn encode_value(value: &str) -> String {
    let sentinel_like = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !sentinel_like;
    if plain {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
        )
    }
}

/// One decoded header: `Ok(None)` when absent, `Err` when present but
/// unreadable (repeated, invalid characters, bad sentinel).
fn header(headers: &HeaderMap, name: &str) -> Result<Option<String>, HeaderMismatch> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(HeaderMismatch(format!(
            "Header mismatch: {name} appears more than once"
        )));
    }
    decode_value(first.as_bytes()).map(Some).ok_or_else(|| {
        HeaderMismatch(format!(
            "Header mismatch: {name} has invalid characters or a bad base64 value"
        ))
    })
}

/// The raw `MCP-Protocol-Version` value, if present and readable.
pub fn protocol_version(headers: &HeaderMap) -> Option<String> {
    header(headers, PROTOCOL_VERSION).ok().flatten()
}

/// Check the headers of a 2026-07-28 POST against its parsed body.
///
/// First what only the transport can see: each mirrored header at most once,
/// visible ASCII, a decodable sentinel. Then the core's rules
/// ([`http_rules::check_headers`]): `MCP-Protocol-Version` present and equal
/// to the `_meta` version (so a mismatch is `-32020` before the core can
/// answer `-32022`), `Mcp-Method`, and `Mcp-Name` for `tools/call`,
/// `prompts/get` and `resources/read`.
pub fn check_modern(headers: &HeaderMap, body: &Value) -> Result<(), HeaderMismatch> {
    for name in [PROTOCOL_VERSION, METHOD, NAME] {
        header(headers, name)?;
    }
    http_rules::check_headers(body, |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_matches([' ', '\t']).to_string())
    })
    .map_err(|e| HeaderMismatch(e.error.message))
}

/// Whether an `Accept` header value admits `wanted` (`type/subtype`),
/// counting `*/*` and `type/*`; quality `0` excludes.
pub fn accepts(accept: &str, wanted: &str) -> bool {
    let (wt, _) = wanted.split_once('/').unwrap_or((wanted, ""));
    accept.split(',').any(|item| {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            let p = p.trim();
            p.strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        !refused && (range == wanted || range == "*/*" || range == format!("{wt}/*"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    fn hdrs(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_bytes(v.as_bytes()).unwrap());
        }
        h
    }

    const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

    fn call(name: Value, version: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": name, "_meta": {META_VERSION: version}}})
    }

    #[test]
    fn sentinel_round_trip() {
        for v in ["plain", "héllo wörld", " padded", "=?base64?aGk=?=", "日本"] {
            let enc = encode_value(v);
            assert!(enc.is_ascii());
            assert_eq!(decode_value(enc.as_bytes()).as_deref(), Some(v));
        }
        assert_eq!(encode_value("plain"), "plain");
        assert_eq!(decode_value(b"=?base64?w6k=?=").as_deref(), Some("é"));
        assert_eq!(decode_value(b"=?base64?!!!?="), None);
        assert_eq!(decode_value(b"=?base64?/w==?="), None, "not UTF-8");
        assert_eq!(decode_value(b"a\x01b"), None);
        assert_eq!(decode_value("é".as_bytes()), None);
    }

    #[test]
    fn good_headers_pass() {
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, "book_return"),
        ]);
        assert_eq!(
            check_modern(&h, &call(json!("book_return"), "2026-07-28")),
            Ok(())
        );
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, &encode_value("réservation")),
        ]);
        assert_eq!(
            check_modern(&h, &call(json!("réservation"), "2026-07-28")),
            Ok(())
        );
    }

    #[test]
    fn mismatches_are_reported() {
        let body = call(json!("t"), "v999.0.0");
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, "t"),
        ]);
        assert!(check_modern(&h, &body).is_err(), "version mismatch");
        let body = call(json!("t"), "2026-07-28");
        let h = hdrs(&[(METHOD, "tools/call"), (NAME, "t")]);
        assert!(check_modern(&h, &body).is_err(), "missing version");
        let h = hdrs(&[(PROTOCOL_VERSION, "2026-07-28"), (NAME, "t")]);
        assert!(check_modern(&h, &body).is_err(), "missing method");
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/list"),
            (NAME, "t"),
        ]);
        assert!(check_modern(&h, &body).is_err(), "wrong method");
        let h = hdrs(&[(PROTOCOL_VERSION, "2026-07-28"), (METHOD, "tools/call")]);
        assert!(check_modern(&h, &body).is_err(), "missing name");
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, "u"),
        ]);
        assert!(check_modern(&h, &body).is_err(), "wrong name");
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, "t"),
            (NAME, "t"),
        ]);
        assert!(check_modern(&h, &body).is_err(), "repeated name");
    }

    #[test]
    fn unreadable_values_are_rejected() {
        let body = call(json!("t"), "2026-07-28");
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "tools/call"),
            (NAME, "=?base64?***?="),
        ]);
        assert!(check_modern(&h, &body).is_err(), "bad sentinel");
        let mut h = hdrs(&[(PROTOCOL_VERSION, "2026-07-28"), (METHOD, "tools/call")]);
        h.append(NAME, HeaderValue::from_bytes(b"t\xff").unwrap());
        assert!(check_modern(&h, &body).is_err(), "not visible ASCII");
    }

    #[test]
    fn body_without_meta_version_is_left_to_the_core() {
        let h = hdrs(&[
            (PROTOCOL_VERSION, "2026-07-28"),
            (METHOD, "server/discover"),
        ]);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
        assert_eq!(check_modern(&h, &body), Ok(()));
    }

    #[test]
    fn accept_ranges() {
        assert!(accepts(
            "application/json, text/event-stream",
            "text/event-stream"
        ));
        assert!(accepts("*/*", "application/json"));
        assert!(accepts("text/*;q=0.5", "text/event-stream"));
        assert!(!accepts("application/json", "text/event-stream"));
        assert!(!accepts("text/event-stream;q=0", "text/event-stream"));
    }
}
