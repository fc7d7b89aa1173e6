//! The server's spans, as OpenTelemetry's semantic conventions for MCP name
//! them: one per request ([`request_span`]: `{method} {tool}`,
//! `mcp.method.name`, `mcp.protocol.version`, `jsonrpc.request.id`,
//! `gen_ai.tool.name`, and `mcp.session.id` as a fingerprint, since a
//! 2025-11-25 session id is a credential), and one for each wait for a
//! person ([`wait_span`] on 2025-11-25; on 2026-07-28 the wait is between two
//! requests, see [`adopt`]). The spans are at debug level: they cost nothing
//! unless a subscriber (an OTLP exporter) wants them. No argument, answer or
//! token is an attribute.
//!
//! With the `otel` feature the rounds of one 2026-07-28 call are one trace:
//! the state sealed for the next round carries the trace context of the
//! round that asked ([`carry`]), and the retry's request span takes it as
//! its parent, after a span for the time the person took ([`adopt`]).
//! Without the feature, or without an OpenTelemetry layer, nothing is carried.

use frontdesk_wire::{RequestId, Revision};
use serde::{Deserialize, Serialize};

/// The trace context a sealed state carries to the next round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// The asking round's span as a W3C `traceparent`.
    #[serde(rename = "p")]
    pub(crate) parent: String,
    /// When the questions went out, in milliseconds since the Unix epoch.
    #[serde(rename = "s")]
    pub(crate) asked_ms: u64,
}

/// The span of one request. A 2026-07-28 retry's span gets its parent from
/// its state before it is entered ([`adopt`]).
pub(crate) fn request_span(
    method: &str,
    revision: Revision,
    id: &RequestId,
    tool: Option<&str>,
    session: Option<&str>,
) -> tracing::Span {
    let span = tracing::debug_span!(
        "mcp.request",
        otel.name = tracing::field::Empty,
        otel.kind = "server",
        mcp.method.name = method,
        mcp.protocol.version = revision.as_str(),
        jsonrpc.request.id = %id,
        gen_ai.tool.name = tracing::field::Empty,
        mcp.session.id = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    match tool {
        Some(tool) => {
            span.record("otel.name", format!("{method} {tool}"));
            span.record("gen_ai.tool.name", tool);
        }
        None => {
            span.record("otel.name", method);
        }
    }
    if let Some(session) = session {
        span.record(
            "mcp.session.id",
            crate::fingerprint::fingerprint(session).to_string(),
        );
    }
    span
}

/// The span of one 2025-11-25 wait for a person's answer (`mode`: `form` or
/// `url`), inside the call's span; it lasts as long as the person took.
pub(crate) fn wait_span(mode: &str) -> tracing::Span {
    tracing::debug_span!(
        "mcp.elicitation.wait",
        otel.name = "elicitation wait",
        mcp.elicitation.mode = mode,
    )
}

/// The trace context to carry to the next round: the current span's, when
/// it is being exported.
#[cfg(feature = "otel")]
pub(crate) fn carry() -> Option<Carried> {
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    let context = tracing::Span::current().context();
    let span = context.span();
    let parent = span.span_context();
    if !parent.is_valid() || !parent.is_sampled() {
        return None;
    }
    Some(Carried {
        parent: format!(
            "00-{}-{}-{:02x}",
            parent.trace_id(),
            parent.span_id(),
            parent.trace_flags().to_u8()
        ),
        asked_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    })
}

/// Without the `otel` feature nothing is carried.
#[cfg(not(feature = "otel"))]
pub(crate) fn carry() -> Option<Carried> {
    None
}

/// Join a retry's request `span` (not yet entered) to its call's trace:
/// when the state carried a context, a span for the person's wait (from when
/// the questions went out until now, when `asked`) becomes the request
/// span's parent, under the asking round's span.
#[cfg(feature = "otel")]
pub(crate) fn adopt(span: &tracing::Span, carried: Option<&Carried>, asked: bool) {
    use opentelemetry::trace::{
        Span as _, SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
        Tracer as _,
    };
    use opentelemetry::{Context, KeyValue};
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    let Some(carried) = carried else { return };
    if span.is_disabled() {
        return;
    }
    let mut parts = carried.parent.split('-');
    let (Some("00"), Some(trace), Some(parent), Some(flags), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return;
    };
    let (Ok(trace), Ok(parent), Ok(flags)) = (
        TraceId::from_hex(trace),
        SpanId::from_hex(parent),
        u8::from_str_radix(flags, 16),
    ) else {
        return;
    };
    let asking = SpanContext::new(
        trace,
        parent,
        TraceFlags::new(flags),
        true,
        TraceState::default(),
    );
    let mut context = Context::new().with_remote_span_context(asking);
    if asked {
        let tracer = opentelemetry::global::tracer("frontdesk");
        let from = std::time::UNIX_EPOCH + std::time::Duration::from_millis(carried.asked_ms);
        let mut wait = tracer.build_with_context(
            tracer
                .span_builder("elicitation wait")
                .with_start_time(from)
                .with_attributes([KeyValue::new("mcp.protocol.version", "2026-07-28")]),
            &context,
        );
        wait.end();
        context = Context::new().with_remote_span_context(wait.span_context().clone());
    }
    if span.set_parent(context).is_err() {
        tracing::debug!("a retry's span was started before its trace context was known");
    }
}

/// Without the `otel` feature there is no trace to join.
#[cfg(not(feature = "otel"))]
pub(crate) fn adopt(_span: &tracing::Span, _carried: Option<&Carried>, _asked: bool) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_carried_context_is_two_short_members() {
        let carried = Carried {
            parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
            asked_ms: 1_780_000_000_000,
        };
        assert_eq!(
            serde_json::to_string(&carried).ok().as_deref(),
            Some(
                r#"{"p":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","s":1780000000000}"#
            )
        );
    }

    #[test]
    fn without_a_subscriber_nothing_is_carried() {
        assert_eq!(carry(), None);
    }
}
