//! Hostile resource URIs (issue 24, row 1): a URI as long as the body allows,
//! built so a backtracking template matcher tries every end position of the
//! variable, is refused with `-32602` naming the bound before any matching,
//! on both revisions and at every place a client URI reaches the resource
//! lookup (read, subscribe, unsubscribe, a completion's resource reference),
//! while an unrelated request sent at the same time is answered.

use frontdesk::server::{Server, ServerBuilder, ServerConfig};
use frontdesk_demo::{self as demo, DemoOptions};
use serde_json::{Value, json};

use crate::support::http::{TestServer, json_of, meta, start, start_with};

/// The demo with its conformance fixtures, signing in at `base`.
fn demo_server_builder(base: &str) -> ServerBuilder {
    demo::register(
        Server::builder("uri-bounds-test", "0.0.1"),
        base,
        &DemoOptions {
            conformance_fixtures: true,
        },
    )
}

/// The demo's template is `test://template/{id}/data`.
const PREFIX: &str = "test://template/";

/// A URI of exactly `bytes` bytes that the template does not match, worst
/// case for a matcher trying each end of `{id}`: a value with no `/` (every
/// position a candidate) and a tail that is never `/data`.
fn hostile_uri(bytes: usize) -> String {
    let mut uri = String::with_capacity(bytes);
    uri.push_str(PREFIX);
    uri.extend(std::iter::repeat_n('a', bytes - PREFIX.len() - 1));
    uri.push('x');
    assert_eq!(uri.len(), bytes);
    uri
}

/// A URI of exactly `bytes` bytes the template matches.
fn matching_uri(bytes: usize) -> String {
    let id = "7".repeat(bytes - PREFIX.len() - "/data".len());
    format!("{PREFIX}{id}/data")
}

fn legacy_request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn modern_read(id: i64, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
        "params": {"uri": uri, "_meta": meta()}})
}

/// The `-32602` an oversize URI gets, naming its size and the bound.
fn assert_refused_for_length(response: &Value, id: i64, bytes: usize) {
    let shown: String = response.to_string().chars().take(300).collect();
    assert_eq!(response["id"], id, "{shown}");
    assert_eq!(response["error"]["code"], -32602, "{shown}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        message,
        format!(
            "Invalid params: resource URI is {bytes} bytes; the limit is 8192 \
             (ServerConfig::max_uri_bytes)"
        ),
    );
}

async fn legacy(s: &TestServer, sid: &str, body: Value) -> Value {
    json_of(s.legacy(sid, &body).await, 200).await
}

#[tokio::test]
async fn oversize_uris_are_refused_while_an_unrelated_request_is_answered() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({})).await;
    let (kb200, kb400) = (200 * 1024, 400 * 1024);
    let big = hostile_uri(kb400);
    let read = |id, uri: &str| legacy_request(id, "resources/read", json!({"uri": uri}));
    // Two 400 KB reads on 2025-11-25, a 200 KB one on 2026-07-28 (its
    // Mcp-Name header mirrors the URI) and a tools/list, all at once.
    let (a, b, c, listed) = tokio::join!(
        legacy(&s, &sid, read(1, &big)),
        legacy(&s, &sid, read(2, &big)),
        async { json_of(s.modern(&modern_read(3, &hostile_uri(kb200))).await, 200).await },
        legacy(
            &s,
            &sid,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        ),
    );
    assert_refused_for_length(&a, 1, kb400);
    assert_refused_for_length(&b, 2, kb400);
    assert_refused_for_length(&c, 3, kb200);
    assert!(
        listed["result"]["tools"].as_array().is_some(),
        "{listed:.300}"
    );

    // Subscribing, unsubscribing and completing against a resource
    // reference are refused the same way.
    for (id, method) in [(5, "resources/subscribe"), (6, "resources/unsubscribe")] {
        let r = legacy(&s, &sid, legacy_request(id, method, json!({"uri": big}))).await;
        assert_refused_for_length(&r, id, kb400);
    }
    let complete = json!({"ref": {"type": "ref/resource", "uri": big},
        "argument": {"name": "id", "value": "4"}});
    let r = legacy(&s, &sid, legacy_request(7, "completion/complete", complete)).await;
    assert_refused_for_length(&r, 7, kb400);

    // The bound is inclusive: a URI of exactly 8192 bytes is read, one byte
    // more is refused.
    let r = legacy(&s, &sid, read(8, &matching_uri(8192))).await;
    let text = r["result"]["contents"][0]["text"].as_str().unwrap();
    let data: Value = serde_json::from_str(text).unwrap();
    assert_eq!(data["id"].as_str().unwrap().len(), 8192 - PREFIX.len() - 5);
    let r = legacy(&s, &sid, read(9, &matching_uri(8193))).await;
    assert_refused_for_length(&r, 9, 8193);
    let r = json_of(s.modern(&modern_read(10, &matching_uri(8193))).await, 200).await;
    assert_refused_for_length(&r, 10, 8193);
}

/// With the bound raised to the body limit, the matcher itself must hold:
/// a hostile URI of nearly 4 MiB is matched (and found to match nothing)
/// while a tools/list sent at the same time is answered, and a 400 KB URI
/// that matches is read with its whole value.
#[tokio::test]
async fn with_the_bound_raised_the_matcher_takes_any_uri_the_body_allows() {
    let s = start_with(
        |base| {
            demo_server_builder(base)
                .config(ServerConfig::new().max_uri_bytes(4 * 1024 * 1024))
                .build()
        },
        |_| {},
    )
    .await;
    let sid = s.initialize(json!({})).await;
    let huge = hostile_uri(4 * 1024 * 1024 - 1024);
    let read = |id, uri: &str| legacy_request(id, "resources/read", json!({"uri": uri}));
    let (missed, listed) = tokio::join!(
        legacy(&s, &sid, read(1, &huge)),
        legacy(
            &s,
            &sid,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        ),
    );
    assert_eq!(missed["error"]["code"], -32002, "{missed:.300}");
    assert_eq!(missed["error"]["message"], "Resource not found");
    assert!(
        listed["result"]["tools"].as_array().is_some(),
        "{listed:.300}"
    );

    let uri = matching_uri(400 * 1024);
    let r = legacy(&s, &sid, read(3, &uri)).await;
    assert_eq!(r["result"]["contents"][0]["uri"], uri.as_str());
    let text = r["result"]["contents"][0]["text"].as_str().unwrap();
    let data: Value = serde_json::from_str(text).unwrap();
    assert_eq!(data["id"], uri[PREFIX.len()..uri.len() - 5]);
}
