//! The upstream side: the elicitation handler the upstream [`Client`]
//! is connected with. It refuses what must not reach the person (a form
//! outside the elicitation schema subset, a URL `frontdesk_url::review`
//! refuses, a mode the client in front did not declare, a question no call
//! of the gateway is waiting for) and hands every other question to the
//! held call that is running upstream; an upstream's
//! `notifications/elicitation/complete` goes to that call too. A
//! 2026-07-28 upstream's whole round goes to that call as one round
//! ([`rounds`]).
//!
//! [`Client`]: frontdesk::client::Client

use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::ClientError;
use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
    RootsHandler, SamplingHandler, SamplingRequest, SamplingResponse,
};
use frontdesk::form::FormSchema;
use frontdesk::wire::{ElicitRequestParams, InputRequests, InputResponses, Meta, Root, meta_key};
use serde_json::Value;

use crate::audit::{AuditLog, Record};
use crate::checks::{Checks, QuestionRate};
use crate::held::{Asks, Event, HeldCall, Modes, Open, Reply};
use frontdesk_url::{Severity, UrlPolicy, UrlReview, review};

mod rounds;

tokio::task_local! {
    /// The call whose upstream rounds this task runs (2026-07-28 upstream):
    /// the client runtime answers a round's questions on the task that
    /// awaits the call, so each question finds its call here.
    pub(crate) static ASKING: Arc<HeldCall>;
}

/// The gateway's handler of upstream questions.
pub(crate) struct Relay {
    /// The 2025-11-25 upstream call running now (one at a time: its live
    /// requests come on the connection's own task, with nothing that names
    /// the call), whose questions these are.
    current: Mutex<Option<Arc<HeldCall>>>,
    pub(crate) checks: Checks,
    /// Shared by every lane: the limit is the upstream server's.
    rate: Arc<QuestionRate>,
    audit: Option<Arc<AuditLog>>,
    /// The upstream server's name, for the audit file.
    server: Mutex<String>,
    /// What this connection told a 2025-11-25 upstream at `initialize`:
    /// the modes of the calls it serves (the attached upstream's,
    /// [`Modes::ALL`]).
    declared: Modes,
}

/// Clears [`Relay::current`] when the upstream call ends.
pub(crate) struct Entered<'a>(&'a Relay);

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        if let Ok(mut c) = self.0.current.lock() {
            *c = None;
        }
    }
}

impl Relay {
    pub(crate) fn new(checks: Checks, audit: Option<Arc<AuditLog>>) -> Self {
        Self {
            current: Mutex::new(None),
            rate: Arc::new(QuestionRate::new(checks.questions_per_minute)),
            checks,
            audit,
            server: Mutex::new(String::new()),
            declared: Modes::ALL,
        }
    }

    /// The relay of another connection to the same upstream, for calls
    /// whose client declared `modes` (what that connection's `initialize`
    /// tells the upstream): its own call in flight, the same checks,
    /// limit and audit file.
    pub(crate) fn sibling(&self, modes: Modes) -> Self {
        Self {
            current: Mutex::new(None),
            rate: Arc::clone(&self.rate),
            checks: self.checks.clone(),
            audit: self.audit.clone(),
            server: Mutex::new(self.server()),
            declared: modes,
        }
    }

    /// The attached upstream's name, for the audit file.
    pub(crate) fn set_server(&self, name: &str) {
        if let Ok(mut server) = self.server.lock() {
            name.clone_into(&mut server);
        }
    }

    fn server(&self) -> String {
        self.server.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// `call` runs upstream until the guard is dropped.
    pub(crate) fn enter(&self, call: Arc<HeldCall>) -> Entered<'_> {
        if let Ok(mut c) = self.current.lock() {
            *c = Some(call);
        }
        Entered(self)
    }

    /// The call a question belongs to: the task's own (2026-07-28
    /// upstream), else the one 2025-11-25 call in flight.
    fn current(&self) -> Option<Arc<HeldCall>> {
        ASKING
            .try_with(Arc::clone)
            .ok()
            .or_else(|| self.current.lock().ok().and_then(|c| c.clone()))
    }
}

