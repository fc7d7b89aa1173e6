//! Prompts, resources, resource templates and completion through the
//! gateway: the demo's conformance fixtures behind it, on each pairing of
//! revisions, and every answer the same as the fixtures give a client
//! directly (in that client's revision).
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use frontdesk::client::{Client, ClientConfig};
use serde_json::{Map, Value, json};
use support::*;

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("an object: {other}"),
    }
}

/// The answers a client gets for each request of the surface.
async fn answers(client: &Client) -> Vec<(String, Value)> {
    let requests = [
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("prompts/get", json!({"name": "test_simple_prompt"})),
        (
            "prompts/get",
            json!({"name": "test_prompt_with_arguments",
                   "arguments": {"arg1": "one", "arg2": "two"}}),
        ),
        ("prompts/get", json!({"name": "test_prompt_with_image"})),
        ("prompts/get", json!({"name": "nowhere"})),
        ("resources/read", json!({"uri": "test://static-text"})),
        ("resources/read", json!({"uri": "test://static-binary"})),
        ("resources/read", json!({"uri": "test://template/42/data"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                   "argument": {"name": "arg1", "value": "pa"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                   "argument": {"name": "id", "value": "4"}}),
        ),
    ];
    let mut out = Vec::new();
    for (method, params) in requests {
        let got = match client.request(method, object(params.clone())).await {
            Ok(result) => Value::Object(result),
            Err(e) => json!({"error": e.to_string()}),
        };
        out.push((format!("{method} {params}"), got));
    }
    out
}

#[tokio::test]
async fn the_upstreams_prompts_resources_and_completions_answer_as_directly() {
    for (upstream, downstream) in PAIRINGS {
        let (_gateway, server) = gateway_before(fixtures(), upstream).await;
        let through = client_of(
            server,
            ClientConfig::default().protocol(downstream),
            Script::new(vec![]),
        )
        .await;
        let direct = client_of(
            fixtures(),
            ClientConfig::default().protocol(downstream),
            Script::new(vec![]),
        )
        .await;
        let (got, want) = (answers(&through).await, answers(&direct).await);
        for ((request, got), (_, want)) in got.iter().zip(&want) {
            assert_eq!(got, want, "{upstream} → {downstream}: {request}");
        }
        let listed = &got[0].1["prompts"];
        assert_eq!(listed.as_array().map(Vec::len), Some(5), "{listed}");
        assert_eq!(
            got[10].1["completion"]["values"],
            json!(["paris", "park", "party"])
        );
    }
}
