//! The upstream's notifications about a forwarded call, passed on to the
//! client in front of that call: `notifications/progress` and
//! `notifications/message` (logs).
//!
//! - **Progress.** When the client in front sent a `progressToken`, the
//!   upstream call carries one of the gateway's client's own
//!   ([`CallOptions::on_progress`]); each upstream progress notification is
//!   reported with the server core's `report_progress` under the client's
//!   token, `progress`, `total` and `message` as the upstream sent them (the
//!   message scrubbed). The core drops a value not above the last one sent,
//!   so what the client sees only increases.
//! - **Logs.** Filtered at the gateway: the upstream is asked for
//!   everything the client in front could want — a 2025-11-25 upstream
//!   `debug` for its whole session when attached (its level is one per
//!   session, shared by every client in front), a 2026-07-28 upstream the
//!   level the client in front asked for, with each call — and each message
//!   is passed on with `log_from`, which sends it only at or above the level
//!   the client in front asked for (none asked: nothing). Level, logger and
//!   data are kept; every string of the logger and the data is scrubbed.

use std::sync::Arc;

use frontdesk::client::{CallOptions, Client};
use frontdesk::server::ToolContext;
use frontdesk::wire::{
    LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams, Revision,
};

use crate::held::{Event, HeldCall};
use crate::scrub::{clean, scrub_strings};

/// A notification of the upstream about one call.
pub(crate) enum Note {
    /// `notifications/progress`.
    Progress(ProgressNotificationParams),
    /// `notifications/message`.
    Log(LoggingMessageNotificationParams),
}

/// The upstream call's options: its progress and logs go to `call`'s
/// handler; progress only when the client in front wants it, logs at the
/// level the client in front asked for (a 2026-07-28 upstream is asked per
/// call).
pub(crate) fn options(
    call: &Arc<HeldCall>,
    wants_progress: bool,
    log_level: Option<LoggingLevel>,
) -> CallOptions {
    let mut options = CallOptions::default();
    if wants_progress {
        let call = Arc::clone(call);
        options = options.on_progress(move |p| call.note(Note::Progress(p.clone())));
    }
    if let Some(level) = log_level {
        let call = Arc::clone(call);
        options = options
            .on_log(move |m| call.note(Note::Log(m.clone())))
            .log_level(level);
    }
    options
}

/// Ask a 2025-11-25 upstream that offers logging for all its messages (the
/// gateway filters per client); a 2026-07-28 one is asked per call.
pub(crate) async fn ask_for_logs(upstream: &Client) {
    let offers = upstream
        .server_capabilities()
        .is_some_and(|c| c.logging.is_some());
    if upstream.revision() != Revision::V2025_11_25 || !offers {
        return;
    }
    if let Err(e) = upstream.set_log_level(LoggingLevel::Debug).await {
        tracing::warn!(error = %e, "the upstream refused logging/setLevel; its logs are not passed on");
    }
}

/// Pass `note` on to the client in front of `cx`'s call.
pub(crate) fn pass_on(cx: &ToolContext, note: Note, scrubbing: bool) {
    match note {
        Note::Progress(p) => {
            let Some(progress) = p.progress.as_f64() else {
                return;
            };
            let total = p.total.as_ref().and_then(serde_json::Number::as_f64);
            let message = p.message.as_deref().map(|m| clean(m, scrubbing));
            cx.report_progress(progress, total, message.as_deref());
        }
        Note::Log(mut m) => {
            if scrubbing && scrub_strings(&mut m.data) > 0 {
                tracing::warn!("control characters removed from the upstream's log message");
            }
            let logger = m.logger.as_deref().map(|l| clean(l, scrubbing));
            cx.log_from(m.level, logger.as_deref(), m.data);
        }
    }
}

impl HeldCall {
    /// A notification of the upstream about this call, for its handler
    /// (told from the client's notification hook, which cannot wait: past
    /// the queue's room it is dropped, and logged).
    pub(crate) fn note(&self, note: Note) {
        if self.try_send(Event::Note(Box::new(note))).is_err() {
            tracing::debug!("a notification of the upstream could not be queued; dropped");
        }
    }
}
