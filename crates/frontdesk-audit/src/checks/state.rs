//! The 2026-07-28 retry checks, each on a call walked up to its final retry
//! by a careful client and then finished by a hostile one:
//! `state.tamper` (the state changed), `state.principal` (sent by another
//! principal), `state.single-use` (the final retry sent again, with other
//! answers), `state.expiry` (sent after `--state-age`), `state.request-bound`
//! (the state and answers presented on another tool's call),
//! `answer.key-bound` (the answer moved to another key) and
//! `instance.retry-elsewhere` (the retry sent to `--also`).

use serde_json::{Map, Value};

use super::tampering::{Change, TAMPERINGS, leaf_paths};
use super::{Taken, judge};
use crate::answers::Variant;
use crate::call::{self, Walk, walk};
use crate::catalog::CheckId;
use crate::evidence;
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::{Answering, BOTH};
use crate::target::Endpoint;

/// One tool the retry checks run on.
#[derive(Clone)]
struct Subject {
    tool: String,
    args: Value,
    rounds: usize,
    effects: bool,
    /// The outcome of the careful call (primary answers, URLs declined),
    /// when it ended with a result.
    baseline: Option<Value>,
    /// Whether its last round came with a state.
    stateful: bool,
}

/// Run the retry checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    let checks = [
        CheckId::StateTamper,
        CheckId::StatePrincipal,
        CheckId::StateSingleUse,
        CheckId::StateExpiry,
        CheckId::StateRequestBound,
        CheckId::AnswerKeyBound,
        CheckId::InstanceRetry,
    ];
    if !checks.iter().any(|c| ctx.options.wants(*c)) {
        return;
    }
    if let Some(why) = ctx.no_asking_tool() {
        for check in checks.into_iter().filter(|c| ctx.options.wants(*c)) {
            ctx.skip(check, why.clone());
        }
        return;
    }
    let mut subjects = Vec::new();
    for run in ctx.asking() {
        if run.baseline.rounds == 0 {
            continue;
        }
        subjects.push(Subject {
            tool: run.name().to_owned(),
            args: run.args.clone(),
            rounds: run.baseline.rounds,
            effects: run.effects,
            baseline: run.baseline.end.outcome_value(),
            stateful: false,
        });
    }
    // Which tools carry a state into their last round.
    for s in &mut subjects {
        if let Ok(w) = walk(&ctx.main, &s.tool, &s.args, s.rounds, Variant::Primary).await {
            s.stateful = w.state.is_some();
        }
    }
    if ctx.options.wants(CheckId::AnswerKeyBound) {
        ctx.say("answer.key-bound");
        for s in &subjects {
            key_bound(ctx, s).await;
        }
    }
    let stateless: Vec<String> = subjects
        .iter()
        .filter(|s| !s.stateful)
        .map(|s| s.tool.clone())
        .collect();
    for tool in &stateless {
        for check in [
            CheckId::StateTamper,
            CheckId::StatePrincipal,
            CheckId::StateExpiry,
            CheckId::StateRequestBound,
            CheckId::StateSingleUse,
        ] {
            if ctx.options.wants(check) && needs_met(ctx, check) {
                ctx.found(
                    check,
                    tool,
                    Outcome::Skipped,
                    "its rounds carry no requestState (everything is in the retry itself)",
                );
            }
        }
    }
    let stateful: Vec<Subject> = subjects.iter().filter(|s| s.stateful).cloned().collect();
    if ctx.options.wants(CheckId::StateTamper) {
        ctx.say("state.tamper");
        for s in &stateful {
            tamper(ctx, s).await;
        }
    }
    if ctx.options.wants(CheckId::StatePrincipal) && needs_met(ctx, CheckId::StatePrincipal) {
        ctx.say("state.principal");
        if let Some(other) = ctx.target.second_principal.clone() {
            elsewhere(ctx, &stateful, &other, CheckId::StatePrincipal).await;
        }
    }
    if ctx.options.wants(CheckId::StateSingleUse) {
        ctx.say("state.single-use");
        for s in &stateful {
            single_use(ctx, s).await;
        }
    }
    if ctx.options.wants(CheckId::StateExpiry) && needs_met(ctx, CheckId::StateExpiry) {
        ctx.say("state.expiry");
        for s in &stateful {
            expiry(ctx, s).await;
        }
    }
    if ctx.options.wants(CheckId::StateRequestBound) {
        ctx.say("state.request-bound");
        for s in &stateful {
            request_bound(ctx, s, &subjects).await;
        }
    }
    if ctx.options.wants(CheckId::InstanceRetry) && needs_met(ctx, CheckId::InstanceRetry) {
        ctx.say("instance.retry-elsewhere");
        if let Some(also) = ctx.target.also.clone() {
            elsewhere(ctx, &subjects, &also, CheckId::InstanceRetry).await;
        }
    }
}

