//! Streamable HTTP, 2025-11-25: sessions, POST streams carrying
//! `elicitation/create`, answers POSTed back, the GET stream, resumption with
//! `Last-Event-ID`, DELETE, URL mode, and bad input.

use std::time::Duration;

use crate::support::http::{
    LEGACY, SseReader, TestServer, complete_sign_in, json_of, start, start_with,
};
use crate::support::url_required_server;
use serde_json::{Value, json};

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// Answer the two questions of `book_return` on `reader`; returns the result.
async fn finish_book_return(
    s: &TestServer,
    sid: &str,
    reader: &mut SseReader,
    first: Value,
) -> Value {
    assert_eq!(first["method"], "elicitation/create");
    assert_eq!(first["params"]["requestedSchema"]["type"], "object");
    s.answer(
        sid,
        &first["id"],
        json!({"action": "accept", "content": {"reason": "damaged", "boxes": 2, "pickup_date": "2026-08-03",
            "contact_email": "ana@example.com"}}),
    )
    .await;
    let confirm = reader.message().await.unwrap();
    assert_eq!(confirm["method"], "elicitation/create");
    s.answer(
        sid,
        &confirm["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    )
    .await;
    reader.message().await.unwrap()
}

#[tokio::test]
async fn session_list_call_with_elicitation_on_the_post_stream() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({"elicitation": {}})).await;
    let v = json_of(
        s.legacy(
            &sid,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await,
        200,
    )
    .await;
    assert!(
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "book_return")
    );

    let r = s
        .legacy(&sid, &call(2, "book_return", json!({"order_id": "A-17"})))
        .await;
    assert_eq!(r.status(), 200);
    let mut reader = SseReader::new(r);
    let priming = reader.next().await.unwrap();
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    let first = reader.message().await.unwrap();
    let result = finish_book_return(&s, &sid, &mut reader, first).await;
    assert_eq!(result["id"], 2);
    assert_eq!(result["result"]["structuredContent"]["status"], "booked");
    assert!(
        reader.next().await.is_none(),
        "the stream ends after the response"
    );
}

#[tokio::test]
async fn resume_a_post_stream_after_a_disconnect() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({"elicitation": {"form": {}}})).await;
    let r = s
        .legacy(&sid, &call(2, "book_return", json!({"order_id": "B-2"})))
        .await;
    let mut reader = SseReader::new(r);
    let priming = reader.next().await.unwrap();
    let first = reader.next().await.unwrap();
    assert!(first.id.is_some());
    drop(reader); // The client goes away mid-question; the call lives on.

    let r = s.get_stream(&sid, priming.id.as_deref()).await;
    assert_eq!(r.status(), 200);
    let mut resumed = SseReader::new(r);
    let replayed = resumed.next().await.unwrap();
    assert_eq!(replayed.id, first.id, "the missed event, with its id");
    let result = finish_book_return(&s, &sid, &mut resumed, replayed.json()).await;
    assert_eq!(result["id"], 2);
    assert_eq!(result["result"]["structuredContent"]["orderId"], "B-2");
    assert!(resumed.next().await.is_none());

    // An id of another session's numbering, or junk: 400.
    for bad in ["999-1", "junk"] {
        let r = s.get_stream(&sid, Some(bad)).await;
        assert_eq!(r.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn get_stream_one_at_a_time() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({})).await;
    let open = || s.get_stream(&sid, None);
    let r = open().await;
    assert_eq!(r.status(), 200);
    let mut first = SseReader::new(r);
    let priming = first.next().await.unwrap();
    assert!(priming.id.as_deref().unwrap().starts_with("0-"));
    assert_eq!(open().await.status(), 409);
    drop(first);
    // The keep-alive (100 ms here) notices the closed connection.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(open().await.status(), 200);
}

