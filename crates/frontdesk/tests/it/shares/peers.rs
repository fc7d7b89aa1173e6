//! An anonymous client known by its address: an IPv6 address counts as its
//! /64, so a host that picks a new address in its /64 for every request is
//! still one client with one share.

use frontdesk::server::transport::{OutboundSink, RequestInfo};
use frontdesk::server::{Server, ServerConfig};
use serde_json::{Value, json};

use crate::support::HandleJson;
use crate::support::stdio::{builder, call};

/// A first round of the URL-mode tool from `ip`: its outcome's text (the
/// URL question, or why it could not be asked).
async fn first_round_from(server: &Server, ip: &str) -> Value {
    let (sink, _rx) = OutboundSink::channel();
    let info = RequestInfo::new().peer(ip.parse().unwrap());
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": call("connect_store_account", json!({}), json!({"elicitation": {"url": {}}}))});
    server
        .handle_json(None, body, &sink, &info)
        .await
        .response_value()
        .unwrap()
}

fn asked(v: &Value) -> bool {
    v["result"]["inputRequests"]["signin"]["params"]["url"].is_string()
}

fn refused_over_its_share(v: &Value) -> bool {
    v["result"]["isError"] == true
        && v["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("could not be asked now"))
}

#[tokio::test]
async fn two_addresses_of_one_64_share_one_flow_share() {
    let server = builder()
        .config(ServerConfig::new().max_flows_per_client(1))
        .build();
    let first = first_round_from(&server, "2001:db8:1:2::1").await;
    assert!(asked(&first), "{first}");
    let same_64 = first_round_from(&server, "2001:db8:1:2:abcd::9").await;
    assert!(refused_over_its_share(&same_64), "{same_64}");
    let other_64 = first_round_from(&server, "2001:db8:1:3::1").await;
    assert!(asked(&other_64), "{other_64}");
    // An IPv4 client and the same address mapped into IPv6 are one client.
    let v4 = first_round_from(&server, "192.0.2.7").await;
    assert!(asked(&v4), "{v4}");
    let mapped = first_round_from(&server, "::ffff:192.0.2.7").await;
    assert!(refused_over_its_share(&mapped), "{mapped}");
}
