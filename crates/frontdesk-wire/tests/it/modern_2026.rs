//! 2026-07-28 messages built with this crate's constructors validate against the
//! 2026-07-28 schema.json, and the typed helpers (capabilities, `_meta`,
//! result classification, elicitation modes) behave as the digests say.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use frontdesk_wire::*;
use serde_json::{Map, Value, json};

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn host_meta(caps: &ClientCapabilities) -> Meta {
    Meta::modern_request(
        version::V2026_07_28,
        caps,
        Some(&Implementation::new("example-host", "1.0.0")),
    )
}

#[test]
fn constructed_2026_messages_validate() {
    let schema = frontdesk_testkit::Schema::load("2026-07-28");
    let caps = ClientCapabilities::with_elicitation(ElicitationModes::BOTH);

    // Round 1: tools/call.
    let mut call = CallToolRequestParams::new("create_issue", Some(obj(json!({"title": "Crash"}))));
    call.meta = Some(host_meta(&caps));
    let req = JsonRpcRequest::with_params(1, method::TOOLS_CALL, &call).unwrap();
    schema.assert_valid(
        "CallToolRequest",
        &serde_json::to_value(&req).unwrap(),
        "tools/call",
    );

    // Round 1 answer: input_required with a form and a URL elicitation.
    let form = ElicitRequestParams::form(
        "Which repository?",
        obj(json!({
            "type": "object",
            "properties": {"repo": {"type": "string", "enum": ["acme/api", "acme/web"]}},
            "required": ["repo"]
        })),
    );
    let url = ElicitRequestParams::url(
        "Authorize Drive",
        "https://mcp.example.com/connect?flow=7f3c9a",
    );
    let mut interim = InputRequiredResult::new(
        Some(
            InputRequests::new()
                .with("repo_choice", form)
                .with("drive_auth", url),
        ),
        Some("v1.state.sig".into()),
    );
    interim.meta = Some(Meta::new().with_server_info(&Implementation::new("issues", "2.3.0")));
    interim.check().unwrap();
    assert_eq!(interim.required_capabilities(), caps);
    let resp = JsonRpcResponse::with_result(1, &interim).unwrap();
    let v = serde_json::to_value(&resp).unwrap();
    schema.assert_valid("CallToolResultResponse", &v, "input_required");
    schema.assert_valid("InputRequiredResult", &v["result"], "input_required");
    for (_, r) in v["result"]["inputRequests"].as_object().unwrap() {
        schema.assert_valid("InputRequest", r, "input request");
        schema.assert_valid("ElicitRequest", r, "input request");
        assert!(r["params"].get("elicitationId").is_none());
    }

    // Round 2: retry with answers and the echoed state.
    let mut retry = call.clone();
    retry.retry.input_responses = Some(
        InputResponses::new()
            .with(
                "repo_choice",
                ElicitResult::accept(obj(json!({"repo": "acme/api"}))),
            )
            .with("drive_auth", ElicitResult::accept_url()),
    );
    retry.retry.request_state = Some("v1.state.sig".into());
    let req = JsonRpcRequest::with_params(2, method::TOOLS_CALL, &retry).unwrap();
    schema.assert_valid(
        "CallToolRequest",
        &serde_json::to_value(&req).unwrap(),
        "retry",
    );
    assert!(retry.is_retry());

    // Final result.
    let mut done = CallToolResult::new(vec![ContentBlock::text("Created acme/api#128")]).complete();
    done.structured_content = Some(json!(["any", "json", 1]));
    let resp = JsonRpcResponse::with_result(2, &done).unwrap();
    schema.assert_valid(
        "CallToolResultResponse",
        &serde_json::to_value(&resp).unwrap(),
        "final",
    );
    schema.assert_valid(
        "CallToolResult",
        &serde_json::to_value(&done).unwrap(),
        "final",
    );
    let tool_error = CallToolResult::error("declined").complete();
    schema.assert_valid(
        "CallToolResult",
        &serde_json::to_value(&tool_error).unwrap(),
        "tool error",
    );

    // Discovery and listing.
    let mut discover = DiscoverResult::new(
        version::SUPPORTED.iter().map(|s| s.to_string()).collect(),
        ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            ..Default::default()
        },
        3_600_000,
        CacheScope::Public,
    );
    discover.meta = Some(Meta::new().with_server_info(&Implementation::new("s", "1")));
    schema.assert_valid(
        "DiscoverResult",
        &serde_json::to_value(&discover).unwrap(),
        "discover",
    );
    let req = JsonRpcRequest::with_params(
        "d",
        method::SERVER_DISCOVER,
        &MetaParams::new(host_meta(&caps)),
    )
    .unwrap();
    schema.assert_valid(
        "DiscoverRequest",
        &serde_json::to_value(&req).unwrap(),
        "discover req",
    );

    let tools = ListToolsResult::modern(
        vec![Tool::new("t", obj(json!({"type": "object"})))],
        300_000,
        CacheScope::Private,
    );
    schema.assert_valid(
        "ListToolsResult",
        &serde_json::to_value(&tools).unwrap(),
        "tools/list",
    );
    let list = PaginatedRequestParams {
        meta: Some(host_meta(&caps)),
        ..Default::default()
    };
    let req = JsonRpcRequest::with_params(3, method::TOOLS_LIST, &list).unwrap();
    schema.assert_valid(
        "ListToolsRequest",
        &serde_json::to_value(&req).unwrap(),
        "tools/list req",
    );

    // Errors.
    for (def, error) in [
        (
            "UnsupportedProtocolVersionError",
            ErrorObject::unsupported_protocol_version(
                "1900-01-01",
                version::SUPPORTED.iter().copied(),
            ),
        ),
        (
            "MissingRequiredClientCapabilityError",
            ErrorObject::missing_required_client_capability(
                "This tool requires URL mode elicitation",
                ClientCapabilities::with_elicitation(ElicitationModes::URL),
            ),
        ),
        (
            "HeaderMismatchError",
            ErrorObject::header_mismatch("Mcp-Name does not match params.name"),
        ),
        (
            "JSONRPCErrorResponse",
            ErrorObject::invalid_params("Invalid params: missing _meta"),
        ),
    ] {
        let resp = JsonRpcErrorResponse::new(Some(1.into()), error);
        schema.assert_valid(def, &serde_json::to_value(&resp).unwrap(), def);
    }
    for (def, error) in [
        ("ParseError", ErrorObject::parse_error("Parse error")),
        (
            "InvalidRequestError",
            ErrorObject::invalid_request("Invalid request"),
        ),
        (
            "MethodNotFoundError",
            ErrorObject::method_not_found("foo/bar"),
        ),
        (
            "InvalidParamsError",
            ErrorObject::invalid_params("Unknown tool: x"),
        ),
        ("InternalError", ErrorObject::internal_error("oops")),
    ] {
        schema.assert_valid(def, &serde_json::to_value(&error).unwrap(), def);
    }

    // Notifications.
    let mut p = ProgressNotificationParams::new(7, serde_json::Number::from_f64(0.5).unwrap());
    p.message = Some("waiting for the user".into());
    let n = JsonRpcNotification::with_params(method::NOTIFICATION_PROGRESS, &p).unwrap();
    schema.assert_valid(
        "ProgressNotification",
        &serde_json::to_value(&n).unwrap(),
        "progress",
    );
    let n = JsonRpcNotification::with_params(
        method::NOTIFICATION_CANCELLED,
        &CancelledNotificationParams::new("r-1", None),
    )
    .unwrap();
    schema.assert_valid(
        "CancelledNotification",
        &serde_json::to_value(&n).unwrap(),
        "cancel",
    );
}

