//! What the server counts, through the [`metrics`](https://docs.rs/metrics)
//! facade: install any recorder (`metrics-exporter-prometheus`, StatsD,
//! OpenTelemetry) and these appear; without one they cost an atomic load.
//! `frontdesk serve --metrics ADDR` serves them in Prometheus' text format.
//! Call [`describe`] once after installing the recorder for help texts.
//!
//! No label carries a value from outside beyond a fixed set (a method the
//! server does not know counts as `other`), and none carries an answer, a
//! token or a session id.
//!
//! | name | kind | labels | answers |
//! | --- | --- | --- | --- |
//! | `frontdesk_requests_total` | counter | `method`, `revision`, `outcome` (`ok`, `error`) | what clients ask, and how often it fails |
//! | `frontdesk_input_required_total` | counter | `method` | rounds a 2026-07-28 call needed beyond its last (÷ calls = rounds per call) |
//! | `frontdesk_elicitations_asked_total` | counter | `mode` (`form`, `url`), `revision` | how many questions people get |
//! | `frontdesk_elicitations_answered_total` | counter | `mode`, `revision`, `outcome` (`accept`, `decline`, `cancel`, `invalid`, `timed_out`, `abandoned`, `withdrawn`) | how often people decline, give up or answer wrongly |
//! | `frontdesk_elicitation_answer_seconds` | histogram | `revision` | how long people take to answer (2026-07-28: from the round's `input_required` to its retry) |
//! | `frontdesk_states_total` | counter | `event` (`sealed`, `opened`, `resent` — a retry sent again within `retry_reply_ttl` gets its kept reply —, `refused`), `reason` (only for `refused`: `expired`, `replayed`, `unauthentic` — tampered, another principal, request or key —, `unknown_key`, `malformed`, `oversize`) | whether clients replay or tamper with state |
//! | `frontdesk_refusals_total` | counter | `limit` | which bound turns clients away |
//! | `frontdesk_requests_in_flight` | gauge | — | load now |
//! | `frontdesk_questions_waiting` | gauge | — | 2025-11-25 questions waiting for a person now |
//! | `frontdesk_sessions_open` | gauge | — | 2025-11-25 sessions over HTTP now |
//! | `frontdesk_store_seconds` | histogram | `op` (`redeem`; `archive`: a batch written to the event archive) | the state store's latency |
//! | `frontdesk_store_errors_total` | counter | `op` | the state store failing |
//! | `frontdesk_archive_dropped_total` | counter | — | 2025-11-25 events not archived because the archive's writer queue was full (a stream resumed on another instance misses them) |

use std::time::Duration;

use frontdesk_wire::Revision;

/// `frontdesk_requests_total`.
pub const REQUESTS: &str = "frontdesk_requests_total";
/// `frontdesk_input_required_total`.
pub const INPUT_REQUIRED: &str = "frontdesk_input_required_total";
/// `frontdesk_elicitations_asked_total`.
pub const ELICITATIONS_ASKED: &str = "frontdesk_elicitations_asked_total";
/// `frontdesk_elicitations_answered_total`.
pub const ELICITATIONS_ANSWERED: &str = "frontdesk_elicitations_answered_total";
/// `frontdesk_elicitation_answer_seconds`.
pub const ANSWER_SECONDS: &str = "frontdesk_elicitation_answer_seconds";
/// `frontdesk_states_total`.
pub const STATES: &str = "frontdesk_states_total";
/// `frontdesk_refusals_total`.
pub const REFUSALS: &str = "frontdesk_refusals_total";
/// `frontdesk_requests_in_flight`.
pub const REQUESTS_IN_FLIGHT: &str = "frontdesk_requests_in_flight";
/// `frontdesk_questions_waiting`.
pub const QUESTIONS_WAITING: &str = "frontdesk_questions_waiting";
/// `frontdesk_sessions_open`.
pub const SESSIONS_OPEN: &str = "frontdesk_sessions_open";
/// `frontdesk_store_seconds`.
pub const STORE_SECONDS: &str = "frontdesk_store_seconds";
/// `frontdesk_store_errors_total`.
pub const STORE_ERRORS: &str = "frontdesk_store_errors_total";
/// `frontdesk_archive_dropped_total`.
pub const ARCHIVE_DROPPED: &str = "frontdesk_archive_dropped_total";

