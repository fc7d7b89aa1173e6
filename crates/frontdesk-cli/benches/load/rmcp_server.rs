//! rmcp, the official Rust SDK, serving the same `bench_confirm` tool on
//! 2026-07-28 over Streamable HTTP, for the load benchmark's comparison
//! row: round 1 returns `input_required` with the same form question under
//! `confirm` and a `requestState` sealed by rmcp's own codec
//! (`RequestStateCodec`: HMAC-signed, not encrypted, not single use); the
//! retry opens it, checks it is for the same `n`, and answers `confirmed
//! <n>` (or `not confirmed <n>`, `declined`, `cancelled`). JSON responses
//! (`json_response`), no keep-alive pings, `TCP_NODELAY` as frontdesk sets
//! it. Run as a child process of the benchmark (`--rmcp-server`), so its
//! CPU time is its own.

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ErrorData, InputRequest, InputRequests, InputRequiredResult,
    ProtocolVersion, RequestStateCodec, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The tool, with the codec its states are sealed with.
#[derive(Clone)]
struct BenchConfirm {
    codec: Arc<RequestStateCodec>,
}

impl BenchConfirm {
    fn question(n: i64) -> Result<InputRequests, ErrorData> {
        let schema = serde_json::from_value(json!({
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"]
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert(
            "confirm".to_string(),
            InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: format!("Confirm {n}?"),
                    requested_schema: schema,
                },
            )),
        );
        Ok(requests)
    }
}

impl ServerHandler for BenchConfirm {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("n"))
            .and_then(Value::as_i64)
            .ok_or_else(|| ErrorData::invalid_params("n must be an integer", None))?;
        let Some(sealed) = request.request_state else {
            let state = self
                .codec
                .seal_json(&json!({"n": n}))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            return Ok(InputRequiredResult::new(Some(Self::question(n)?), Some(state)).into());
        };
        let state: Value = self
            .codec
            .open_json(&sealed)
            .map_err(|_| ErrorData::invalid_params("requestState is invalid", None))?;
        if state["n"].as_i64() != Some(n) {
            return Err(ErrorData::invalid_params(
                "requestState is for another call",
                None,
            ));
        }
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get("confirm"))
            .cloned()
            .unwrap_or(Value::Null);
        let text = match answer["action"].as_str() {
            Some("accept") if answer["content"]["ok"] == json!(true) => format!("confirmed {n}"),
            Some("accept") => format!("not confirmed {n}"),
            Some("decline") => "declined".to_string(),
            _ => "cancelled".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Serve on an ephemeral loopback port until killed; the address goes to
/// stderr as `rmcp server at http://ADDR/mcp`.
pub async fn serve() -> std::io::Result<()> {
    let mut key = [0u8; 32];
    rand::fill(&mut key[..]);
    let tool = BenchConfirm {
        codec: Arc::new(RequestStateCodec::new_unchecked(key.to_vec())),
    };
    let mut config = StreamableHttpServerConfig::default().with_sse_keep_alive(None);
    config.json_response = true;
    let service = StreamableHttpService::new(
        move || Ok(tool.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    eprintln!("rmcp server at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
