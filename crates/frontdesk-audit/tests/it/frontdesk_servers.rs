//! frontdesk's own server passes every check: brightgrid (the demo
//! `frontdesk serve` runs), built as `frontdesk serve` builds it (sealed
//! state under a shared key, single-use redemption), its sign-in links on
//! https, plus a tool that asks through `-32042` on 2025-11-25.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::http::HttpOptions;
use frontdesk::http::auth::tokens::StaticTokens;
use frontdesk::server::{
    NoArgs, Server, ServerConfig, ToolContext, ToolDef, ToolError, ToolOutput,
};
use frontdesk::state::{InMemoryNonceStore, Keyring, StateKey, StateSealer};
use frontdesk_audit::target::Pipe;
use frontdesk_audit::{Endpoint, Options, Target, audit};
use frontdesk_demo::DemoOptions;
use serde_json::json;

use crate::support::{
    bearer, failed, options, passes_all_it_can, passes_the_checks_that_need_more, shown,
};

/// The key every instance seals with (FRONTDESK_STATE_KEYS in production).
const KEY: [u8; 32] = [7; 32];

/// brightgrid with a -32042 tool, state lasting `ttl`.
fn brightgrid(ttl: Duration) -> Server {
    let sealer = StateSealer::new(Keyring::new(StateKey::new("k1", KEY).unwrap()));
    let builder = Server::builder("brightgrid", "test")
        .config(ServerConfig::new().state_ttl(ttl))
        .state_sealer(sealer)
        .nonce_store(Some(Arc::new(InMemoryNonceStore::new())));
    frontdesk_demo::register(
        builder,
        "https://store.example.com",
        &DemoOptions::default(),
    )
    .tool(ToolDef::new(
        "connect_calendar",
        "Connect a calendar (asks through -32042 on 2025-11-25)",
        |cx: ToolContext, _: NoArgs| async move {
            let error = cx
                .url_elicitation_required("Connect your calendar to continue.", |t| {
                    format!(
                        "https://calendar.example.com/connect?token={}",
                        t.connect_token
                    )
                })
                .await;
            Err::<ToolOutput, ToolError>(error)
        },
    ))
    .build()
}

fn calls() -> Options {
    Options {
        calls: vec![
            ("book_return".into(), json!({"order_id": "A-1001"})),
            ("connect_store_account".into(), json!({})),
            ("connect_calendar".into(), json!({})),
        ],
        effects: vec!["book_return".into()],
        ..options()
    }
}

fn piped(server: Server) -> Endpoint {
    Endpoint::pipe(
        "brightgrid",
        move || -> BoxFuture<'static, std::io::Result<Pipe>> {
            let server = server.clone();
            Box::pin(async move {
                let (client, far) = tokio::io::duplex(1 << 20);
                let (read, write) = tokio::io::split(far);
                tokio::spawn(frontdesk::server::stdio::serve(server, read, write));
                let (read, write) = tokio::io::split(client);
                Ok((Box::new(read) as _, Box::new(write) as _))
            })
        },
    )
}

/// Both revisions over a pipe, with the limit floods.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brightgrid_passes_every_check_it_can_run() {
    let opts = Options {
        stress: true,
        ..calls()
    };
    let report = audit(
        &Target::new(piped(brightgrid(Duration::from_secs(600)))),
        &opts,
    )
    .await;
    assert_eq!(failed(&report), vec![], "{}", shown(&report));
    passes_all_it_can(&report);
}

async fn listen(ttl: Duration) -> String {
    let tokens = StaticTokens::parse(
        "alice token-of-alice-0123456789abcdef\nbob token-of-bob-0123456789abcdef0\n",
    )
    .unwrap();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let listener = frontdesk::http::bind(addr, HttpOptions::new().authenticator(tokens))
        .await
        .unwrap();
    let url = listener.endpoint_url();
    tokio::spawn(listener.serve(brightgrid(ttl)));
    url
}

/// Over HTTP with bearer tokens: another principal is refused, a second
/// instance with the same key serves the retry, and a state expires.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brightgrid_over_http_passes_the_checks_that_need_more() {
    let url = listen(Duration::from_secs(2)).await;
    let other = listen(Duration::from_secs(2)).await;
    let mut target = Target::new(bearer(&url, "token-of-alice-0123456789abcdef"));
    target.second_principal = Some(bearer(&url, "token-of-bob-0123456789abcdef0"));
    target.also = Some(bearer(&other, "token-of-alice-0123456789abcdef"));
    passes_the_checks_that_need_more(&target, calls()).await;
}
