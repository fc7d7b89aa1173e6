//! Resuming, from the event archive, a 2025-11-25 stream of a session this
//! instance does not hold (see [`archive`](super::archive)): replay what
//! the archive holds after `Last-Event-ID`, then follow the stream there
//! until its end mark.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use frontdesk_wire::ErrorCode;
use tokio_util::sync::CancellationToken;

use super::archive::{ArchiveReader, Archived, EventArchive, Owner};
use super::mcp::{AppState, get_bounds, session_error};
use super::respond::{self, rpc_error};
use super::sse::{Attached, Event, Live, event_id, frame, parse_event_id};
use crate::fingerprint::fingerprint;
use crate::store::StoreError;

/// How long one read waits for the stream to grow: also how soon a
/// follower notices that its client left.
const FOLLOW_WAIT: Duration = Duration::from_secs(1);

/// `GET` of session `sid`, which this instance does not hold: resumed from
/// the archive when it knows the session, `principal` may use it and
/// `Last-Event-ID` names one of its streams; else what an instance without
/// an archive answers (`404`).
pub(crate) async fn from_archive(
    st: &AppState,
    sid: &str,
    principal: Option<&str>,
    last: Option<&str>,
) -> Response {
    let not_found = || session_error(StatusCode::NOT_FOUND, None, "Session not found");
    let (Some(writer), Some(last)) = (&st.archive, last) else {
        return not_found();
    };
    let archive = writer.store();
    let session = match archive.session(sid).await {
        Ok(Some(s)) => s,
        Ok(None) => return not_found(),
        Err(e) => return unavailable(&e),
    };
    // Another principal's session is as unknown as a missing one (as on
    // the instance holding it).
    if session.owner != Owner::of(principal) {
        return not_found();
    }
    let Some((stream, seq)) = parse_event_id(last) else {
        return session_error(
            StatusCode::BAD_REQUEST,
            None,
            "Bad Request: unknown Last-Event-ID",
        );
    };
    let gone = || {
        session_error(
            StatusCode::BAD_REQUEST,
            None,
            "Bad Request: that stream is no longer available",
        )
    };
    let mut reader = match archive.reader(sid, stream).await {
        Ok(Some(r)) => r,
        Ok(None) => return gone(),
        Err(e) => return unavailable(&e),
    };
    // Alive first, then read: what a stopped instance wrote before saying
    // so is in the read.
    let alive = match archive.alive(&session.instance).await {
        Ok(a) => a,
        Err(e) => return unavailable(&e),
    };
    let first = match reader.read(seq, Duration::ZERO).await {
        Ok(items) => items,
        Err(e) => return unavailable(&e),
    };
    let mut replay = Vec::with_capacity(first.len());
    let mut after = seq;
    let ended = take(stream, first, &mut replay, &mut after);
    if !ended && !alive && replay.is_empty() {
        // Nobody will finish this stream, and it has nothing left to give:
        // the session is gone, as without an archive.
        tracing::info!(session = %fingerprint(sid), stream, "resume refused: the instance holding the session is gone");
        return not_found();
    }
    if let Some(e) = replay.first()
        && e.seq > seq.saturating_add(1)
    {
        tracing::warn!(
            stream,
            missed = e.seq - seq - 1,
            "the archive no longer holds every missed event"
        );
    }
    // A stream of an instance that is gone is replayed, not followed.
    let live = (!ended && alive).then(|| {
        let (tx, live) = Live::channel();
        let holder = Holder {
            archive: Arc::clone(archive),
            instance: session.instance.clone(),
        };
        tokio::spawn(follow(
            reader,
            holder,
            stream,
            after,
            tx,
            st.shutdown.clone(),
        ));
        live
    });
    tracing::info!(
        session = %fingerprint(sid),
        stream,
        after = seq,
        replayed = replay.len(),
        "stream resumed from the event archive"
    );
    let bounds = (stream == 0).then(|| get_bounds(st));
    respond::log_stream(
        Attached { replay, live },
        st.options.keepalive,
        st.shutdown.clone(),
        bounds,
    )
}

/// Append `items` to `out` as SSE events, moving `after` past them; whether
/// the end mark came.
fn take(stream: u64, items: Vec<Archived>, out: &mut Vec<Event>, after: &mut u64) -> bool {
    for item in items {
        match item {
            Archived::Event { seq, data } if seq > *after => {
                *after = seq;
                out.push(Event {
                    seq,
                    bytes: frame(Some(&event_id(stream, seq)), &data),
                });
            }
            Archived::Event { .. } => {}
            Archived::End => return true,
        }
    }
    false
}

/// The instance holding a followed stream's session.
struct Holder {
    archive: Arc<dyn EventArchive>,
    instance: String,
}

/// Feed `tx` with the stream's events after `after` until its end mark, the
/// holder of its session being gone (after a last read of what it wrote),
/// the client leaving, shutdown, or an archive error (the client may resume
/// again from its last event).
async fn follow(
    mut reader: Box<dyn ArchiveReader>,
    holder: Holder,
    stream: u64,
    mut after: u64,
    tx: futures::channel::mpsc::UnboundedSender<Event>,
    shutdown: CancellationToken,
) {
    let mut batch = Vec::new();
    let mut holder_gone = false;
    while !tx.is_closed() {
        let wait = if holder_gone {
            Duration::ZERO
        } else {
            FOLLOW_WAIT
        };
        let read = tokio::select! {
            () = shutdown.cancelled() => return,
            r = reader.read(after, wait) => r,
        };
        let items = match read {
            Ok(items) => items,
            Err(e) => {
                tracing::warn!(error = %e, stream, "event archive read failed; resumed stream ended");
                return;
            }
        };
        let quiet = items.is_empty();
        let ended = take(stream, items, &mut batch, &mut after);
        for e in batch.drain(..) {
            if tx.unbounded_send(e).is_err() {
                return;
            }
        }
        if ended {
            return;
        }
        if holder_gone {
            // The last read after the holder went: what it wrote is out.
            tracing::info!(
                stream,
                "resumed stream ended: the instance holding its session is gone"
            );
            return;
        }
        if quiet {
            // Nothing came within the wait: is anyone still writing it?
            match holder.archive.alive(&holder.instance).await {
                Ok(true) => {}
                Ok(false) => holder_gone = true,
                Err(e) => {
                    tracing::warn!(error = %e, stream, "event archive unavailable; resumed stream ended");
                    return;
                }
            }
        }
    }
}

/// `503` when the archive cannot answer (the client may try again).
fn unavailable(e: &StoreError) -> Response {
    tracing::warn!(error = %e, "event archive unavailable; resume refused");
    let mut r = rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorCode::INTERNAL_ERROR,
        "Service unavailable: try again later",
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}