/// Why `params` must not reach the downstream client, if it must not.
pub(crate) fn refusal(
    params: &ElicitRequestParams,
    call: Option<&HeldCall>,
    checks: &Checks,
) -> Option<String> {
    let form = match params {
        ElicitRequestParams::Form(form) => form,
        ElicitRequestParams::Url(url) => return url_refusal(&url.url, call, checks),
        _ => return Some("an elicitation mode this gateway does not know".into()),
    };
    // Labels are scrubbed on the way (see `scrub`), so a control character
    // in a title is no reason to refuse the form.
    let mut schema = Value::Object((*form.requested_schema).clone());
    crate::scrub::scrub_labels(&mut schema);
    if let Err(e) = schema_from_value_strict(&schema) {
        return Some(format!(
            "{e} (refused by the gateway: outside the elicitation schema subset)"
        ));
    }
    let Some(call) = call else {
        return Some("no call of this gateway is in progress to ask for".into());
    };
    if !call.modes.form {
        return Some("the client behind this gateway does not accept form elicitation".into());
    }
    None
}

/// Why a URL question must not reach the downstream client: its URL
/// refused by the review (every finding that refuses it named), or a client
/// in front that did not declare URL mode.
fn url_refusal(url: &str, call: Option<&HeldCall>, checks: &Checks) -> Option<String> {
    let reviewed = review(url, &UrlPolicy::default());
    if checks.review_urls && !reviewed.may_open() {
        let why: Vec<String> = reviewed
            .findings()
            .iter()
            .filter(|f| f.severity == Severity::Refusal)
            .map(|f| format!("{}: {}", f.code, f.message))
            .collect();
        return Some(format!(
            "the URL was refused by the gateway's URL review ({})",
            why.join("; ")
        ));
    }
    let Some(call) = call else {
        return Some("no call of this gateway is in progress to ask for".into());
    };
    if !call.modes.url {
        return Some("the client behind this gateway does not accept URL-mode elicitation".into());
    }
    None
}

/// The review's findings as a URL question's `_meta`
/// ([`meta_key::URL_REVIEW`]), for hosts that show them; `None` when the
/// review found nothing.
fn review_meta(review: &UrlReview) -> Option<Meta> {
    if review.findings().is_empty() {
        return None;
    }
    let mut meta = Meta::new();
    meta.0.insert(
        meta_key::URL_REVIEW.into(),
        serde_json::json!({
            "verdict": review.verdict(),
            "findings": review.findings(),
        }),
    );
    Some(meta)
}

impl ElicitationHandler for Relay {
    /// What the client in front of the call declared, where the upstream
    /// learns capabilities per request (a 2026-07-28 upstream's call runs
    /// in the call's task); otherwise (a 2025-11-25 `initialize`) what this
    /// connection declares: the modes of the calls it serves (see
    /// `lanes`), both on the attached upstream, the gateway refusing per
    /// call what that call's client did not declare.
    fn modes(&self) -> HandlerModes {
        let modes = ASKING.try_with(|call| call.modes).unwrap_or(self.declared);
        HandlerModes {
            form: modes.form,
            url: modes.url,
        }
    }

    fn url_completed(&self, elicitation_id: &str) {
        match self.current() {
            Some(call) => call.url_done(elicitation_id),
            None => tracing::debug!(
                elicitation_id,
                "a URL completion with no call in progress; ignored"
            ),
        }
    }

