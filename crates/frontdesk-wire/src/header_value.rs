//! The value codec of the 2026-07-28 mirrored headers (`Mcp-Name`,
//! `Mcp-Param-*`): plain visible ASCII travels as is, anything else as the
//! sentinel `=?base64?<base64 of UTF-8>?=`.
//!
//! One codec for every side: clients encode with [`encode_value`], servers
//! decode with [`decode_value`] before comparing with the body.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

fn looks_like_sentinel(value: &str) -> bool {
    value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END)
}

/// Encode `value` for a mirrored header.
///
/// Plain when it is non-empty visible ASCII (spaces allowed inside, not at
/// either end, since HTTP strips them) and does not itself look like the
/// sentinel; otherwise the base64 sentinel. The empty string is sent as the
/// sentinel too, so an empty value is never confused with a missing or
/// stripped header.
///
/// ```
/// use frontdesk_wire::header::{decode_value, encode_value};
///
/// assert_eq!(encode_value("book_return"), "book_return");
/// assert_eq!(encode_value("café"), "=?base64?Y2Fmw6k=?=");
/// assert_eq!(encode_value(""), "=?base64??=");
/// for v in ["book_return", "café", "", " padded", "=?base64?aGk=?="] {
///     assert_eq!(decode_value(encode_value(v).as_bytes()).as_deref(), Some(v));
/// }
/// ```
pub fn encode_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_like_sentinel(value);
    if plain {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value))
    }
}

/// Decode a raw header value: visible ASCII (surrounding spaces and tabs
/// trimmed, as HTTP does) as is, or the sentinel decoded. `None` when the
/// value has other bytes, or the sentinel is not base64 of UTF-8.
pub fn decode_value(raw: &[u8]) -> Option<String> {
    decode_value_in_place(raw).map(Cow::into_owned)
}

/// [`decode_value`] without a copy when the value is plain: borrowed from
/// `raw`, owned only when the sentinel was decoded (a server compares most
/// mirrored headers with the body and drops them).
///
/// ```
/// use std::borrow::Cow;
/// use frontdesk_wire::header::decode_value_in_place;
///
/// assert!(matches!(decode_value_in_place(b" tools/call "), Some(Cow::Borrowed("tools/call"))));
/// assert_eq!(decode_value_in_place(b"=?base64?Y2Fmw6k=?=").as_deref(), Some("café"));
/// assert_eq!(decode_value_in_place(b"caf\xc3\xa9"), None);
/// ```
pub fn decode_value_in_place(raw: &[u8]) -> Option<Cow<'_, str>> {
    if !raw.iter().all(|b| (0x20..=0x7e).contains(b) || *b == b'\t') {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?.trim_matches([' ', '\t']);
    let Some(inner) = text
        .strip_prefix(SENTINEL_START)
        .and_then(|rest| rest.strip_suffix(SENTINEL_END))
    else {
        return Some(Cow::Borrowed(text));
    };
    String::from_utf8(STANDARD.decode(inner).ok()?)
        .ok()
        .map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refusals() {
        for v in [
            "plain",
            "héllo wörld",
            " padded",
            "padded ",
            "=?base64?aGk=?=",
            "日本",
            "",
            "tab\there",
        ] {
            let encoded = encode_value(v);
            assert!(encoded.bytes().all(|b| (0x20..=0x7e).contains(&b)), "{v:?}");
            assert_eq!(
                decode_value(encoded.as_bytes()).as_deref(),
                Some(v),
                "{v:?}"
            );
        }
        assert_eq!(decode_value(b"=?base64?w6k=?=").as_deref(), Some("é"));
        assert_eq!(decode_value(b"  x  ").as_deref(), Some("x"));
        assert_eq!(decode_value(b"=?base64?!!!?="), None, "not base64");
        assert_eq!(decode_value(b"=?base64?/w==?="), None, "not UTF-8");
        assert_eq!(decode_value(b"t\xff"), None, "not visible ASCII");
        assert_eq!(decode_value(b"a\nb"), None, "control character");
        assert_eq!(decode_value(b"a\x01b"), None, "control character");
        assert_eq!(decode_value("é".as_bytes()), None, "raw UTF-8");
    }
}
