//! Resource subscriptions through the gateway: a 2025-11-25 client that
//! subscribes to a resource of a server hears its updates, whichever
//! revision the server speaks (a 2025-11-25 server subscribed with
//! `resources/subscribe`, a 2026-07-28 one told on the gateway's listen
//! stream); a client that did not subscribe hears nothing.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{Client, ClientConfig};
use frontdesk::server::Server;
use frontdesk::wire::Revision;
use serde_json::{Map, Value, json};
use support::*;

const WATCHED: &str = "test://watched-resource";

/// A 2025-11-25 client of `server` whose `notifications/resources/updated`
/// are kept.
async fn listener(server: Server) -> (Client, Arc<Mutex<Vec<Value>>>) {
    let heard: Arc<Mutex<Vec<Value>>> = Arc::default();
    let mut config = ClientConfig::default().protocol(Revision::V2025_11_25);
    {
        let heard = Arc::clone(&heard);
        config.on_notification = Some(Arc::new(move |n| {
            if n.method == "notifications/resources/updated" {
                heard.lock().unwrap().push(serde_json::to_value(n).unwrap());
            }
        }));
    }
    (client_of(server, config, Script::new(vec![])).await, heard)
}

fn uri(uri: &str) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("uri".into(), json!(uri));
    params
}

#[tokio::test]
async fn a_subscriber_hears_the_upstreams_updates_and_nobody_else() {
    for upstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        subscribed_through(upstream).await;
    }
}

async fn subscribed_through(upstream: Revision) {
    let (gateway, server) = gateway_before(fixtures(), upstream).await;
    gateway.notify_through(&server);
    let (subscriber, heard) = listener(server.clone()).await;
    let (bystander, unheard) = listener(server).await;
    subscriber
        .request("resources/subscribe", uri(WATCHED))
        .await
        .unwrap();
    // The gateway subscribes upstream (or listens again) in a task.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let said = bystander
        .call_tool("test_update_watched_resource", json!({}))
        .await
        .unwrap();
    assert_eq!(
        said.content[0].as_text(),
        Some("Announced an update of test://watched-resource.")
    );
    for _ in 0..40 {
        if !heard.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        *heard.lock().unwrap(),
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": WATCHED}})
        ]
    );
    assert!(unheard.lock().unwrap().is_empty());

    // Unsubscribed, the next update is told to nobody.
    subscriber
        .request("resources/unsubscribe", uri(WATCHED))
        .await
        .unwrap();
    bystander
        .call_tool("test_update_watched_resource", json!({}))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(heard.lock().unwrap().len(), 1, "{upstream}");
}
