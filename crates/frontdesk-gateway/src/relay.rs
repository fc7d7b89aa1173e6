//! The upstream side: the elicitation handler the upstream [`Client`]
//! is connected with. It refuses what must not reach the person (a form
//! outside the elicitation schema subset, a mode the gateway does not
//! relay, a question no call of the gateway is waiting for) and hands every
//! other question to the held call that is running upstream.
//!
//! [`Client`]: frontdesk::client::Client

use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse, HandlerModes,
};
use frontdesk::form::FormSchema;
use frontdesk::wire::ElicitRequestParams;
use serde_json::Value;

use crate::held::{Event, HeldCall, Open};

tokio::task_local! {
    /// The call whose upstream rounds this task runs (2026-07-28 upstream):
    /// the client runtime answers a round's questions on the task that
    /// awaits the call, so each question finds its call here.
    pub(crate) static ASKING: Arc<HeldCall>;
}

/// The gateway's handler of upstream questions.
#[derive(Default)]
pub(crate) struct Relay {
    /// The 2025-11-25 upstream call running now (one at a time: its live
    /// requests come on the connection's own task, with nothing that names
    /// the call), whose questions these are.
    current: Mutex<Option<Arc<HeldCall>>>,
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
pub(crate) fn refusal(params: &ElicitRequestParams, call: Option<&HeldCall>) -> Option<String> {
    let ElicitRequestParams::Form(form) = params else {
        return Some("this gateway does not relay URL-mode elicitation yet".into());
    };
    if let Err(e) = schema_from_value_strict(&Value::Object(form.requested_schema.clone())) {
        return Some(format!(
            "{e} (refused by the gateway: outside the elicitation schema subset)"
        ));
    }
    let Some(call) = call else {
        return Some("no call of this gateway is in progress to ask for".into());
    };
    if !call.form_ok {
        return Some("the client behind this gateway does not accept form elicitation".into());
    }
    None
}

impl ElicitationHandler for Relay {
    /// Form only: URL mode is not relayed yet, so it is not declared.
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn refusal(&self, params: &ElicitRequestParams) -> Option<String> {
        let reason = refusal(params, self.current().as_deref());
        if let Some(reason) = &reason {
            let (mode, message) = match params {
                ElicitRequestParams::Form(p) => ("form", p.message.as_str()),
                ElicitRequestParams::Url(p) => ("url", p.message.as_str()),
                _ => ("unknown", ""),
            };
            tracing::warn!(target: AUDIT, mode, question = ?message, outcome = "refused", %reason, "elicitation");
        }
        reason
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let (response, outcome) = self.relay(&request).await;
            audit(&request, outcome, started.elapsed());
            response
        })
    }
}

/// One line of the audit log per question the upstream asked: who asked,
/// for which tool, the mode, the message (escaped), what came of it and
/// how long the person took; never the answer's content. Refusals are
/// logged where they are decided (`refusal`).
fn audit(request: &Elicitation, outcome: &str, took: std::time::Duration) {
    let mode = match request.kind {
        ElicitationKind::Form { .. } => "form",
        ElicitationKind::Url { .. } => "url",
        _ => "other",
    };
    tracing::info!(
        target: AUDIT,
        server = %request.origin.server.name,
        tool = request.origin.tool().unwrap_or(""),
        mode,
        question = ?request.message,
        outcome,
        took_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
        "elicitation"
    );
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
        let ElicitationKind::Form { form, .. } = &request.kind else {
            tracing::warn!("a URL-mode question reached the gateway; answering cancel");
            return (cancel, "cancel (not relayed)");
        };
        let schema = match schema_from_value_strict(&form.schema.to_json()) {
            Ok(schema) => Arc::new(schema),
            Err(e) => {
                tracing::warn!(error = %e, "upstream form outside the subset; answering cancel");
                return (cancel, "cancel (outside the subset)");
            }
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        let open = Open {
            seq: call.next_seq(),
            message: request.message.clone(),
            schema,
            reply: Some(reply),
        };
        let seq = open.seq;
        if call.send(Event::Question(open)).await.is_err() {
            tracing::warn!("the call that asked is gone; answering cancel");
            return (cancel, "cancel (call gone)");
        }
        tokio::select! {
            answered = answer => match answered {
                Ok(response) => {
                    let outcome = match &response {
                        ElicitationResponse::Accept(_) => "accept",
                        ElicitationResponse::Decline => "decline",
                        ElicitationResponse::Cancel => "cancel",
                        _ => "other",
                    };
                    (response, outcome)
                }
                Err(_) => {
                    tracing::warn!(seq, "the call that asked ended unanswered; answering cancel");
                    (cancel, "cancel (call ended)")
                }
            },
            () = request.cancelled.cancelled() => {
                // The upstream withdrew it (or its time ran out): a
                // retry's answer has nowhere to go.
                call.withdraw(seq);
                (cancel, "withdrawn")
            }
        }
    }
}

/// A `requestedSchema` read with the strict builder's rules: anything outside
/// the elicitation subset is refused, naming the field and what is wrong.
fn schema_from_value_strict(schema: &Value) -> Result<FormSchema, String> {
    FormSchema::parse_strict(schema).map_err(|e| format!("invalid requestedSchema: {e}"))
}
