//! `sampling/createMessage` and `roots/list` of the upstream through the
//! gateway: passed to a client in front that declared them, on every
//! pairing of revisions; refused to the upstream (and never shown) when it
//! did not.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::{
    ClientConfig, Direction, SamplingHandler, SamplingRequest, SamplingResponse, StaticRoots,
};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::{CreateMessageRequestParams, Revision, Root, SamplingMessage};
use serde_json::{Value, json};
use support::*;

/// A server whose `capital` tool has the client's model answer a question,
/// and whose `where` tool lists the client's roots.
fn asking_server() -> Server {
    Server::builder("asker", "1.0.0")
        .tool(ToolDef::new(
            "capital",
            "Asks the client's model",
            |cx: ToolContext, _: NoArgs| async move {
                let ask = CreateMessageRequestParams::new(
                    vec![SamplingMessage::user("What is the capital of France?")],
                    100,
                );
                let reply = cx.sample(ask).await?;
                Ok::<_, ToolError>(ToolOutput::text(format!(
                    "{} (by {})",
                    reply.content.text().unwrap_or("(no text)"),
                    reply.model
                )))
            },
        ))
        .tool(ToolDef::new(
            "where",
            "Lists the client's roots",
            |cx: ToolContext, _: NoArgs| async move {
                let roots = cx.roots().await?;
                let uris: Vec<String> = roots.into_iter().map(|r| r.uri).collect();
                Ok::<_, ToolError>(ToolOutput::text(uris.join(" ")))
            },
        ))
        .build()
}

/// The model of the client in front: records what it was asked.
#[derive(Default)]
struct Model {
    asked: Mutex<Vec<Value>>,
}

impl SamplingHandler for Model {
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, SamplingResponse> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request.params).unwrap());
        Box::pin(async {
            SamplingResponse::Completed(
                serde_json::from_value(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": "Paris"},
                    "model": "test-model-1"
                }))
                .unwrap(),
            )
        })
    }
}

fn roots() -> StaticRoots {
    StaticRoots(vec![
        serde_json::from_value::<Root>(json!({"uri": "file:///work/project", "name": "project"}))
            .unwrap(),
    ])
}

#[tokio::test]
async fn sampling_and_roots_reach_a_client_that_declared_them_on_every_pairing() {
    for (upstream, downstream) in PAIRINGS {
        let (_gateway, server) = gateway_before(asking_server(), upstream).await;
        let model = Arc::new(Model::default());
        let wire: Arc<Mutex<Vec<(Direction, Value)>>> = Arc::default();
        let tap = Arc::clone(&wire);
        let mut config = ClientConfig::default()
            .protocol(downstream)
            .roots(roots())
            .on_wire(move |d, m| tap.lock().unwrap().push((d, m.clone())));
        config.sampling = Some(Arc::clone(&model) as Arc<dyn SamplingHandler>);
        let down = client_of(server, config, Script::new(vec![])).await;
        let result = down.call_tool("capital", json!({})).await.unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("Paris (by test-model-1)"),
            "{upstream} → {downstream}"
        );
        // The upstream's request as it made it.
        assert_eq!(
            model.asked.lock().unwrap().clone(),
            [json!({"messages": [{"role": "user",
                "content": {"type": "text", "text": "What is the capital of France?"}}],
                "maxTokens": 100})],
            "{upstream} → {downstream}"
        );
        let result = down.call_tool("where", json!({})).await.unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("file:///work/project"),
            "{upstream} → {downstream}"
        );
        // How the client in front was asked: live on 2025-11-25, rounds on
        // 2026-07-28.
        let asked: Vec<Value> = wire
            .lock()
            .unwrap()
            .iter()
            .filter(|(d, _)| *d == Direction::Incoming)
            .map(|(_, m)| m.clone())
            .collect();
        if downstream == Revision::V2025_11_25 {
            let methods: Vec<&str> = asked.iter().filter_map(|m| m["method"].as_str()).collect();
            assert_eq!(methods, ["sampling/createMessage", "roots/list"]);
        } else {
            let rounds: Vec<&Value> = asked
                .iter()
                .filter_map(|m| m["result"].get("inputRequests"))
                .collect();
            assert_eq!(rounds.len(), 2, "{rounds:#?}");
            // A 2025-11-25 upstream's live request has no key: the gateway's
            // own; a 2026-07-28 upstream's round keeps its keys.
            for (round, method) in rounds.iter().zip(["sampling/createMessage", "roots/list"]) {
                let requests = round.as_object().unwrap();
                assert_eq!(requests.len(), 1, "{round:#?}");
                let (key, request) = requests.iter().next().unwrap();
                assert_eq!(request["method"], method, "{round:#?}");
                assert_eq!(
                    key == "upstream-1",
                    upstream == Revision::V2025_11_25,
                    "{upstream}: {key}"
                );
            }
        }
    }
}

/// A client in front without `sampling` or `roots`: a 2025-11-25 upstream
/// (told both at `initialize`, before any client was in front) gets the
/// answer of a client that has neither, `-32601`; nothing reaches the
/// client in front. A 2025-11-25 client gets the server's result; a
/// 2026-07-28 client learns what the call needed, `-32021` with the
/// capability, as a 2026-07-28 server would have told it.
#[tokio::test]
async fn a_client_without_sampling_or_roots_is_never_asked() {
    let sampling = json!({"messages": [{"role": "user",
        "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
    for (method, params, capability) in [
        ("sampling/createMessage", sampling, "sampling"),
        ("roots/list", json!({}), "roots"),
    ] {
        for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
            let (seen, result) = refused_upstream_call(method, params.clone(), downstream).await;
            assert_eq!(
                seen,
                json!({"jsonrpc": "2.0", "id": "q1", "error": {
                    "code": -32601, "message": format!("Method not found: {method}")
                }}),
                "{downstream}"
            );
            match downstream {
                Revision::V2025_11_25 => assert_eq!(
                    result.unwrap().content[0].as_text(),
                    Some("refused, as it should be")
                ),
                _ => match result {
                    Err(frontdesk::client::ClientError::Rpc(e)) => {
                        assert_eq!(e.code.0, -32021, "{e:?}");
                        assert_eq!(
                            e.data,
                            Some(json!({"requiredCapabilities": {capability: {}}}))
                        );
                    }
                    other => panic!("-32021 for a 2026-07-28 client: {other:?}"),
                },
            }
        }
    }
}

/// A 2026-07-28 upstream learns per request that the client in front has
/// no sampling: it refuses the call itself (`-32021`), and the client in
/// front is never asked.
#[tokio::test]
async fn a_modern_upstream_is_told_the_client_has_no_sampling() {
    for downstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let (_gateway, server) = gateway_before(asking_server(), Revision::V2026_07_28).await;
        let down = client_of(
            server,
            ClientConfig::default().protocol(downstream),
            Script::new(vec![]),
        )
        .await;
        let err = down.call_tool("capital", json!({})).await.unwrap_err();
        assert!(err.to_string().contains("-32021"), "{downstream}: {err}");
        let err = down.call_tool("where", json!({})).await.unwrap_err();
        assert!(err.to_string().contains("-32021"), "{downstream}: {err}");
    }
}
