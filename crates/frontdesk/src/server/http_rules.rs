//! What a 2026-07-28 Streamable HTTP transport checks before handing a body to
//! [`Server::handle`](super::Server::handle): the mirrored headers must agree
//! with the body (`-32020`, HTTP 400). Transport-agnostic: headers are read
//! through a lookup function.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use frontdesk_wire::{ErrorObject, header};
use serde_json::Value;

use super::modern::META_VERSION;
use super::rpc::RpcError;

/// Decode a header value, undoing the `=?base64?…?=` form used for values
/// that are not plain visible ASCII.
pub fn decode_header_value(raw: &str) -> Option<String> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => STANDARD
            .decode(b64)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(raw.to_string()),
    }
}

fn mismatch(what: &str) -> RpcError {
    RpcError::from(ErrorObject::header_mismatch(format!(
        "Header mismatch: {what}"
    )))
    .with_status(400)
}

/// Check `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` of a 2026-07-28
/// POST against its parsed body. `header(name)` returns the raw value of a
/// header (case-insensitive lookup is the caller's). Call it before
/// [`Server::handle`](super::Server::handle), so a version mismatch is
/// `-32020` and only an agreed but unsupported version is `-32022`.
pub fn check_headers(
    message: &Value,
    header: impl Fn(&str) -> Option<String>,
) -> Result<(), RpcError> {
    let get = |name: &str| header(name).and_then(|v| decode_header_value(&v));
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    let params = message.get("params");
    let version_header = get(header::MCP_PROTOCOL_VERSION)
        .ok_or_else(|| mismatch("missing MCP-Protocol-Version"))?;
    if let Some(body_version) = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
        && body_version != version_header
    {
        return Err(mismatch(
            "MCP-Protocol-Version differs from _meta protocolVersion",
        ));
    }
    // Notifications carry no Mcp-Method requirement beyond agreeing when sent.
    match get(header::MCP_METHOD) {
        Some(m) if m != method => {
            return Err(mismatch("Mcp-Method differs from the body's method"));
        }
        None if message.get("id").is_some() => return Err(mismatch("missing Mcp-Method")),
        _ => {}
    }
    let name_key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(key) = name_key {
        let body_name = params.and_then(|p| p.get(key)).and_then(Value::as_str);
        match (get(header::MCP_NAME), body_name) {
            (Some(h), Some(b)) if h == b => {}
            (None, _) => return Err(mismatch("missing Mcp-Name")),
            _ => return Err(mismatch("Mcp-Name differs from the body")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn headers<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| (*v).to_string())
        }
    }

    fn call(version: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "café",
            "_meta": {"io.modelcontextprotocol/protocolVersion": version}}})
    }

    #[test]
    fn agreeing_headers_pass_and_base64_is_decoded() {
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?Y2Fmw6k=?="),
        ];
        assert_eq!(check_headers(&call("2026-07-28"), headers(&h)), Ok(()));
    }

    #[test]
    fn mismatches_are_32020() {
        let h = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "café"),
        ];
        let e = check_headers(&call("v999.0.0"), headers(&h)).unwrap_err();
        assert_eq!((e.code().0, e.http_status), (-32020, 400));
        let h = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "other"),
        ];
        assert_eq!(
            check_headers(&call("2026-07-28"), headers(&h))
                .unwrap_err()
                .code()
                .0,
            -32020
        );
        let h = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Name", "café")];
        assert_eq!(
            check_headers(&call("2026-07-28"), headers(&h))
                .unwrap_err()
                .code()
                .0,
            -32020
        );
    }
}
