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
//! | `frontdesk_store_seconds` | histogram | `op` (`redeem`; `archive`: a batch written to the event archive; `keep_reply`, `kept_reply`: a retry's reply kept for, and read by, another instance) | the state store's latency |
//! | `frontdesk_store_errors_total` | counter | `op` | the state store failing |
//! | `frontdesk_archive_dropped_total` | counter | — | 2025-11-25 events not archived because the archive's writer queue was full (a stream resumed on another instance misses them) |

use std::borrow::Cow;
use std::sync::LazyLock;
use std::time::Duration;

use frontdesk_wire::Revision;
use metrics::{Key, Label, Level, Metadata};

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

/// The methods MCP defines, then `other`: the values of the `method` label.
const METHODS: &[&str] = {
    use frontdesk_wire::method as m;
    &[
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
        "other",
    ]
};

/// The values of the `revision` label.
const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

/// The values of the `mode` label.
const MODES: &[&str] = &["form", "url"];

/// A method as a label value: the methods MCP defines, else `other` (a
/// client cannot grow the label set).
pub(crate) fn method(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("other")
}

/// What the server's metrics say of where they come from: what the
/// `metrics` macros would say here.
static METADATA: Metadata<'static> =
    Metadata::new(module_path!(), Level::INFO, Some(module_path!()));

/// Every key of one metric over its labels' known values, built on first
/// use, so that recording is a lookup: the `metrics` macros build a key per
/// call (with a vector for labels not known at compile time) and hash it,
/// which was a few hundred instructions and an allocation per metric, even
/// with no recorder installed. The recorder is still found at each call, as
/// the macros find it.
struct KeyTable {
    name: &'static str,
    /// Each label's name and known values, in the key's order.
    labels: &'static [(&'static str, &'static [&'static str])],
    /// One key per combination of values, the last label varying fastest.
    keys: Vec<Key>,
}

