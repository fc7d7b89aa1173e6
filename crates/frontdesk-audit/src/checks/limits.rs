//! The limit checks (`--stress`): a retry carrying a thousand unknown
//! answers (`limits.answer-keys`), a thousand questions left unanswered in
//! one 2025-11-25 session (`limits.pending-questions`), and a flood of
//! retries (`limits.retry-flood`). Each ends by checking the server still
//! serves.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use frontdesk::client::{ClientError, Direction};

use frontdesk::wire::Revision;
use frontdesk_wire::method;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::answers::Variant;
use crate::call::{self, End, walk};
use crate::catalog::CheckId;
use crate::evidence;
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::{Answering, BOTH, careful};

/// Requests of a flood in flight at once.
const IN_FLIGHT: usize = 32;
/// How long the pending-questions probe waits for the questions to arrive.
const SETTLE: Duration = Duration::from_secs(30);

/// Run the limit checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    let modern = ctx.revision == Revision::V2026_07_28;
    let wanted: Vec<CheckId> = if modern {
        vec![CheckId::LimitsAnswerKeys, CheckId::LimitsRetryFlood]
    } else {
        vec![CheckId::LimitsPendingQuestions]
    };
    let wanted: Vec<CheckId> = wanted
        .into_iter()
        .filter(|c| ctx.options.wants(*c))
        .collect();
    if wanted.is_empty() {
        return;
    }
    if let Some(why) = ctx.no_asking_tool() {
        for check in wanted {
            ctx.skip(check, why.clone());
        }
        return;
    }
    for check in wanted {
        ctx.say(&format!("{check} ({} requests)", ctx.options.stress_count));
        match check {
            CheckId::LimitsAnswerKeys => answer_keys(ctx).await,
            CheckId::LimitsRetryFlood => retry_flood(ctx).await,
            _ => pending_questions(ctx).await,
        }
    }
}

/// The first asking tool that completes and has `input_required` rounds.
fn modern_subject(ctx: &Ctx<'_>) -> Option<(String, Value)> {
    ctx.asking()
        .find(|t| t.baseline.rounds > 0 && t.completes())
        .map(|t| (t.name().to_owned(), t.args.clone()))
}

/// The size of a reply as JSON.
fn size(end: &End) -> usize {
    match end {
        End::Complete(r) => Value::Object(r.clone()).to_string().len(),
        End::Rpc(e) => serde_json::to_string(e).map_or(0, |s| s.len()),
        End::Failed(_) => 0,
    }
}

async fn answer_keys(ctx: &mut Ctx<'_>) {
    let check = CheckId::LimitsAnswerKeys;
    let Some((tool, args)) = modern_subject(ctx) else {
        ctx.skip(check, "no asking tool completes with valid answers");
        return;
    };
    let count = ctx.options.stress_count;
    let (plain, extra) = match (
        walk(&ctx.main, &tool, &args, 1, Variant::Primary).await,
        walk(&ctx.main, &tool, &args, 1, Variant::Primary).await,
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => {
            ctx.found(check, &tool, Outcome::Inconclusive, evidence::quote(&why));
            return;
        }
    };
    let normal = call::send(
        &ctx.main,
        call::params(
            &tool,
            &args,
            Some(plain.answers.clone()),
            plain.state.as_deref(),
        ),
    )
    .await;
    let mut answers = extra.answers.clone();
    let filler = "x".repeat(64);
    for i in 0..count {
        answers.insert(
            format!("audit-unknown-{i}"),
            json!({"action": "accept", "content": {"note": filler}}),
        );
    }
    let extra_bytes = Value::Object(answers.clone()).to_string().len()
        - Value::Object(extra.answers.clone()).to_string().len();
    let stuffed = call::send(
        &ctx.main,
        call::params(&tool, &args, Some(answers), extra.state.as_deref()),
    )
    .await;
    let grown = size(&stuffed).saturating_sub(size(&normal));
    let (outcome, text) = match &stuffed {
        End::Failed(why) => (Outcome::Inconclusive, evidence::quote(why)),
        End::Rpc(e) => (
            Outcome::Pass,
            format!(
                "{count} unknown answers ({extra_bytes} bytes) were refused: {}",
                evidence::error(e)
            ),
        ),
        _ if grown > extra_bytes / 4 => (
            Outcome::Fail,
            format!(
                "{count} unknown answers ({extra_bytes} bytes) made the reply {grown} bytes longer ({} → {} bytes): they are carried along",
                size(&normal),
                size(&stuffed)
            ),
        ),
        _ => (
            Outcome::Pass,
            format!(
                "{count} unknown answers ({extra_bytes} bytes): the reply is {} bytes, {} without them",
                size(&stuffed),
                size(&normal)
            ),
        ),
    };
    ctx.found(check, &tool, outcome, text);
}

