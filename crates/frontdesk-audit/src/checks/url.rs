//! The URL-mode checks: every URL a tool asked the person to open, read by
//! frontdesk-url's review (`url.https`, `url.userinfo`, `url.review`); on
//! 2025-11-25 its `elicitationId`s (`url.fresh-id`) and what follows an
//! accept the audit never acts on (`url.complete-after-flow`); and every
//! `-32042` the server sent (`url.required-error`).

use std::collections::HashMap;
use std::time::Duration;

use frontdesk::wire::Revision;
use frontdesk_url::{FindingCode, Severity as UrlSeverity, UrlPolicy, review};
use frontdesk_wire::{ErrorCode, ErrorObject};
use serde_json::Value;

use crate::answers::Variant;
use crate::call::{self, End};
use crate::catalog::CheckId;
use crate::evidence::{self, fingerprint};
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::{BOTH, Reply, careful};

/// How long the audit watches for a completion after it consented to a URL.
const WATCH: Duration = Duration::from_secs(2);

/// One URL a tool asked to open.
struct Seen {
    tool: String,
    url: String,
    id: Option<String>,
    /// From a -32042's list rather than an elicitation.
    listed: bool,
}

/// Run the URL checks.
pub(super) async fn run(ctx: &mut Ctx<'_>) {
    let legacy = ctx.revision == Revision::V2025_11_25;
    let mut seen = Vec::new();
    let mut errors: Vec<(String, ErrorObject)> = Vec::new();
    for run in &ctx.tools {
        let calls = std::iter::once(&run.baseline).chain(run.alternate.as_ref());
        for rec in calls {
            for asked in &rec.asked {
                if let Some(u) = asked.url() {
                    seen.push(Seen {
                        tool: run.tool.name.clone(),
                        url: u.url.clone(),
                        id: u.elicitation_id.clone(),
                        listed: false,
                    });
                }
            }
            if let End::Rpc(e) = &rec.end
                && e.code == ErrorCode::URL_ELICITATION_REQUIRED
            {
                errors.push((run.tool.name.clone(), e.clone()));
                for entry in listed(e) {
                    seen.push(Seen {
                        tool: run.tool.name.clone(),
                        url: entry.0,
                        id: entry.1,
                        listed: true,
                    });
                }
            }
        }
    }
    review_urls(ctx, &seen);
    if legacy {
        fresh_ids(ctx, &seen).await;
        complete_after_flow(ctx, &seen).await;
    }
    required_error(ctx, &errors);
}

/// The (url, elicitationId) entries of a -32042's list.
fn listed(e: &ErrorObject) -> Vec<(String, Option<String>)> {
    e.data
        .as_ref()
        .and_then(|d| d.get("elicitations"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let url = entry.get("url")?.as_str()?.to_owned();
            let id = entry
                .get("elicitationId")
                .and_then(Value::as_str)
                .map(String::from);
            Some((url, id))
        })
        .collect()
}

fn review_urls(ctx: &mut Ctx<'_>, seen: &[Seen]) {
    let checks = [CheckId::UrlHttps, CheckId::UrlUserinfo, CheckId::UrlReview];
    if seen.is_empty() {
        let why = ctx
            .no_asking_tool()
            .unwrap_or_else(|| "no tool asked a URL question".to_owned());
        for check in checks.into_iter().filter(|c| ctx.options.wants(*c)) {
            ctx.skip(check, why.clone());
        }
        return;
    }
    let policy = UrlPolicy::default();
    let disclosure = ctx.options.disclosure;
    let mut done: Vec<(&str, &str)> = Vec::new();
    for s in seen {
        if done.contains(&(s.tool.as_str(), s.url.as_str())) {
            continue;
        }
        done.push((&s.tool, &s.url));
        let r = review(&s.url, &policy);
        let shown = evidence::url(&s.url, disclosure);
        let from = if s.listed { " (listed in -32042)" } else { "" };
        if ctx.options.wants(CheckId::UrlHttps) {
            let (outcome, text) = match r.scheme() {
                Some("https") => (Outcome::Pass, format!("{shown}{from} is https")),
                Some(scheme) if r.is_loopback() => (
                    Outcome::Fail,
                    format!("{shown}{from} is {scheme} on loopback: for development only"),
                ),
                Some(scheme) => (
                    Outcome::Fail,
                    format!("{shown}{from} is {scheme}, not https"),
                ),
                None => (
                    Outcome::Fail,
                    format!("{shown}{from} is not a URL with a scheme"),
                ),
            };
            ctx.found(CheckId::UrlHttps, &s.tool, outcome, text);
        }
        if ctx.options.wants(CheckId::UrlUserinfo) {
            let (outcome, text) = if r.has(FindingCode::Userinfo) {
                (
                    Outcome::Fail,
                    format!("{shown}{from} carries a user name or password"),
                )
            } else {
                (Outcome::Pass, format!("{shown}{from} carries no userinfo"))
            };
            ctx.found(CheckId::UrlUserinfo, &s.tool, outcome, text);
        }
        if ctx.options.wants(CheckId::UrlReview) {
            // Plain http and userinfo are the two checks above.
            let covered = [FindingCode::InsecureHttp, FindingCode::Userinfo];
            let refusals: Vec<&str> = r
                .findings()
                .iter()
                .filter(|f| f.severity == UrlSeverity::Refusal && !covered.contains(&f.code))
                .map(|f| f.code.as_str())
                .collect();
            let warnings: Vec<&str> = r
                .findings()
                .iter()
                .filter(|f| f.severity == UrlSeverity::Warning)
                .map(|f| f.code.as_str())
                .collect();
            let (outcome, text) = if refusals.is_empty() {
                let notes = if warnings.is_empty() {
                    "no warnings".to_owned()
                } else {
                    format!("warnings: {}", warnings.join(", "))
                };
                (
                    Outcome::Pass,
                    format!("{shown}{from}: verdict {}, {notes}", r.verdict()),
                )
            } else {
                (
                    Outcome::Fail,
                    format!(
                        "{shown}{from}: a careful client refuses to open it ({})",
                        refusals.join(", ")
                    ),
                )
            };
            ctx.found(CheckId::UrlReview, &s.tool, outcome, text);
        }
    }
}

