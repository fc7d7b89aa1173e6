//! `content.wrong-type`, `content.missing-required`,
//! `content.unknown-option`: each form question of each asking tool answered
//! `accept` with content a careful client never sends, the other questions
//! answered validly. The server must refuse it or ask again; a successful
//! result means it acted on an answer nobody gave.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use frontdesk_form::FormSchema;
use serde_json::{Value, json};

use crate::answers::{self, Invalid, Variant};
use crate::call::{self, End};
use crate::catalog::CheckId;
use crate::evidence;
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::{Asked, Reply};

/// How many form questions of one tool are probed.
const QUESTIONS_PER_TOOL: usize = 3;

type Maker = fn(&FormSchema) -> Option<Invalid>;

/// Run the content checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    let probes: [(CheckId, Maker, &str); 3] = [
        (
            CheckId::ContentWrongType,
            answers::wrong_type,
            "no field can be given a wrong type",
        ),
        (
            CheckId::ContentMissingRequired,
            answers::missing_required,
            "no form has a required field",
        ),
        (
            CheckId::ContentUnknownOption,
            answers::unknown_option,
            "no form has a choice field",
        ),
    ];
    let probes: Vec<_> = probes
        .into_iter()
        .filter(|(check, _, _)| ctx.options.wants(*check))
        .collect();
    if probes.is_empty() {
        return;
    }
    if let Some(why) = ctx.no_asking_tool() {
        for (check, _, _) in &probes {
            ctx.skip(*check, why.clone());
        }
        return;
    }
    let targets: Vec<(String, Value, Vec<Asked>, bool, String)> = ctx
        .asking()
        .map(|t| {
            (
                t.name().to_owned(),
                t.args.clone(),
                t.baseline.asked.clone(),
                t.completes(),
                evidence::end_brief(&t.baseline.end),
            )
        })
        .collect();
    for (check, make, none) in probes {
        ctx.say(&format!("{check}"));
        let mut probed = false;
        for (tool, args, asked, completes, ended) in &targets {
            let forms: Vec<(&Asked, FormSchema)> = asked
                .iter()
                .filter_map(|a| a.form().map(|f| (a, f)))
                .take(QUESTIONS_PER_TOOL)
                .collect();
            for (question, schema) in forms {
                let Some(invalid) = make(&schema) else {
                    continue;
                };
                probed = true;
                let which = super::forms::question_name(question);
                if !completes {
                    ctx.found(
                        check,
                        tool,
                        Outcome::Inconclusive,
                        format!("{which}: even a valid answer does not complete the call ({ended}), so a refusal shows nothing"),
                    );
                    continue;
                }
                let (outcome, text) = probe(ctx, tool, args, question, &invalid).await;
                ctx.found(check, tool, outcome, format!("{which}: {text}"));
            }
        }
        if !probed {
            ctx.skip(check, none);
        }
    }
}

/// Answer question `target` with the invalid content and see what the
/// server makes of it.
async fn probe(
    ctx: &Ctx<'_>,
    tool: &str,
    args: &Value,
    target: &Asked,
    invalid: &Invalid,
) -> (Outcome, String) {
    let asked_again = Arc::new(AtomicBool::new(false));
    let seen = asked_again.clone();
    let first = target.clone();
    let answer = json!({"action": "accept", "content": invalid.content})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let sent = answer.clone();
    let script = Box::new(move |asked: &Asked| {
        if asked.n < first.n {
            Reply::Valid(Variant::Primary)
        } else if asked.n == first.n {
            Reply::Raw(sent.clone())
        } else if asked.same_question(&first) {
            seen.store(true, Ordering::SeqCst);
            Reply::Cancel
        } else {
            Reply::Valid(Variant::Primary)
        }
    });
    let rec = call::call(&ctx.main, tool, args, script).await;
    let disclosure = ctx.options.disclosure;
    let content = evidence::content(&invalid.content, disclosure);
    let field = evidence::quote(&invalid.field);
    if rec.asked.len() <= target.n {
        return (
            Outcome::Inconclusive,
            format!(
                "the question was not asked this time ({})",
                evidence::end_brief(&rec.end)
            ),
        );
    }
    if asked_again.load(Ordering::SeqCst) {
        return (
            Outcome::Pass,
            format!("accept {content} ({field} broken) was asked again"),
        );
    }
    match &rec.end {
        End::Rpc(_) => (
            Outcome::Pass,
            format!(
                "accept {content} ({field} broken) was refused: {}",
                evidence::end_brief(&rec.end)
            ),
        ),
        end if end.succeeded() => (
            Outcome::Fail,
            format!(
                "accept {content} ({field} broken) was taken: {}",
                evidence::end(end, disclosure)
            ),
        ),
        End::Complete(_) => (
            Outcome::Pass,
            format!(
                "accept {content} ({field} broken) was refused: {}",
                evidence::end(&rec.end, disclosure)
            ),
        ),
        End::Failed(why) => (Outcome::Inconclusive, evidence::quote(why)),
    }
}