/// Register the help text and unit of every metric with the installed
/// recorder (call once, after installing it).
pub fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        REQUESTS,
        "Requests handled, by method, revision and outcome."
    );
    describe_counter!(
        INPUT_REQUIRED,
        "2026-07-28 responses that asked for input (input_required), by method."
    );
    describe_counter!(
        ELICITATIONS_ASKED,
        "Questions sent to people, by mode and revision."
    );
    describe_counter!(
        ELICITATIONS_ANSWERED,
        "What became of the questions: accept, decline, cancel, invalid (re-asked or failed), timed_out, abandoned, withdrawn."
    );
    describe_histogram!(
        ANSWER_SECONDS,
        Unit::Seconds,
        "Time a person took to answer, by revision."
    );
    describe_counter!(
        STATES,
        "Sealed request states: sealed, opened, resent (kept reply), refused (by reason)."
    );
    describe_counter!(
        REFUSALS,
        "Requests or questions refused by a bound, by the bound."
    );
    describe_gauge!(REQUESTS_IN_FLIGHT, "Requests being handled now.");
    describe_gauge!(
        QUESTIONS_WAITING,
        "2025-11-25 questions waiting for a person now."
    );
    describe_gauge!(
        SESSIONS_OPEN,
        "2025-11-25 sessions open over Streamable HTTP now."
    );
    describe_histogram!(
        STORE_SECONDS,
        Unit::Seconds,
        "State store latency, by operation."
    );
    describe_counter!(STORE_ERRORS, "State store failures, by operation.");
    describe_counter!(
        ARCHIVE_DROPPED,
        "2025-11-25 events not archived: the event archive's writer queue was full."
    );
}

/// A revision as a label value.
pub(crate) fn revision(revision: Revision) -> &'static str {
    match revision {
        Revision::V2025_11_25 => "2025-11-25",
        Revision::V2026_07_28 => "2026-07-28",
    }
}

/// A method as a label value: the methods MCP defines, else `other` (a
/// client cannot grow the label set).
pub(crate) fn method(method: &str) -> &'static str {
    use frontdesk_wire::method as m;
    const KNOWN: &[&str] = &[
        m::INITIALIZE,
        m::PING,
        m::SERVER_DISCOVER,
        m::TOOLS_LIST,
        m::TOOLS_CALL,
        m::PROMPTS_LIST,
        m::PROMPTS_GET,
        m::RESOURCES_LIST,
        m::RESOURCES_READ,
        m::RESOURCES_TEMPLATES_LIST,
        m::RESOURCES_SUBSCRIBE,
        m::RESOURCES_UNSUBSCRIBE,
        m::COMPLETION_COMPLETE,
        m::LOGGING_SET_LEVEL,
        m::SUBSCRIPTIONS_LISTEN,
        m::TASKS_GET,
        m::TASKS_UPDATE,
        m::TASKS_CANCEL,
    ];
    KNOWN
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("other")
}

/// A request handled.
pub(crate) fn request(method_name: &str, rev: Revision, ok: bool) {
    metrics::counter!(REQUESTS,
        "method" => method(method_name),
        "revision" => revision(rev),
        "outcome" => if ok { "ok" } else { "error" })
    .increment(1);
}

/// A 2026-07-28 response asking for input.
pub(crate) fn input_required(method_name: &str) {
    metrics::counter!(INPUT_REQUIRED, "method" => method(method_name)).increment(1);
}

/// A question sent (or put in an `input_required`).
pub(crate) fn asked(mode: &'static str, rev: Revision) {
    metrics::counter!(ELICITATIONS_ASKED, "mode" => mode, "revision" => revision(rev)).increment(1);
}

/// What became of a question.
pub(crate) fn answered(mode: &'static str, rev: Revision, outcome: &'static str) {
    metrics::counter!(ELICITATIONS_ANSWERED,
        "mode" => mode, "revision" => revision(rev), "outcome" => outcome)
    .increment(1);
}

/// How long a person took.
pub(crate) fn answer_time(rev: Revision, took: Duration) {
    metrics::histogram!(ANSWER_SECONDS, "revision" => revision(rev)).record(took.as_secs_f64());
}

/// A state sealed or opened.
pub(crate) fn state(event: &'static str) {
    metrics::counter!(STATES, "event" => event).increment(1);
}

/// A state refused, for `why` (the sealer's reason, or `replayed`).
pub(crate) fn state_refused(why: &'static str) {
    let reason = match why {
        "expired" | "replayed" | "oversize" => why,
        "unknown key id" => "unknown_key",
        w if w.starts_with("authentication failed") => "unauthentic",
        _ => "malformed",
    };
    metrics::counter!(STATES, "event" => "refused", "reason" => reason).increment(1);
}

/// A bound said no.
pub(crate) fn refused(limit: &'static str) {
    metrics::counter!(REFUSALS, "limit" => limit).increment(1);
}

/// A gauge moved by `delta`.
pub(crate) fn gauge(name: &'static str, delta: f64) {
    metrics::gauge!(name).increment(delta);
}

/// An event not archived: the writer's queue was full.
#[cfg(feature = "http-server")]
pub(crate) fn archive_dropped() {
    metrics::counter!(ARCHIVE_DROPPED).increment(1);
}

/// A store operation's time and result.
pub(crate) fn store(op: &'static str, took: Duration, ok: bool) {
    metrics::histogram!(STORE_SECONDS, "op" => op).record(took.as_secs_f64());
    if !ok {
        metrics::counter!(STORE_ERRORS, "op" => op).increment(1);
    }
}
