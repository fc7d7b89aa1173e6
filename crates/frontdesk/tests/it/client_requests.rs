//! Sampling and roots requests reach their handlers on both revisions (a live
//! request on 2025-11-25, `inputRequests` on 2026-07-28), over stdio in
//! process and over Streamable HTTP; the capabilities are declared only with
//! a handler; a refused sampling request is never answered with a completion.

use std::sync::{Arc, Mutex};

use crate::support::client::{self as support, TestHandler, Wire};
use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientError, ProtocolChoice, SamplingHandler, SamplingRequest, SamplingResponse,
    StaticRoots,
};
use frontdesk::server::question::InputRequest;
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::CreateMessageResult;
use frontdesk::wire::Revision;
use frontdesk::wire::Root;
use frontdesk::wire::SamplingContent;
use frontdesk_wire::{ContentBlock, Role, TextContent};
use serde_json::{Value, json};

/// Asks for a completion and the roots in one round, and reports both.
async fn ask_both(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let params = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}],
        "systemPrompt": "Answer in one word.",
        "maxTokens": 10
    }))
    .map_err(|e| ToolError::execution(e.to_string()))?;
    let sampling = InputRequest::sampling(params);
    let answers = cx
        .ask_all(vec![
            ("colour".to_owned(), sampling),
            ("roots".to_owned(), InputRequest::roots()),
        ])
        .await
        .map_err(|e| ToolError::execution(format!("{e}")))?;
    Ok(ToolOutput::text(Value::Array(answers).to_string()))
}

fn server(_: &str) -> Server {
    Server::builder("sampling-test", "1")
        .tool(ToolDef::new(
            "ask_both",
            "Samples and lists roots",
            ask_both,
        ))
        .build()
}

/// A "model" that answers "teal" and records what it was shown.
#[derive(Default)]
struct Teal {
    seen: Mutex<Vec<SamplingRequest>>,
    refuse: bool,
}

impl SamplingHandler for Teal {
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, SamplingResponse> {
        Box::pin(async move {
            if let Ok(mut seen) = self.seen.lock() {
                seen.push(request);
            }
            if self.refuse {
                return SamplingResponse::Unavailable("no model here".into());
            }
            SamplingResponse::Completed(CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContent::Single(Box::new(ContentBlock::Text(TextContent::new(
                    "teal",
                )))),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
                extra: Default::default(),
            })
        })
    }
}

async fn connect(
    revision: Revision,
    http: bool,
    teal: Arc<Teal>,
    wire: &Wire,
) -> (Client, Option<support::HttpServer>) {
    let mut config = wire.config(ProtocolChoice::Only(revision));
    config.sampling = Some(teal);
    config.roots = Some(Arc::new(StaticRoots(vec![Root {
        uri: "file:///work/project".into(),
        name: Some("project".into()),
        meta: None,
        extra: Default::default(),
    }])));
    let handler = TestHandler::new([]);
    if http {
        let s = support::http_server(server).await;
        let client = Client::connect_http(&s.mcp, config, handler).await.unwrap();
        (client, Some(s))
    } else {
        (support::in_process(server(""), config, handler).await, None)
    }
}

#[tokio::test]
async fn sampling_and_roots_reach_their_handlers_on_both_revisions() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        for http in [false, true] {
            let teal = Arc::new(Teal::default());
            let wire = Wire::default();
            let (client, _server) = connect(revision, http, teal.clone(), &wire).await;
            let caps = client.capabilities();
            assert!(caps.sampling.is_some() && caps.roots.is_some(), "{caps:?}");
            let result = client.call_tool("ask_both", json!({})).await.unwrap();
            let text = serde_json::to_value(&result.content).unwrap()[0]["text"]
                .as_str()
                .unwrap()
                .to_owned();
            let answers: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                answers[0]["content"]["text"], "teal",
                "{revision} {http}: {text}"
            );
            assert_eq!(answers[0]["model"], "test-model");
            assert_eq!(answers[1]["roots"][0]["uri"], "file:///work/project");
            let seen = teal.seen.lock().unwrap().clone();
            assert_eq!(seen.len(), 1, "{revision}");
            assert_eq!(
                seen[0].params.system_prompt.as_deref(),
                Some("Answer in one word.")
            );
            assert_eq!(
                seen[0].origin.request.as_deref(),
                Some("tools/call ask_both")
            );

            client.close().await;
        }
    }
}

#[tokio::test]
async fn a_refused_sampling_request_is_never_answered_with_a_completion() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let teal = Arc::new(Teal {
            refuse: true,
            ..Teal::default()
        });
        let wire = Wire::default();
        let (client, _server) = connect(revision, false, teal, &wire).await;
        let outcome = client.call_tool("ask_both", json!({})).await;
        match revision {
            // The server hears the refusal as an error and reports it.
            Revision::V2025_11_25 => {
                let result = outcome.unwrap();
                assert_eq!(result.is_error, Some(true), "{result:?}");
                let sent = wire.sent();
                let refusal = sent
                    .iter()
                    .find(|m| m.get("error").is_some())
                    .expect("an error response");
                assert_eq!(refusal["error"]["code"], -1);
                assert_eq!(refusal["error"]["message"], "no model here");
            }
            // No place for a refusal in inputResponses: the call ends here.
            Revision::V2026_07_28 => match outcome {
                Err(ClientError::Refused { request, reason }) => {
                    assert_eq!(request, "sampling/createMessage");
                    assert_eq!(reason, "no model here");
                }
                other => panic!("expected a refusal, got {other:?}"),
            },
        }
        assert!(
            !wire.sent_text().contains("\"model\""),
            "no completion was sent"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn without_handlers_nothing_is_declared() {
    let wire = Wire::default();
    let client = support::in_process(
        server(""),
        wire.config(ProtocolChoice::Only(Revision::V2025_11_25)),
        TestHandler::new([]),
    )
    .await;
    let caps = client.capabilities();
    assert!(caps.sampling.is_none() && caps.roots.is_none(), "{caps:?}");
    client.close().await;
}
