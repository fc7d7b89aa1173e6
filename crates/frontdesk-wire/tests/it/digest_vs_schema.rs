//! The digests (`shared/spec/*.md`, outside the repository) label their JSON
//! examples with `<!-- schema: <revision>#<Def> -->`; `frontdesk-testkit` carries
//! each labelled example as its own file (`data/digests/`). Every labelled example
//! is validated against the official schema.json (the schema wins) and, where this
//! crate has a type for it, parsed and re-serialized. Known disagreements are
//! listed here explicitly, so a new one fails the test.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use frontdesk_testkit::digest_examples;
use frontdesk_wire::*;
use serde_json::{Value, json};

/// Digest examples that schema.json rejects, as `file:line revision#Def`.
/// The schema wins; each entry says why the digest differs. (At this snapshot
/// every labelled example validates; the disagreements are in prose and are
/// pinned by the tests below.)
const KNOWN_DISAGREEMENTS: &[(&str, &str)] = &[];

/// Parses a labelled example with this crate's type for its definition and
/// checks the re-serialization is equal. `None` = no typed check for that def.
fn typed_round_trip(revision: &str, def: &str, v: &Value) -> Option<Result<Value, String>> {
    fn go<T: serde::de::DeserializeOwned + serde::Serialize>(v: &Value) -> Result<Value, String> {
        let t: T = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        serde_json::to_value(&t).map_err(|e| e.to_string())
    }
    fn params<P: serde::de::DeserializeOwned + serde::Serialize>(
        v: &Value,
    ) -> Result<Value, String> {
        let m = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
        let (JsonRpcMessage::Request(JsonRpcRequest { params, .. })
        | JsonRpcMessage::Notification(JsonRpcNotification { params, .. })) = &m
        else {
            return Err("not a request or notification".into());
        };
        let p = params.clone().map(Value::Object).unwrap_or(json!({}));
        let typed = go::<P>(&p)?;
        if typed != p {
            return Err(format!("params differ: {typed}"));
        }
        serde_json::to_value(&m).map_err(|e| e.to_string())
    }
    fn result<R: serde::de::DeserializeOwned + serde::Serialize>(
        v: &Value,
    ) -> Result<Value, String> {
        let m = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
        if let JsonRpcMessage::Response(r) = &m {
            let raw = Value::Object(r.result.clone());
            if go::<R>(&raw)? != raw {
                return Err("result differs".into());
            }
        }
        serde_json::to_value(&m).map_err(|e| e.to_string())
    }
    Some(match (revision, def) {
        ("2025-11-25", "InitializeRequest") => params::<InitializeRequestParams>(v),
        ("2025-11-25", "InitializedNotification") => params::<MetaParams>(v),
        ("2025-11-25", "CancelledNotification") => params::<CancelledNotificationParams>(v),
        ("2025-11-25", "ElicitationCompleteNotification") => params::<ElicitationCompleteParams>(v),
        ("2025-11-25", "ElicitRequest") => params::<ElicitRequestParams>(v),
        (_, "CallToolRequest") => params::<CallToolRequestParams>(v),
        ("2026-07-28", "ReadResourceRequest") => params::<ReadResourceRequestParams>(v),
        ("2026-07-28", "ListToolsRequest") => params::<PaginatedRequestParams>(v),
        ("2025-11-25", "CallToolResult") => go::<CallToolResult>(v),
        ("2026-07-28", "CallToolResultResponse") => result::<MaybeInputRequired<CallToolResult>>(v),
        ("2026-07-28", "ListToolsResultResponse") => result::<ListToolsResult>(v),
        ("2026-07-28", "DiscoverResultResponse") => result::<DiscoverResult>(v),
        ("2026-07-28", "ElicitRequest") => go::<ElicitRequest>(v),
        ("2026-07-28", "ElicitRequestFormParams") => go::<ElicitRequestFormParams>(v),
        ("2026-07-28", "ElicitResult") => go::<ElicitResult>(v),
        (_, "JSONRPCResultResponse" | "JSONRPCErrorResponse") => go::<JsonRpcMessage>(v),
        (_, "URLElicitationRequiredError") => go::<JsonRpcMessage>(v).and_then(|out| {
            let m: JsonRpcMessage =
                serde_json::from_value(out.clone()).map_err(|e| e.to_string())?;
            let JsonRpcMessage::Error(e) = m else {
                return Err("not an error".into());
            };
            e.error
                .url_elicitation_required_data()
                .ok_or("no data")?
                .map_err(|e| e.to_string())?;
            Ok(out)
        }),
        (_, "MissingRequiredClientCapabilityError" | "UnsupportedProtocolVersionError") => {
            go::<JsonRpcMessage>(v)
        }
        _ => return None,
    })
}

