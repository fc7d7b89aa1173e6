//! Prompts, resources, resource templates and completion through the
//! gateway: the demo's conformance fixtures behind it, on each pairing of
//! revisions, and every answer the same as the fixtures give a client
//! directly (in that client's revision).
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

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

/// A question the upstream asks while getting a prompt reaches the client
/// in front, on every pairing (a live request on 2025-11-25, an
/// `input_required` round on 2026-07-28), and the prompt is built from the
/// answer; declined, the upstream hears that.
#[tokio::test]
async fn a_question_during_prompts_get_reaches_the_client_in_front() {
    for (upstream, downstream) in PAIRINGS {
        for (answer, text) in [
            (
                accept(json!({"context": "a rainy Tuesday"})),
                "Use this context: a rainy Tuesday",
            ),
            (
                frontdesk::client::ElicitationResponse::Decline,
                "No context given (decline).",
            ),
        ] {
            let script = Script::new(vec![answer]);
            let (gateway, down, _wire) =
                through_gateway_to(fixtures(), upstream, downstream, Arc::clone(&script)).await;
            let got = down
                .get_prompt("test_input_required_result_prompt", Some(Map::new()))
                .await
                .unwrap_or_else(|e| panic!("{upstream} → {downstream}: {e}"));
            let said = serde_json::to_value(&got.messages[0].content).unwrap();
            assert_eq!(said["text"], text, "{upstream} → {downstream}");
            let seen = script.seen();
            assert_eq!(seen.len(), 1, "{upstream} → {downstream}: {seen:?}");
            assert_eq!(seen[0].0, "What context should the prompt use?");
            assert_eq!(gateway.held_calls(), 0, "{upstream} → {downstream}");
        }
    }
}

/// A read's caching hints are the upstream's: a 2026-07-28 upstream that
/// says its contents hold for a minute, for one authorization context, is
/// not made public for the gateway's five minutes (a client would keep
/// them four minutes past their time, and a shared cache share them). A
/// 2025-11-25 upstream says nothing, and the gateway's own hints apply; a
/// 2025-11-25 client gets none.
#[tokio::test]
async fn a_reads_caching_hints_are_the_upstreams() {
    use frontdesk::server::Server;
    use frontdesk::server::resource::{ResourceDef, ResourceOutput};
    use frontdesk::wire::{CacheScope, Revision};
    let upstream_server = || {
        Server::builder("ledger", "1.0.0")
            .resource(ResourceDef::new(
                "ledger://balance",
                "balance",
                |_, _| async {
                    Ok(ResourceOutput::text("42 EUR")
                        .cache(std::time::Duration::from_secs(60), CacheScope::Private))
                },
            ))
            .build()
    };
    for (upstream, downstream) in PAIRINGS {
        let (_gateway, down, _wire) =
            through_gateway_to(upstream_server(), upstream, downstream, Script::new(vec![])).await;
        let read = down.read_resource("ledger://balance").await.unwrap();
        let hints = (read.ttl_ms, read.cache_scope);
        let expected = match (upstream, downstream) {
            (_, Revision::V2025_11_25) => (None, None),
            (Revision::V2026_07_28, _) => (Some(60_000), Some(CacheScope::Private)),
            _ => (Some(300_000), Some(CacheScope::Public)),
        };
        assert_eq!(hints, expected, "{upstream} → {downstream}");
        assert_eq!(read.contents.len(), 1, "{upstream} → {downstream}");
    }
}
