//! `serve --otlp-endpoint URL` (or `OTEL_EXPORTER_OTLP_ENDPOINT`): the library's
//! spans — one per request, with the MCP attributes of OpenTelemetry's
//! semantic conventions, and one for each wait for a person — exported as
//! OpenTelemetry traces over OTLP/HTTP (protobuf) to a collector.
//!
//! The exporter's HTTP client is the workspace's reqwest (rustls), driven by a
//! small runtime of its own: the SDK's batch processor runs on its own thread
//! and exports from there, whatever the command's runtime is doing.

use std::time::Duration;

use anyhow::Context as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a collector's response that is read.
const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// Exporting traces; flushed and stopped when dropped (at the command's end).
pub(crate) struct Traces {
    provider: SdkTracerProvider,
}

impl Drop for Traces {
    fn drop(&mut self) {
        if let Err(e) = self.provider.shutdown() {
            crate::output::note(&format!(
                "frontdesk: the last traces could not be exported: {e}"
            ));
        }
    }
}

impl Traces {
    /// Start exporting to `endpoint` (a collector's base URL, like
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: `/v1/traces` is added) as `service`.
    pub(crate) fn start(endpoint: &str, service: &'static str) -> anyhow::Result<Self> {
        let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url)
            .with_timeout(EXPORT_TIMEOUT)
            .with_http_client(OtlpClient::start()?)
            .build()
            .with_context(|| format!("cannot export traces to {endpoint}"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(Resource::builder().with_service_name(service).build())
            .build();
        // The library's spans for a person's wait between two 2026-07-28
        // rounds are built with the global tracer.
        opentelemetry::global::set_tracer_provider(provider.clone());
        Ok(Self { provider })
    }

    /// The tracer the `tracing` layer feeds.
    pub(crate) fn tracer(&self) -> opentelemetry_sdk::trace::SdkTracer {
        self.provider.tracer("frontdesk")
    }
}

/// reqwest on a runtime of its own.
#[derive(Debug)]
struct OtlpClient {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

impl OtlpClient {
    fn start() -> anyhow::Result<Self> {
        frontdesk::client::install_default_tls_provider();
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .build()
            .context("cannot build the trace exporter's HTTP client")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("otlp-export".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match runtime {
                    Ok(rt) => {
                        let _ = tx.send(Ok(rt.handle().clone()));
                        rt.block_on(std::future::pending::<()>());
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            })
            .context("cannot start the trace exporter's thread")?;
        let runtime = rx
            .recv()
            .context("the trace exporter's thread ended")?
            .context("cannot start the trace exporter's runtime")?;
        Ok(Self { client, runtime })
    }
}

#[async_trait::async_trait]
impl HttpClient for OtlpClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let (parts, body) = request.into_parts();
        let sent = self.runtime.spawn(async move {
            let response = client
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await?;
            let status = response.status();
            let headers = response.headers().clone();
            // A collector answers with a short status message: read at most
            // `MAX_RESPONSE_BYTES` of it.
            let mut body = Vec::new();
            let mut response = response;
            while let Some(chunk) = response.chunk().await? {
                let room = MAX_RESPONSE_BYTES.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if body.len() >= MAX_RESPONSE_BYTES {
                    break;
                }
            }
            let body = Bytes::from(body);
            let mut answer = Response::new(body);
            *answer.status_mut() = status;
            *answer.headers_mut() = headers;
            Ok::<_, reqwest::Error>(answer)
        });
        Ok(sent.await??)
    }
}