/// `url.fresh-id`: each URL tool called once more; every elicitationId
/// must be there and differ from every other.
async fn fresh_ids(ctx: &mut Ctx<'_>, seen: &[Seen]) {
    let check = CheckId::UrlFreshId;
    if !ctx.options.wants(check) {
        return;
    }
    if seen.is_empty() {
        let why = ctx
            .no_asking_tool()
            .unwrap_or_else(|| "no tool asked a URL question".to_owned());
        ctx.skip(check, why);
        return;
    }
    ctx.say("url.fresh-id");
    let mut ids: Vec<(String, Option<String>)> = seen
        .iter()
        .map(|s| (s.tool.clone(), s.id.clone()))
        .collect();
    let tools: Vec<(String, Value)> = ctx
        .tools
        .iter()
        .filter(|t| seen.iter().any(|s| s.tool == t.tool.name))
        .map(|t| (t.tool.name.clone(), t.args.clone()))
        .collect();
    for (tool, args) in &tools {
        let rec = call::call(&ctx.main, tool, args, careful(Variant::Primary)).await;
        for asked in &rec.asked {
            if let Some(u) = asked.url() {
                ids.push((tool.clone(), u.elicitation_id.clone()));
            }
        }
        if let End::Rpc(e) = &rec.end {
            ids.extend(listed(e).into_iter().map(|(_, id)| (tool.clone(), id)));
        }
    }
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (tool, id) in &ids {
        match id {
            None => {
                ctx.found(
                    check,
                    tool,
                    Outcome::Fail,
                    "a URL question without an elicitationId",
                );
                return;
            }
            Some(id) => *count.entry(id.as_str()).or_default() += 1,
        }
    }
    let repeated: Vec<(&str, usize)> = count
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, n)| (*id, *n))
        .collect();
    let tool = ids.first().map(|(t, _)| t.clone()).unwrap_or_default();
    if let Some((id, n)) = repeated.first() {
        ctx.found(
            check,
            &tool,
            Outcome::Fail,
            format!(
                "elicitationId #{} was used for {n} of {} URL questions",
                fingerprint(id),
                ids.len()
            ),
        );
    } else {
        ctx.found(
            check,
            &tool,
            Outcome::Pass,
            format!(
                "{} URL questions, {} different elicitationIds",
                ids.len(),
                count.len()
            ),
        );
    }
}