async fn retry_flood(ctx: &mut Ctx<'_>) {
    let check = CheckId::LimitsRetryFlood;
    let Some((tool, args)) = modern_subject(ctx) else {
        ctx.skip(check, "no asking tool completes with valid answers");
        return;
    };
    let w = match walk(&ctx.main, &tool, &args, 1, Variant::Primary).await {
        Ok(w) => w,
        Err(why) => {
            ctx.found(check, &tool, Outcome::Inconclusive, evidence::quote(&why));
            return;
        }
    };
    let count = ctx.options.stress_count;
    let started = Instant::now();
    let main = &ctx.main;
    let ends: Vec<End> = futures::stream::iter(0..count)
        .map(|_| call::send(main, call::params(&tool, &args, None, w.state.as_deref())))
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let took = started.elapsed().as_secs_f64();
    let refused = ends.iter().filter(|e| matches!(e, End::Rpc(_))).count();
    let failed = ends.iter().filter(|e| matches!(e, End::Failed(_))).count();
    let answered = count - refused - failed;
    let still = call::call(&ctx.main, &tool, &args, careful(Variant::Primary)).await;
    let (outcome, text) = if still.end.succeeded() {
        (
            Outcome::Pass,
            format!(
                "{count} retries in {took:.1} s ({answered} answered, {refused} refused, {failed} failed); then a call still completed"
            ),
        )
    } else {
        (
            Outcome::Fail,
            format!(
                "after {count} retries in {took:.1} s ({answered} answered, {refused} refused, {failed} failed) a call no longer completes: {}",
                evidence::end_brief(&still.end)
            ),
        )
    };
    ctx.found(check, &tool, outcome, text);
}

async fn pending_questions(ctx: &mut Ctx<'_>) {
    let check = CheckId::LimitsPendingQuestions;
    let Some((tool, args)) = ctx
        .asking()
        .find(|t| t.baseline.asked.first().is_some_and(|a| a.url().is_none()))
        .map(|t| (t.name().to_owned(), t.args.clone()))
    else {
        ctx.skip(check, "no tool asks a form question first");
        return;
    };
    let session = match ctx
        .session_on(&ctx.target.server, BOTH, Answering::Hold)
        .await
    {
        Ok(s) => s,
        Err(e) => {
            ctx.found(check, &tool, Outcome::Inconclusive, evidence::quote(&e));
            return;
        }
    };
    let count = ctx.options.stress_count;
    let client = session.client.clone();
    // Calls the server answered with an error (refused) while the others wait.
    let refused = Arc::new(AtomicUsize::new(0));
    let calls = tokio::spawn({
        let tool = tool.clone();
        let args = args.clone();
        let refused = refused.clone();
        async move {
            futures::stream::iter(0..count)
                .for_each_concurrent(count.max(1), |_| {
                    let client = client.clone();
                    let refused = refused.clone();
                    let params = call::params(&tool, &args, None, None);
                    async move {
                        if let Err(ClientError::Rpc(_)) =
                            client.request(method::TOOLS_CALL, params).await
                        {
                            refused.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
                .await;
        }
    });
    let started = Instant::now();
    let mut asked = 0usize;
    let mut last_change = Instant::now();
    let mut wire: Vec<(Direction, Value)> = Vec::new();
    while started.elapsed() < SETTLE && last_change.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        wire.extend(session.take_wire());
        let now = wire
            .iter()
            .filter(|(d, m)| {
                *d == Direction::Incoming
                    && m.get("method").and_then(Value::as_str) == Some(method::ELICITATION_CREATE)
            })
            .count();
        if now != asked {
            asked = now;
            last_change = Instant::now();
        }
        if asked >= count {
            break;
        }
    }
    let refused_calls = refused.load(Ordering::SeqCst);
    session.close().await;
    calls.abort();
    let alive = match ctx.session(BOTH).await {
        Ok(s) => {
            let ok = s.client.list_tools().await.is_ok();
            s.close().await;
            ok
        }
        Err(_) => false,
    };
    let held = asked;
    let (outcome, text) = if !alive {
        (
            Outcome::Fail,
            format!(
                "{count} unanswered calls in one session: {held} questions asked; afterwards the server no longer answers"
            ),
        )
    } else if held * 10 >= count * 9 {
        (
            Outcome::Fail,
            format!(
                "{count} calls in one session, none answered: the server asked {held} questions at once ({refused_calls} calls refused): no bound"
            ),
        )
    } else {
        (
            Outcome::Pass,
            format!(
                "{count} calls in one session, none answered: {held} questions asked, {refused_calls} calls refused; the server still serves"
            ),
        )
    };
    ctx.found(check, &tool, outcome, text);
}
