//! One call of each workload, checked: a closed-loop client runs it again
//! and again on its own keep-alive connections.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddr;

use anyhow::{Context as _, bail, ensure};
use hyper::{Method, StatusCode};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use crate::support::{
    self, ACCEPT, Conn, Http, JSON, Sse, initialize, initialized, legacy_call, modern_call,
    modern_headers, result_text,
};

/// The tool every workload calls.
const TOOL: &str = "bench_confirm";

/// What one closed-loop client does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The floor: one POST of the first round's body, echoed.
    Echo,
    /// 2026-07-28: `tools/call` → `input_required`, the retry with
    /// `inputResponses` and `requestState` → complete.
    Modern,
    /// 2025-11-25 over SSE: `initialize`, `notifications/initialized`,
    /// `tools/call` whose stream carries `elicitation/create`, the answer
    /// POSTed, the result on the stream, `DELETE` of the session.
    Legacy,
    /// The same as `Modern`, against rmcp serving the same tool.
    Rmcp,
}

impl Kind {
    /// HTTP requests one call makes.
    pub fn requests(self) -> u32 {
        match self {
            Self::Echo => 1,
            Self::Modern | Self::Rmcp => 2,
            Self::Legacy => 5,
        }
    }

    /// The table's name of the row.
    pub fn label(self) -> &'static str {
        match self {
            Self::Echo => "echo floor (bare hyper)",
            Self::Modern => "frontdesk 2026-07-28 MRTR",
            Self::Legacy => "frontdesk 2025-11-25 SSE",
            Self::Rmcp => "rmcp 3.11 2026-07-28 MRTR",
        }
    }
}

/// What the checks read of a 2026-07-28 `tools/call` response, borrowed
/// from its body: the result's members that tell a round from a
/// completion (parsed into nothing more, so that the load generator, which
/// shares the server's CPUs, takes little from the server it measures).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Reply<'a> {
    #[serde(rename = "resultType", borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(rename = "requestState", borrow)]
    request_state: Option<Cow<'a, str>>,
    #[serde(rename = "inputRequests", borrow)]
    input_requests: Option<BTreeMap<Cow<'a, str>, IgnoredAny>>,
    #[serde(borrow)]
    content: Vec<Block<'a>>,
}

/// A content block's text, if it has one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Block<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

/// A JSON-RPC response carrying a [`Reply`] as its result.
#[derive(Debug, Deserialize)]
struct RpcResponse<'a> {
    #[serde(borrow)]
    result: Reply<'a>,
}

impl<'a> Reply<'a> {
    /// The result of the response `body` that came with `status`; an
    /// error naming `round` (and showing the body) when it is not a 200
    /// with a result.
    fn read(body: &'a [u8], status: StatusCode, round: &str) -> anyhow::Result<Self> {
        let shown = || String::from_utf8_lossy(body);
        ensure!(
            status == StatusCode::OK,
            "{round} answered {status}: {}",
            shown()
        );
        serde_json::from_slice::<RpcResponse<'a>>(body)
            .map(|r| r.result)
            .with_context(|| format!("{round} is not a result: {}", shown()))
    }
}

/// A client's connections, opened once and kept alive.
pub struct Client {
    kind: Kind,
    /// Every request of Echo and Modern; the legacy call's own stream.
    main: Conn,
    /// The legacy call's other requests (initialize, answer, delete).
    side: Option<Conn>,
}

impl Client {
    /// Connect for `kind` over `http`, client number `index` (which picks
    /// its loopback source address, see [`support::source_of`]).
    pub async fn connect(
        kind: Kind,
        addr: SocketAddr,
        index: u64,
        http: Http,
    ) -> anyhow::Result<Self> {
        let source = Some(support::source_of(index));
        let main = Conn::open_from(addr, source, http).await?;
        let side = match kind {
            Kind::Legacy => Some(Conn::open_from(addr, source, http).await?),
            _ => None,
        };
        Ok(Self { kind, main, side })
    }

