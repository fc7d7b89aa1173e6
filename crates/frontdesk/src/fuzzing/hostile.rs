//! The internal parsers of outside input that `benches/hostile.rs` times on
//! 1 MiB of hostile input, reached from here rather than made public (the
//! public ones it calls directly). Each returns a short count of what the
//! parser made of the input, so the benchmark can check it did the work.

use crate::client::auth::{ResourceMetadata, ServerMetadata, check_endpoint, resource_covers};
use crate::client::sse::SseParser;
use crate::server::stdio::{LineRead, read_line_bounded};

/// The client's SSE parser over `stream`, fed in pieces of `chunk` bytes,
/// dropping events over `limit` bytes: how many events it gave.
pub fn sse_events(stream: &[u8], limit: usize, chunk: usize) -> usize {
    let mut parser = SseParser::new(limit);
    stream
        .chunks(chunk.max(1))
        .map(|piece| parser.feed(piece).len())
        .sum()
}

/// The stdio server's line reader over `input` (lines bounded by `limit`,
/// the reader's buffer `capacity` bytes): the lines read, and how many of
/// them were too long.
pub fn stdio_lines(input: &[u8], limit: usize, capacity: usize) -> (usize, usize) {
    let runtime = super::current_thread(false);
    runtime.block_on(async {
        let mut reader = tokio::io::BufReader::with_capacity(capacity.max(1), input);
        let mut buf = Vec::new();
        let (mut lines, mut too_long) = (0, 0);
        loop {
            buf.clear();
            match read_line_bounded(&mut reader, &mut buf, limit).await {
                Ok(LineRead::Line) => lines += 1,
                Ok(LineRead::TooLong) => too_long += 1,
                Ok(LineRead::Eof) | Err(_) => return (lines, too_long),
            }
        }
    })
}

/// An authorization server's metadata document as the OAuth client reads
/// it: parsed, then each endpoint checked as discovery checks it. How many
/// endpoints passed, or why the document was refused.
pub fn oauth_server_metadata(document: &[u8]) -> Result<usize, String> {
    let metadata: ServerMetadata =
        serde_json::from_slice(document).map_err(|e| format!("not metadata: {e}"))?;
    let endpoints = [
        Some(metadata.issuer.as_str()),
        Some(metadata.authorization_endpoint.as_str()),
        Some(metadata.token_endpoint.as_str()),
        metadata.registration_endpoint.as_deref(),
    ];
    let mut passed = 0;
    for url in endpoints.into_iter().flatten() {
        if check_endpoint("an endpoint", url).is_ok() {
            passed += 1;
        }
    }
    let _ = metadata.supports_scope("offline_access");
    let _ = metadata.auth_methods();
    Ok(passed)
}

/// A protected resource metadata document as the OAuth client reads it for
/// `endpoint`: parsed, its `resource` compared with the endpoint and each
/// authorization server URL checked. How many of those passed.
pub fn oauth_resource_metadata(document: &[u8], endpoint: &str) -> Result<usize, String> {
    let endpoint = url::Url::parse(endpoint).map_err(|e| format!("bad endpoint: {e}"))?;
    let metadata: ResourceMetadata =
        serde_json::from_slice(document).map_err(|e| format!("not metadata: {e}"))?;
    if !resource_covers(&metadata.resource, &endpoint) {
        return Err("the resource does not cover the endpoint".into());
    }
    Ok(metadata
        .authorization_servers
        .iter()
        .filter(|url| check_endpoint("an authorization server", url).is_ok())
        .count())
}
