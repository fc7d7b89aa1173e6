//! `outcome.decline`, `outcome.cancel`: each question of each asking tool
//! refused (the earlier ones answered validly, every later one refused too).
//! The call must end, and not with what the tool returns when the question
//! is accepted (a tool that treats a refusal as consent, or acts with its
//! defaults, returns exactly that).

use serde_json::Value;

use crate::answers::Variant;
use crate::call::{self, CallRecord, End};
use crate::catalog::CheckId;
use crate::evidence;
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::{Asked, Reply};

/// How many questions of one tool are refused in turn.
const QUESTIONS_PER_TOOL: usize = 3;
/// More questions than this after a refusal: the call does not end.
const KEPT_ASKING: usize = 4;

/// One asking tool and its careful calls.
struct Subject {
    tool: String,
    args: Value,
    baseline: CallRecord,
    alternate: Option<CallRecord>,
}

/// Run both refusal checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    for (check, reply, word) in [
        (CheckId::OutcomeDecline, Reply::Decline, "decline"),
        (CheckId::OutcomeCancel, Reply::Cancel, "cancel"),
    ] {
        if !ctx.options.wants(check) {
            continue;
        }
        if let Some(why) = ctx.no_asking_tool() {
            ctx.skip(check, why);
            continue;
        }
        ctx.say(&format!("{check}"));
        let targets: Vec<Subject> = ctx
            .asking()
            .map(|t| Subject {
                tool: t.name().to_owned(),
                args: t.args.clone(),
                baseline: t.baseline.clone(),
                alternate: t.alternate.clone(),
            })
            .collect();
        for Subject {
            tool,
            args,
            baseline,
            alternate,
        } in targets
        {
            let asked = baseline.asked.clone();
            if asked.is_empty() {
                ctx.found(
                    check,
                    &tool,
                    Outcome::Skipped,
                    format!(
                        "it asked through -32042 only ({})",
                        evidence::end_brief(&baseline.end)
                    ),
                );
                continue;
            }
            for question in asked.iter().take(QUESTIONS_PER_TOOL) {
                let which = super::forms::question_name(question);
                let target = question.n;
                let refusal = reply.clone();
                let script = Box::new(move |a: &Asked| {
                    if a.n < target {
                        Reply::Valid(Variant::Primary)
                    } else {
                        refusal.clone()
                    }
                });
                let rec = call::call(&ctx.main, &tool, &args, script).await;
                let (outcome, text) =
                    judge(&rec, question, &baseline, alternate.as_ref(), word, ctx);
                ctx.found(check, &tool, outcome, format!("{which}: {text}"));
            }
        }
    }
}

fn judge(
    rec: &CallRecord,
    question: &Asked,
    baseline: &CallRecord,
    alternate: Option<&CallRecord>,
    word: &str,
    ctx: &Ctx<'_>,
) -> (Outcome, String) {
    if rec.asked.len() <= question.n {
        return (
            Outcome::Inconclusive,
            format!(
                "the question was not asked this time ({})",
                evidence::end_brief(&rec.end)
            ),
        );
    }
    let after = rec.asked.len() - question.n - 1;
    if after > KEPT_ASKING {
        return (
            Outcome::Fail,
            format!("after {word} the server kept asking ({after} more questions)"),
        );
    }
    let ended = evidence::end(&rec.end, ctx.options.disclosure);
    if let End::Failed(why) = &rec.end {
        let kept = why.starts_with("still asking");
        return if kept {
            (
                Outcome::Fail,
                format!(
                    "after {word} the call did not end: {}",
                    evidence::quote(why)
                ),
            )
        } else {
            (Outcome::Inconclusive, evidence::quote(why))
        };
    }
    // A URL question is never accepted by the audit (it opens no link):
    // there is no accepted result to compare with.
    let comparable = question.url().is_none() && baseline.end.succeeded();
    if comparable && rec.end.succeeded() && rec.end.outcome_value() == baseline.end.outcome_value()
    {
        let independent =
            alternate.is_some_and(|alt| alt.end.outcome_value() == baseline.end.outcome_value());
        if independent {
            return (
                Outcome::Inconclusive,
                format!(
                    "after {word} the tool returned what it returns for any accepted answer, so its result cannot show whether it acted: {ended}"
                ),
            );
        }
        return (
            Outcome::Fail,
            format!(
                "after {word} the tool returned exactly what it returns when the question is accepted (with the form's defaults): {ended}"
            ),
        );
    }
    (Outcome::Pass, format!("{word} ended the call: {ended}"))
}
