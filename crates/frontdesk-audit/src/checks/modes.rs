//! `mode.form-only`, `mode.none`, `mode.missing-capability-error`: every
//! asking tool called again by a client that declares only form mode, and
//! by one that declares no elicitation at all.

use frontdesk::client::HandlerModes;

use frontdesk::wire::Revision;
use frontdesk_wire::{ErrorCode, ErrorObject};
use serde_json::Value;

use crate::answers::Variant;
use crate::call::{self, CallRecord, End};
use crate::catalog::CheckId;
use crate::evidence::{self, quote};
use crate::report::Outcome;
use crate::runner::{Ctx, ToolRun};
use crate::session::{FORM_ONLY, NO_MODES, careful};

/// Run the mode checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    let modern = ctx.revision == Revision::V2026_07_28;
    let wants_form_only = ctx.options.wants(CheckId::ModeFormOnly);
    let wants_none = ctx.options.wants(CheckId::ModeNone);
    let wants_error = modern && ctx.options.wants(CheckId::ModeMissingCapability);
    if !(wants_form_only || wants_none || wants_error) {
        return;
    }
    if let Some(why) = ctx.no_asking_tool() {
        for check in [
            CheckId::ModeFormOnly,
            CheckId::ModeNone,
            CheckId::ModeMissingCapability,
        ] {
            if ctx.options.wants(check) && (modern || check != CheckId::ModeMissingCapability) {
                ctx.skip(check, why.clone());
            }
        }
        return;
    }
    for (modes, check) in [
        (FORM_ONLY, CheckId::ModeFormOnly),
        (NO_MODES, CheckId::ModeNone),
    ] {
        let wanted = ctx.options.wants(check) || wants_error;
        if !wanted {
            continue;
        }
        ctx.say(&format!("{check}"));
        let session = match ctx.session(modes).await {
            Ok(s) => s,
            Err(e) => {
                ctx.add(crate::report::Finding::new(
                    check,
                    Outcome::Inconclusive,
                    format!("cannot open a second session: {}", evidence::quote(&e)),
                ));
                continue;
            }
        };
        let tools: Vec<(String, Value, bool)> = ctx
            .asking()
            .map(|t| (t.name().to_owned(), t.args.clone(), asked_url(t)))
            .collect();
        for (tool, args, asks_url) in tools {
            let rec = call::call(&session, &tool, &args, careful(Variant::Primary)).await;
            if ctx.options.wants(check) {
                let (outcome, text) = undeclared(&rec, modes, ctx.revision);
                ctx.found(check, &tool, outcome, text);
            }
            if wants_error && (modes.url || asks_url || !modes.form) {
                let (outcome, text) = missing_capability(&rec, modes);
                ctx.found(CheckId::ModeMissingCapability, &tool, outcome, text);
            }
        }
        session.close().await;
    }
}

/// Whether the tool asked a URL question (or a -32042) in the careful call.
fn asked_url(run: &ToolRun) -> bool {
    run.baseline.asked.iter().any(|a| a.url().is_some())
        || run.baseline.end.code() == Some(ErrorCode::URL_ELICITATION_REQUIRED.0)
}

/// `mode.form-only` / `mode.none` on one call.
fn undeclared(rec: &CallRecord, modes: HandlerModes, revision: Revision) -> (Outcome, String) {
    let declared = if modes.form {
        "a client that declared only form mode"
    } else {
        "a client that declared no elicitation"
    };
    let wrong = rec.asked.iter().find(|a| {
        if a.url().is_some() {
            !modes.url
        } else {
            !modes.form
        }
    });
    if let Some(asked) = wrong {
        let what = match asked.url() {
            Some(_) => "a URL question".to_owned(),
            None => "a form question".to_owned(),
        };
        let key = asked
            .key
            .as_deref()
            .map(|k| format!(" (key {})", quote(k)))
            .unwrap_or_default();
        let how = if revision == Revision::V2026_07_28 {
            "in inputRequests"
        } else {
            "as elicitation/create"
        };
        return (
            Outcome::Fail,
            format!("{what}{key} reached {declared} {how}"),
        );
    }
    if let End::Rpc(e) = &rec.end
        && e.code == ErrorCode::URL_ELICITATION_REQUIRED
    {
        return (
            Outcome::Fail,
            format!(
                "-32042 listing URL elicitations reached {declared} (it is the same as sending them)"
            ),
        );
    }
    (
        Outcome::Pass,
        format!(
            "asked nothing it may not; the call ended: {}",
            evidence::end_brief(&rec.end)
        ),
    )
}

/// `mode.missing-capability-error` on one call (2026-07-28).
fn missing_capability(rec: &CallRecord, modes: HandlerModes) -> (Outcome, String) {
    let wrong = rec.asked.iter().any(|a| {
        if a.url().is_some() {
            !modes.url
        } else {
            !modes.form
        }
    });
    if wrong {
        return (
            Outcome::Skipped,
            "it asked anyway (see mode.form-only / mode.none)".to_owned(),
        );
    }
    let missing = if modes.form {
        "elicitation.url"
    } else {
        "elicitation"
    };
    match &rec.end {
        End::Rpc(e) if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            if names_capability(e, !modes.form) {
                (
                    Outcome::Pass,
                    format!("{} naming {missing}", evidence::error(e)),
                )
            } else {
                (
                    Outcome::Fail,
                    format!(
                        "{} without data.requiredCapabilities naming {missing}",
                        evidence::error(e)
                    ),
                )
            }
        }
        End::Rpc(e) => (
            Outcome::Fail,
            format!("{} instead of -32021 naming {missing}", evidence::error(e)),
        ),
        end @ End::Complete(r) if r.get("isError") == Some(&Value::Bool(true)) => (
            Outcome::Fail,
            format!(
                "{} instead of -32021 naming {missing}",
                evidence::end_brief(end)
            ),
        ),
        End::Complete(_) if rec.asked.is_empty() => {
            (Outcome::Pass, "the tool finished without asking".to_owned())
        }
        End::Complete(_) => (
            Outcome::Pass,
            "it asked only what the client declared".to_owned(),
        ),
        End::Failed(why) => (Outcome::Inconclusive, evidence::quote(why)),
    }
}

/// Whether a -32021 names elicitation (and URL mode, when `url`).
fn names_capability(e: &ErrorObject, whole: bool) -> bool {
    let Some(elicitation) = e
        .data
        .as_ref()
        .and_then(|d| d.pointer("/requiredCapabilities/elicitation"))
    else {
        return false;
    };
    elicitation.is_object() && (whole || elicitation.get("url").is_some_and(Value::is_object))
}
