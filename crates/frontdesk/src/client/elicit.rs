//! One elicitation, either era: wire parameters → [`Elicitation`] → handler →
//! validated [`ElicitResult`].
//!
//! Decisions (the handler may always answer for itself; these are what the
//! runtime does when it has to decide):
//! - Accepted form content is normalized, filled from defaults (when
//!   configured) and validated; an invalid answer goes back to the person
//!   with `previous_errors`, at most `max_answer_attempts` times, then the
//!   runtime answers `cancel`. Invalid content never reaches the server.
//! - A form accepted with no content at all (while the form has fields) is
//!   not an answer the person gave: `cancel`, logged.
//! - A URL whose review refuses it is never opened: an `accept` for it
//!   becomes `cancel`, logged (the person did not decide to decline).
//! - Over the per-server rate limit, past the human-wait budget, or for a
//!   mode the handler cannot serve (2026-07-28): `cancel`, logged, with a
//!   [`Notice`]. Never an invented `decline`.
//! - A form the form crate marks unusable ([`ParsedForm::unusable`]: its
//!   root is not an object form), or whose schema does not parse at all, is
//!   never shown: refused with `-32602` and the reason (2025-11-25), or the
//!   call ends (2026-07-28, see `mrtr`), logged with a [`Notice`]. Never an
//!   invented `accept` or `decline`.
//!
//! [`ParsedForm::unusable`]: frontdesk_form::ParsedForm::unusable

use std::sync::{Arc, RwLock};

use frontdesk_form::{Defaults, FormSchema, ValidationErrors};
use frontdesk_url::review;
use frontdesk_wire::{ElicitRequestParams, ElicitResult, ErrorObject, Implementation};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::config::{ClientConfig, Notice};
use super::handler::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationOrigin, ElicitationResponse,
};
use super::policy::{HumanClock, RateLimiter};

/// The check of a host that must report every problem of an answer it was
/// given (scripted answers, answers relayed by an agent) rather than let the
/// runtime repair it: [`FormSchema::accept`], the function the runtime and
/// the server both judge answers with, except that a key the form does not
/// declare is reported (as validation does) instead of dropped. On success
/// `content` is what will be sent (normalized, defaults filled when
/// `apply_defaults`); on failure it is left as given.
pub fn check_form_answer(
    schema: &FormSchema,
    content: &mut Map<String, Value>,
    apply_defaults: bool,
) -> Result<(), ValidationErrors> {
    let given = std::mem::take(content);
    let accepted = schema.accept(given.clone(), defaults_policy(apply_defaults));
    let outcome = match accepted {
        Ok(a) if a.dropped().is_empty() => {
            *content = a.into_content();
            return Ok(());
        }
        // Only undeclared keys are wrong: validation names them.
        Ok(_) => schema.validate(&given),
        Err(errors) => Err(errors),
    };
    *content = given;
    outcome
}

fn defaults_policy(apply: bool) -> Defaults {
    if apply {
        Defaults::Apply
    } else {
        Defaults::Leave
    }
}

/// Why the form request `params` cannot be shown at all, if it cannot:
/// its schema does not parse, or the form crate marks it unusable. `None`
/// for URL requests and for every form a person can be shown.
pub(crate) fn unusable_form(params: &ElicitRequestParams) -> Option<String> {
    let ElicitRequestParams::Form(p) = params else {
        return None;
    };
    // The same bounded parse `elicit` does (the schema is at most one
    // message); done separately so a round can be checked before any of its
    // questions is shown.
    match FormSchema::parse_shared(&p.requested_schema) {
        Err(e) => Some(format!("requestedSchema cannot be used: {e}")),
        Ok(parsed) => parsed
            .unusable()
            .map(|d| format!("requestedSchema cannot be used: {}", d.message)),
    }
}

/// What came of one elicitation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Send this answer.
    Answer(ElicitResult),
    /// The request was withdrawn (server or caller cancelled): send nothing.
    Withdrawn,
    /// The request cannot be served at all (2025-11-25: answer this error).
    Refused(ErrorObject),
}

