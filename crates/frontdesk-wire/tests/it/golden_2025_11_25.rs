//! 2025-11-25 messages built from Rust values, compared byte for byte with the
//! golden files in `tests/golden/2025-11-25/`, validated against the 2025-11-25
//! schema.json, and parsed back to the same value.
//!
//! Regenerate after an intended change with
//! `FRONTDESK_UPDATE_GOLDEN=1 cargo test -p frontdesk-wire --test it golden_2025_11_25`.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use frontdesk_wire::*;
use serde_json::{Map, Value, json};

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// One golden message: file name, the message, and what to validate it as.
struct Golden {
    file: &'static str,
    message: JsonRpcMessage,
    /// `$defs` entry for the whole message.
    envelope_def: &'static str,
    /// `$defs` entry for `result` (2025-11-25 has no `*ResultResponse` types).
    result_def: Option<&'static str>,
}

fn form_schema() -> Map<String, Value> {
    obj(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "Your full name" },
            "email": { "type": "string", "format": "email", "description": "Your email address" },
            "age": { "type": "number", "minimum": 18, "description": "Your age" }
        },
        "required": ["name", "email"]
    }))
}

const ELICITATION_ID: &str = "550e8400-e29b-41d4-a716-446655440000";

fn url_params() -> ElicitRequestUrlParams {
    ElicitRequestUrlParams::new(
        "Authorization is required to access your Example Co files.",
        format!("https://mcp.example.com/connect?elicitationId={ELICITATION_ID}"),
    )
    .with_elicitation_id(ELICITATION_ID)
}