    /// One call, numbered `n`; an error when anything is not as expected.
    pub async fn call(&mut self, n: u64) -> anyhow::Result<()> {
        match self.kind {
            Kind::Echo => self.echo(n).await,
            Kind::Modern | Kind::Rmcp => self.modern(n).await,
            Kind::Legacy => self.legacy(n).await,
        }
    }

    async fn echo(&mut self, n: u64) -> anyhow::Result<()> {
        let body = modern_call(n, TOOL, n, None);
        let (status, _, echoed) = self.main.post(&modern_headers(TOOL), body.clone()).await?;
        ensure!(status == StatusCode::OK, "echo answered {status}");
        ensure!(echoed == body, "echo changed the body");
        Ok(())
    }

    async fn modern(&mut self, n: u64) -> anyhow::Result<()> {
        let headers = modern_headers(TOOL);
        let first = modern_call(2 * n, TOOL, n, None);
        let (status, _, body) = self.main.post(&headers, first).await?;
        let reply = Reply::read(&body, status, "round 1")?;
        ensure!(
            reply.result_type.as_deref() == Some("input_required"),
            "round 1 did not ask: {}",
            String::from_utf8_lossy(&body)
        );
        // The question's key: `confirm` from frontdesk serve; one of its
        // own from a gateway in front of a 2025-11-25 server.
        let (Some(state), Some(key)) = (
            reply.request_state.as_deref(),
            reply.input_requests.as_ref().and_then(|r| r.keys().next()),
        ) else {
            bail!(
                "round 1 has no requestState or asked nothing: {}",
                String::from_utf8_lossy(&body)
            );
        };
        let retry = modern_call(2 * n + 1, TOOL, n, Some((key, state)));
        let (status, _, body) = self.main.post(&headers, retry).await?;
        let reply = Reply::read(&body, status, "round 2")?;
        let text = reply.content.first().and_then(|b| b.text.as_deref());
        ensure!(
            text.and_then(|t| t.strip_prefix("confirmed "))
                .is_some_and(|m| m.parse() == Ok(n)),
            "round 2 did not complete: {}",
            String::from_utf8_lossy(&body)
        );
        Ok(())
    }

    async fn legacy(&mut self, n: u64) -> anyhow::Result<()> {
        let Some(side) = self.side.as_mut() else {
            bail!("a legacy client without its second connection");
        };
        let (status, headers, body) = side.post(&[ACCEPT, JSON], initialize(1)).await?;
        ensure!(status == StatusCode::OK, "initialize answered {status}");
        let session = headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .with_context(|| {
                format!(
                    "initialize gave no session: {}",
                    String::from_utf8_lossy(&body)
                )
            })?;
        let in_session = [
            ACCEPT,
            JSON,
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let (status, _, _) = side.post(&in_session, initialized()).await?;
        ensure!(
            status == StatusCode::ACCEPTED,
            "initialized answered {status}"
        );
        let call = legacy_call(2, TOOL, json!({"n": n}));
        let response = self.main.send(Method::POST, &in_session, call).await?;
        ensure!(
            response.status() == StatusCode::OK,
            "tools/call answered {}",
            response.status()
        );
        let mut stream = Sse::new(response);
        let question = loop {
            let Some(m) = stream.next_message().await? else {
                bail!("the call's stream ended before its question");
            };
            if m["method"] == "elicitation/create" {
                break m;
            }
        };
        let answer = support::answer(
            &question["id"],
            json!({"action": "accept", "content": {"ok": true}}),
        );
        let (status, _, _) = side.post(&in_session, answer).await?;
        ensure!(status == StatusCode::ACCEPTED, "the answer got {status}");
        let result = loop {
            let Some(m) = stream.next_message().await? else {
                bail!("the call's stream ended before its result");
            };
            if m["id"] == 2 {
                break m;
            }
        };
        let expected = format!("confirmed {n}");
        ensure!(
            result_text(&result) == Some(expected.as_str()),
            "the call did not complete: {result}"
        );
        stream.finish().await?;
        let gone = side
            .send(Method::DELETE, &in_session[2..3], bytes::Bytes::new())
            .await?;
        let (status, _, _) = support::read_whole(gone).await?;
        ensure!(status == StatusCode::NO_CONTENT, "DELETE answered {status}");
        Ok(())
    }
}