/// Whether the options give what `check` needs (its skip line is written
/// at the end of the run otherwise).
fn needs_met(ctx: &Ctx<'_>, check: CheckId) -> bool {
    match check {
        CheckId::StatePrincipal => ctx.target.second_principal.is_some(),
        CheckId::InstanceRetry => ctx.target.also.is_some(),
        CheckId::StateExpiry => ctx.options.state_age.is_some(),
        _ => true,
    }
}

/// Walk `s` to its final retry on `session`, or say why not.
async fn walk_on(ctx: &mut Ctx<'_>, check: CheckId, s: &Subject) -> Option<Walk> {
    if s.baseline.is_none() {
        ctx.found(
            check,
            &s.tool,
            Outcome::Inconclusive,
            "the careful call ends without a result, so a refusal shows nothing",
        );
        return None;
    }
    match walk(&ctx.main, &s.tool, &s.args, s.rounds, Variant::Primary).await {
        Ok(w) => Some(w),
        Err(why) => {
            ctx.found(check, &s.tool, Outcome::Inconclusive, evidence::quote(&why));
            None
        }
    }
}

/// The final retry of a walk, as sent.
fn final_retry(
    s: &Subject,
    answers: Map<String, Value>,
    state: Option<&str>,
) -> Map<String, Value> {
    call::params(&s.tool, &s.args, Some(answers), state)
}

/// `state.tamper`: the state changed in one place; the retry must be
/// refused, asked again, or come out exactly as the untouched one.
async fn tamper(ctx: &mut Ctx<'_>, s: &Subject) {
    let check = CheckId::StateTamper;
    let Some(w) = walk_on(ctx, check, s).await else {
        return;
    };
    let Some(original) = w.state.clone() else {
        return;
    };
    let mut changes = vec![Change::Flip];
    changes.extend(leaf_paths(&original));
    changes.truncate(TAMPERINGS);
    let tried = changes.len();
    let disclosure = ctx.options.disclosure;
    let mut passed = Vec::new();
    for (i, change) in changes.iter().enumerate() {
        // Each change on a fresh walk's state: an accepted one may use it up.
        let w = if i == 0 {
            w.clone()
        } else {
            match walk_on(ctx, check, s).await {
                Some(w) => w,
                None => return,
            }
        };
        let how = change.describe();
        let Some(tampered) = w.state.as_deref().and_then(|state| change.apply(state)) else {
            continue;
        };
        let reply = call::send(
            &ctx.main,
            final_retry(s, w.answers.clone(), Some(&tampered)),
        )
        .await;
        let same = reply.outcome_value().is_some() && reply.outcome_value() == s.baseline;
        match judge(reply, disclosure) {
            Taken::Acted(text) if !same => {
                ctx.found(
                    check,
                    &s.tool,
                    Outcome::Fail,
                    format!(
                        "{} with {how} was taken, and the result changed: {text}",
                        evidence::state(&original)
                    ),
                );
                return;
            }
            Taken::Acted(_) => passed.push("taken with the same result as untouched".to_owned()),
            Taken::Refused(text) | Taken::AskedAgain(text) => passed.push(text),
            Taken::Unclear(text) => {
                ctx.found(
                    check,
                    &s.tool,
                    Outcome::Inconclusive,
                    format!("{how}: {text}"),
                );
                return;
            }
        }
    }
    let mut texts: Vec<(String, usize)> = Vec::new();
    for text in passed {
        match texts.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => texts.push((text, 1)),
        }
    }
    let said: Vec<String> = texts
        .into_iter()
        .map(|(t, n)| if n > 1 { format!("{n}× {t}") } else { t })
        .collect();
    ctx.found(
        check,
        &s.tool,
        Outcome::Pass,
        format!(
            "{}: {tried} tampered cop{}: {}",
            evidence::state(&original),
            if tried == 1 { "y" } else { "ies" },
            said.join("; ")
        ),
    );
}

