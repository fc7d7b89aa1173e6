//! What the integration tests share: an in-process stdio client
//! ([`stdio`]), Streamable HTTP servers and raw requests ([`http`]), the
//! scripted person and wire recorder of the client tests ([`client`]), and
//! the small servers and helpers more than one of them needs.

pub mod client;
pub mod http;
pub mod stdio;
pub mod surface;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use frontdesk::server::transport::{Handled, OutboundSink, RequestInfo, Session};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use serde_json::Value;

/// `Server::handle` on a message built as a JSON value, read first as a
/// transport reads its bytes (`Server::parse_message`).
pub trait HandleJson {
    /// Read `message` and handle it.
    fn handle_json<'a>(
        &'a self,
        session: Option<&'a Arc<Session>>,
        message: Value,
        sink: &'a OutboundSink,
        info: &'a RequestInfo,
    ) -> impl Future<Output = Handled> + Send + 'a;
}

impl HandleJson for Server {
    fn handle_json<'a>(
        &'a self,
        session: Option<&'a Arc<Session>>,
        message: Value,
        sink: &'a OutboundSink,
        info: &'a RequestInfo,
    ) -> impl Future<Output = Handled> + Send + 'a {
        let read = self
            .parse_message(message.to_string().as_bytes())
            .expect("a JSON value reads");
        self.handle(session, read, sink, info)
    }
}

/// The connect token of a sign-in URL (`…/signin?token=…`).
pub fn token_of(url: &str) -> String {
    url.split("token=").nth(1).unwrap().to_string()
}

/// A tool that answers "URL elicitation required" (`-32042` on 2025-11-25)
/// on its first call and succeeds afterwards; its sign-in links point at
/// `base`.
pub fn url_required_server(base: &str) -> Server {
    let base = base.to_string();
    let calls = Arc::new(AtomicUsize::new(0));
    Server::builder("url-required", "0.0.1")
        .tool(ToolDef::new(
            "needs_sign_in",
            "Needs a browser sign-in first",
            move |cx: ToolContext, _: NoArgs| {
                let base = base.clone();
                let n = calls.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n > 0 {
                        return Ok(ToolOutput::text("signed in; here are your orders"));
                    }
                    Err::<ToolOutput, ToolError>(
                        cx.url_elicitation_required("Sign in first.", |t| {
                            format!("{base}/signin?token={}", t.connect_token)
                        })
                        .await,
                    )
                }
            },
        ))
        .build()
}
