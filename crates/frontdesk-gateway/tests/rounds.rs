//! A 2026-07-28 upstream's `input_required` round through the gateway to a
//! 2026-07-28 client: relayed as one round, every request of it together
//! under the upstream's own keys (not one round per question under
//! `upstream-N`), and the client's answers passed back under those keys.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::{
    ClientConfig, Direction, SamplingHandler, SamplingRequest, SamplingResponse, StaticRoots,
};
use frontdesk::wire::{Revision, Root};
use serde_json::{Value, json};
use support::*;

/// The model of the client in front, always saying hello.
struct Hello;

impl SamplingHandler for Hello {
    fn sample(&self, _request: SamplingRequest) -> BoxFuture<'_, SamplingResponse> {
        Box::pin(async {
            SamplingResponse::Completed(
                serde_json::from_value(json!({"role": "assistant",
                    "content": {"type": "text", "text": "Hello!"}, "model": "test-model"}))
                .unwrap(),
            )
        })
    }
}

/// The `input_required` results the client in front got, in order.
fn rounds(wire: &Mutex<Vec<(Direction, Value)>>) -> Vec<Value> {
    wire.lock()
        .unwrap()
        .iter()
        .filter(|(d, m)| *d == Direction::Incoming && m["result"]["resultType"] == "input_required")
        .map(|(_, m)| m["result"].clone())
        .collect()
}

#[tokio::test]
async fn an_upstream_round_of_three_requests_is_one_round_under_its_own_keys() {
    let (_gateway, server) = gateway_before(fixtures(), Revision::V2026_07_28).await;
    let wire: Arc<Mutex<Vec<(Direction, Value)>>> = Arc::default();
    let tap = Arc::clone(&wire);
    let mut config = ClientConfig::default()
        .protocol(Revision::V2026_07_28)
        .roots(StaticRoots(vec![
            serde_json::from_value::<Root>(json!({"uri": "file:///w", "name": "w"})).unwrap(),
        ]))
        .on_wire(move |d, m| tap.lock().unwrap().push((d, m.clone())));
    config.sampling = Some(Arc::new(Hello));
    let script = Script::new(vec![accept(json!({"name": "Alice"}))]);
    let down = client_of(server, config, script).await;
    let result = down
        .call_tool("test_input_required_result_multiple_inputs", json!({}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("Received 3 answers."));
    let rounds = rounds(&wire);
    assert_eq!(rounds.len(), 1, "{rounds:#?}");
    assert_eq!(
        rounds[0]["inputRequests"],
        json!({
            "user_name": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "What is your name?",
                "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
            "greeting": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user",
                    "content": {"type": "text", "text": "Generate a greeting"}}],
                "maxTokens": 50}},
            "client_roots": {"method": "roots/list", "params": {}}
        })
    );
    // The answers went back under the same keys, in one retry.
    let retries: Vec<Value> = wire
        .lock()
        .unwrap()
        .iter()
        .filter(|(d, m)| *d == Direction::Outgoing && m["params"].get("inputResponses").is_some())
        .map(|(_, m)| m["params"]["inputResponses"].clone())
        .collect();
    assert_eq!(retries.len(), 1, "{retries:#?}");
    let keys: Vec<&String> = retries[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["user_name", "greeting", "client_roots"]);
    assert_eq!(
        retries[0]["user_name"],
        json!({"action": "accept", "content": {"name": "Alice"}})
    );
}

/// The suite's `ignore-extra-params`: an answer sent with the first request,
/// under the upstream's key and without a state, answers the upstream's
/// question at once (the gateway asks it under that key).
#[tokio::test]
async fn an_answer_under_the_upstreams_key_in_the_first_request_completes_the_call() {
    let (_gateway, server) = gateway_before(fixtures(), Revision::V2026_07_28).await;
    let down = client_of(
        server,
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Script::new(vec![]),
    )
    .await;
    let mut params = serde_json::Map::new();
    params.insert(
        "name".into(),
        json!("test_input_required_result_elicitation"),
    );
    params.insert(
        "inputResponses".into(),
        json!({"user_name": {"action": "accept", "content": {"name": "Alice"}},
               "unknown_extra_key": {"action": "accept", "content": {}}}),
    );
    let result = down.request("tools/call", params).await.unwrap();
    assert_eq!(result["resultType"], "complete", "{result:#?}");
    assert_eq!(result["content"][0]["text"], "Hello, Alice!", "{result:#?}");
}