/// `state.single-use`: the final retry sent a second time, with the other
/// valid answers. Refused, asked again, or the first reply again (a kept
/// reply: the tool did not run with the new answers) pass; a new result
/// means the tool ran twice on one state.
async fn single_use(ctx: &mut Ctx<'_>, s: &Subject) {
    let check = CheckId::StateSingleUse;
    if !s.effects {
        ctx.found(
            check,
            &s.tool,
            Outcome::Skipped,
            "not marked as having effects (annotations destructiveHint: true or idempotentHint: false, or --effects TOOL)",
        );
        return;
    }
    let Some(w) = walk_on(ctx, check, s).await else {
        return;
    };
    let first = call::send(
        &ctx.main,
        final_retry(s, w.answers.clone(), w.state.as_deref()),
    )
    .await;
    if !first.succeeded() {
        ctx.found(
            check,
            &s.tool,
            Outcome::Inconclusive,
            format!(
                "the final retry did not complete: {}",
                evidence::end_brief(&first)
            ),
        );
        return;
    }
    let other = alternate_answers(ctx, &w);
    let changed_answers = other != w.answers;
    let again = call::send(&ctx.main, final_retry(s, other, w.state.as_deref())).await;
    let same_as_first = again.outcome_value() == first.outcome_value();
    let disclosure = ctx.options.disclosure;
    let state = w.state.as_deref().map(evidence::state).unwrap_or_default();
    match judge(again, disclosure) {
        Taken::Refused(text) | Taken::AskedAgain(text) => {
            ctx.found(check, &s.tool, Outcome::Pass, format!("{state} sent again: {text}"));
        }
        Taken::Acted(text) if same_as_first && changed_answers => ctx.found(
            check,
            &s.tool,
            Outcome::Pass,
            format!("{state} sent again with other answers: the first reply again (kept, the tool did not run again): {text}"),
        ),
        Taken::Acted(text) if same_as_first => ctx.found(
            check,
            &s.tool,
            Outcome::Inconclusive,
            format!("{state} sent again: the same result, which a kept reply and a second run both give: {text}"),
        ),
        Taken::Acted(text) => ctx.found(
            check,
            &s.tool,
            Outcome::Fail,
            format!("{state} sent again{}: the tool ran again: {text}", if changed_answers { " with other answers" } else { "" }),
        ),
        Taken::Unclear(text) => ctx.found(check, &s.tool, Outcome::Inconclusive, text),
    }
}

/// The last round's answers with the alternate valid answers for forms.
fn alternate_answers(ctx: &Ctx<'_>, w: &Walk) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, params) in &w.last {
        let reply = crate::session::Reply::Valid(Variant::Alternate);
        let _ = ctx;
        out.insert(key.clone(), Value::Object(reply.result(params)));
    }
    out
}

/// `state.expiry`: the final retry sent after `--state-age`.
async fn expiry(ctx: &mut Ctx<'_>, s: &Subject) {
    let check = CheckId::StateExpiry;
    let Some(age) = ctx.options.state_age else {
        return;
    };
    let Some(w) = walk_on(ctx, check, s).await else {
        return;
    };
    ctx.say(&format!(
        "state.expiry: holding a state of {} for {} s",
        s.tool,
        age.as_secs_f64()
    ));
    tokio::time::sleep(age).await;
    let reply = call::send(
        &ctx.main,
        final_retry(s, w.answers.clone(), w.state.as_deref()),
    )
    .await;
    let state = w.state.as_deref().map(evidence::state).unwrap_or_default();
    let secs = age.as_secs_f64();
    let taken = judge(reply, ctx.options.disclosure);
    must_refuse(
        ctx,
        check,
        &s.tool,
        taken,
        &format!("{state} after {secs} s"),
        &format!("{state} was still taken after {secs} s"),
    );
}

/// Record what the server did with something it must refuse: refused or
/// asked again passes (`refused: …`), taken fails (`taken: …`).
fn must_refuse(
    ctx: &mut Ctx<'_>,
    check: CheckId,
    tool: &str,
    taken: Taken,
    refused: &str,
    took: &str,
) {
    let (outcome, text) = match taken {
        Taken::Refused(text) | Taken::AskedAgain(text) => {
            (Outcome::Pass, format!("{refused}: {text}"))
        }
        Taken::Acted(text) => (Outcome::Fail, format!("{took}: {text}")),
        Taken::Unclear(text) => (Outcome::Inconclusive, text),
    };
    ctx.found(check, tool, outcome, text);
}

/// `state.request-bound`: the final retry of `s` (state and answers) sent
/// as a call of another asking tool.
async fn request_bound(ctx: &mut Ctx<'_>, s: &Subject, all: &[Subject]) {
    let check = CheckId::StateRequestBound;
    let Some(other) = all.iter().find(|o| o.tool != s.tool) else {
        ctx.found(
            check,
            &s.tool,
            Outcome::Skipped,
            "needs a second tool that asks (--call another one)",
        );
        return;
    };
    let Some(w) = walk_on(ctx, check, s).await else {
        return;
    };
    let params = call::params(
        &other.tool,
        &other.args,
        Some(w.answers.clone()),
        w.state.as_deref(),
    );
    let reply = call::send(&ctx.main, params).await;
    let state = w.state.as_deref().map(evidence::state).unwrap_or_default();
    let on = evidence::quote(&other.tool);
    let taken = judge(reply, ctx.options.disclosure);
    must_refuse(
        ctx,
        check,
        &s.tool,
        taken,
        &format!("{state} with its answers, sent as a call of {on}"),
        &format!("{state} with its answers was taken by a call of {on}"),
    );
}