/// Shared by both eras: the handler, the policies, and the server identity.
pub(crate) struct Elicitor {
    pub handler: Arc<dyn ElicitationHandler>,
    pub config: Arc<ClientConfig>,
    pub limiter: RateLimiter,
    pub human: Arc<HumanClock>,
    pub server: RwLock<Implementation>,
}

impl Elicitor {
    pub(super) fn new(
        handler: Arc<dyn ElicitationHandler>,
        config: Arc<ClientConfig>,
        human: Arc<HumanClock>,
    ) -> Self {
        Self {
            limiter: RateLimiter::per_minute(config.rate_limit_per_minute),
            handler,
            config,
            human,
            server: RwLock::new(Implementation::new("unknown server", "")),
        }
    }

    pub(super) fn server(&self) -> Implementation {
        self.server
            .read()
            .map(|s| s.clone())
            .unwrap_or_else(|_| Implementation::new("unknown server", ""))
    }

    pub(super) fn set_server(&self, info: Implementation) {
        if let Ok(mut s) = self.server.write() {
            *s = info;
        }
    }

    /// Say that the form `key` was refused unseen, and why (the log and a
    /// [`Notice::FormRefused`]); the error to answer with.
    pub(super) fn refuse_form(&self, key: &str, reason: &str) -> ErrorObject {
        tracing::warn!(key, %reason, "refusing a form that cannot be shown");
        self.config.notice(Notice::FormRefused {
            key: key.to_string(),
            reason: reason.to_string(),
        });
        ErrorObject::invalid_params(reason)
    }

    fn auto_cancel(&self, key: &str, reason: impl Into<String>) -> Outcome {
        let reason = reason.into();
        tracing::warn!(key, %reason, "answering cancel on the person's behalf");
        self.config.notice(Notice::AutoCancelled {
            key: key.to_string(),
            reason,
        });
        Outcome::Answer(ElicitResult::cancel())
    }

