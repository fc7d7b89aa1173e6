//! Every official 2026-07-28 example that is a type of this crate parses into
//! that type and serializes back to equal JSON; the output also validates
//! against the 2026-07-28 schema.json. The examples are the whole official
//! tree, carried by `frontdesk-testkit`.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use frontdesk_wire::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

type RoundTrip = fn(&Value) -> Result<Value, String>;

/// Parse straight into `T` and serialize back.
fn direct<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// Classify as a request, parse `params` as `P`, rebuild the request from the
/// typed params (as a runtime would) and serialize.
fn request<P: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    let msg = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
    let JsonRpcMessage::Request(req) = msg else {
        return Err(format!("not classified as a request: {msg:?}"));
    };
    let params: P = req.parse_params().map_err(|e| e.to_string())?;
    let mut rebuilt = JsonRpcRequest::with_params(req.id.clone(), req.method.clone(), &params)
        .map_err(|e| e.to_string())?;
    rebuilt.extra = req.extra;
    serde_json::to_value(JsonRpcMessage::Request(rebuilt)).map_err(|e| e.to_string())
}

/// Same for notifications.
fn notification<P: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    let msg = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
    let JsonRpcMessage::Notification(n) = msg else {
        return Err(format!("not classified as a notification: {msg:?}"));
    };
    let params: P = n.parse_params().map_err(|e| e.to_string())?;
    let mut rebuilt =
        JsonRpcNotification::with_params(n.method.clone(), &params).map_err(|e| e.to_string())?;
    rebuilt.extra = n.extra;
    serde_json::to_value(JsonRpcMessage::Notification(rebuilt)).map_err(|e| e.to_string())
}

/// Same for success responses, with the result typed as `R`.
fn response<R: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
    let msg = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
    let JsonRpcMessage::Response(r) = msg else {
        return Err(format!("not classified as a response: {msg:?}"));
    };
    let result: R = r.parse_result().map_err(|e| e.to_string())?;
    let mut rebuilt =
        JsonRpcResponse::with_result(r.id.clone(), &result).map_err(|e| e.to_string())?;
    rebuilt.extra = r.extra;
    serde_json::to_value(JsonRpcMessage::Response(rebuilt)).map_err(|e| e.to_string())
}

/// Same for error responses, with `error.data` typed as `D`, and checks the code.
fn error_response<D: DeserializeOwned + Serialize>(code: ErrorCode) -> RoundTrip {
    fn go<D: DeserializeOwned + Serialize>(v: &Value, code: ErrorCode) -> Result<Value, String> {
        let msg = JsonRpcMessage::from_value(v.clone()).map_err(|e| e.to_string())?;
        let JsonRpcMessage::Error(mut e) = msg else {
            return Err(format!("not classified as an error response: {msg:?}"));
        };
        if e.error.code != code {
            return Err(format!("code {} != {code}", e.error.code));
        }
        if let Some(data) = e.error.data_as::<D>() {
            let data = data.map_err(|e| e.to_string())?;
            e.error.data = Some(serde_json::to_value(&data).map_err(|e| e.to_string())?);
        }
        serde_json::to_value(JsonRpcMessage::Error(e)).map_err(|e| e.to_string())
    }
    match code {
        ErrorCode::HEADER_MISMATCH => |v| go::<D>(v, ErrorCode::HEADER_MISMATCH),
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            |v| go::<D>(v, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
        }
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
            |v| go::<D>(v, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
        }
        _ => unreachable!("no error-response example for {code}"),
    }
}

/// A bare error object with an expected code.
fn error_object(code: i32) -> RoundTrip {
    fn go(v: &Value, code: i32) -> Result<Value, String> {
        let e: ErrorObject = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        if e.code != ErrorCode(code) {
            return Err(format!("code {} != {code}", e.code));
        }
        serde_json::to_value(&e).map_err(|e| e.to_string())
    }
    match code {
        -32700 => |v| go(v, -32700),
        -32601 => |v| go(v, -32601),
        -32602 => |v| go(v, -32602),
        -32603 => |v| go(v, -32603),
        _ => unreachable!("no error-object example for {code}"),
    }
}