#[test]
fn labelled_digest_examples_parse_with_this_crate() {
    let mut typed = 0;
    let mut failures = Vec::new();
    for ex in digest_examples() {
        let Some(out) = typed_round_trip(&ex.revision, &ex.def, &ex.value) else {
            continue;
        };
        typed += 1;
        match out {
            Ok(out) if out == ex.value => {}
            Ok(out) => failures.push(format!("{}:{}: differs: {out}", ex.digest, ex.line)),
            Err(e) => failures.push(format!("{}:{}: {e}", ex.digest, ex.line)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        typed >= 30,
        "only {typed} labelled examples had a typed check"
    );
}

// ---- Disagreements between the digests/TypeScript and schema.json ----------

/// ELICITATION.md §4 / §14.2: answers to `"type": "number"` fields may be
/// fractional (TypeScript: `number`), but schema.json types content values as
/// `["string","integer","boolean"]` in both revisions, so `12.5` fails schema
/// validation. This crate keeps `content` raw and accepts it.
#[test]
fn float_answers_are_rejected_by_schema_json_but_accepted_here() {
    let answer = json!({ "action": "accept", "content": { "budget": 12.5 } });
    for revision in ["2025-11-25", "2026-07-28"] {
        let schema = frontdesk_testkit::Schema::load(revision);
        assert!(
            !schema.errors("ElicitResult", &answer).is_empty(),
            "{revision}"
        );
        assert!(
            schema
                .errors(
                    "ElicitResult",
                    &json!({"action":"accept","content":{"budget":12}})
                )
                .is_empty()
        );
    }
    let parsed: ElicitResult = serde_json::from_value(answer.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), answer);
}

/// MRTR.md A.2 / schema README caveat 4: an `InputRequiredResult` must have
/// `resultType: "input_required"` and at least one of `inputRequests` /
/// `requestState`; schema.json only requires `resultType` (any string).
#[test]
fn input_required_rules_that_schema_json_cannot_express() {
    let schema = frontdesk_testkit::Schema::load("2026-07-28");
    let not_really = json!({ "resultType": "complete" });
    assert!(schema.errors("InputRequiredResult", &not_really).is_empty());
    assert!(serde_json::from_value::<InputRequiredResult>(not_really).is_err());

    let empty = json!({ "resultType": "input_required" });
    assert!(schema.errors("InputRequiredResult", &empty).is_empty());
    let parsed: InputRequiredResult = serde_json::from_value(empty).unwrap();
    assert_eq!(parsed.check(), Err(InputRequiredError::Empty));

    // Almost anything validates as a CallToolResultResponse result.
    let odd = json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"banana"}});
    assert!(schema.errors("CallToolResultResponse", &odd).is_empty());
    let JsonRpcMessage::Response(r) = JsonRpcMessage::from_value(odd).unwrap() else {
        panic!()
    };
    assert!(
        r.parse_result::<MaybeInputRequired<CallToolResult>>()
            .is_err()
    );
}