fn goldens() -> Vec<Golden> {
    let client_caps = ClientCapabilities::with_elicitation(ElicitationModes::BOTH);
    let client_info = Implementation::new("example-host", "1.0.0").with_title("Example Host");
    let initialize = InitializeRequestParams::new(version::V2025_11_25, client_caps, client_info);

    let server_caps = ServerCapabilities {
        tools: Some(ListChangedCapability {
            list_changed: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut init_result = InitializeResult::new(
        version::V2025_11_25,
        server_caps,
        Implementation::new("example-server", "1.0.0"),
    );
    init_result.instructions = Some("Tools may ask you questions.".into());

    let form = ElicitRequestParams::form("Please provide your contact information", form_schema());
    let url = ElicitRequestParams::Url(
        ElicitRequestUrlParams::new(
            "Please provide your API key to continue.",
            "https://mcp.example.com/ui/set_api_key",
        )
        .with_elicitation_id(ELICITATION_ID),
    );

    let accept = ElicitResult::accept(obj(json!({
        "name": "Monalisa Octocat", "email": "octocat@github.com", "age": 30
    })));

    let mut call =
        CallToolRequestParams::new("get_weather", Some(obj(json!({ "location": "New York" }))));
    call.meta = Some(Meta::new().with_progress_token("call-2"));

    let mut call_result = CallToolResult::new(vec![ContentBlock::text(
        "Current weather in New York: 72°F, partly cloudy",
    )]);
    call_result.structured_content =
        Some(json!({ "temperatureF": 72, "conditions": "partly cloudy" }));
    call_result.is_error = Some(false);

    let mut progress = ProgressNotificationParams::new("call-2", 50);
    progress.total = Some(100.into());
    progress.message = Some("Waiting for your answer…".into());

    let mut tool = Tool::new(
        "create_issue",
        obj(json!({
            "type": "object",
            "properties": { "title": { "type": "string" } },
            "required": ["title"]
        })),
    )
    .with_description("File an issue; may ask the user which repository to use");
    tool.annotations = Some(ToolAnnotations {
        read_only_hint: Some(false),
        ..Default::default()
    });
    let mut tools = ListToolsResult::new(vec![tool]);
    tools.next_cursor = Some("page-2".into());

    let resp = |id: i64, v: &dyn erased::Ser| -> JsonRpcMessage {
        JsonRpcResponse::new(id, v.to_object()).into()
    };

    vec![
        Golden {
            file: "initialize-request.json",
            message: JsonRpcRequest::with_params(1, method::INITIALIZE, &initialize)
                .unwrap()
                .into(),
            envelope_def: "InitializeRequest",
            result_def: None,
        },
        Golden {
            file: "initialize-result.json",
            message: resp(1, &init_result),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("InitializeResult"),
        },
        Golden {
            file: "initialized-notification.json",
            message: JsonRpcNotification::new(method::INITIALIZED, None).into(),
            envelope_def: "InitializedNotification",
            result_def: None,
        },
        Golden {
            file: "elicit-request-form.json",
            message: JsonRpcRequest::with_params(41, method::ELICITATION_CREATE, &form)
                .unwrap()
                .into(),
            envelope_def: "ElicitRequest",
            result_def: None,
        },
        Golden {
            file: "elicit-request-url.json",
            message: JsonRpcRequest::with_params(3, method::ELICITATION_CREATE, &url)
                .unwrap()
                .into(),
            envelope_def: "ElicitRequest",
            result_def: None,
        },
        Golden {
            file: "elicit-result-accept.json",
            message: resp(41, &accept),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("ElicitResult"),
        },
        Golden {
            file: "elicit-result-decline.json",
            message: resp(41, &ElicitResult::decline()),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("ElicitResult"),
        },
        Golden {
            file: "elicit-result-cancel.json",
            message: resp(41, &ElicitResult::cancel()),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("ElicitResult"),
        },
        Golden {
            file: "elicit-result-accept-url.json",
            message: resp(3, &ElicitResult::accept_url()),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("ElicitResult"),
        },
        Golden {
            file: "elicitation-complete-notification.json",
            message: JsonRpcNotification::with_params(
                method::NOTIFICATION_ELICITATION_COMPLETE,
                &ElicitationCompleteParams::new(ELICITATION_ID),
            )
            .unwrap()
            .into(),
            envelope_def: "ElicitationCompleteNotification",
            result_def: None,
        },
        Golden {
            file: "url-elicitation-required-error.json",
            message: JsonRpcErrorResponse::new(
                Some(2.into()),
                ErrorObject::url_elicitation_required(
                    "This request requires more information.",
                    vec![url_params()],
                ),
            )
            .into(),
            envelope_def: "URLElicitationRequiredError",
            result_def: None,
        },
        Golden {
            file: "call-tool-request.json",
            message: JsonRpcRequest::with_params(2, method::TOOLS_CALL, &call)
                .unwrap()
                .into(),
            envelope_def: "CallToolRequest",
            result_def: None,
        },
        Golden {
            file: "call-tool-result.json",
            message: resp(2, &call_result),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("CallToolResult"),
        },
        Golden {
            file: "call-tool-result-error.json",
            message: resp(
                2,
                &CallToolResult::error("The user declined to choose a repository."),
            ),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("CallToolResult"),
        },
        Golden {
            file: "cancelled-notification.json",
            message: JsonRpcNotification::with_params(
                method::NOTIFICATION_CANCELLED,
                &CancelledNotificationParams::new(41, Some("The tool call was cancelled".into())),
            )
            .unwrap()
            .into(),
            envelope_def: "CancelledNotification",
            result_def: None,
        },
        Golden {
            file: "progress-notification.json",
            message: JsonRpcNotification::with_params(method::NOTIFICATION_PROGRESS, &progress)
                .unwrap()
                .into(),
            envelope_def: "ProgressNotification",
            result_def: None,
        },
        Golden {
            file: "list-tools-request.json",
            message: JsonRpcRequest::new("list-1", method::TOOLS_LIST, None).into(),
            envelope_def: "ListToolsRequest",
            result_def: None,
        },
        Golden {
            file: "list-tools-result.json",
            message: resp(5, &tools),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("ListToolsResult"),
        },
        Golden {
            file: "error-response-invalid-params.json",
            message: JsonRpcErrorResponse::new(
                Some(3.into()),
                ErrorObject::invalid_params(
                    "Elicitation mode 'url' is not supported by this client",
                ),
            )
            .into(),
            envelope_def: "JSONRPCErrorResponse",
            result_def: None,
        },
        Golden {
            file: "error-response-parse-error.json",
            message: JsonRpcErrorResponse::new(
                None,
                ErrorObject::parse_error("Parse error: Invalid JSON"),
            )
            .into(),
            envelope_def: "JSONRPCErrorResponse",
            result_def: None,
        },
        Golden {
            file: "ping-result.json",
            message: resp(7, &EmptyResult::default()),
            envelope_def: "JSONRPCResultResponse",
            result_def: Some("EmptyResult"),
        },
    ]
}

/// Object-safe serialization to a JSON object, for the `resp` helper.
mod erased {
    pub trait Ser {
        fn to_object(&self) -> serde_json::Map<String, serde_json::Value>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn to_object(&self) -> serde_json::Map<String, serde_json::Value> {
            match serde_json::to_value(self).unwrap() {
                serde_json::Value::Object(m) => m,
                other => panic!("not an object: {other}"),
            }
        }
    }
}

fn golden_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/2025-11-25"
    ))
}

