//! [`Client::listen`]: a 2026-07-28 `subscriptions/listen` stream, in
//! process and over Streamable HTTP. What the server tells on it reaches
//! `on_notification`; a stream the caller drops is told to the server
//! (stdio: `notifications/cancelled`), which stops telling it; on
//! 2025-11-25 there is no such stream.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::client::{self as support, TestHandler, Wire};
use frontdesk::client::{Client, ClientError, ProtocolChoice};
use frontdesk::server::resource::{ResourceDef, ResourceOutput};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::wire::{Revision, SubscriptionFilter};
use serde_json::{Value, json};

const WATCHED: &str = "test://watched";

async fn touch(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.notify_resource_updated(WATCHED);
    Ok(ToolOutput::text("touched"))
}

fn server(_: &str) -> Server {
    Server::builder("listen-test", "1")
        .resource(ResourceDef::new(WATCHED, "watched", |_, _| async {
            Ok(ResourceOutput::text("hello"))
        }))
        .tool(ToolDef::new("touch", "Updates the watched resource", touch))
        .build()
}

async fn updates_heard(heard: &Mutex<Vec<Value>>, want: usize) -> Vec<Value> {
    for _ in 0..100 {
        if heard.lock().unwrap().len() >= want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    heard.lock().unwrap().clone()
}

#[tokio::test]
async fn a_listen_streams_notifications_reach_the_hook_until_it_is_dropped() {
    for http in [false, true] {
        let wire = Wire::default();
        let heard: Arc<Mutex<Vec<Value>>> = Arc::default();
        let mut config = wire.config(ProtocolChoice::Only(Revision::V2026_07_28));
        {
            let heard = Arc::clone(&heard);
            config.on_notification = Some(Arc::new(move |n| {
                if n.method == "notifications/resources/updated" {
                    heard.lock().unwrap().push(serde_json::to_value(n).unwrap());
                }
            }));
        }
        let (client, _server) = if http {
            let s = support::http_server(server).await;
            let c = Client::connect_http(&s.mcp, config, TestHandler::new([]))
                .await
                .unwrap();
            (c, Some(s))
        } else {
            let c = support::in_process(server(""), config, TestHandler::new([])).await;
            (c, None)
        };
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec![WATCHED.into()]),
            ..SubscriptionFilter::default()
        };
        let listening = {
            let client = client.clone();
            tokio::spawn(async move { client.listen(filter).await })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.call_tool("touch", json!({})).await.unwrap();
        let got = updates_heard(&heard, 1).await;
        assert_eq!(got.len(), 1, "http={http}: {got:?}");
        assert_eq!(got[0]["params"]["uri"], WATCHED, "http={http}");
        let listen = wire.last_sent("subscriptions/listen").unwrap();
        assert_eq!(
            got[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen["id"],
            "http={http}: tagged with the stream's id"
        );
        assert_eq!(
            listen["params"]["notifications"],
            json!({"resourceSubscriptions": [WATCHED]})
        );

        // Dropped: the server stops telling it.
        listening.abort();
        let _ = listening.await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        if !http {
            let cancelled = wire.last_sent("notifications/cancelled").unwrap();
            assert_eq!(cancelled["params"]["requestId"], listen["id"]);
        }
        client.call_tool("touch", json!({})).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(heard.lock().unwrap().len(), 1, "http={http}");
    }
}

#[tokio::test]
async fn there_is_no_listen_stream_on_2025_11_25() {
    let wire = Wire::default();
    let config = wire.config(ProtocolChoice::Only(Revision::V2025_11_25));
    let client = support::in_process(server(""), config, TestHandler::new([])).await;
    let refused = client.listen(SubscriptionFilter::default()).await;
    assert!(
        matches!(refused, Err(ClientError::Protocol(_))),
        "{refused:?}"
    );
    assert!(wire.last_sent("subscriptions/listen").is_none());
}
