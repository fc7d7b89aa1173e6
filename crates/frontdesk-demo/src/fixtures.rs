//! The tools and prompt the MCP conformance suite calls (server scenarios of
//! 2025-11-25 and 2026-07-28). Names, keys, messages and schemas are exactly
//! what the suite expects; see the suite's scenario sources (installed by
//! `scripts/conformance.sh`).

use serde_json::{Map, Value, json};

use frontdesk::server::{
    Answer, AskError, FormSchema, InputRequest, LoggingLevel, NoArgs, PromptDef, PromptOutput,
    Question, Role, ServerBuilder, ToolContext, ToolDef, ToolError, ToolOutput,
};

/// A schema the fixture defines literally (trusted, so read leniently: the
/// suite wants these exact bytes, including the legacy `enumNames`).
fn literal(schema: Value) -> FormSchema {
    FormSchema::parse(&schema)
        .map(|p| p.schema)
        .expect("fixture schemas are JSON objects")
}

/// One question of any kind under `key`; the client's raw result.
async fn one(cx: &ToolContext, key: &str, request: InputRequest) -> Result<Value, AskError> {
    let mut answers = cx.ask_all(vec![(key.to_string(), request)]).await?;
    answers
        .pop()
        .ok_or_else(|| AskError::Internal("no answer recorded".into()))
}

fn text_answer(answer: &Answer<Map<String, Value>>) -> String {
    match answer {
        Answer::Accepted(content) => {
            format!("action=accept, content={}", Value::Object(content.clone()))
        }
        other => format!("action={}", other.action()),
    }
}

/// Arguments of `test_elicitation`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ElicitationArgs {
    /// The message to show.
    pub message: String,
}

async fn test_elicitation(cx: ToolContext, args: ElicitationArgs) -> Result<ToolOutput, ToolError> {
    let schema = literal(json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    }));
    let answer = cx
        .ask(Question::schema(args.message.clone(), schema).key("user_info"))
        .await?;
    Ok(ToolOutput::text(format!(
        "User response: {}",
        text_answer(&answer)
    )))
}

async fn sep1034_defaults(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let schema = literal(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    }));
    let answer = cx
        .ask(
            Question::schema(
                "Please review and update the form fields with defaults",
                schema,
            )
            .key("defaults"),
        )
        .await?;
    Ok(ToolOutput::text(format!(
        "Elicitation completed: {}",
        text_answer(&answer)
    )))
}

async fn sep1330_enums(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let schema = literal(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Choose a titled option", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Choose multiple options", "minItems": 1, "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Choose multiple titled options", "minItems": 1, "maxItems": 3,
                "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
        },
        "required": []
    }));
    let answer = cx
        .ask(Question::schema("Please select options from the enum fields", schema).key("enums"))
        .await?;
    Ok(ToolOutput::text(format!(
        "Elicitation completed: {}",
        text_answer(&answer)
    )))
}

fn name_schema() -> FormSchema {
    literal(
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
}

fn confirm_schema() -> FormSchema {
    literal(
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    )
}

async fn ir_elicitation(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(
        match cx
            .ask(Question::schema("What is your name?", name_schema()).key("user_name"))
            .await?
        {
            Answer::Accepted(c) => ToolOutput::text(format!(
                "Hello, {}!",
                c["name"].as_str().unwrap_or_default()
            )),
            other => ToolOutput::text(format!("No name given ({}).", other.action())),
        },
    )
}

fn capital_question() -> InputRequest {
    InputRequest::sampling(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100
    }))
}

async fn ir_sampling(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let result = one(&cx, "capital_question", capital_question()).await?;
    let text = result["content"]["text"].as_str().unwrap_or_default();
    Ok(ToolOutput::text(format!("Sampling answered: {text}")))
}

async fn ir_roots(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let result = one(&cx, "client_roots", InputRequest::roots()).await?;
    let count = result["roots"].as_array().map_or(0, Vec::len);
    Ok(ToolOutput::text(format!("The client has {count} root(s).")))
}

async fn ir_request_state(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let answer = cx
        .ask(Question::schema("Please confirm", confirm_schema()).key("confirm"))
        .await?;
    Ok(ToolOutput::text(format!(
        "state-ok: {}",
        text_answer(&answer)
    )))
}

async fn ir_multiple(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let answers = cx
        .ask_all(vec![
            ("user_name".into(), InputRequest::form("What is your name?", name_schema())),
            (
                "greeting".into(),
                InputRequest::sampling(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
                    "maxTokens": 50
                })),
            ),
            ("client_roots".into(), InputRequest::roots()),
        ])
        .await?;
    Ok(ToolOutput::text(format!(
        "Received {} answers.",
        answers.len()
    )))
}