impl KeyTable {
    fn new(name: &'static str, labels: &'static [(&'static str, &'static [&'static str])]) -> Self {
        let count: usize = labels.iter().map(|(_, values)| values.len()).product();
        let keys = (0..count)
            .map(|index| {
                let mut rest = index;
                let mut parts = vec![Label::from_static_parts("", ""); labels.len()];
                for (part, (label, values)) in parts.iter_mut().zip(labels).rev() {
                    *part = Label::from_static_parts(label, values[rest % values.len()]);
                    rest /= values.len();
                }
                Key::from_parts(name, parts)
            })
            .collect();
        Self { name, labels, keys }
    }

    /// The key for `values` (one per label, in order): the table's, or one
    /// built now for a value the table does not know.
    fn key(&self, values: &[&'static str]) -> Cow<'_, Key> {
        debug_assert_eq!(
            values.len(),
            self.labels.len(),
            "one value per label of {}",
            self.name
        );
        let mut index = 0;
        for ((_, known), value) in self.labels.iter().zip(values) {
            match known.iter().position(|k| k == value) {
                Some(at) => index = index * known.len() + at,
                None => return Cow::Owned(self.build(values)),
            }
        }
        match self.keys.get(index) {
            Some(key) => Cow::Borrowed(key),
            None => Cow::Owned(self.build(values)),
        }
    }

    fn build(&self, values: &[&'static str]) -> Key {
        let parts: Vec<Label> = self
            .labels
            .iter()
            .zip(values)
            .map(|((label, _), value)| Label::from_static_parts(label, value))
            .collect();
        Key::from_parts(self.name, parts)
    }

    fn count(&self, values: &[&'static str]) {
        let key = self.key(values);
        metrics::with_recorder(|r| r.register_counter(&key, &METADATA)).increment(1);
    }

    fn record(&self, values: &[&'static str], value: f64) {
        let key = self.key(values);
        metrics::with_recorder(|r| r.register_histogram(&key, &METADATA)).record(value);
    }

    fn move_gauge(&self, delta: f64) {
        let key = self.key(&[]);
        metrics::with_recorder(|r| r.register_gauge(&key, &METADATA)).increment(delta);
    }
}

/// A table of `name` over `labels`, built on first use.
macro_rules! key_table {
    ($name:expr $(, $label:literal => $values:expr)* $(,)?) => {{
        static TABLE: LazyLock<KeyTable> =
            LazyLock::new(|| KeyTable::new($name, &[$(($label, $values)),*]));
        &*TABLE
    }};
}

/// A request handled.
pub(crate) fn request(method_name: &str, rev: Revision, ok: bool) {
    let outcome = if ok { "ok" } else { "error" };
    key_table!(REQUESTS, "method" => METHODS, "revision" => REVISIONS, "outcome" => &["ok", "error"])
        .count(&[method(method_name), revision(rev), outcome]);
}

/// A 2026-07-28 response asking for input.
pub(crate) fn input_required(method_name: &str) {
    key_table!(INPUT_REQUIRED, "method" => METHODS).count(&[method(method_name)]);
}

/// A question sent (or put in an `input_required`).
pub(crate) fn asked(mode: &'static str, rev: Revision) {
    key_table!(ELICITATIONS_ASKED, "mode" => MODES, "revision" => REVISIONS)
        .count(&[mode, revision(rev)]);
}

/// What became of a question.
pub(crate) fn answered(mode: &'static str, rev: Revision, outcome: &'static str) {
    const OUTCOMES: &[&str] = &[
        "accept",
        "decline",
        "cancel",
        "invalid",
        "timed_out",
        "abandoned",
        "withdrawn",
    ];
    key_table!(ELICITATIONS_ANSWERED, "mode" => MODES, "revision" => REVISIONS, "outcome" => OUTCOMES)
        .count(&[mode, revision(rev), outcome]);
}

/// How long a person took.
pub(crate) fn answer_time(rev: Revision, took: Duration) {
    key_table!(ANSWER_SECONDS, "revision" => REVISIONS)
        .record(&[revision(rev)], took.as_secs_f64());
}

/// A state sealed or opened.
pub(crate) fn state(event: &'static str) {
    key_table!(STATES, "event" => &["sealed", "opened", "resent"]).count(&[event]);
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
    match name {
        REQUESTS_IN_FLIGHT => key_table!(REQUESTS_IN_FLIGHT).move_gauge(delta),
        QUESTIONS_WAITING => key_table!(QUESTIONS_WAITING).move_gauge(delta),
        SESSIONS_OPEN => key_table!(SESSIONS_OPEN).move_gauge(delta),
        _ => metrics::gauge!(name).increment(delta),
    }
}

/// An event not archived: the writer's queue was full.
#[cfg(feature = "http-server")]
pub(crate) fn archive_dropped() {
    metrics::counter!(ARCHIVE_DROPPED).increment(1);
}

/// Run the store operation `work`, recording its time and result as
/// [`store`] does.
pub(crate) async fn timed_store<T, E>(
    op: &'static str,
    work: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let started = std::time::Instant::now();
    let result = work.await;
    store(op, started.elapsed(), result.is_ok());
    result
}

/// A store operation's time and result.
pub(crate) fn store(op: &'static str, took: Duration, ok: bool) {
    key_table!(STORE_SECONDS, "op" => &["redeem", "archive", "keep_reply", "kept_reply"])
        .record(&[op], took.as_secs_f64());
    if !ok {
        metrics::counter!(STORE_ERRORS, "op" => op).increment(1);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, PoisonError};

    use metrics::{
        Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, KeyName, Recorder,
        SharedString, Unit,
    };

    use super::*;

    /// One recording: the handle's kind, its key, where it said it came
    /// from, and the value.
    type Seen = (&'static str, Key, String, f64);

    /// A recorder that writes down every recording.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<Seen>>>);

    struct Handle {
        capture: Capture,
        kind: &'static str,
        key: Key,
        target: String,
    }

    impl Handle {
        fn push(&self, value: f64) {
            let seen = (self.kind, self.key.clone(), self.target.clone(), value);
            self.capture
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(seen);
        }
    }

    impl CounterFn for Handle {
        fn increment(&self, value: u64) {
            self.push(value as f64);
        }
        fn absolute(&self, value: u64) {
            self.push(value as f64);
        }
    }

    impl GaugeFn for Handle {
        fn increment(&self, value: f64) {
            self.push(value);
        }
        fn decrement(&self, value: f64) {
            self.push(-value);
        }
        fn set(&self, value: f64) {
            self.push(value);
        }
    }

    impl HistogramFn for Handle {
        fn record(&self, value: f64) {
            self.push(value);
        }
    }

    impl Capture {
        fn handle(&self, kind: &'static str, key: &Key, metadata: &Metadata<'_>) -> Arc<Handle> {
            Arc::new(Handle {
                capture: self.clone(),
                kind,
                key: key.clone(),
                target: format!("{} {:?}", metadata.target(), metadata.level()),
            })
        }

        /// What `record` records.
        fn of(record: impl FnOnce()) -> Vec<Seen> {
            let capture = Capture::default();
            metrics::with_local_recorder(&capture, record);
            let seen = capture.0.lock().unwrap_or_else(PoisonError::into_inner);
            seen.clone()
        }
    }

    impl Recorder for Capture {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
            Counter::from_arc(self.handle("counter", key, metadata))
        }
        fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
            Gauge::from_arc(self.handle("gauge", key, metadata))
        }
        fn register_histogram(&self, key: &Key, metadata: &Metadata<'_>) -> Histogram {
            Histogram::from_arc(self.handle("histogram", key, metadata))
        }
    }

    /// Each metric records what the `metrics` macro with the same name and
    /// labels records, for label values in the tables and outside them.
    #[test]
    fn keys_from_tables_record_what_the_macros_record() {
        let v1 = Revision::V2025_11_25;
        let v2 = Revision::V2026_07_28;
        let took = Duration::from_millis(1500);
        let ours = Capture::of(|| {
            request("tools/call", v2, true);
            request("no/such", v1, false);
            input_required("prompts/get");
            asked("form", v2);
            asked("sampling", v1);
            answered("url", v1, "withdrawn");
            answered("form", v2, "accept");
            answered("form", v2, "something-new");
            answer_time(v2, took);
            state("sealed");
            state("opened");
            state("something-new");
            gauge(REQUESTS_IN_FLIGHT, 1.0);
            gauge(SESSIONS_OPEN, -1.0);
            gauge("frontdesk_other_gauge", 2.0);
            store("redeem", took, false);
            store("something-new", took, true);
        });
        let macros = Capture::of(|| {
            let c = |name: &'static str, labels: Vec<Label>| {
                metrics::counter!(name, labels).increment(1);
            };
            let l = Label::from_static_parts;
            c(
                REQUESTS,
                vec![
                    l("method", "tools/call"),
                    l("revision", "2026-07-28"),
                    l("outcome", "ok"),
                ],
            );
            c(
                REQUESTS,
                vec![
                    l("method", "other"),
                    l("revision", "2025-11-25"),
                    l("outcome", "error"),
                ],
            );
            c(INPUT_REQUIRED, vec![l("method", "prompts/get")]);
            c(
                ELICITATIONS_ASKED,
                vec![l("mode", "form"), l("revision", "2026-07-28")],
            );
            c(
                ELICITATIONS_ASKED,
                vec![l("mode", "sampling"), l("revision", "2025-11-25")],
            );
            c(
                ELICITATIONS_ANSWERED,
                vec![
                    l("mode", "url"),
                    l("revision", "2025-11-25"),
                    l("outcome", "withdrawn"),
                ],
            );
            c(
                ELICITATIONS_ANSWERED,
                vec![
                    l("mode", "form"),
                    l("revision", "2026-07-28"),
                    l("outcome", "accept"),
                ],
            );
            c(
                ELICITATIONS_ANSWERED,
                vec![
                    l("mode", "form"),
                    l("revision", "2026-07-28"),
                    l("outcome", "something-new"),
                ],
            );
            metrics::histogram!(ANSWER_SECONDS, "revision" => "2026-07-28").record(1.5);
            c(STATES, vec![l("event", "sealed")]);
            c(STATES, vec![l("event", "opened")]);
            c(STATES, vec![l("event", "something-new")]);
            metrics::gauge!(REQUESTS_IN_FLIGHT).increment(1.0);
            metrics::gauge!(SESSIONS_OPEN).increment(-1.0);
            metrics::gauge!("frontdesk_other_gauge").increment(2.0);
            metrics::histogram!(STORE_SECONDS, "op" => "redeem").record(1.5);
            c(STORE_ERRORS, vec![l("op", "redeem")]);
            metrics::histogram!(STORE_SECONDS, "op" => "something-new").record(1.5);
        });
        // The macros here say they come from this test module; in the
        // module above they said what the tables say.
        let macros: Vec<Seen> = macros
            .into_iter()
            .map(|(kind, key, target, value)| {
                (
                    kind,
                    key,
                    target.replace("metrics::tests", "metrics"),
                    value,
                )
            })
            .collect();
        assert_eq!(ours.len(), 18);
        assert!(
            ours.iter()
                .all(|(_, _, target, _)| target == "frontdesk::metrics Level(Info)")
        );
        assert_eq!(ours, macros);
    }
}
