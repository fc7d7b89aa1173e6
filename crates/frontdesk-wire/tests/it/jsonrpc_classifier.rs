//! The message classifier: every shape of input maps to the right message kind
//! or to a typed error with the right code, and it never panics.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use frontdesk_wire::*;
use proptest::prelude::*;
use serde_json::{Value, json};

fn classify(text: &str) -> Result<JsonRpcMessage, MessageError> {
    text.parse()
}

#[test]
fn well_formed_messages_classify() {
    let m = classify(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
    assert!(matches!(m, JsonRpcMessage::Request(_)));
    assert_eq!(m.id(), Some(&RequestId::from(1)));
    assert_eq!(m.method(), Some("ping"));

    let m = classify(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#).unwrap();
    assert_eq!(m.id(), Some(&RequestId::from("a")));

    let m = classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    assert!(matches!(m, JsonRpcMessage::Notification(_)));
    assert_eq!(m.id(), None);

    let m = classify(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
    assert!(matches!(m, JsonRpcMessage::Response(_)));

    let m =
        classify(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}"#).unwrap();
    let JsonRpcMessage::Error(e) = &m else {
        panic!()
    };
    assert_eq!(e.error.code, ErrorCode::METHOD_NOT_FOUND);

    // Id-less error (the id could not be read), and the plain JSON-RPC `null` id.
    for text in [
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    ] {
        let JsonRpcMessage::Error(e) = classify(text).unwrap() else {
            panic!()
        };
        assert_eq!(e.id, None);
    }

    // `params: null` reads as absent.
    let JsonRpcMessage::Request(r) =
        classify(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(r.params, None);
}

#[test]
fn ids_keep_their_exact_value() {
    for (text, expected) in [
        ("0", "0"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("18446744073709551615", "18446744073709551615"),
        ("\"\"", "\"\""),
        ("\"42\"", "\"42\""),
    ] {
        let msg = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#);
        let m = classify(&msg).unwrap();
        assert_eq!(
            serde_json::to_value(m.id().unwrap()).unwrap().to_string(),
            expected
        );
        // The string "42" and the integer 42 are different ids.
    }
    assert_ne!(RequestId::from("42"), RequestId::from(42));
    assert_eq!(RequestId::from(42_u64), RequestId::from(42_i64));
}

/// (input, kind, code, id readable)
#[test]
fn malformed_messages_get_typed_errors() {
    use MessageErrorKind as K;
    let cases: &[(&str, K, i32, Option<Value>)] = &[
        ("", K::Parse, -32700, None),
        ("{", K::Parse, -32700, None),
        ("{\"jsonrpc\":\"2.0\",}", K::Parse, -32700, None),
        ("\u{feff}{}", K::Parse, -32700, None),
        ("[]", K::Batch, -32600, None),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            K::Batch,
            -32600,
            None,
        ),
        ("42", K::NotAnObject, -32600, None),
        ("null", K::NotAnObject, -32600, None),
        (r#""hi""#, K::NotAnObject, -32600, None),
        (
            r#"{"id":1,"method":"ping"}"#,
            K::InvalidVersion,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            K::InvalidVersion,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":2.0,"id":"x","method":"ping"}"#,
            K::InvalidVersion,
            -32600,
            Some(json!("x")),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            K::InvalidId,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            K::InvalidId,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            K::InvalidId,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            K::InvalidId,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            K::InvalidMethod,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            K::InvalidParams,
            -32602,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#,
            K::InvalidParams,
            -32602,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":3}"#,
            K::InvalidParams,
            -32602,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
            K::Ambiguous,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            K::Ambiguous,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","result":{}}"#,
            K::InvalidId,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":[]}"#,
            K::InvalidResult,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            K::InvalidResult,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
            K::InvalidError,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#,
            K::InvalidError,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
            K::InvalidError,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            K::InvalidError,
            -32600,
            Some(json!(1)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1}"#,
            K::NoKind,
            -32600,
            Some(json!(1)),
        ),
        (r#"{"jsonrpc":"2.0"}"#, K::NoKind, -32600, None),
    ];
    for (input, kind, code, id) in cases {
        let err = classify(input).expect_err(input);
        assert_eq!(err.kind(), *kind, "{input}: {err}");
        assert_eq!(err.code(), ErrorCode(*code), "{input}");
        let got_id = err.id().map(|i| serde_json::to_value(i).unwrap());
        assert_eq!(&got_id, id, "{input}");
        // The ready response carries the code and the id.
        let resp = serde_json::to_value(err.to_error_response()).unwrap();
        assert_eq!(resp["error"]["code"], json!(code));
        assert_eq!(resp.get("id"), id.as_ref(), "{input}");
    }
}

#[test]
fn deep_nesting_is_a_parse_error_not_a_crash() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let err = classify(&deep).unwrap_err();
    assert_eq!(err.kind(), MessageErrorKind::Parse);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{}1{}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(classify(&deep).unwrap_err().kind(), MessageErrorKind::Parse);
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let err = JsonRpcMessage::from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}").unwrap_err();
    assert_eq!(err.code(), ErrorCode::PARSE_ERROR);
}

#[test]
fn unknown_envelope_members_round_trip() {
    let text = r#"{"jsonrpc":"2.0","id":9,"method":"m","params":{"a":1},"x-trace":{"b":2}}"#;
    let m = classify(text).unwrap();
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        serde_json::from_str::<Value>(text).unwrap()
    );
    // One line, no embedded newlines (stdio framing).
    assert!(!m.to_line().unwrap().contains('\n'));
}

#[test]
fn params_errors_become_invalid_params() {
    let JsonRpcMessage::Request(r) =
        classify(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#)
            .unwrap()
    else {
        panic!()
    };
    let err = r.parse_params::<CallToolRequestParams>().unwrap_err();
    assert_eq!(err.method(), "tools/call");
    let obj = ErrorObject::from(err);
    assert_eq!(obj.code, ErrorCode::INVALID_PARAMS);
    assert!(obj.message.contains("name"), "{}", obj.message);
    let resp = r.respond_error(obj);
    assert_eq!(resp.id, Some(RequestId::from(1)));
}

/// Arbitrary JSON that often looks like JSON-RPC: its member names and values.
fn arb_json() -> impl Strategy<Value = Value> {
    frontdesk_testkit::arb_json(
        &[
            "jsonrpc", "id", "method", "params", "result", "error", "code", "message",
        ],
        &["2.0", "jsonrpc", "id", "method"],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = JsonRpcMessage::from_slice(&bytes);
    }

    #[test]
    fn never_panics_on_arbitrary_json_and_round_trips_what_it_accepts(v in arb_json()) {
        match JsonRpcMessage::from_value(v.clone()) {
            Ok(m) => {
                let out = serde_json::to_value(&m).unwrap();
                // Only `"id": null` on an error and `"params": null` are normalised away.
                let mut expected = v.clone();
                if let Value::Object(o) = &mut expected {
                    if o.get("id") == Some(&Value::Null) { o.remove("id"); }
                    if o.get("params") == Some(&Value::Null) { o.remove("params"); }
                }
                prop_assert_eq!(out, expected);
            }
            Err(e) => {
                let code = e.code();
                prop_assert!(matches!(code.0, -32700 | -32600 | -32602));
                let _ = e.to_error_response();
            }
        }
    }

    #[test]
    fn request_ids_round_trip(id in prop_oneof![
        any::<i64>().prop_map(RequestId::from),
        any::<u64>().prop_map(RequestId::from),
        ".*".prop_map(RequestId::from),
    ]) {
        let text = serde_json::to_string(&id).unwrap();
        let back: RequestId = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(back, id);
    }
}

#[test]
fn to_value_writes_a_null_id_for_unreadable_ids() {
    let unknown = JsonRpcMessage::from(JsonRpcErrorResponse::new(
        None,
        ErrorObject::invalid_request("Invalid request: nope"),
    ));
    let v = unknown.to_value();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: nope"}}"#
    );
    // Plain serialization still omits it, and both read back the same.
    let plain = serde_json::to_value(&unknown).unwrap();
    assert!(plain.get("id").is_none());
    assert_eq!(JsonRpcMessage::from_value(v).unwrap(), unknown);

    // Everything else is exactly what `Serialize` writes.
    let request = JsonRpcRequest::new(7, "ping", Some(serde_json::Map::new()));
    let response = request.respond(serde_json::Map::new());
    for m in [
        JsonRpcMessage::from(request.clone()),
        JsonRpcMessage::from(response),
        JsonRpcMessage::from(request.respond_error(ErrorObject::method_not_found("ping"))),
        JsonRpcMessage::from(JsonRpcNotification::new("notifications/initialized", None)),
    ] {
        assert_eq!(m.to_value(), serde_json::to_value(&m).unwrap());
    }
    assert_eq!(
        serde_json::to_string(&JsonRpcMessage::from(request).to_value()).unwrap(),
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}"#
    );
}

#[test]
fn lenient_initialize_params_need_only_the_version() {
    let r: JsonRpcRequest = match classify(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
    )
    .unwrap()
    {
        JsonRpcMessage::Request(r) => r,
        other => panic!("{other:?}"),
    };
    let p: InitializeRequestParamsLenient = r.parse_params().unwrap();
    assert_eq!(p.protocol_version, "1999-01-01");
    assert_eq!(p.capabilities, ClientCapabilities::default());
    assert!(p.client_info.is_none());
    // The strict type refuses the same params.
    assert!(r.parse_params::<InitializeRequestParams>().is_err());
    let e = JsonRpcRequest::new(1, "initialize", Some(serde_json::Map::new()))
        .parse_params::<InitializeRequestParamsLenient>()
        .unwrap_err();
    assert_eq!(e.to_error_object().code, ErrorCode::INVALID_PARAMS);
}

/// Found by the `classify` fuzz target: an error object naming `message`
/// twice is taken by the full read (the later member wins, as in a JSON
/// value) and must be taken, the same, by the raw classifier.
#[test]
fn an_error_member_given_twice_is_read_alike_by_both_classifiers() {
    let text = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"a","message":"b"}}"#;
    let full = frontdesk_wire::JsonRpcMessage::from_slice(text).expect("the full read takes it");
    let raw = frontdesk_wire::RawMessage::from_slice(text).expect("the raw read takes it");
    let frontdesk_wire::RawMessage::Error { error, .. } = raw else {
        panic!("not an error: {raw:?}");
    };
    let frontdesk_wire::JsonRpcMessage::Error(e) = full else {
        panic!("not an error: {full:?}");
    };
    assert_eq!(error, e.error);
    assert_eq!(error.message, "b");
}
