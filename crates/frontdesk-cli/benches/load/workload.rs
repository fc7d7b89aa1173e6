//! One call of each workload, checked: a closed-loop client runs it again
//! and again on its own keep-alive connections.

use std::net::SocketAddr;

use anyhow::{Context as _, bail, ensure};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

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
        let body = modern_call(n, TOOL, json!({"n": n}), None);
        let (status, _, echoed) = self.main.post(&modern_headers(TOOL), body.clone()).await?;
        ensure!(status == StatusCode::OK, "echo answered {status}");
        ensure!(echoed == body, "echo changed the body");
        Ok(())
    }

    async fn modern(&mut self, n: u64) -> anyhow::Result<()> {
        let headers = modern_headers(TOOL);
        let first = modern_call(2 * n, TOOL, json!({"n": n}), None);
        let (status, _, body) = self.main.post(&headers, first).await?;
        let reply: Value = serde_json::from_slice(&body).context("round 1 is not JSON")?;
        ensure!(
            status == StatusCode::OK,
            "round 1 answered {status}: {reply}"
        );
        let result = &reply["result"];
        ensure!(
            result["resultType"] == "input_required",
            "round 1 did not ask: {reply}"
        );
        let Some(state) = result["requestState"].as_str() else {
            bail!("round 1 has no requestState: {reply}");
        };
        // The question's key: `confirm` from frontdesk serve; one of its
        // own from a gateway in front of a 2025-11-25 server.
        let key = result["inputRequests"]
            .as_object()
            .and_then(|r| r.keys().next())
            .context("round 1 asked nothing")?;
        let answers = json!({key: {"action": "accept", "content": {"ok": true}}});
        let retry = modern_call(2 * n + 1, TOOL, json!({"n": n}), Some((answers, state)));
        let (status, _, body) = self.main.post(&headers, retry).await?;
        let reply: Value = serde_json::from_slice(&body).context("round 2 is not JSON")?;
        ensure!(
            status == StatusCode::OK,
            "round 2 answered {status}: {reply}"
        );
        let expected = format!("confirmed {n}");
        ensure!(
            result_text(&reply) == Some(expected.as_str()),
            "round 2 did not complete: {reply}"
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