async fn ir_multi_round(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let name = cx
        .ask(Question::schema("Step 1: What is your name?", name_schema()).key("step1"))
        .await?;
    let color_schema = literal(
        json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
    );
    let color = cx
        .ask(Question::schema("Step 2: What is your favorite color?", color_schema).key("step2"))
        .await?;
    Ok(ToolOutput::text(format!(
        "step1 {}; step2 {}",
        text_answer(&name),
        text_answer(&color)
    )))
}

async fn ir_capabilities(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let wanted = [
        (
            "user_name",
            InputRequest::form("What is your name?", name_schema()),
        ),
        ("capital_question", capital_question()),
        ("client_roots", InputRequest::roots()),
    ];
    let questions: Vec<(String, InputRequest)> = wanted
        .into_iter()
        .filter(|(_, q)| cx.supports(q))
        .map(|(k, q)| (k.to_string(), q))
        .collect();
    if questions.is_empty() {
        return Err(ToolError::Ask(AskError::MissingCapability {
            required: json!({"elicitation": {}}),
        }));
    }
    let answers = cx.ask_all(questions).await?;
    Ok(ToolOutput::text(format!(
        "Received {} answers using declared capabilities only.",
        answers.len()
    )))
}

async fn missing_capability(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let result = one(&cx, "capital_question", capital_question()).await?;
    Ok(ToolOutput::text(format!(
        "Sampling answered: {}",
        result["content"]["text"]
    )))
}

async fn logging_tool(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.log(LoggingLevel::Info, json!("test_logging_tool ran"));
    Ok(ToolOutput::text(
        "Logged (only when the client asked for logs).",
    ))
}

async fn streaming_elicitation(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.progress("Preparing the question");
    ir_elicitation(cx, NoArgs {}).await
}

async fn ir_prompt(cx: ToolContext, _: Map<String, Value>) -> Result<PromptOutput, ToolError> {
    let schema = literal(
        json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}),
    );
    match cx
        .ask(Question::schema("What context should the prompt use?", schema).key("user_context"))
        .await?
    {
        Answer::Accepted(c) => Ok(PromptOutput::new()
            .description("A prompt built from the person's context")
            .text(
                Role::User,
                format!(
                    "Use this context: {}",
                    c["context"].as_str().unwrap_or_default()
                ),
            )),
        other => Ok(PromptOutput::new().text(
            Role::User,
            format!("No context given ({}).", other.action()),
        )),
    }
}

/// Add every fixture to `builder`.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(ToolDef::new(
            "test_elicitation",
            "Ask the user for a username and email",
            test_elicitation,
        ))
        .tool(ToolDef::new(
            "test_elicitation_sep1034_defaults",
            "Elicitation with defaults on every primitive (SEP-1034)",
            sep1034_defaults,
        ))
        .tool(ToolDef::new(
            "test_elicitation_sep1330_enums",
            "Elicitation with every enum variant (SEP-1330)",
            sep1330_enums,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_elicitation",
            "MRTR: one elicitation (user_name)",
            ir_elicitation,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_sampling",
            "MRTR: one sampling request",
            ir_sampling,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_list_roots",
            "MRTR: one roots request",
            ir_roots,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_request_state",
            "MRTR: elicitation plus sealed request state",
            ir_request_state,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_multiple_inputs",
            "MRTR: elicitation, sampling and roots in one round",
            ir_multiple,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_multi_round",
            "MRTR: two rounds (step1, step2)",
            ir_multi_round,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_tampered_state",
            "MRTR: rejects tampered request state",
            ir_request_state,
        ))
        .tool(ToolDef::new(
            "test_input_required_result_capabilities",
            "MRTR: asks only what the client declared",
            ir_capabilities,
        ))
        .tool(ToolDef::new(
            "test_missing_capability",
            "Needs sampling; -32021 without it",
            missing_capability,
        ))
        .tool(ToolDef::new(
            "test_logging_tool",
            "Logs only when the client asked for logs",
            logging_tool,
        ))
        .tool(ToolDef::new(
            "test_streaming_elicitation",
            "Progress, then an elicitation",
            streaming_elicitation,
        ))
        .prompt(PromptDef::new(
            "test_input_required_result_prompt",
            "MRTR on prompts/get (user_context)",
            ir_prompt,
        ))
}