#[test]
fn golden_files_match_byte_for_byte_and_validate() {
    let update = std::env::var_os("FRONTDESK_UPDATE_GOLDEN").is_some();
    let schema = frontdesk_testkit::Schema::load("2025-11-25");
    let mut failures = Vec::new();
    let goldens = goldens();
    for g in &goldens {
        let text = serde_json::to_string_pretty(&g.message).unwrap() + "\n";
        let path = golden_dir().join(g.file);
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("missing golden file {}: {e}", path.display()));
        if expected != text {
            failures.push(format!("{}: differs from the golden file:\n{text}", g.file));
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        let mut errors = schema.errors(g.envelope_def, &value);
        if let Some(def) = g.result_def {
            errors.extend(schema.errors(def, &value["result"]));
        }
        if !errors.is_empty() {
            failures.push(format!("{}: not schema-valid: {errors:?}", g.file));
        }
        // And it reads back as the same message.
        let back = JsonRpcMessage::from_slice(text.as_bytes()).unwrap();
        if back != g.message {
            failures.push(format!("{}: does not read back equal", g.file));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // No stray golden files.
    let mut on_disk: Vec<String> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut expected: Vec<String> = goldens.iter().map(|g| g.file.to_string()).collect();
    expected.sort();
    assert_eq!(on_disk, expected);
}

#[test]
fn golden_messages_parse_into_their_typed_params() {
    let read = |f: &str| {
        let text = std::fs::read_to_string(golden_dir().join(f)).unwrap();
        JsonRpcMessage::from_slice(text.as_bytes()).unwrap()
    };

    let JsonRpcMessage::Request(r) = read("initialize-request.json") else {
        panic!()
    };
    let p: InitializeRequestParams = r.parse_params().unwrap();
    assert_eq!(p.capabilities.elicitation_modes(), ElicitationModes::BOTH);

    let JsonRpcMessage::Request(r) = read("elicit-request-url.json") else {
        panic!()
    };
    let p: ElicitRequestParams = r.parse_params().unwrap();
    let ElicitRequestParams::Url(u) = p else {
        panic!()
    };
    assert_eq!(u.elicitation_id.as_deref(), Some(ELICITATION_ID));

    let JsonRpcMessage::Request(r) = read("elicit-request-form.json") else {
        panic!()
    };
    let p: ElicitRequestParams = r.parse_params().unwrap();
    assert_eq!(p.mode(), ElicitationMode::Form);
    let ElicitRequestParams::Form(f) = p else {
        panic!()
    };
    // requestedSchema keeps its key order.
    let keys: Vec<_> = f.requested_schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["name", "email", "age"]);

    let JsonRpcMessage::Error(e) = read("url-elicitation-required-error.json") else {
        panic!()
    };
    let data = e.error.url_elicitation_required_data().unwrap().unwrap();
    assert_eq!(data.elicitations.len(), 1);
    assert_eq!(
        data.elicitations[0].elicitation_id.as_deref(),
        Some(ELICITATION_ID)
    );

    let JsonRpcMessage::Response(r) = read("elicit-result-decline.json") else {
        panic!()
    };
    let res: ElicitResult = r.parse_result().unwrap();
    assert_eq!(res.action, ElicitAction::Decline);
    // A 2025-11-25 result has no resultType: it classifies as complete.
    assert_eq!(ResultType::of(&r.result).unwrap(), ResultType::Complete);

    let JsonRpcMessage::Request(r) = read("call-tool-request.json") else {
        panic!()
    };
    let p: CallToolRequestParams = r.parse_params().unwrap();
    let token = p.meta.unwrap().progress_token().unwrap().unwrap();
    assert_eq!(token, ProgressToken::from("call-2"));
}