    fn refusal(&self, params: &ElicitRequestParams) -> Option<String> {
        let reason = if self.rate.admit(std::time::Instant::now()) {
            refusal(params, self.current().as_deref(), &self.checks)
        } else {
            Some(format!(
                "the server asked too many questions: at most {} a minute pass this gateway; \
                 ask again in {} ms",
                self.checks.questions_per_minute,
                self.rate.period().as_millis()
            ))
        };
        if let Some(reason) = &reason {
            let (mode, message, url) = match params {
                ElicitRequestParams::Form(p) => ("form", p.message.as_str(), None),
                ElicitRequestParams::Url(p) => ("url", p.message.as_str(), Some(p.url.as_str())),
                _ => ("unknown", "", None),
            };
            let server = self.server();
            let tool = self.current().map(|c| c.tool.clone()).unwrap_or_default();
            self.record(&Record {
                server: &server,
                tool: &tool,
                mode,
                message,
                url,
                outcome: "refused",
                reason: Some(reason),
                took: None,
                content: None,
            });
        }
        reason
    }

    /// A 2026-07-28 upstream's round of forms, sampling and roots goes to
    /// the client in front as one round, under the upstream's keys (see
    /// [`rounds`]). A 2025-11-25 upstream has no rounds.
    fn round(
        &self,
        requests: InputRequests,
        cancelled: tokio_util::sync::CancellationToken,
    ) -> Result<BoxFuture<'_, Result<InputResponses, ClientError>>, InputRequests> {
        self.whole_round(requests, cancelled)
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let (response, outcome) = self.relay(&request).await;
            self.audit(&request, &response, outcome, started.elapsed());
            response
        })
    }
}

impl Relay {
    /// One line of the audit log per question the upstream asked: who asked,
    /// for which tool, the mode, the message (escaped), what came of it and
    /// how long the person took; never the answer's content. With an audit
    /// file, the same as a JSON line (the content only when it asks for
    /// it). Refusals are recorded where they are decided (`refusal`).
    fn audit(
        &self,
        request: &Elicitation,
        response: &ElicitationResponse,
        outcome: &str,
        took: std::time::Duration,
    ) {
        let (mode, url) = match &request.kind {
            ElicitationKind::Form { .. } => ("form", None),
            ElicitationKind::Url { review, .. } => ("url", review.url()),
            _ => ("other", None),
        };
        let content = match response {
            ElicitationResponse::Accept(content) => Some(content),
            _ => None,
        };
        self.record(&Record {
            server: &request.origin.server.name,
            tool: request.origin.tool().unwrap_or(""),
            mode,
            message: &request.message,
            url,
            outcome,
            reason: None,
            took: Some(took),
            content,
        });
    }

    /// Write one question's audit line to the log and, with an audit file,
    /// its record there (the answer's content only when the file asks for
    /// it; never in the log line).
    pub(crate) fn record(&self, record: &Record<'_>) {
        let took_ms = record
            .took
            .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        if record.outcome == "refused" {
            tracing::warn!(
                target: AUDIT,
                server = %record.server,
                tool = record.tool,
                mode = record.mode,
                question = ?record.message,
                outcome = record.outcome,
                reason = record.reason.unwrap_or_default(),
                "elicitation"
            );
        } else {
            tracing::info!(
                target: AUDIT,
                server = %record.server,
                tool = record.tool,
                mode = record.mode,
                question = ?record.message,
                outcome = record.outcome,
                took_ms,
                "elicitation"
            );
        }
        if let Some(audit) = &self.audit {
            audit.write(record);
        }
    }
}

/// The log target of the audit lines.
pub(crate) const AUDIT: &str = "frontdesk_gateway::audit";

