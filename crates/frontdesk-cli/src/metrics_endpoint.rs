//! `frontdesk serve --metrics ADDR`: the library's metrics
//! ([`frontdesk::metrics`]) recorded by the Prometheus exporter and served
//! as Prometheus' text format at `http://ADDR/metrics`, on a listener of its
//! own (keep it off the public network: it is not authenticated).

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::http::header;
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Bucket bounds of every `_seconds` histogram: from a store's
/// sub-millisecond write to a person's minutes.
const SECONDS_BUCKETS: &[f64] = &[
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0, 120.0, 300.0, 600.0,
];

/// How often histograms and summaries are folded (the exporter's upkeep).
const UPKEEP: Duration = Duration::from_secs(5);

/// Install the Prometheus recorder and serve `/metrics` on `addr`; returns
/// the bound address.
pub(crate) async fn start(addr: SocketAddr) -> anyhow::Result<SocketAddr> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
        .context("cannot set the histogram buckets")?
        .install_recorder()
        .context("cannot install the metrics recorder")?;
    frontdesk::metrics::describe();
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} for --metrics"))?;
    let bound = listener.local_addr()?;
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(UPKEEP).await;
            upkeep.run_upkeep();
        }
    });
    let app = Router::new().route("/metrics", get(move || render(handle.clone())));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "the metrics listener stopped");
        }
    });
    Ok(bound)
}

async fn render(handle: PrometheusHandle) -> impl axum::response::IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle.render(),
    )
}
