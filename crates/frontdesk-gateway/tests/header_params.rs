//! A 2026-07-28 client's `Mcp-Param-*` headers through the gateway on
//! Streamable HTTP: checked against the body for the upstream's
//! `x-mcp-header` arguments as `frontdesk serve` checks them (SEP-2243), on
//! either upstream revision. Raw HTTP, so a request can leave a header out.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use frontdesk::http::{HttpOptions, bind};
use frontdesk::wire::Revision;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The gateway in front of the fixtures (spoken to in `upstream`), on HTTP;
/// its address and the sender that stops it.
async fn gateway_on_http(
    upstream: Revision,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let (_gateway, server) = gateway_before(fixtures(), upstream).await;
    let listener = bind("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap();
    let addr = listener.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(listener.serve_with_shutdown(server, async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// POST a 2026-07-28 `tools/call` of `test_header_param` with `region` in
/// the body and `extra` headers; the status and the JSON body.
async fn call(addr: std::net::SocketAddr, region: &str, extra: &[(&str, &str)]) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
    "name": "test_header_param", "arguments": {"region": region},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}})
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n\
         Mcp-Name: test_header_param\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let (head, rest) = response.split_once("\r\n\r\n").expect("a head and a body");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    (status, serde_json::from_str(rest).expect("a JSON body"))
}

#[tokio::test]
async fn mcp_param_headers_are_checked_against_the_upstream_tools_x_mcp_header() {
    for upstream in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let (addr, _stop) = gateway_on_http(upstream).await;
        // The header mirrors the body: the upstream's tool runs.
        let (status, v) = call(addr, "eu", &[("Mcp-Param-Region", "eu")]).await;
        assert_eq!(status, 200, "{upstream:?}: {v}");
        assert_eq!(
            v["result"]["content"][0]["text"], "Running in eu.",
            "{upstream:?}: {v}"
        );
        // Left out, or another value: refused in front, before the upstream.
        for extra in [&[][..], &[("Mcp-Param-Region", "us")][..]] {
            let (status, v) = call(addr, "eu", extra).await;
            assert_eq!(status, 400, "{upstream:?} {extra:?}: {v}");
            assert_eq!(v["id"], 7, "{v}");
            assert_eq!(v["error"]["code"], -32020, "{upstream:?} {extra:?}: {v}");
        }
    }
}