/// Folder name (= `$defs` entry) → how it round-trips through this crate.
fn covered() -> Vec<(&'static str, RoundTrip)> {
    vec![
        // content
        ("AudioContent", direct::<AudioContent>),
        ("BlobResourceContents", direct::<BlobResourceContents>),
        ("EmbeddedResource", direct::<EmbeddedResource>),
        ("ImageContent", direct::<ImageContent>),
        ("Resource", direct::<Resource>),
        ("ResourceLink", direct::<ResourceLink>),
        ("TextContent", direct::<TextContent>),
        ("TextResourceContents", direct::<TextResourceContents>),
        ("ToolResultContent", direct::<ToolResultContent>),
        ("ToolUseContent", direct::<ToolUseContent>),
        // tools
        ("CallToolRequest", request::<CallToolRequestParams>),
        ("CallToolRequestParams", direct::<CallToolRequestParams>),
        ("CallToolResult", direct::<CallToolResult>),
        (
            "CallToolResultResponse",
            response::<MaybeInputRequired<CallToolResult>>,
        ),
        ("ListToolsRequest", request::<PaginatedRequestParams>),
        ("ListToolsResult", direct::<ListToolsResult>),
        ("ListToolsResultResponse", response::<ListToolsResult>),
        ("PaginatedRequestParams", direct::<PaginatedRequestParams>),
        ("Tool", direct::<Tool>),
        // capabilities, discovery
        ("ClientCapabilities", direct::<ClientCapabilities>),
        ("ServerCapabilities", direct::<ServerCapabilities>),
        ("DiscoverRequest", request::<MetaParams>),
        ("DiscoverResult", direct::<DiscoverResult>),
        ("DiscoverResultResponse", response::<DiscoverResult>),
        // elicitation and MRTR
        ("ElicitRequest", direct::<ElicitRequest>),
        ("ElicitRequestFormParams", direct::<ElicitRequestFormParams>),
        ("ElicitRequestURLParams", direct::<ElicitRequestUrlParams>),
        ("ElicitResult", direct::<ElicitResult>),
        ("InputRequests", direct::<InputRequests>),
        ("InputRequiredResult", direct::<InputRequiredResult>),
        ("InputResponses", direct::<InputResponses>),
        // sampling and roots (input requests)
        ("CreateMessageRequest", direct::<CreateMessageRequest>),
        (
            "CreateMessageRequestParams",
            direct::<CreateMessageRequestParams>,
        ),
        ("CreateMessageResult", direct::<CreateMessageResult>),
        ("ListRootsRequest", direct::<ListRootsRequest>),
        ("ListRootsResult", direct::<ListRootsResult>),
        ("Root", direct::<Root>),
        ("SamplingMessage", direct::<SamplingMessage>),
        // prompts and resources
        ("GetPromptRequest", request::<GetPromptRequestParams>),
        ("GetPromptRequestParams", direct::<GetPromptRequestParams>),
        ("GetPromptResult", direct::<GetPromptResult>),
        (
            "GetPromptResultResponse",
            response::<MaybeInputRequired<GetPromptResult>>,
        ),
        ("ListPromptsRequest", request::<PaginatedRequestParams>),
        ("ListPromptsResult", direct::<ListPromptsResult>),
        ("ListPromptsResultResponse", response::<ListPromptsResult>),
        ("ListResourcesRequest", request::<PaginatedRequestParams>),
        ("ListResourcesResult", direct::<ListResourcesResult>),
        (
            "ListResourcesResultResponse",
            response::<ListResourcesResult>,
        ),
        (
            "ListResourceTemplatesRequest",
            request::<PaginatedRequestParams>,
        ),
        (
            "ListResourceTemplatesResult",
            direct::<ListResourceTemplatesResult>,
        ),
        (
            "ListResourceTemplatesResultResponse",
            response::<ListResourceTemplatesResult>,
        ),
        ("ReadResourceRequest", request::<ReadResourceRequestParams>),
        ("ReadResourceResult", direct::<ReadResourceResult>),
        (
            "ReadResourceResultResponse",
            response::<MaybeInputRequired<ReadResourceResult>>,
        ),
        // completion and subscriptions
        ("CompleteRequest", request::<CompleteRequestParams>),
        ("CompleteRequestParams", direct::<CompleteRequestParams>),
        ("CompleteResult", direct::<CompleteResult>),
        ("CompleteResultResponse", response::<CompleteResult>),
        (
            "SubscriptionsAcknowledgedNotification",
            notification::<SubscriptionsAcknowledgedParams>,
        ),
        (
            "SubscriptionsListenRequest",
            request::<SubscriptionsListenRequestParams>,
        ),
        (
            "SubscriptionsListenResult",
            direct::<SubscriptionsListenResult>,
        ),
        (
            "SubscriptionsListenResultResponse",
            response::<SubscriptionsListenResult>,
        ),
        // notifications
        (
            "CancelledNotification",
            notification::<CancelledNotificationParams>,
        ),
        (
            "CancelledNotificationParams",
            direct::<CancelledNotificationParams>,
        ),
        (
            "ProgressNotification",
            notification::<ProgressNotificationParams>,
        ),
        (
            "ProgressNotificationParams",
            direct::<ProgressNotificationParams>,
        ),
        (
            "LoggingMessageNotification",
            notification::<LoggingMessageNotificationParams>,
        ),
        (
            "LoggingMessageNotificationParams",
            direct::<LoggingMessageNotificationParams>,
        ),
        ("PromptListChangedNotification", notification::<MetaParams>),
        (
            "ResourceListChangedNotification",
            notification::<MetaParams>,
        ),
        ("ToolListChangedNotification", notification::<MetaParams>),
        (
            "ResourceUpdatedNotification",
            notification::<ResourceUpdatedNotificationParams>,
        ),
        (
            "ResourceUpdatedNotificationParams",
            direct::<ResourceUpdatedNotificationParams>,
        ),
        // errors
        (
            "HeaderMismatchError",
            error_response::<Value>(ErrorCode::HEADER_MISMATCH),
        ),
        (
            "MissingRequiredClientCapabilityError",
            error_response::<MissingRequiredClientCapabilityData>(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            ),
        ),
        (
            "UnsupportedProtocolVersionError",
            error_response::<UnsupportedProtocolVersionData>(
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            ),
        ),
        ("InternalError", error_object(-32603)),
        ("InvalidParamsError", error_object(-32602)),
        ("MethodNotFoundError", error_object(-32601)),
        ("ParseError", error_object(-32700)),
    ]
}

