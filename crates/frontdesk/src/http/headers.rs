//! 2026-07-28 header checks: `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-*` of a tool's `x-mcp-header` arguments
//! must mirror the body, values may use the base64 sentinel
//! `=?base64?…?=`. Every failure is `-32020` (HTTP 400).

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName};
use frontdesk_wire::header::{MCP_PARAM_PREFIX, decode_value_in_place, name_field};
use frontdesk_wire::{meta_key, method};
use serde_json::Value;

use crate::server::{HeaderParam, Server};

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

/// The header names as [`HeaderName`]s, so a lookup compares instead of
/// parsing the name again on every request.
pub(crate) mod names {
    use axum::http::HeaderName;

    pub(crate) const PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static(super::PROTOCOL_VERSION);
    pub(crate) const METHOD: HeaderName = HeaderName::from_static(super::METHOD);
    pub(crate) const NAME: HeaderName = HeaderName::from_static(super::NAME);
    pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static(super::SESSION_ID);
    pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static(super::LAST_EVENT_ID);
}

/// Why a header check failed (the message of the `-32020` error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMismatch(pub String);

impl std::fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One decoded header: `Ok(None)` when absent, `Err` when present but
/// unreadable (repeated, invalid characters, bad sentinel).
fn header<'a>(
    headers: &'a HeaderMap,
    name: &HeaderName,
) -> Result<Option<Cow<'a, str>>, HeaderMismatch> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(HeaderMismatch(format!(
            "Header mismatch: {name} appears more than once"
        )));
    }
    decode_value_in_place(first.as_bytes())
        .map(Some)
        .ok_or_else(|| {
            HeaderMismatch(format!(
                "Header mismatch: {name} has invalid characters or a bad base64 value"
            ))
        })
}

/// The raw `MCP-Protocol-Version` value, if present and readable.
pub fn protocol_version(headers: &HeaderMap) -> Option<String> {
    protocol_version_in_place(headers).map(Cow::into_owned)
}

/// [`protocol_version`], borrowed from the headers when it needs no decoding.
pub(crate) fn protocol_version_in_place(headers: &HeaderMap) -> Option<Cow<'_, str>> {
    header(headers, &names::PROTOCOL_VERSION).ok().flatten()
}

fn mismatch(what: &str) -> HeaderMismatch {
    HeaderMismatch(format!("Header mismatch: {what}"))
}

/// Check the headers of a 2026-07-28 POST against its parsed body.
///
/// Each mirrored header appears at most once, is visible ASCII and, when it
/// uses the base64 sentinel, decodes to UTF-8. `MCP-Protocol-Version` must be
/// present and equal to the `_meta` version (so a mismatch is `-32020` before
/// the core can answer `-32022`), `Mcp-Method` must equal the method (it may
/// be absent on a notification), and `Mcp-Name` must equal the body field
/// it mirrors ([`name_field`]: `params.name` of `tools/call` and
/// `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of the
/// task methods).
pub fn check_modern(headers: &HeaderMap, body: &Value) -> Result<(), HeaderMismatch> {
    let version = header(headers, &names::PROTOCOL_VERSION)?;
    let method_header = header(headers, &names::METHOD)?;
    let name_header = header(headers, &names::NAME)?;
    let Some(method) = body.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    let params = body.get("params");
    let version = version.ok_or_else(|| mismatch("missing MCP-Protocol-Version"))?;
    if let Some(body_version) = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta_key::PROTOCOL_VERSION))
        .and_then(Value::as_str)
        && body_version != version
    {
        return Err(mismatch(
            "MCP-Protocol-Version differs from _meta protocolVersion",
        ));
    }
    match method_header {
        Some(m) if m != method => {
            return Err(mismatch("Mcp-Method differs from the body's method"));
        }
        None if body.get("id").is_some() => return Err(mismatch("missing Mcp-Method")),
        _ => {}
    }
    if let Some(key) = name_field(method) {
        let body_name = params.and_then(|p| p.get(key)).and_then(Value::as_str);
        match (name_header, body_name) {
            (Some(h), Some(b)) if h == b => {}
            (None, _) => return Err(mismatch("missing Mcp-Name")),
            _ => return Err(mismatch("Mcp-Name differs from the body")),
        }
    }
    Ok(())
}

