//! 2026-07-28 header checks: `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-*` of a tool's `x-mcp-header` arguments
//! must mirror the body, values may use the base64 sentinel
//! `=?base64?…?=`. Every failure is `-32020` (HTTP 400).

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName};
use frontdesk_wire::header::{MCP_PARAM_PREFIX, decode_value_in_place, name_field};
use serde_json::{Map, Value};

use crate::server::tool::HeaderParam;
use crate::server::transport::Incoming;

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

/// Why a 2026-07-28 header check failed: which header, and what is wrong
/// with it. Its `Display` is the message of the `-32020` error the request
/// is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMismatch {
    header: String,
    problem: HeaderProblem,
    /// What the header should have mirrored (for [`HeaderProblem::Differs`]).
    mirrors: &'static str,
}

/// What is wrong with a mirrored header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderProblem {
    /// It appears more than once.
    Repeated,
    /// It has characters other than visible ASCII, or a bad base64 value.
    Unreadable,
    /// It is missing, though the body has what it mirrors.
    Missing,
    /// It differs from what it mirrors in the body.
    Differs,
    /// It was sent for a tool argument the body does not carry.
    Unexpected,
}

impl HeaderMismatch {
    fn new(header: impl Into<String>, problem: HeaderProblem) -> Self {
        Self {
            header: header.into(),
            problem,
            mirrors: "the body",
        }
    }

    fn differs(header: &str, mirrors: &'static str) -> Self {
        Self {
            mirrors,
            ..Self::new(header, HeaderProblem::Differs)
        }
    }

    /// The header (e.g. `Mcp-Name`, `Mcp-Param-Region`).
    pub fn header(&self) -> &str {
        &self.header
    }

    /// What is wrong with it.
    pub fn problem(&self) -> HeaderProblem {
        self.problem
    }
}

impl std::fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let header = &self.header;
        match self.problem {
            HeaderProblem::Repeated => {
                write!(f, "Header mismatch: {header} appears more than once")
            }
            HeaderProblem::Unreadable => write!(
                f,
                "Header mismatch: {header} has invalid characters or a bad base64 value"
            ),
            HeaderProblem::Missing => write!(f, "Header mismatch: missing {header}"),
            HeaderProblem::Differs => {
                write!(f, "Header mismatch: {header} differs from {}", self.mirrors)
            }
            HeaderProblem::Unexpected => write!(
                f,
                "Header mismatch: {header} sent for an argument the body does not carry"
            ),
        }
    }
}

impl std::error::Error for HeaderMismatch {}

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
        return Err(HeaderMismatch::new(name.as_str(), HeaderProblem::Repeated));
    }
    decode_value_in_place(first.as_bytes())
        .map(Some)
        .ok_or_else(|| HeaderMismatch::new(name.as_str(), HeaderProblem::Unreadable))
}

/// The raw `MCP-Protocol-Version` value, if present and readable.
pub fn protocol_version(headers: &HeaderMap) -> Option<String> {
    protocol_version_in_place(headers).map(Cow::into_owned)
}

/// [`protocol_version`], borrowed from the headers when it needs no decoding.
pub(crate) fn protocol_version_in_place(headers: &HeaderMap) -> Option<Cow<'_, str>> {
    header(headers, &names::PROTOCOL_VERSION).ok().flatten()
}

/// The display names of the headers a 2026-07-28 request mirrors its body in.
const SHOWN_VERSION: &str = "MCP-Protocol-Version";
const SHOWN_METHOD: &str = "Mcp-Method";
const SHOWN_NAME: &str = "Mcp-Name";