    /// Show one request and return what to send.
    pub(super) async fn elicit(
        &self,
        request: Option<String>,
        key: String,
        params: &ElicitRequestParams,
        cancelled: CancellationToken,
    ) -> Outcome {
        let modes = self.handler.modes();
        let served = match params {
            ElicitRequestParams::Form(_) => modes.form,
            ElicitRequestParams::Url(_) => modes.url,
            // A mode this version does not know is one no handler serves.
            _ => false,
        };
        if !served {
            let mode = match params {
                ElicitRequestParams::Form(_) => "form",
                ElicitRequestParams::Url(_) => "url",
                _ => "unknown",
            };
            return Outcome::Refused(ErrorObject::invalid_params(format!(
                "Elicitation mode '{mode}' is not supported by this client"
            )));
        }
        if let Some(reason) = self.handler.refusal(params) {
            return Outcome::Refused(self.refuse_form(&key, &reason));
        }
        if !self.limiter.admit() {
            return self.auto_cancel(
                &key,
                format!(
                    "more than {} questions from this server in a minute",
                    self.config.rate_limit_per_minute
                ),
            );
        }
        let origin = ElicitationOrigin {
            server: self.server(),
            request,
            key: key.clone(),
        };
        match params {
            ElicitRequestParams::Form(p) => {
                let parsed = match FormSchema::parse_shared(&p.requested_schema) {
                    Ok(parsed) if parsed.unusable().is_none() => parsed,
                    Ok(parsed) => {
                        let reason = parsed.unusable().map_or_else(String::new, |d| {
                            format!("requestedSchema cannot be used: {}", d.message)
                        });
                        return Outcome::Refused(self.refuse_form(&key, &reason));
                    }
                    Err(e) => {
                        let reason = format!("requestedSchema cannot be used: {e}");
                        return Outcome::Refused(self.refuse_form(&key, &reason));
                    }
                };
                let prefill = parsed.schema.prefill();
                let schema = parsed.schema.clone();
                let mut ask = Elicitation {
                    origin,
                    message: p.message.clone(),
                    kind: ElicitationKind::Form {
                        form: parsed,
                        prefill,
                    },
                    previous_errors: None,
                    cancelled,
                };
                for _ in 0..self.config.max_answer_attempts.max(1) {
                    let content = match self.ask(&ask).await {
                        Asked::Got(ElicitationResponse::Accept(content)) => content,
                        Asked::Got(ElicitationResponse::Decline) => {
                            return Outcome::Answer(ElicitResult::decline());
                        }
                        Asked::Got(ElicitationResponse::Cancel) => {
                            return Outcome::Answer(ElicitResult::cancel());
                        }
                        Asked::Withdrawn => return Outcome::Withdrawn,
                        Asked::OutOfTime => {
                            return self
                                .auto_cancel(&key, "nobody answered within the human-wait budget");
                        }
                    };
                    if content.is_empty() && !schema.fields().is_empty() {
                        return self.auto_cancel(
                            &key,
                            "the handler accepted with no content; that is no answer from a person",
                        );
                    }
                    match schema.accept(content, defaults_policy(self.config.apply_defaults)) {
                        Ok(accepted) => {
                            if !accepted.dropped().is_empty() {
                                tracing::debug!(key, fields = ?accepted.dropped(), "answer has fields the form does not declare; dropped");
                            }
                            return Outcome::Answer(ElicitResult::accept(accepted.into_content()));
                        }
                        Err(errors) => {
                            tracing::info!(
                                key,
                                problems = errors.len(),
                                "answer does not fit the form; asking again"
                            );
                            ask.previous_errors = Some(errors);
                        }
                    }
                }
                self.auto_cancel(
                    &key,
                    "the answer still did not fit the form after every attempt",
                )
            }
            ElicitRequestParams::Url(p) => {
                let review = review(&p.url, &self.config.url_policy);
                let may_open = review.may_open();
                let ask = Elicitation {
                    origin,
                    message: p.message.clone(),
                    kind: ElicitationKind::Url {
                        review,
                        elicitation_id: p.elicitation_id.clone(),
                    },
                    previous_errors: None,
                    cancelled,
                };
                match self.ask(&ask).await {
                    Asked::Got(ElicitationResponse::Accept(_)) if !may_open => self.auto_cancel(
                        &key,
                        "the URL was refused by the URL policy and was not opened",
                    ),
                    Asked::Got(ElicitationResponse::Accept(_)) => {
                        Outcome::Answer(ElicitResult::accept_url())
                    }
                    Asked::Got(ElicitationResponse::Decline) => {
                        Outcome::Answer(ElicitResult::decline())
                    }
                    Asked::Got(ElicitationResponse::Cancel) => {
                        Outcome::Answer(ElicitResult::cancel())
                    }
                    Asked::Withdrawn => Outcome::Withdrawn,
                    Asked::OutOfTime => {
                        self.auto_cancel(&key, "nobody answered within the human-wait budget")
                    }
                }
            }
            // Refused above: no handler serves a mode this version does not know.
            _ => Outcome::Refused(ErrorObject::invalid_params(
                "Elicitation mode is not supported by this client",
            )),
        }
    }

    async fn ask(&self, request: &Elicitation) -> Asked {
        let cancelled = request.cancelled.clone();
        if cancelled.is_cancelled() {
            return Asked::Withdrawn;
        }
        let _busy = self.human.start();
        let fut = self.handler.elicit(request.clone());
        tokio::pin!(fut);
        let out_of_time = tokio::select! {
            r = &mut fut => {
                return if cancelled.is_cancelled() { Asked::Withdrawn } else { Asked::Got(r) };
            }
            () = cancelled.cancelled() => false,
            () = tokio::time::sleep(self.config.human_wait) => {
                cancelled.cancel();
                true
            }
        };
        // The token fired: give the handler a moment to close its form
        // (restore a terminal, close a page) before dropping it.
        let _ = tokio::time::timeout(WITHDRAW_GRACE, &mut fut).await;
        if out_of_time {
            Asked::OutOfTime
        } else {
            Asked::Withdrawn
        }
    }
}

/// How long a handler may take to close its form after a withdrawal.
const WITHDRAW_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

enum Asked {
    Got(ElicitationResponse),
    Withdrawn,
    OutOfTime,
}