/// `url.complete-after-flow`: consent to each URL (the audit never opens
/// it) and watch: a completion can only be premature. Completions seen in
/// any earlier call count too.
async fn complete_after_flow(ctx: &mut Ctx<'_>, seen: &[Seen]) {
    let check = CheckId::UrlCompleteAfterFlow;
    if !ctx.options.wants(check) {
        return;
    }
    let early: Vec<(String, String)> = ctx
        .tools
        .iter()
        .flat_map(|t| {
            std::iter::once(&t.baseline)
                .chain(t.alternate.as_ref())
                .flat_map(|r| r.completions())
                .map(|id| (t.tool.name.clone(), id))
                .collect::<Vec<_>>()
        })
        .collect();
    if let Some((tool, id)) = early.first() {
        ctx.found(check, tool, Outcome::Fail, format!("notifications/elicitation/complete for elicitationId #{} although the URL was declined and never opened", fingerprint(id)));
        return;
    }
    let live: Vec<(String, Value)> = ctx
        .tools
        .iter()
        .filter(|t| seen.iter().any(|s| s.tool == t.tool.name && !s.listed))
        .map(|t| (t.tool.name.clone(), t.args.clone()))
        .collect();
    if live.is_empty() {
        let why = ctx
            .no_asking_tool()
            .unwrap_or_else(|| "no tool asked a URL question with elicitation/create".to_owned());
        ctx.skip(check, why);
        return;
    }
    ctx.say("url.complete-after-flow");
    for (tool, args) in live {
        // A session of its own: the call may wait for a flow that never
        // finishes, and closing the session ends it.
        let session = match ctx.session(BOTH).await {
            Ok(s) => s,
            Err(e) => {
                ctx.found(check, &tool, Outcome::Inconclusive, evidence::quote(&e));
                continue;
            }
        };
        session.script(Box::new(|_| Reply::Valid(Variant::Primary)));
        let params = call::params(&tool, &args, None, None);
        let calling = call::send(&session, params);
        let end = tokio::time::timeout(WATCH, calling).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let wire = session.take_wire();
        let completions: Vec<String> = wire
            .iter()
            .filter(|(_, m)| {
                m.get("method").and_then(Value::as_str)
                    == Some(frontdesk_wire::method::NOTIFICATION_ELICITATION_COMPLETE)
            })
            .map(|(_, m)| {
                m.pointer("/params/elicitationId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect();
        let accepted = session
            .take_asked()
            .iter()
            .filter(|a| a.url().is_some())
            .count();
        session.close().await;
        let ended = match &end {
            Ok(end) => evidence::end_brief(end),
            Err(_) => format!(
                "the call was still open after {} s (waiting for the flow)",
                WATCH.as_secs()
            ),
        };
        let (outcome, text) = match completions.first() {
            Some(id) => (
                Outcome::Fail,
                format!(
                    "notifications/elicitation/complete for elicitationId #{} came after a mere consent; the URL was never opened ({ended})",
                    fingerprint(id)
                ),
            ),
            None if accepted == 0 => (
                Outcome::Inconclusive,
                format!("no URL question this time ({ended})"),
            ),
            None => (
                Outcome::Pass,
                format!("consented to {accepted} URL(s) and opened none: no completion; {ended}"),
            ),
        };
        ctx.found(check, &tool, outcome, text);
    }
}

/// `url.required-error`: every -32042 seen.
fn required_error(ctx: &mut Ctx<'_>, errors: &[(String, ErrorObject)]) {
    let check = CheckId::UrlRequiredError;
    if !ctx.options.wants(check) {
        return;
    }
    let modern = ctx.revision == Revision::V2026_07_28;
    if errors.is_empty() {
        if modern {
            let calls = ctx.tools.len();
            if calls == 0 {
                let why = ctx.no_asking_tool().unwrap_or_default();
                ctx.skip(check, why);
            } else {
                ctx.add(crate::report::Finding::new(
                    check,
                    Outcome::Pass,
                    format!("no -32042 in the calls of {calls} tool(s)"),
                ));
            }
        } else {
            let why = ctx
                .no_asking_tool()
                .unwrap_or_else(|| "no tool answered -32042".to_owned());
            ctx.skip(check, why);
        }
        return;
    }
    for (tool, e) in errors {
        let (outcome, text) = if modern {
            (
                Outcome::Fail,
                format!(
                    "{}: -32042 is reserved in 2026-07-28 and must not be emitted",
                    evidence::error(e)
                ),
            )
        } else {
            match shape_problem(e) {
                Some(problem) => (Outcome::Fail, format!("-32042 {problem}")),
                None => (
                    Outcome::Pass,
                    format!(
                        "-32042 lists {} URL elicitation(s), each with mode, elicitationId, url and message",
                        listed(e).len()
                    ),
                ),
            }
        };
        ctx.found(check, tool, outcome, text);
    }
}

/// What is wrong with a -32042's `data`, if anything.
fn shape_problem(e: &ErrorObject) -> Option<String> {
    let Some(list) = e.data.as_ref().and_then(|d| d.get("elicitations")) else {
        return Some("has no data.elicitations".into());
    };
    let Some(list) = list.as_array() else {
        return Some("has a data.elicitations that is not an array".into());
    };
    if list.is_empty() {
        return Some("lists no elicitation".into());
    }
    for (i, entry) in list.iter().enumerate() {
        let text = |k: &str| {
            entry
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        if entry.get("mode").and_then(Value::as_str) != Some("url") {
            return Some(format!("entry {i} is not mode \"url\""));
        }
        for key in ["elicitationId", "url", "message"] {
            if text(key).is_none() {
                return Some(format!("entry {i} has no {key}"));
            }
        }
    }
    None
}