/// ELICITATION.md §3.5: 2026-07-28 URL elicitations have no `elicitationId`,
/// yet schema.json (no `additionalProperties: false`) accepts one. This crate
/// keeps a received one (round trip) and never emits one unless asked to.
#[test]
fn elicitation_id_in_2026_is_tolerated_by_the_schema_and_not_emitted_by_us() {
    let schema = frontdesk_testkit::Schema::load("2026-07-28");
    let with_id =
        json!({"mode":"url","message":"m","url":"https://a.example/x","elicitationId":"e1"});
    assert!(schema.errors("ElicitRequestURLParams", &with_id).is_empty());
    let p: ElicitRequestUrlParams = serde_json::from_value(with_id.clone()).unwrap();
    assert_eq!(serde_json::to_value(&p).unwrap(), with_id);

    let modern = ElicitRequestParams::url("m", "https://a.example/x");
    let out = serde_json::to_value(&modern).unwrap();
    assert!(out.get("elicitationId").is_none());
    // An empty id is never emitted either.
    let p = ElicitRequestUrlParams::new("m", "https://a.example/x").with_elicitation_id("");
    assert!(
        serde_json::to_value(&p)
            .unwrap()
            .get("elicitationId")
            .is_none()
    );

    // …while 2025-11-25 requires it.
    let legacy = frontdesk_testkit::Schema::load("2025-11-25");
    assert!(!legacy.errors("ElicitRequestURLParams", &out).is_empty());
}

/// MRTR.md A.2 says embedded input requests have no `jsonrpc` and no `id`, but
/// the official example `ListRootsRequest/list-roots-request.json` carries an
/// `id`. The schema allows it (extra member); this crate keeps it in `extra`.
#[test]
fn official_list_roots_example_carries_an_id() {
    let v = frontdesk_testkit::example("ListRootsRequest/list-roots-request.json");
    assert!(v.get("id").is_some() && v.get("jsonrpc").is_none());
    let r: ListRootsRequest = serde_json::from_value(v).unwrap();
    assert!(r.extra.contains_key("id"));
}

/// JSONRPC-BASICS.md §1: 2025-11-25 `CancelledNotificationParams.requestId` is
/// optional in schema.json (task cancellation), required in 2026-07-28.
#[test]
fn cancelled_request_id_optional_only_in_2025() {
    let n = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"x"}});
    assert!(
        frontdesk_testkit::Schema::load("2025-11-25")
            .errors("CancelledNotification", &n)
            .is_empty()
    );
    assert!(
        !frontdesk_testkit::Schema::load("2026-07-28")
            .errors("CancelledNotification", &n)
            .is_empty()
    );
    let p: CancelledNotificationParams = serde_json::from_value(n["params"].clone()).unwrap();
    assert_eq!(p.request_id, None);
}

#[test]
fn labelled_digest_examples_validate_against_schema_json() {
    let schemas = [
        frontdesk_testkit::Schema::load("2025-11-25"),
        frontdesk_testkit::Schema::load("2026-07-28"),
    ];
    let examples = digest_examples();
    assert!(
        examples.len() >= 30,
        "only {} labelled examples found",
        examples.len()
    );
    let mut rejected = Vec::new();
    for ex in &examples {
        let schema = schemas
            .iter()
            .find(|s| s.revision() == ex.revision)
            .unwrap_or_else(|| panic!("unknown revision {}", ex.revision));
        let errors = schema.errors(&ex.def, &ex.value);
        if !errors.is_empty() {
            rejected.push((
                format!("{}:{} {}#{}", ex.digest, ex.line, ex.revision, ex.def),
                errors.join("; "),
            ));
        }
    }
    let got: Vec<&str> = rejected.iter().map(|(k, _)| k.as_str()).collect();
    let expected: Vec<&str> = KNOWN_DISAGREEMENTS.iter().map(|(k, _)| *k).collect();
    assert_eq!(got, expected, "details: {rejected:#?}");
}
