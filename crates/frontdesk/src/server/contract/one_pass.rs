//! A `tools/call` request in its usual shape, read in one pass: the
//! envelope's members and the params' typed form straight from the bytes.
//!
//! The general reader ([`read`](super::read::read)) first classifies the
//! envelope with the params kept as JSON text, which scans the whole params
//! (a retry's `requestState` and `inputResponses` among them) once to find
//! where they end, and then reads that text again into its typed form. Most
//! requests of a busy server are `tools/call`s of the usual shape, and this
//! reads them once.
//!
//! It takes only what the general reader would read the same way: valid
//! UTF-8, a `jsonrpc` of `"2.0"`, a string or integer `id`, `method`
//! `"tools/call"` before `params`, params that read as their typed form, no
//! member given twice, no `result` or `error`. Anything else (a notification,
//! another method, `params` first, a member twice, a mistake anywhere) gives
//! `None`, and the caller reads the message the general way, which words
//! every refusal as it always did. A test compares the two readers on
//! generated messages.

use std::fmt;

use frontdesk_wire::{RequestId, method};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::read::{Key, ToolCallParams};

/// The id and params of `bytes` when it is a `tools/call` request of the
/// usual shape (see the module docs); `None` when the general reader must
/// read it.
pub(super) fn tools_call(bytes: &[u8]) -> Option<(RequestId, ToolCallParams)> {
    // The general reader refuses invalid UTF-8 anywhere in the message.
    // Checked once for the whole body (the check's ASCII path is a few
    // instructions per 16 bytes), then read as text: read as bytes, each
    // string is checked on its own as it is read (a retry has dozens), and
    // what the typed reading skips is not checked at all.
    let text = std::str::from_utf8(bytes).ok()?;
    let mut reader = serde_json::Deserializer::from_str(text);
    let call = (&mut reader).deserialize_map(Envelope).ok()??;
    reader.end().ok()?;
    Some(call)
}

/// The top-level object's visitor: fails (so that the caller falls back) as
/// soon as the message is not what [`tools_call`] takes.
struct Envelope;

