//! Resource subscriptions are bounded per session (and per listen stream),
//! per client over all its sessions, and on the whole server; over a bound
//! a subscription is refused `-32000` with the reason, and a session's
//! subscriptions are given back as soon as it ends.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::server::resource::{ResourceOutput, ResourceTemplateDef};
use frontdesk::server::transport::{Failure, Handled, OutboundSink, RequestInfo, Session};
use frontdesk::server::{Server, ServerConfig};
use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::meta;

/// Any `test://item/{id}` can be subscribed to.
fn items_server(config: ServerConfig) -> Server {
    let items = ResourceTemplateDef::new("test://item/{id}", "item", |_cx, _req| async move {
        Ok(ResourceOutput::text("an item"))
    })
    .unwrap();
    Server::builder("items", "0.0.1")
        .config(config)
        .resource_template(items)
        .build()
}

fn from(client: &str) -> RequestInfo {
    RequestInfo::new().client(client)
}

async fn open_session(server: &Server, client: &str) -> Arc<Session> {
    let session = server.session();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "subscriber", "version": "1"}}});
    let h = server
        .handle_json(
            Some(&session),
            init,
            &OutboundSink::discard(),
            &from(client),
        )
        .await;
    assert!(h.failure.is_none(), "{:?}", h.response_value());
    session
}

async fn send(
    server: &Server,
    session: &Arc<Session>,
    client: &str,
    method: &str,
    id: u64,
) -> Handled {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method,
        "params": {"uri": format!("test://item/{id}")}});
    server
        .handle_json(Some(session), body, &OutboundSink::discard(), &from(client))
        .await
}

async fn subscribe(server: &Server, session: &Arc<Session>, client: &str, id: u64) -> Handled {
    send(server, session, client, "resources/subscribe", id).await
}

fn ok(h: &Handled) -> bool {
    h.response_value().is_some_and(|v| v["result"] == json!({}))
}

/// Refused `-32000`, with a reason naming `what`, as a failure of `kind`.
fn refused(h: &Handled, kind: Failure, what: &str) {
    let v = h.response_value().unwrap();
    assert_eq!(v["error"]["code"], -32000, "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains(what), "{message}");
    assert_eq!(h.failure, Some(kind), "{v}");
}

#[tokio::test]
async fn a_session_subscribes_to_at_most_its_bound() {
    let server = items_server(ServerConfig::new().max_subscriptions_per_session(3));
    let s = open_session(&server, "a").await;
    for id in 1..=3 {
        assert!(ok(&subscribe(&server, &s, "a", id).await));
    }
    refused(
        &subscribe(&server, &s, "a", 4).await,
        Failure::Busy,
        "session",
    );
    // The same resource again takes no more room.
    assert!(ok(&subscribe(&server, &s, "a", 1).await));
    assert!(ok(&send(&server, &s, "a", "resources/unsubscribe", 1).await));
    assert!(ok(&subscribe(&server, &s, "a", 4).await));
}

#[tokio::test]
async fn a_client_has_a_share_over_all_its_sessions_given_back_when_one_ends() {
    let server = items_server(
        ServerConfig::new()
            .max_subscriptions_per_session(2)
            .max_subscriptions_per_client(4),
    );
    let s1 = open_session(&server, "a").await;
    let s2 = open_session(&server, "a").await;
    let s3 = open_session(&server, "a").await;
    for id in 1..=2 {
        assert!(ok(&subscribe(&server, &s1, "a", id).await));
        assert!(ok(&subscribe(&server, &s2, "a", id).await));
    }
    refused(
        &subscribe(&server, &s3, "a", 1).await,
        Failure::Busy,
        "client",
    );
    let other = open_session(&server, "b").await;
    assert!(ok(&subscribe(&server, &other, "b", 1).await));
    // The session ends: its subscriptions are given back at once, with
    // nothing else happening on the server.
    s1.close();
    assert!(ok(&subscribe(&server, &s3, "a", 1).await));
    assert!(ok(&subscribe(&server, &s3, "a", 2).await));
    refused(
        &subscribe(&server, &s2, "a", 3).await,
        Failure::Busy,
        "session",
    );
}

#[tokio::test]
async fn the_server_has_a_bound_and_a_dropped_session_gives_its_part_back() {
    let server = items_server(ServerConfig::new().max_subscriptions(3));
    let s1 = open_session(&server, "a").await;
    let s2 = open_session(&server, "b").await;
    let s3 = open_session(&server, "c").await;
    assert!(ok(&subscribe(&server, &s1, "a", 1).await));
    assert!(ok(&subscribe(&server, &s1, "a", 2).await));
    assert!(ok(&subscribe(&server, &s2, "b", 1).await));
    refused(
        &subscribe(&server, &s3, "c", 1).await,
        Failure::Overloaded,
        "server",
    );
    drop(s1);
    assert!(ok(&subscribe(&server, &s3, "c", 1).await));
}

fn listen(id: &str, uris: &[u64]) -> Value {
    let uris: Vec<String> = uris.iter().map(|i| format!("test://item/{i}")).collect();
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": uris}, "_meta": meta(json!({}))}})
}

#[tokio::test]
async fn a_listen_stream_is_bounded_and_counts_against_its_clients_share() {
    let server = items_server(
        ServerConfig::new()
            .max_subscriptions_per_session(3)
            .max_subscriptions_per_client(4),
    );
    let too_many = server
        .handle_json(
            None,
            listen("L1", &[1, 2, 3, 4]),
            &OutboundSink::discard(),
            &from("a"),
        )
        .await;
    refused(&too_many, Failure::Busy, "listen");
    // Three on a live stream, then one more in a session: the client's share.
    let (sink, mut rx) = OutboundSink::channel();
    let live = {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .handle_json(None, listen("L2", &[1, 2, 3]), &sink, &from("a"))
                .await
        })
    };
    let ack = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let s = open_session(&server, "a").await;
    assert!(ok(&subscribe(&server, &s, "a", 1).await));
    refused(
        &subscribe(&server, &s, "a", 2).await,
        Failure::Busy,
        "client",
    );
    // The stream ends: its part comes back.
    live.abort();
    let _ = live.await;
    assert!(ok(&subscribe(&server, &s, "a", 2).await));
}