impl Relay {
    /// Pass one question to the call that asks; the answer and what to
    /// call it in the audit log.
    async fn relay(&self, request: &Elicitation) -> (ElicitationResponse, &'static str) {
        let cancel = ElicitationResponse::Cancel;
        // `refusal` let it through: there is a call, and the form is in
        // the subset. Should either have changed since, nobody can be
        // asked: cancel, logged (never an invented decline).
        let Some(call) = self.current() else {
            tracing::warn!("an upstream question with no call to ask for; answering cancel");
            return (cancel, "cancel (no call)");
        };
        let asks = match &request.kind {
            ElicitationKind::Form { form, .. } => {
                let mut schema = form.schema.to_json();
                if self.checks.scrub && crate::scrub::scrub_labels(&mut schema) > 0 {
                    tracing::warn!("control characters removed from an upstream form's labels");
                }
                match schema_from_value_strict(&schema) {
                    Ok(schema) => Asks::Form(Arc::new(schema)),
                    Err(e) => {
                        tracing::warn!(error = %e, "upstream form outside the subset; answering cancel");
                        return (cancel, "cancel (outside the subset)");
                    }
                }
            }
            ElicitationKind::Url {
                review,
                elicitation_id,
            } => match review.url() {
                // The URL as reviewed (ASCII; punycode for an IDN host).
                Some(url) if (review.may_open() || !self.checks.review_urls) && call.modes.url => {
                    Asks::Url {
                        url: url.to_string(),
                        upstream_id: elicitation_id.clone(),
                        review: review_meta(review),
                    }
                }
                _ => {
                    tracing::warn!("a URL question the gateway does not pass on; answering cancel");
                    return (cancel, "cancel (not passed on)");
                }
            },
            _ => return (cancel, "cancel (unknown kind)"),
        };
        let cancelled = request.cancelled.clone();
        let message = if self.checks.scrub {
            crate::scrub::scrub(&request.message).into_owned()
        } else {
            request.message.clone()
        };
        match put(&call, message, asks, &cancelled).await {
            Put::Answered(Reply::Elicit(response)) => {
                let outcome = match &response {
                    ElicitationResponse::Accept(_) => "accept",
                    ElicitationResponse::Decline => "decline",
                    ElicitationResponse::Cancel => "cancel",
                    _ => "other",
                };
                (response, outcome)
            }
            Put::Answered(_) => (cancel, "cancel (answered something else)"),
            Put::Gone(why) => (cancel, why),
        }
    }
}

/// What became of a request handed to a call.
enum Put {
    /// The client in front answered.
    Answered(Reply),
    /// Nobody will (what to call it in the log).
    Gone(&'static str),
}

/// Hand `asks` to `call` (its handler puts it to the client in front) and
/// wait for the answer, or for the upstream to withdraw it.
async fn put(
    call: &Arc<HeldCall>,
    message: String,
    asks: Asks,
    cancelled: &tokio_util::sync::CancellationToken,
) -> Put {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let open = Open {
        seq: call.next_seq(),
        message,
        asks,
        reply: Some(reply),
    };
    let seq = open.seq;
    if call.send(Event::Question(Box::new(open))).await.is_err() {
        tracing::warn!("the call that asked is gone");
        return Put::Gone("cancel (call gone)");
    }
    tokio::select! {
        answered = answer => match answered {
            Ok(reply) => Put::Answered(reply),
            Err(_) => {
                tracing::warn!(seq, "the call that asked ended unanswered");
                Put::Gone("cancel (call ended)")
            }
        },
        () = cancelled.cancelled() => {
            // The upstream withdrew it (or its time ran out): a
            // retry's answer has nowhere to go.
            call.withdraw(seq);
            Put::Gone("withdrawn")
        }
    }
}

/// The call a sampling or roots request belongs to, if the client in front
/// of it declared `wanted`.
fn declared_for(relay: &Relay, wanted: fn(&Modes) -> bool, capability: &'static str) -> bool {
    match relay.current() {
        Some(call) => {
            let declared = wanted(&call.modes);
            // A 2025-11-25 upstream asks this only when it sends the
            // request (a 2026-07-28 one, in the call's task, for each
            // request's capabilities): the call needs what its client lacks.
            if !declared && ASKING.try_with(|_| ()).is_err() {
                call.lacks(capability);
            }
            declared
        }
        // No call: the 2025-11-25 `initialize`; the connection declares
        // the modes of the calls it serves.
        None => wanted(&relay.declared),
    }
}

/// `sampling/createMessage` of the upstream, passed to the client in front
/// of the call that asks (a live request on 2025-11-25, an `input_required`
/// round on 2026-07-28), declared only when that client declared it.
impl SamplingHandler for Relay {
    fn declared(&self) -> bool {
        declared_for(self, |m| m.sampling, "sampling")
    }

    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let Some(call) = self.current() else {
                return SamplingResponse::Unavailable(
                    "no call of this gateway is in progress".into(),
                );
            };
            let asks = Asks::Sampling(Box::new(request.params.clone()));
            let (response, outcome) =
                match put(&call, String::new(), asks, &request.cancelled).await {
                    Put::Answered(Reply::Sampled(Ok(result))) => {
                        (SamplingResponse::Completed(*result), "completed")
                    }
                    Put::Answered(Reply::Sampled(Err(why))) => {
                        (SamplingResponse::Rejected(why), "rejected")
                    }
                    Put::Answered(_) => (
                        SamplingResponse::Unavailable("no completion came back".into()),
                        "unavailable",
                    ),
                    Put::Gone(why) => (
                        SamplingResponse::Unavailable(format!("nobody answered ({why})")),
                        why,
                    ),
                };
            tracing::info!(
                target: AUDIT,
                server = %request.origin.server.name,
                tool = request.origin.tool().unwrap_or(""),
                mode = "sampling",
                outcome,
                took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "sampling"
            );
            response
        })
    }
}