/// Folders deliberately not covered, with the reason.
const NOT_COVERED: &[(&str, &str)] = &[
    ("BooleanSchema", "requestedSchema property: frontdesk-form"),
    ("NumberSchema", "requestedSchema property: frontdesk-form"),
    ("StringSchema", "requestedSchema property: frontdesk-form"),
    (
        "TitledMultiSelectEnumSchema",
        "requestedSchema property: frontdesk-form",
    ),
    (
        "TitledSingleSelectEnumSchema",
        "requestedSchema property: frontdesk-form",
    ),
    (
        "UntitledMultiSelectEnumSchema",
        "requestedSchema property: frontdesk-form",
    ),
    (
        "UntitledSingleSelectEnumSchema",
        "requestedSchema property: frontdesk-form",
    ),
    (
        "ModelPreferences",
        "kept as a raw object inside sampling params",
    ),
];

#[test]
fn every_example_folder_is_either_covered_or_listed_as_not_covered() {
    let folders = frontdesk_testkit::example_folders();
    let covered: BTreeSet<String> = covered().iter().map(|(n, _)| n.to_string()).collect();
    let skipped: BTreeSet<String> = NOT_COVERED.iter().map(|(n, _)| n.to_string()).collect();
    assert!(
        covered.is_disjoint(&skipped),
        "a folder is both covered and skipped"
    );
    let known: BTreeSet<String> = covered.union(&skipped).cloned().collect();
    let unknown: Vec<_> = folders.difference(&known).collect();
    assert!(
        unknown.is_empty(),
        "new example folders, map or skip them: {unknown:?}"
    );
    let stale: Vec<_> = known.difference(&folders).collect();
    assert!(
        stale.is_empty(),
        "listed folders that no longer exist: {stale:?}"
    );
    assert_eq!(covered.len(), 80);
    assert_eq!(skipped.len(), 8);
    assert_eq!(folders.len(), 88);
}

