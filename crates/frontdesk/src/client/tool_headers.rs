//! `x-mcp-header` (2026-07-28, SEP-2243): a tool's input schema may ask for
//! some of its parameters to be mirrored into `Mcp-Param-<Name>` request
//! headers, so intermediaries can route on them without reading the body.
//!
//! A tool whose annotations break the rules is left out of
//! [`Client::list_tools`](super::Client::list_tools) (a client must not call
//! it): the name must be a non-empty HTTP token (visible ASCII, no space,
//! colon or other separator), unique without regard to case, and only on a
//! `string`, `integer` or `boolean` parameter. Values are encoded with
//! [`frontdesk_wire::header::encode_value`]; a null or missing argument sends
//! no header.

use serde_json::{Map, Value};

/// The annotation's key in a property schema.
const ANNOTATION: &str = "x-mcp-header";

/// Which argument goes into which header: `(argument, header name suffix)`.
pub(crate) type ParamHeaders = Vec<(String, String)>;

/// The mirrored parameters of a tool's `inputSchema`, or why the tool is
/// unusable.
pub(crate) fn param_headers(input_schema: &Map<String, Value>) -> Result<ParamHeaders, String> {
    let mut out: ParamHeaders = Vec::new();
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (argument, schema) in properties {
        let Some(annotation) = schema.get(ANNOTATION) else {
            continue;
        };
        let Some(name) = annotation.as_str() else {
            return Err(format!("{argument}: {ANNOTATION} must be a string"));
        };
        if name.is_empty() {
            return Err(format!("{argument}: {ANNOTATION} is empty"));
        }
        if !name.bytes().all(is_token_char) {
            return Err(format!(
                "{argument}: {ANNOTATION} {name:?} is not a valid header name"
            ));
        }
        let kind = schema.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("string" | "integer" | "boolean")) {
            return Err(format!(
                "{argument}: {ANNOTATION} is only allowed on string, integer and boolean parameters"
            ));
        }
        if out.iter().any(|(_, n)| n.eq_ignore_ascii_case(name)) {
            return Err(format!("{ANNOTATION} {name:?} is used twice"));
        }
        out.push((argument.clone(), name.to_owned()));
    }
    Ok(out)
}

/// RFC 9110 `tchar`.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `Mcp-Param-*` headers for a call with `arguments`.
#[cfg(feature = "http-client")]
pub(crate) fn header_values(
    mirrored: &ParamHeaders,
    arguments: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (argument, name) in mirrored {
        let value = match arguments.and_then(|a| a.get(argument)) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => frontdesk_wire::header::encode_value(s),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => frontdesk_wire::header::encode_value(&other.to_string()),
        };
        out.push((
            format!("{}{name}", frontdesk_wire::header::MCP_PARAM_PREFIX),
            value,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(properties: Value) -> Map<String, Value> {
        json!({"type": "object", "properties": properties})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    #[cfg(feature = "http-client")]
    #[test]
    fn valid_annotations_and_their_values() {
        let mirrored = param_headers(&schema(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "query": {"type": "string"}
        })))
        .expect("valid");
        assert_eq!(mirrored.len(), 3);
        let args = json!({"region": " padded", "priority": 42, "verbose": null, "query": "q"});
        assert_eq!(
            header_values(&mirrored, args.as_object()),
            [
                (
                    "Mcp-Param-Region".to_owned(),
                    "=?base64?IHBhZGRlZA==?=".to_owned()
                ),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned())
            ]
        );
    }

    #[test]
    fn invalid_annotations_reject_the_tool() {
        for bad in [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
            json!({"v": {"type": "array", "x-mcp-header": "Items"}}),
            json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
            json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
            json!({"a": {"type": "string", "x-mcp-header": "MyField"},
                   "b": {"type": "string", "x-mcp-header": "myfield"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
        ] {
            assert!(param_headers(&schema(bad.clone())).is_err(), "{bad}");
        }
    }
}