impl<'de> Visitor<'de> for Envelope {
    type Value = Option<(RequestId, ToolCallParams)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tools/call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut version_ok = None;
        let mut id = None;
        let mut is_call = false;
        let mut params = None;
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "jsonrpc" if version_ok.is_none() => {
                    version_ok = Some(map.next_value::<Key<'de>>()?.0 == "2.0");
                }
                "id" if id.is_none() => id = Some(map.next_value::<RequestId>()?),
                "method" if !is_call => {
                    if map.next_value::<Key<'de>>()?.0 != method::TOOLS_CALL {
                        return Err(de::Error::custom("another method"));
                    }
                    is_call = true;
                }
                "params" if is_call && params.is_none() => {
                    params = Some(map.next_value::<ToolCallParams>()?);
                }
                // Given twice, before `method`, or not a request's.
                "jsonrpc" | "id" | "method" | "params" | "result" | "error" => {
                    return Err(de::Error::custom("not the usual shape"));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match (version_ok, id, params) {
            (Some(true), Some(id), Some(params)) => Some((id, params)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::api::tool::ToolRegistry;
    use crate::server::contract::read::{read, read_classified};
    use crate::server::{ToolContext, ToolDef, ToolError, ToolOutput};
    use frontdesk_wire::Revision;
    use proptest::prelude::*;

    fn tools() -> ToolRegistry {
        let mut tools = ToolRegistry::default();
        tools.add(ToolDef::new(
            "t",
            "A tool",
            |_: ToolContext, _: serde_json::Value| async move {
                Ok::<_, ToolError>(ToolOutput::text("x"))
            },
        ));
        tools
    }

    const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

    #[test]
    fn the_usual_shapes_are_read_in_one_pass() {
        let retry = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"t","arguments":{{"n":1}},{MODERN_META},"inputResponses":{{"k":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"abc"}}}}"#
        );
        for usual in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            // The TypeScript SDK's order: method and params first.
            r#"{"method":"tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0","id":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"},"x":[1]}"#,
            &retry,
        ] {
            assert!(tools_call(usual.as_bytes()).is_some(), "{usual}");
        }
        for other in [
            r#"{"jsonrpc":"2.0","id":1,"params":{"name":"t"},"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}} x"#,
            "[]",
        ] {
            assert!(tools_call(other.as_bytes()).is_none(), "{other}");
        }
    }

    /// Members a generated message is made of (several of each name, to be
    /// given twice or in any order).
    const MEMBERS: &[&str] = &[
        r#""jsonrpc":"2.0""#,
        r#""jsonrpc":"2.0""#,
        r#""jsonrpc":"1.0""#,
        r#""jsonrpc":2"#,
        r#""id":1"#,
        r#""id":"a\u0062""#,
        r#""id":null"#,
        r#""id":1.5"#,
        r#""id":-3"#,
        r#""id":18446744073709551616"#,
        r#""id":{}"#,
        r#""method":"tools/call""#,
        r#""method":"tools/call""#,
        r#""method":"tools\/call""#,
        r#""method":"tools/list""#,
        r#""method":5"#,
        r#""params":{"name":"t"}"#,
        r#""params":{"name":"t","arguments":{"n":1},"task":{"ttl":5}}"#,
        r#""params":{"name":"u","arguments":[]}"#,
        r#""params":{"name":"t","name":"u"}"#,
        r#""params":{"name":5}"#,
        r#""params":null"#,
        r#""params":[]"#,
        r#""params":{"name":"t","inputResponses":{"k":{"action":"accept"}},"requestState":"s"}"#,
        r#""params":{"name":"t","inputResponses":{"k":{"action":"nope"}},"requestState":5}"#,
        r#""params":{"name":"t","requestState":"s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        r#""params":{"name":"t","_meta":{"io.modelcontextprotocol/clientCapabilities":{}},"inputResponses":{}}"#,
        r#""params":{"name":"t","arguments":{"s":"\ud800"}}"#,
        r#""params":{"name":"t","arguments":{"s":"\u00e9\n"}}"#,
        r#""params":{"name":"t","arguments":{"n":1e400}}"#,
        r#""result":{}"#,
        r#""error":{"code":1,"message":"m"}"#,
        r#""x":[1,{"y":2}]"#,
        r#""x":"\q""#,
    ];

    /// A message of `picks` (indices into [`MEMBERS`], or the extra pieces
    /// past its end), as bytes.
    fn message(picks: &[usize], tail: u8) -> Vec<u8> {
        let mut out = b"{".to_vec();
        for (i, &pick) in picks.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match pick.checked_sub(MEMBERS.len()) {
                None => out.extend_from_slice(MEMBERS[pick].as_bytes()),
                // Invalid UTF-8 in a member the typed reading skips.
                Some(0) => out.extend_from_slice(b"\"params\":{\"name\":\"t\",\"z\":\"\xff\"}"),
                // Nested deeper than the recursion limit allows from the top.
                Some(_) => {
                    out.extend_from_slice(br#""params":{"name":"t","arguments":{"a":"#);
                    out.extend(std::iter::repeat_n(b'[', 126));
                    out.extend(std::iter::repeat_n(b']', 126));
                    out.extend_from_slice(b"}}");
                }
            }
        }
        out.push(b'}');
        match tail {
            0 => out.extend_from_slice(b" x"),
            1 => out.extend_from_slice(b" \n"),
            _ => {}
        }
        out
    }

    /// A request's four members (any `id`, `method` and `params` of
    /// [`MEMBERS`], mostly in the usual order), and now and then one more.
    fn usual_picks() -> impl Strategy<Value = Vec<usize>> {
        (
            prop_oneof![3 => Just(0usize), 1 => 0..MEMBERS.len()],
            prop_oneof![2 => Just(4usize), 1 => 4..=10usize],
            prop_oneof![2 => Just(11usize), 1 => 11..=15usize],
            prop_oneof![1 => 16..=17usize, 1 => 16..MEMBERS.len() + 2],
            proptest::option::weighted(0.3, 0..MEMBERS.len() + 2),
            any::<proptest::sample::Index>(),
            any::<bool>(),
        )
            .prop_map(|(version, id, method, params, extra, at, shuffle)| {
                let mut picks = vec![version, id, method, params];
                if shuffle {
                    picks.swap(at.index(4), 3);
                }
                if let Some(extra) = extra {
                    picks.insert(at.index(5), extra);
                }
                picks
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Whatever the message, one pass and the general reader read it the
        /// same: the same message, revision and tool, or the same error.
        #[test]
        fn one_pass_reads_as_the_general_reader_does(
            picks in prop_oneof![
                proptest::collection::vec(0..MEMBERS.len() + 2, 0..7),
                usual_picks(),
            ],
            tail in 0u8..8,
            revision in prop_oneof![
                Just(None),
                Just(Some(Revision::V2025_11_25)),
                Just(Some(Revision::V2026_07_28)),
            ],
        ) {
            let bytes = message(&picks, tail);
            let tools = tools();
            let general = format!("{:?}", read_classified(&bytes, revision, &tools));
            prop_assert_eq!(format!("{:?}", read(&bytes, revision, &tools)), general);
        }
    }
}
