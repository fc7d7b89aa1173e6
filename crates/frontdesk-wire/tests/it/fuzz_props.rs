//! Properties of the wire crate's byte-level entry points that the fuzz
//! targets `classify` and `headers` rely on (`frontdesk::fuzzing`), where
//! `jsonrpc_classifier.rs` does not already cover them: the header value
//! codec on any bytes and any string, and the classifier on JSON text.

use frontdesk_wire::JsonRpcMessage;
use frontdesk_wire::MessageErrorKind;
use frontdesk_wire::header::{decode_value, encode_value};
use proptest::prelude::*;
use serde_json::Value;

fn visible_ascii(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// JSON that often looks like JSON-RPC.
fn arb_json() -> impl Strategy<Value = Value> {
    frontdesk_testkit::arb_json(
        &[
            "jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data",
        ],
        &["2.0", "ping", "tools/call", "fd-1"],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_encodes_to_visible_ascii_and_back(s in any::<String>()) {
        let encoded = encode_value(&s);
        prop_assert!(visible_ascii(&encoded), "{encoded:?}");
        prop_assert_eq!(decode_value(encoded.as_bytes()), Some(s));
    }

    #[test]
    fn sentinel_lookalikes_round_trip(inner in "[A-Za-z0-9+/=?*]{0,12}", pad in "[ \t]{0,2}") {
        let s = format!("{pad}=?base64?{inner}?={pad}");
        prop_assert_eq!(decode_value(encode_value(&s).as_bytes()), Some(s));
    }

    #[test]
    fn what_decodes_encodes_back_to_itself(raw in prop::collection::vec(any::<u8>(), 0..48)) {
        if let Some(v) = decode_value(&raw) {
            prop_assert_eq!(decode_value(encode_value(&v).as_bytes()), Some(v));
        } else {
            // Refused: raw bytes outside visible ASCII and tab, or a bad sentinel.
            let plain = raw.iter().all(|b| (0x20..=0x7e).contains(b) || *b == b'\t');
            let text = String::from_utf8_lossy(&raw);
            let trimmed = text.trim_matches([' ', '\t']);
            prop_assert!(!plain || (trimmed.starts_with("=?base64?") && trimmed.ends_with("?=")));
        }
    }

    #[test]
    fn json_text_classifies_like_its_value(v in arb_json(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_vec_pretty(&v).unwrap()
        } else {
            serde_json::to_vec(&v).unwrap()
        };
        let from_text = JsonRpcMessage::from_slice(&text);
        let from_value = JsonRpcMessage::from_value(v);
        match (from_text, from_value) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(&a, &b);
                let line = a.to_line().unwrap();
                prop_assert!(!line.contains('\n'));
                prop_assert_eq!(JsonRpcMessage::from_slice(line.as_bytes()).unwrap(), a);
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.kind(), b.kind());
                prop_assert_eq!(a.id(), b.id());
                prop_assert_ne!(a.kind(), MessageErrorKind::Parse);
            }
            (a, b) => prop_assert!(false, "text {:?} but value {:?}", a, b),
        }
    }

    #[test]
    fn cut_json_text_is_a_parse_error_or_a_message(v in arb_json(), cut in any::<prop::sample::Index>()) {
        let text = serde_json::to_vec(&v).unwrap();
        let part = &text[..cut.index(text.len() + 1)];
        let valid = serde_json::from_slice::<Value>(part).is_ok();
        match JsonRpcMessage::from_slice(part) {
            Err(e) => prop_assert_eq!(e.kind() == MessageErrorKind::Parse, !valid),
            Ok(_) => prop_assert!(valid),
        }
    }
}

/// Found by the `classify` target: without serde_json's `float_roundtrip`,
/// a long decimal was read 1 ULP off, so a message did not read back as
/// itself after being written (`1077777777777777.9` became
/// `1077777777777778.0`), and a number at a form's bound could be judged on
/// the wrong side of it. Numbers are now read correctly rounded (the
/// workspace turns the feature on). This crate's own test build got the
/// feature through `jsonschema`, a dev-dependency, so only the runtime's
/// builds had the bug; `frontdesk`'s `fuzz_props::found_inputs_pass` replays
/// the input where it failed.
#[test]
fn long_decimals_read_back_the_same() {
    let text = br#"{"jsonrpc":"2.0","id":"fd-771","result":{"action":"accept","content":{"a":1077777777777777.777777777777777777777}}}"#;
    let message = JsonRpcMessage::from_slice(text).unwrap();
    let line = message.to_line().unwrap();
    assert_eq!(
        JsonRpcMessage::from_slice(line.as_bytes()).unwrap(),
        message
    );
    let a: f64 = "1077777777777777.777777777777777777777".parse().unwrap();
    assert_eq!(
        message.to_value()["result"]["content"]["a"],
        serde_json::json!(a)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decimals_are_read_as_rust_reads_them(int in "[1-9][0-9]{0,20}", frac in "[0-9]{1,30}", exp in -30i32..30) {
        let text = format!("{int}.{frac}e{exp}");
        let expected: f64 = text.parse().unwrap();
        let read: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(read.as_f64(), Some(expected), "{}", text);
    }
}
