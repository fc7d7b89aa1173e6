//! A stdio MCP server for the CLI's tests (built by `cargo test` with the
//! examples) whose tools ask for what is not an elicitation:
//!
//! - `list_roots`: asks for the client's roots and returns them as JSON;
//! - `summarize`: asks for a completion of a fixed prompt and returns the
//!   answer, or the error the client gave.

use frontdesk::server::question::InputRequest;
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};

use frontdesk::wire::CreateMessageRequestParams;
use serde_json::{Value, json};

async fn list_roots(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let answers = cx
        .ask_all(vec![("roots".to_owned(), InputRequest::roots())])
        .await
        .map_err(|e| ToolError::execution(e.to_string()))?;
    Ok(ToolOutput::text(
        answers.first().cloned().unwrap_or(Value::Null).to_string(),
    ))
}

async fn summarize(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text",
            "text": "Summarize the release notes of version 2.4 in one sentence."}}],
        "systemPrompt": "You write short summaries.",
        "maxTokens": 60
    }))
    .map_err(|e| ToolError::execution(e.to_string()))?;
    let prompt = InputRequest::sampling(params);
    match cx.ask_all(vec![("summary".to_owned(), prompt)]).await {
        Ok(answers) => Ok(ToolOutput::text(
            answers.first().cloned().unwrap_or(Value::Null).to_string(),
        )),
        Err(e) => Ok(ToolOutput::text(format!("no summary: {e}"))),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::builder("requests-test", "1.0")
        .tool(ToolDef::new("list_roots", "Lists your roots", list_roots))
        .tool(ToolDef::new(
            "summarize",
            "Asks your model for a summary",
            summarize,
        ))
        .build();
    frontdesk::server::stdio::serve(server, tokio::io::stdin(), tokio::io::stdout()).await
}