#[test]
fn covered_examples_round_trip_and_stay_schema_valid() {
    let schema = frontdesk_testkit::Schema::load("2026-07-28");
    let dir = frontdesk_testkit::examples_dir();
    let mut files = 0;
    let mut failures = Vec::new();
    for (folder, round_trip) in covered() {
        let mut entries: Vec<_> = std::fs::read_dir(dir.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        entries.sort();
        assert!(!entries.is_empty(), "{folder} has no examples");
        for path in entries {
            files += 1;
            let original = frontdesk_testkit::read_json(&path);
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            match round_trip(&original) {
                Err(e) => failures.push(format!("{name}: does not parse: {e}")),
                Ok(out) if out != original => failures.push(format!(
                    "{name}: round trip differs:\n  in:  {original}\n  out: {out}"
                )),
                Ok(out) => {
                    let errors = schema.errors(folder, &out);
                    if !errors.is_empty() {
                        failures.push(format!("{name}: output not schema-valid: {errors:?}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(files, 121, "number of covered example files");
}

#[test]
fn unknown_members_survive_everywhere() {
    // Add an unknown member at every object level of every covered example
    // (except open-ended maps, where it is just another entry) and check the
    // round trip still returns it.
    // `open` marks maps whose entries are all of one type (keyed by the
    // server or the client), where an unknown *entry* would be invalid.
    fn add_unknown(v: &mut Value, open: bool) {
        match v {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    add_unknown(child, key == "inputRequests" || key == "inputResponses");
                }
                if !open {
                    map.insert("x-frontdesk-test".into(), Value::from(1));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| add_unknown(i, false)),
            _ => {}
        }
    }
    let dir = frontdesk_testkit::examples_dir();
    for (folder, round_trip) in covered() {
        for entry in std::fs::read_dir(dir.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let mut value = frontdesk_testkit::read_json(&path);
            add_unknown(
                &mut value,
                matches!(folder, "InputRequests" | "InputResponses"),
            );
            let out = round_trip(&value).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(out, value, "{}", path.display());
        }
    }
}

#[test]
fn typed_views_of_examples_are_right() {
    let dir = frontdesk_testkit::examples_dir();
    let v = frontdesk_testkit::read_json(&dir.join(
        "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json",
    ));
    let r: MaybeInputRequired<CallToolResult> = serde_json::from_value(v).unwrap();
    let MaybeInputRequired::InputRequired(r) = r else {
        panic!("complete?")
    };
    r.check().unwrap();
    let reqs = r.input_requests.as_ref().unwrap();
    let keys: Vec<_> = reqs.0.keys().cloned().collect();
    assert_eq!(keys, ["github_login", "capital_of_france"]);
    let InputRequest::Elicit(e) = &reqs.0["github_login"] else {
        panic!()
    };
    // `mode` absent means form; it stays absent on the way out.
    let ElicitRequestParams::Form(f) = &e.params else {
        panic!()
    };
    assert!(f.mode.is_none());
    assert!(matches!(
        reqs.0["capital_of_france"],
        InputRequest::CreateMessage(_)
    ));
    let needs = r.required_capabilities();
    assert_eq!(needs.elicitation_modes(), ElicitationModes::FORM);
    assert!(needs.sampling.is_some());

    let v = frontdesk_testkit::read_json(
        &dir.join("InputResponses/elicitation-and-sampling-input-responses.json"),
    );
    let responses: InputResponses = serde_json::from_value(v).unwrap();
    assert_eq!(
        responses.elicit_result("github_login").unwrap().action,
        ElicitAction::Accept
    );
    assert!(matches!(
        responses.0["capital_of_france"],
        InputResponse::CreateMessage(_)
    ));

    let v = frontdesk_testkit::read_json(&dir.join("CallToolRequest/call-tool-request.json"));
    let JsonRpcMessage::Request(req) = JsonRpcMessage::from_value(v).unwrap() else {
        panic!()
    };
    assert_eq!(req.id, RequestId::from("call-tool-example"));
    let params: CallToolRequestParams = req.parse_params().unwrap();
    let fields = request_fields(params.meta.as_ref()).unwrap();
    assert_eq!(fields.protocol_version, version::V2026_07_28);
    assert_eq!(fields.client_capabilities, ClientCapabilities::default());
    assert_eq!(fields.client_info.unwrap().name, "ExampleClient");

    let v = frontdesk_testkit::read_json(
        &dir.join("UnsupportedProtocolVersionError/unsupported-version.json"),
    );
    let JsonRpcMessage::Error(e) = JsonRpcMessage::from_value(v).unwrap() else {
        panic!()
    };
    let data = e
        .error
        .unsupported_protocol_version_data()
        .unwrap()
        .unwrap();
    assert_eq!(data.requested, "1900-01-01");
    assert_eq!(data.supported, ["2026-07-28", "2025-11-25"]);

    let v = frontdesk_testkit::read_json(
        &dir.join("MissingRequiredClientCapabilityError/missing-elicitation-capability.json"),
    );
    let JsonRpcMessage::Error(e) = JsonRpcMessage::from_value(v).unwrap() else {
        panic!()
    };
    let data = e
        .error
        .missing_required_client_capability_data()
        .unwrap()
        .unwrap();
    assert_eq!(
        data.required_capabilities.elicitation_modes(),
        ElicitationModes::FORM
    );

    let _unused: Map<String, Value> = Map::new();
}