/// Check the headers of a 2026-07-28 POST against its body.
///
/// Each mirrored header appears at most once, is visible ASCII and, when it
/// uses the base64 sentinel, decodes to UTF-8. `MCP-Protocol-Version` must be
/// present and equal to the `_meta` version (so a mismatch is `-32020` before
/// the core can answer `-32022`), `Mcp-Method` must equal the method (it may
/// be absent on a notification), and `Mcp-Name` must equal the body field
/// it mirrors ([`name_field`]: `params.name` of `tools/call` and
/// `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of the
/// task methods).
pub fn check_modern(headers: &HeaderMap, message: &Incoming) -> Result<(), HeaderMismatch> {
    let version = header(headers, &names::PROTOCOL_VERSION)?;
    let method_header = header(headers, &names::METHOD)?;
    let name_header = header(headers, &names::NAME)?;
    let body = message.mirrored();
    let Some(method) = body.method else {
        return Ok(());
    };
    let version =
        version.ok_or_else(|| HeaderMismatch::new(SHOWN_VERSION, HeaderProblem::Missing))?;
    if let Some(body_version) = &body.meta_version
        && *body_version != version
    {
        return Err(HeaderMismatch::differs(
            SHOWN_VERSION,
            "_meta protocolVersion",
        ));
    }
    match method_header {
        Some(m) if m != method => {
            return Err(HeaderMismatch::differs(SHOWN_METHOD, "the body's method"));
        }
        None if body.has_id => {
            return Err(HeaderMismatch::new(SHOWN_METHOD, HeaderProblem::Missing));
        }
        _ => {}
    }
    if name_field(method).is_some() {
        match (name_header, body.name) {
            (Some(h), Some(b)) if h == b => {}
            (None, _) => return Err(HeaderMismatch::new(SHOWN_NAME, HeaderProblem::Missing)),
            _ => return Err(HeaderMismatch::differs(SHOWN_NAME, "the body")),
        }
    }
    Ok(())
}

/// Check the `Mcp-Param-{header}` headers of a 2026-07-28 `tools/call`
/// against the arguments its tool marks `x-mcp-header`: an argument
/// present (and not `null`) needs its header with the same value (strings
/// exactly, numbers numerically, booleans as `true`/`false`); an absent one
/// must have no header. Other methods and unknown tools pass (the core
/// answers those).
pub fn check_params(headers: &HeaderMap, message: &Incoming) -> Result<(), HeaderMismatch> {
    if !message.is_tool_call() {
        return Ok(());
    }
    let Some((tool, arguments)) = message.called_tool() else {
        return Ok(());
    };
    for param in tool.header_params() {
        check_param(headers, &arguments, param)?;
    }
    Ok(())
}

fn check_param(
    headers: &HeaderMap,
    arguments: &Map<String, Value>,
    param: &HeaderParam,
) -> Result<(), HeaderMismatch> {
    let name = format!("{MCP_PARAM_PREFIX}{}", param.header());
    // A name that is no valid header name cannot have been sent.
    let sent = match HeaderName::try_from(name.to_ascii_lowercase()) {
        Ok(header_name) => header(headers, &header_name)?,
        Err(_) => None,
    };
    let value = arguments.get(param.argument()).filter(|v| !v.is_null());
    match (value, sent) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(HeaderMismatch::new(name, HeaderProblem::Unexpected)),
        (Some(_), None) => Err(HeaderMismatch::new(name, HeaderProblem::Missing)),
        (Some(v), Some(h)) if same_value(v, &h) => Ok(()),
        (Some(_), Some(_)) => Err(HeaderMismatch::differs(&name, "the body")),
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
    // Over bytes: every request is checked, and a `str` split on a `char`
    // sets up a searcher per piece, which costs more than these short
    // pieces do. The delimiters are ASCII, so each piece is still UTF-8.
    let wanted = wanted.as_bytes();
    let wanted_type = wanted.split(|&b| b == b'/').next().unwrap_or(wanted);
    accept.as_bytes().split(|&b| b == b',').any(|item| {
        let mut parts = item.split(|&b| b == b';');
        let range = parts.next().unwrap_or_default().trim_ascii();
        let refused = parts.any(|p| {
            p.trim_ascii()
                .strip_prefix(b"q=")
                .and_then(|q| std::str::from_utf8(q.trim_ascii()).ok())
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        let any_subtype = range
            .strip_suffix(b"/*")
            .is_some_and(|t| t.eq_ignore_ascii_case(wanted_type));
        !refused && (range.eq_ignore_ascii_case(wanted) || range == b"*/*" || any_subtype)
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

    /// `body` read as the HTTP transport reads a 2026-07-28 POST.
    fn read(body: &Value) -> Incoming {
        crate::server::Server::builder("t", "0")
            .build()
            .parse_message_as(
                body.to_string().as_bytes(),
                frontdesk_wire::Revision::V2026_07_28,
            )
            .unwrap()
    }

    fn call(name: Value, version: &str) -> Incoming {
        read(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": name, "_meta": {META_VERSION: version}}}),
        )
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
        let body = read(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}));
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
        // Spaces around the pieces and the weight; a weight above 0 admits.
        assert!(accepts(
            " application/json ; q = 0.5 ,text/event-stream",
            "application/json"
        ));
        assert!(!accepts("application/json; q= 0.0 ", "application/json"));
        assert!(!accepts("", "application/json"));
        assert!(!accepts("application", "application/json"));
    }
}