#[tokio::test]
async fn delete_ends_the_session() {
    let s = start(|_| {}).await;
    let sid = s.initialize(json!({})).await;
    let r = s.delete_session(&sid).await;
    assert!(r.status().is_success());
    let r = s
        .legacy(
            &sid,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(json_of(r, 404).await["id"], 1);
    let r = s.delete_session(&sid).await;
    assert_eq!(r.status(), 404);
    let r = s.get_stream(&sid, None).await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn url_mode_completes_through_the_sign_in_page() {
    let s = start(|_| {}).await;
    let sid = s
        .initialize(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
    let r = s
        .legacy(&sid, &call(3, "connect_store_account", json!({})))
        .await;
    let mut reader = SseReader::new(r);
    let ask = reader.message().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["mode"], "url");
    let eid = ask["params"]["elicitationId"].as_str().unwrap().to_string();
    let url = ask["params"]["url"].as_str().unwrap().to_string();
    assert!(url.starts_with(&format!("{}/signin?token=", s.base)));
    s.answer(&sid, &ask["id"], json!({"action": "accept"}))
        .await;

    assert_eq!(s.http.get(&url).send().await.unwrap().status(), 200);
    complete_sign_in(&s.http, &url).await;

    let complete = reader.message().await.unwrap();
    assert_eq!(complete["method"], "notifications/elicitation/complete");
    assert_eq!(complete["params"]["elicitationId"], eid);
    let result = reader.message().await.unwrap();
    assert_eq!(result["id"], 3);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "Your store account is connected."
    );
}

#[tokio::test]
async fn a_client_leaving_mid_question_does_not_hurt_others() {
    let s = start(|_| {}).await;
    let a = s.initialize(json!({"elicitation": {}})).await;
    let r = s
        .legacy(&a, &call(2, "book_return", json!({"order_id": "gone"})))
        .await;
    let mut reader = SseReader::new(r);
    assert_eq!(
        reader.message().await.unwrap()["method"],
        "elicitation/create"
    );
    drop(reader);

    let b = s.initialize(json!({"elicitation": {}})).await;
    let r = s
        .legacy(&b, &call(2, "book_return", json!({"order_id": "here"})))
        .await;
    let mut reader = SseReader::new(r);
    let first = reader.message().await.unwrap();
    let result = finish_book_return(&s, &b, &mut reader, first).await;
    assert_eq!(result["result"]["structuredContent"]["orderId"], "here");
    // The first session still answers too.
    let r = s
        .legacy(
            &a,
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
        )
        .await;
    assert_eq!(json_of(r, 200).await["id"], 9);
}

#[tokio::test]
async fn bad_input() {
    let s = start(|o| o.max_body_bytes = 2048).await;
    let sid = s.initialize(json!({})).await;

    // No session id: 400; unknown session: 404.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let r = s.post().body(body.clone()).send().await.unwrap();
    assert_eq!(json_of(r, 400).await["error"]["code"], -32600);
    let r = s
        .legacy(
            "no-such-session",
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(r.status(), 404);

    // Malformed JSON: 400, -32700, id null.
    let r = s
        .post_with(&[("mcp-session-id", &sid)], "{\"jsonrpc\": ")
        .await;
    let v = json_of(r, 400).await;
    assert_eq!(v["error"]["code"], -32700);
    assert_eq!(v["id"], Value::Null);

    // Wrong shapes: a batch, a wrong jsonrpc.
    let r = s
        .legacy(
            &sid,
            &json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
        )
        .await;
    assert_eq!(json_of(r, 400).await["error"]["code"], -32600);
    let r = s
        .legacy(&sid, &json!({"jsonrpc": "1.0", "id": 4, "method": "ping"}))
        .await;
    let v = json_of(r, 400).await;
    assert_eq!(
        (v["error"]["code"].as_i64(), v["id"].as_i64()),
        (Some(-32600), Some(4))
    );

    // Unknown method: -32601.
    let r = s
        .legacy(
            &sid,
            &json!({"jsonrpc": "2.0", "id": 5, "method": "no/such"}),
        )
        .await;
    assert_eq!(json_of(r, 200).await["error"]["code"], -32601);

    // Oversize body: 413 with a JSON-RPC error.
    let big =
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"pad": "x".repeat(4096)}});
    let r = s.legacy(&sid, &big).await;
    assert_eq!(json_of(r, 413).await["error"]["code"], -32600);
    // The same without Content-Length (chunked).
    let chunks = futures::stream::iter(
        [big.to_string().into_bytes(), Vec::new()].map(Ok::<_, std::io::Error>),
    );
    let r = s
        .post_with(
            &[("mcp-session-id", &sid)],
            reqwest::Body::wrap_stream(chunks),
        )
        .await;
    assert_eq!(json_of(r, 413).await["error"]["code"], -32600);
    // A message that arrives in several chunks is gathered, then read
    // (one in a single chunk is read where it lies).
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string();
    let (a, rest) = ping.split_at(5);
    let (b, c) = rest.split_at(9);
    let chunks = futures::stream::iter(
        [a, "", b, c].map(|piece| Ok::<_, std::io::Error>(piece.as_bytes().to_vec())),
    );
    let r = s
        .post_with(
            &[("mcp-session-id", &sid)],
            reqwest::Body::wrap_stream(chunks),
        )
        .await;
    let v = json_of(r, 200).await;
    assert_eq!(
        (v["id"].as_i64(), v["result"].is_object()),
        (Some(7), true),
        "{v}"
    );

    // Bad Origin: 403, id-less error body.
    let r = s
        .post_with(&[("origin", "http://evil.example")], body.clone())
        .await;
    let v = json_of(r, 403).await;
    assert!(v["error"]["code"].is_i64());
    assert_eq!(v["id"], Value::Null);
    // So is a page on another loopback port (issue 24, row 12: only the
    // server's own origin by default).
    let r = s
        .post_with(&[("origin", "http://localhost:5173")], body.clone())
        .await;
    assert_eq!(json_of(r, 403).await["id"], Value::Null);
    // The server's own origin is fine; then Content-Type, Accept, and an
    // unsupported MCP-Protocol-Version after init. `true`: with the usual
    // Content-Type and Accept added.
    let sid = sid.as_str();
    let own = s.base.replace("127.0.0.1", "localhost");
    for (headers, usual, status) in [
        (
            vec![("origin", own.as_str()), ("mcp-session-id", sid)],
            true,
            200,
        ),
        (
            vec![("content-type", "text/plain"), ("mcp-session-id", sid)],
            false,
            415,
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("mcp-session-id", sid),
            ],
            false,
            406,
        ),
        (
            vec![
                ("mcp-session-id", sid),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            true,
            400,
        ),
    ] {
        let r = if usual {
            s.post_with(&headers, body.clone()).await
        } else {
            s.post_raw(&headers, body.clone()).await
        };
        assert_eq!(r.status(), status, "{headers:?}");
    }

    // A stray response (to nothing) is accepted and ignored.
    let r = s
        .legacy(sid, &json!({"jsonrpc": "2.0", "id": "fd-99", "result": {}}))
        .await;
    assert_eq!(r.status(), 202);

    // And the server still serves.
    let r = s
        .legacy(sid, &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
        .await;
    assert_eq!(json_of(r, 200).await["id"], 7);
    let _ = LEGACY;
}

