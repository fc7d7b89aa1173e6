//! Broken response streams over Streamable HTTP: on 2026-07-28 (no stream to
//! resume) the request is sent again after the server's `retry:`; the
//! `x-mcp-header` parameters of a listed tool travel as `Mcp-Param-*`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use frontdesk::client::{Client, ClientConfig, ProtocolChoice};
use frontdesk::wire::Revision;
use serde_json::{Value, json};

use crate::support::client::TestHandler;

#[derive(Default)]
struct Seen {
    calls: Vec<(Instant, Value, HeaderMap)>,
}

type Shared = Arc<Mutex<Seen>>;

async fn mcp(State(seen): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let id = message["id"].clone();
    let result = match message["method"].as_str() {
        Some("server/discover") => json!({"resultType": "complete",
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}),
        Some("tools/list") => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "tools": [{"name": "route", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "note": {"type": "string"}}}}]}),
        Some("tools/call") => {
            let first = {
                let mut s = seen.lock().unwrap();
                s.calls.push((Instant::now(), message.clone(), headers));
                s.calls.len() == 1
            };
            if first {
                // A priming event with a retry hint, then the stream ends.
                return (
                    [("content-type", "text/event-stream")],
                    "id: e1\nretry: 300\ndata: \n\n",
                )
                    .into_response();
            }
            json!({"resultType": "complete", "content": [{"type": "text", "text": "routed"}]})
        }
        _ => json!({"resultType": "complete"}),
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

#[tokio::test]
async fn a_broken_2026_stream_is_sent_again_after_retry_with_its_param_headers() {
    let seen: Shared = Arc::default();
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(mcp))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = ClientConfig::default().protocol(ProtocolChoice::Only(Revision::V2026_07_28));
    let client = Client::connect_http(&url, config, TestHandler::new([]))
        .await
        .unwrap();
    client.list_tools().await.unwrap();
    let result = client
        .call_tool("route", json!({"region": " eu-west ", "note": "n"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "routed"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.calls.len(), 2, "sent again once");
    let (first_at, first, first_headers) = &seen.calls[0];
    let (again_at, again, _) = &seen.calls[1];
    assert!(
        again_at.duration_since(*first_at) >= Duration::from_millis(280),
        "waited for retry:"
    );
    assert_eq!(first["params"]["arguments"], again["params"]["arguments"]);
    assert_eq!(
        first_headers["mcp-param-region"], "=?base64?IGV1LXdlc3Qg?=",
        "the mirrored parameter, encoded"
    );
    assert!(first_headers.get("mcp-param-note").is_none());
    assert_eq!(first_headers["mcp-name"], "route");
}