/// `answer.key-bound`: the final retry with each answer under another key.
async fn key_bound(ctx: &mut Ctx<'_>, s: &Subject) {
    let check = CheckId::AnswerKeyBound;
    let Some(w) = walk_on(ctx, check, s).await else {
        return;
    };
    let mut moved = Map::new();
    for (key, answer) in &w.answers {
        let mut other = format!("{key}-other");
        while w.answers.contains_key(&other) {
            other.push('x');
        }
        moved.insert(other, answer.clone());
    }
    let keys: Vec<String> = w.answers.keys().map(|k| evidence::quote(k)).collect();
    let reply = call::send(&ctx.main, final_retry(s, moved, w.state.as_deref())).await;
    // The result the answers give under their own keys: they were taken.
    let as_answered = reply.outcome_value().is_some() && reply.outcome_value() == s.baseline;
    match judge(reply, ctx.options.disclosure) {
        Taken::Refused(text) | Taken::AskedAgain(text) => ctx.found(
            check,
            &s.tool,
            Outcome::Pass,
            format!(
                "the answer to {} sent under another key: {text}",
                keys.join(", ")
            ),
        ),
        Taken::Acted(text) if !as_answered => ctx.found(
            check,
            &s.tool,
            Outcome::Pass,
            format!(
                "the answer to {} sent under another key was not taken: the call ended as without it ({text}); a retry missing an answer SHOULD be asked again",
                keys.join(", ")
            ),
        ),
        Taken::Acted(text) => ctx.found(
            check,
            &s.tool,
            Outcome::Fail,
            format!(
                "the answer to {} sent under another key was taken: {text}",
                keys.join(", ")
            ),
        ),
        Taken::Unclear(text) => ctx.found(check, &s.tool, Outcome::Inconclusive, text),
    }
}

/// The final retry sent on another endpoint: `state.principal` (it must be
/// refused) or `instance.retry-elsewhere` (it must work).
async fn elsewhere(ctx: &mut Ctx<'_>, subjects: &[Subject], endpoint: &Endpoint, check: CheckId) {
    let session = match ctx.session_on(endpoint, BOTH, Answering::Scripted).await {
        Ok(s) => s,
        Err(e) => {
            ctx.add(crate::report::Finding::new(
                check,
                Outcome::Inconclusive,
                format!(
                    "cannot connect to {}: {}",
                    evidence::quote(&endpoint.name),
                    evidence::quote(&e)
                ),
            ));
            return;
        }
    };
    for s in subjects {
        if check == CheckId::StatePrincipal && !s.stateful {
            continue;
        }
        let Some(w) = walk_on(ctx, check, s).await else {
            continue;
        };
        let reply = call::send(
            &session,
            final_retry(s, w.answers.clone(), w.state.as_deref()),
        )
        .await;
        // The reply the careful call got: served as on the first instance.
        let as_usual = reply.outcome_value().is_some() && reply.outcome_value() == s.baseline;
        let state = w
            .state
            .as_deref()
            .map(evidence::state)
            .unwrap_or_else(|| "no requestState".into());
        let taken = judge(reply, ctx.options.disclosure);
        let (outcome, text) = match (check, taken) {
            (CheckId::StatePrincipal, Taken::Refused(t)) if as_usual => (
                Outcome::Inconclusive,
                format!("{state} sent by another principal ended as it does for its own: {t}"),
            ),
            (CheckId::StatePrincipal, Taken::Refused(t) | Taken::AskedAgain(t)) => (
                Outcome::Pass,
                format!("{state} sent by another principal: {t}"),
            ),
            (CheckId::StatePrincipal, Taken::Acted(t)) => (
                Outcome::Fail,
                format!("{state} sent by another principal was taken: {t}"),
            ),
            (_, Taken::Acted(t) | Taken::Refused(t)) if as_usual => (
                Outcome::Pass,
                format!("the final retry ({state}) on the other instance, as on the first: {t}"),
            ),
            (_, Taken::Acted(t)) => (
                Outcome::Pass,
                format!("the final retry ({state}) on the other instance: {t}"),
            ),
            (_, Taken::Refused(t) | Taken::AskedAgain(t)) => (
                Outcome::Fail,
                format!("the final retry ({state}) was not served by the other instance: {t}"),
            ),
            (_, Taken::Unclear(t)) => (Outcome::Inconclusive, t),
        };
        ctx.found(check, &s.tool, outcome, text);
    }
    session.close().await;
}