#[test]
fn elicitation_modes_follow_the_capability_table() {
    let modes = |v: Value| {
        serde_json::from_value::<ClientCapabilities>(v)
            .unwrap()
            .elicitation_modes()
    };
    assert_eq!(modes(json!({})), ElicitationModes::NONE);
    assert_eq!(modes(json!({"elicitation": {}})), ElicitationModes::FORM);
    assert_eq!(
        modes(json!({"elicitation": {"form": {}}})),
        ElicitationModes::FORM
    );
    assert_eq!(
        modes(json!({"elicitation": {"url": {}}})),
        ElicitationModes::URL
    );
    assert_eq!(
        modes(json!({"elicitation": {"form": {}, "url": {}}})),
        ElicitationModes::BOTH
    );
    assert!(!ElicitationModes::URL.allows(ElicitationMode::Form));
    // `form: true` is not an object: invalid.
    assert!(
        serde_json::from_value::<ClientCapabilities>(json!({"elicitation": {"form": true}}))
            .is_err()
    );

    let caps = ClientCapabilities::with_elicitation(ElicitationModes::URL);
    let form = InputRequest::from(ElicitRequestParams::form("m", Map::new()));
    let url = InputRequest::from(ElicitRequestParams::url("m", "https://x.example"));
    assert!(!form.is_allowed_by(&caps));
    assert!(url.is_allowed_by(&caps));
}