#[tokio::test]
async fn unsolicited_completion_arrives_on_the_get_stream() {
    let s = start_with(url_required_server, |_| {}).await;
    let sid = s.initialize(json!({"elicitation": {"url": {}}})).await;
    let r = s.legacy(&sid, &call(1, "needs_sign_in", json!({}))).await;
    let v = json_of(r, 200).await;
    assert_eq!(v["error"]["code"], -32042);
    let e = &v["error"]["data"]["elicitations"][0];
    let eid = e["elicitationId"].as_str().unwrap().to_string();
    let url = e["url"].as_str().unwrap().to_string();

    let r = s.get_stream(&sid, None).await;
    let mut stream = SseReader::new(r);
    let priming = stream.next().await.unwrap();
    assert!(priming.data.is_empty());

    complete_sign_in(&s.http, &url).await;
    let ev = stream.next().await.unwrap();
    assert!(ev.id.as_deref().unwrap().starts_with("0-"));
    let note = ev.json();
    assert_eq!(note["method"], "notifications/elicitation/complete");
    assert_eq!(note["params"]["elicitationId"], eid);

    // Resuming the GET stream replays what came after the priming event.
    drop(stream);
    let r = s.get_stream(&sid, priming.id.as_deref()).await;
    let mut resumed = SseReader::new(r);
    assert_eq!(resumed.message().await.unwrap(), note);
}