/// Check the `Mcp-Param-{header}` headers of a 2026-07-28 `tools/call`
/// against the arguments `server`'s tool marks `x-mcp-header`: an argument
/// present (and not `null`) needs its header with the same value (strings
/// exactly, numbers numerically, booleans as `true`/`false`); an absent one
/// must have no header. Other methods and unknown tools pass (the core
/// answers those).
pub fn check_params(
    headers: &HeaderMap,
    body: &Value,
    server: &Server,
) -> Result<(), HeaderMismatch> {
    if body.get("method").and_then(Value::as_str) != Some(method::TOOLS_CALL) {
        return Ok(());
    }
    let params = body.get("params");
    let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Ok(());
    };
    for param in server.header_params(tool) {
        check_param(headers, params, param)?;
    }
    Ok(())
}

fn check_param(
    headers: &HeaderMap,
    params: Option<&Value>,
    param: &HeaderParam,
) -> Result<(), HeaderMismatch> {
    let name = format!("{MCP_PARAM_PREFIX}{}", param.header());
    // A name that is no valid header name cannot have been sent.
    let sent = match HeaderName::try_from(name.to_ascii_lowercase()) {
        Ok(header_name) => header(headers, &header_name)?,
        Err(_) => None,
    };
    let value = params
        .and_then(|p| p.get("arguments"))
        .and_then(|a| a.get(param.argument()))
        .filter(|v| !v.is_null());
    match (value, sent) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(mismatch(&format!(
            "{name} sent for an argument the body does not carry"
        ))),
        (Some(_), None) => Err(mismatch(&format!("missing {name}"))),
        (Some(v), Some(h)) if same_value(v, &h) => Ok(()),
        (Some(_), Some(_)) => Err(mismatch(&format!("{name} differs from the body"))),
    }
}

/// Whether a header value (already decoded) stands for the body value.
fn same_value(body: &Value, header: &str) -> bool {
    match body {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => {
            let h = header.trim();
            match (n.as_i64(), n.as_u64(), h.parse::<i64>(), h.parse::<u64>()) {
                (Some(a), _, Ok(b), _) => a == b,
                (_, Some(a), _, Ok(b)) => a == b,
                _ => match (n.as_f64(), h.parse::<f64>()) {
                    (Some(a), Ok(b)) => a == b,
                    _ => false,
                },
            }
        }
        _ => false,
    }
}

/// Whether an `Accept` header value admits `wanted` (`type/subtype`),
/// counting `*/*` and `type/*`; quality `0` excludes.
pub fn accepts(accept: &str, wanted: &str) -> bool {
    let (wt, _) = wanted.split_once('/').unwrap_or((wanted, ""));
    accept.split(',').any(|item| {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or_default().trim();
        let refused = parts.any(|p| {
            let p = p.trim();
            p.strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        let any_subtype = range
            .strip_suffix("/*")
            .is_some_and(|t| t.eq_ignore_ascii_case(wt));
        !refused && (range.eq_ignore_ascii_case(wanted) || range == "*/*" || any_subtype)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use frontdesk_wire::header::encode_value;
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
    fn param_values_compare_by_type() {
        assert!(same_value(&json!("us-west1"), "us-west1"));
        assert!(!same_value(&json!("us-west1"), "US-WEST1"));
        assert!(same_value(&json!(42), "42"));
        assert!(same_value(&json!(42), "42.0"));
        assert!(same_value(&json!(3.5), "3.50"));
        assert!(!same_value(&json!(42), "43"));
        assert!(same_value(&json!(u64::MAX), &u64::MAX.to_string()));
        assert!(same_value(&json!(true), "true"));
        assert!(!same_value(&json!(false), "true"));
        assert!(!same_value(&json!({"a": 1}), "{\"a\":1}"));
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
        // Media types compare without case (RFC 9110 8.3.1).
        assert!(accepts("Application/JSON", "application/json"));
        assert!(accepts("TEXT/*", "text/event-stream"));
        assert!(!accepts("text/*", "application/json"));
        assert!(!accepts("application/*;q=0", "application/json"));
    }
}