#[test]
fn elicit_params_dispatch_on_mode() {
    let p: ElicitRequestParams = serde_json::from_value(
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
    )
    .unwrap();
    assert_eq!(p.mode(), ElicitationMode::Form);
    let p: ElicitRequestParams =
        serde_json::from_value(json!({"mode": "url", "message": "m", "url": "https://x.example"}))
            .unwrap();
    assert_eq!(p.mode(), ElicitationMode::Url);
    assert_eq!(p.message(), "m");
    // Unknown mode, URL without url, form without schema: errors.
    for bad in [
        json!({"mode": "telepathy", "message": "m"}),
        json!({"mode": "url", "message": "m"}),
        json!({"mode": "form", "message": "m"}),
        json!({"mode": 1, "message": "m"}),
    ] {
        assert!(
            serde_json::from_value::<ElicitRequestParams>(bad.clone()).is_err(),
            "{bad}"
        );
    }
    // Unknown actions are errors; all three known ones work.
    assert!(serde_json::from_value::<ElicitResult>(json!({"action": "maybe"})).is_err());
    for a in ["accept", "decline", "cancel"] {
        let r: ElicitResult = serde_json::from_value(json!({"action": a})).unwrap();
        assert_eq!(serde_json::to_value(r).unwrap(), json!({"action": a}));
    }
}

#[test]
fn results_classify_by_result_type() {
    let of = |v: Value| ResultType::of(v.as_object().unwrap());
    assert_eq!(of(json!({"content": []})).unwrap(), ResultType::Complete);
    assert_eq!(
        of(json!({"resultType": "complete"})).unwrap(),
        ResultType::Complete
    );
    assert_eq!(
        of(json!({"resultType": "input_required"})).unwrap(),
        ResultType::InputRequired
    );
    assert_eq!(
        of(json!({"resultType": "task"})).unwrap(),
        ResultType::Other("task".into())
    );
    assert_eq!(
        of(json!({"resultType": 1})),
        Err(ResultTypeError::NotAString)
    );

    type R = MaybeInputRequired<CallToolResult>;
    let legacy: R = serde_json::from_value(json!({"content": []})).unwrap();
    assert!(matches!(legacy, MaybeInputRequired::Complete(_)));
    let state_only: R =
        serde_json::from_value(json!({"resultType": "input_required", "requestState": "s"}))
            .unwrap();
    assert!(matches!(state_only, MaybeInputRequired::InputRequired(_)));
    assert!(serde_json::from_value::<R>(json!({"resultType": "task", "content": []})).is_err());

    assert!(method::may_require_input(method::RESOURCES_READ));
    assert!(!method::may_require_input(method::TOOLS_LIST));
}

#[test]
fn request_meta_is_checked() {
    let caps = ClientCapabilities::with_elicitation(ElicitationModes::FORM);
    let good = host_meta(&caps)
        .with_progress_token(5)
        .with_log_level(LoggingLevel::Warning);
    let f = good.request_fields().unwrap();
    assert_eq!(f.protocol_version, "2026-07-28");
    assert_eq!(f.client_capabilities, caps);
    assert_eq!(f.progress_token, Some(ProgressToken::from(5)));
    assert_eq!(f.log_level, Some(LoggingLevel::Warning));

    assert_eq!(request_fields(None), Err(MetaError::Absent));
    let no_caps = Meta::new().with_protocol_version("2026-07-28");
    assert_eq!(
        no_caps.request_fields(),
        Err(MetaError::Missing(meta_key::CLIENT_CAPABILITIES))
    );
    let no_version = Meta::new().with_client_capabilities(&caps);
    let err = no_version.request_fields().unwrap_err();
    assert_eq!(err, MetaError::Missing(meta_key::PROTOCOL_VERSION));
    assert_eq!(err.to_error_object().code, ErrorCode::INVALID_PARAMS);
    let bad = host_meta(&caps).with(meta_key::LOG_LEVEL, json!("loud"));
    assert!(matches!(
        bad.request_fields(),
        Err(MetaError::Invalid {
            key: meta_key::LOG_LEVEL,
            ..
        })
    ));
}

#[test]
fn error_codes_and_typed_data() {
    assert_eq!(ErrorCode::URL_ELICITATION_REQUIRED.0, -32042);
    assert_eq!(ErrorCode::HEADER_MISMATCH.0, -32020);
    assert_eq!(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0, -32021);
    assert_eq!(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0, -32022);
    assert_eq!(ErrorCode::PARSE_ERROR.to_string(), "-32700 (ParseError)");
    assert!(ErrorCode::HEADER_MISMATCH.is_mcp_reserved());
    assert!(!ErrorCode::RESOURCE_NOT_FOUND.is_mcp_reserved());
    assert_eq!(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.http_status_2026(),
        Some(400)
    );
    assert_eq!(ErrorCode::METHOD_NOT_FOUND.http_status_2026(), Some(404));

    let e = ErrorObject::url_elicitation_required(
        "Need auth",
        vec![ElicitRequestUrlParams::new("m", "https://x.example").with_elicitation_id("e1")],
    );
    let data = e.url_elicitation_required_data().unwrap().unwrap();
    assert_eq!(data.elicitations[0].elicitation_id.as_deref(), Some("e1"));
    // Typed data accessors only answer for their own code.
    assert!(e.unsupported_protocol_version_data().is_none());
    assert!(
        ErrorObject::invalid_params("x")
            .data_as::<Value>()
            .is_none()
    );
}