/// `roots/list` of the upstream, passed on as sampling is.
impl RootsHandler for Relay {
    fn declared(&self) -> bool {
        declared_for(self, |m| m.roots, "roots")
    }

    /// Not what the runtime calls ([`try_roots`](Self::try_roots) is);
    /// for anyone else, no roots when the client in front gave none.
    fn roots(&self) -> BoxFuture<'_, Vec<Root>> {
        Box::pin(async move { self.try_roots().await.unwrap_or_default() })
    }

    fn try_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, String>> {
        Box::pin(async move {
            let Some(call) = self.current() else {
                return Err("no call of this gateway is in progress".into());
            };
            let never = tokio_util::sync::CancellationToken::new();
            let outcome = match put(&call, String::new(), Asks::Roots, &never).await {
                Put::Answered(Reply::Roots(roots)) => roots,
                Put::Answered(_) => Err("no roots came back".into()),
                Put::Gone(why) => Err(format!("nobody answered ({why})")),
            };
            tracing::info!(target: AUDIT, mode = "roots", ok = outcome.is_ok(), "roots");
            outcome
        })
    }
}

/// A `requestedSchema` read with the strict builder's rules: anything outside
/// the elicitation subset is refused, naming the field and what is wrong.
fn schema_from_value_strict(schema: &Value) -> Result<FormSchema, String> {
    FormSchema::parse_strict(schema).map_err(|e| format!("invalid requestedSchema: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_with_nothing_to_say_sends_no_meta() {
        let clean = review("https://example.com/sign-in", &UrlPolicy::default());
        assert!(clean.findings().is_empty(), "{:?}", clean.findings());
        assert_eq!(review_meta(&clean), None);
        let warned = review("http://127.0.0.1:8080/x", &UrlPolicy::default());
        let meta = review_meta(&warned).unwrap();
        assert_eq!(
            meta.get(meta_key::URL_REVIEW).unwrap()["verdict"],
            "allowed_with_warnings"
        );
    }

    #[test]
    fn a_lookalike_url_is_refused_unless_the_review_is_off() {
        let lookalike = "https://xn--80ak6aa92e.com/login";
        let on = Checks::default();
        let refused = url_refusal(lookalike, None, &on).unwrap_or_default();
        assert!(
            refused
                .starts_with("the URL was refused by the gateway's URL review (lookalike_domain"),
            "{refused}"
        );
        let off = Checks {
            review_urls: false,
            ..Checks::default()
        };
        // Past the review, the next question is whom to ask: no call here.
        assert_eq!(
            url_refusal(lookalike, None, &off).as_deref(),
            Some("no call of this gateway is in progress to ask for")
        );
    }
}
