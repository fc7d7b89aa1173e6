//! The audit run: for each revision the server speaks, discovery (its tools,
//! which of them ask and what, found only by calling the tools the operator
//! allows), then every check, into one [`Report`].

use std::sync::Arc;
use std::time::Duration;

use frontdesk::wire::Revision;

use frontdesk::wire::Tool;
use frontdesk_wire::{ElicitRequestParams, meta_key, method};
use serde_json::{Map, Value};

use crate::answers::Variant;
use crate::call::{self, CallRecord};
use crate::catalog::{CHECKS, Check, CheckId, Needs};
use crate::checks;
use crate::evidence::{self, Disclosure};
use crate::report::{Finding, NOT_HERE, Outcome, QuestionInfo, Report, RevisionInfo, ToolInfo};
use crate::session::{Answering, Asked, BOTH, Session, SessionOptions, careful};
use crate::target::{Endpoint, Target};

/// Called with a line saying what the audit is doing (it can take a while).
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

/// What the operator allows and asks for.
#[derive(Clone)]
pub struct Options {
    /// Tools that may be called, with their arguments (`--call TOOL=ARGS`).
    pub calls: Vec<(String, Value)>,
    /// Call every tool (`--call-all`; arguments `{}` unless `calls` names it).
    pub call_all: bool,
    /// The revisions to try (both by default).
    pub revisions: Vec<Revision>,
    /// Tools the operator says have effects, whatever their annotations say.
    pub effects: Vec<String>,
    /// Run the limit checks (`--stress`).
    pub stress: bool,
    /// How many questions, answers or retries a limit check sends.
    pub stress_count: usize,
    /// Hold a state this long before retrying with it (`state.expiry`).
    pub state_age: Option<Duration>,
    /// The time limit of one request.
    pub timeout: Duration,
    /// What the report may show.
    pub disclosure: Disclosure,
    /// Only these checks (all when empty).
    pub only: Vec<CheckId>,
    /// Where progress goes.
    pub progress: Option<Progress>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            calls: Vec::new(),
            call_all: false,
            revisions: vec![Revision::V2025_11_25, Revision::V2026_07_28],
            effects: Vec::new(),
            stress: false,
            stress_count: 1000,
            state_age: None,
            timeout: Duration::from_secs(10),
            disclosure: Disclosure::default(),
            only: Vec::new(),
            progress: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("calls", &self.calls.len())
            .field("call_all", &self.call_all)
            .field("revisions", &self.revisions)
            .field("stress", &self.stress)
            .field("state_age", &self.state_age)
            .field("only", &self.only)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// Whether `check` runs at all.
    pub(crate) fn wants(&self, check: CheckId) -> bool {
        self.only.is_empty() || self.only.contains(&check)
    }

    fn say(&self, line: &str) {
        if let Some(p) = &self.progress {
            p(line);
        }
    }

    /// The arguments the operator gave `tool`, if it may be called.
    fn allowed(&self, tool: &str) -> Option<Value> {
        match self.calls.iter().find(|(name, _)| name == tool) {
            Some((_, args)) => Some(args.clone()),
            None => self.call_all.then(|| Value::Object(Map::new())),
        }
    }
}

/// A tool that was called on one revision, and how its calls went.
pub(crate) struct ToolRun {
    /// As listed.
    pub tool: Tool,
    /// The arguments it is called with.
    pub args: Value,
    /// Whether it has effects (annotations or `--effects`).
    pub effects: bool,
    /// A call answered with valid answers (primary), URLs declined.
    pub baseline: CallRecord,
    /// The same with the other valid answers, when it asked a form.
    pub alternate: Option<CallRecord>,
}

impl ToolRun {
    /// The tool's name.
    pub(crate) fn name(&self) -> &str {
        &self.tool.name
    }

    /// Whether it asked anything (a question, or a -32042 on 2025-11-25).
    pub(crate) fn asks(&self) -> bool {
        !self.baseline.asked.is_empty()
            || self.baseline.end.code()
                == Some(frontdesk_wire::ErrorCode::URL_ELICITATION_REQUIRED.0)
    }

    /// Whether a valid answer leads to a successful result.
    pub(crate) fn completes(&self) -> bool {
        self.baseline.end.succeeded()
    }
}

/// What the checks of one revision share.
pub(crate) struct Ctx<'a> {
    /// The options.
    pub options: &'a Options,
    /// The target.
    pub target: &'a Target,
    /// The revision.
    pub revision: Revision,
    /// A session declaring both modes, answered by script.
    pub main: Session,
    /// The tools called.
    pub tools: Vec<ToolRun>,
    /// The results so far.
    pub findings: Vec<Finding>,
}

impl Ctx<'_> {
    /// The revision's name.
    pub(crate) fn rev(&self) -> &'static str {
        self.revision.as_str()
    }

    /// Record a finding of this revision.
    pub(crate) fn add(&mut self, finding: Finding) {
        let finding = finding.on(self.revision.as_str());
        self.findings.push(finding);
    }

    /// Record a finding of `check` for `tool`.
    pub(crate) fn found(
        &mut self,
        check: CheckId,
        tool: &str,
        outcome: Outcome,
        evidence: impl Into<String>,
    ) {
        self.add(Finding::new(check, outcome, evidence).tool(tool));
    }

    /// Record that `check` did not run on this revision, and why.
    pub(crate) fn skip(&mut self, check: CheckId, why: impl Into<String>) {
        self.add(Finding::new(check, Outcome::Skipped, why));
    }

    /// Say what runs now.
    pub(crate) fn say(&self, what: &str) {
        self.options.say(&format!("{}: {what}", self.rev()));
    }

    /// A new session on `endpoint` declaring `modes`.
    pub(crate) async fn session_on(
        &self,
        endpoint: &Endpoint,
        modes: frontdesk::client::HandlerModes,
        answering: Answering,
    ) -> Result<Session, String> {
        Session::open(
            endpoint,
            SessionOptions {
                revision: self.revision,
                modes,
                answering,
                timeout: self.options.timeout,
            },
        )
        .await
    }

    /// A new session on the server declaring `modes`.
    pub(crate) async fn session(
        &self,
        modes: frontdesk::client::HandlerModes,
    ) -> Result<Session, String> {
        self.session_on(&self.target.server, modes, Answering::Scripted)
            .await
    }

    /// The tools that asked something.
    pub(crate) fn asking(&self) -> impl Iterator<Item = &ToolRun> {
        self.tools.iter().filter(|t| t.asks())
    }

    /// Why no tool can be probed, if none can.
    pub(crate) fn no_asking_tool(&self) -> Option<String> {
        if self.tools.is_empty() {
            return Some(
                "no tool was called: pass --call TOOL[=ARGS] or --call-all to let the audit call tools"
                    .into(),
            );
        }
        (self.asking().next().is_none()).then(|| {
            format!(
                "none of the {} tool(s) called asked a question",
                self.tools.len()
            )
        })
    }
}

/// Run the audit.
pub async fn audit(target: &Target, options: &Options) -> Report {
    let mut revisions = Vec::new();
    let mut tools = Vec::new();
    let mut findings = Vec::new();
    for &revision in &options.revisions {
        options.say(&format!("{}: connecting", revision.as_str()));
        let (info, ctx) = discover(target, options, revision).await;
        revisions.push(info);
        let Some(mut ctx) = ctx else {
            continue;
        };
        tools.extend(ctx.tools.iter().map(|t| tool_info(t, revision)));
        checks::run(&mut ctx).await;
        for check in CHECKS {
            needs_note(&mut ctx, check);
        }
        findings.append(&mut ctx.findings);
        for run in &ctx.tools {
            tracing::debug!(tool = %run.name(), "audited");
        }
        ctx.main.close().await;
    }
    if revisions.iter().all(|r| !r.spoken) {
        for check in CHECKS.iter().filter(|c| options.wants(c.id)) {
            findings.push(Finding::new(
                check.id,
                Outcome::Skipped,
                "the server speaks none of the revisions tried",
            ));
        }
    }
    Report::new(target.server.name.clone(), revisions, tools, findings)
}

/// A check that found nothing to do on a revision still gets a line saying
/// why (it applies to the other revision, or it was not selected).
fn needs_note(ctx: &mut Ctx<'_>, check: &Check) {
    if !ctx.options.wants(check.id) || ctx.findings.iter().any(|f| f.check == check.id) {
        return;
    }
    let why = match (check.applies, ctx.revision) {
        (crate::catalog::Applies::Legacy, Revision::V2026_07_28) => {
            format!("{NOT_HERE}2025-11-25 only")
        }
        (crate::catalog::Applies::Modern, Revision::V2025_11_25) => {
            format!("{NOT_HERE}2026-07-28 only")
        }
        _ => match check.needs {
            Needs::Stress => "runs with --stress".to_owned(),
            Needs::StateAge => "runs with --state-age SECS".to_owned(),
            Needs::SecondInstance => "needs a second instance (--also SERVER)".to_owned(),
            Needs::SecondPrincipal => {
                "needs another principal (--second-token-file FILE or --second-command CMD)"
                    .to_owned()
            }
            Needs::Nothing => "nothing to check".to_owned(),
        },
    };
    ctx.skip(check.id, why);
}

fn tool_info(run: &ToolRun, revision: Revision) -> ToolInfo {
    ToolInfo {
        name: run.tool.name.clone(),
        revision: revision.as_str().to_owned(),
        called: true,
        effects: run.effects,
        questions: run.baseline.asked.iter().map(question_info).collect(),
        ended: Some(evidence::end_brief(&run.baseline.end)),
    }
}

fn question_info(asked: &Asked) -> QuestionInfo {
    QuestionInfo {
        mode: asked.mode().to_owned(),
        key: asked.key.clone(),
        fields: asked
            .schema_json()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default(),
        origin: asked.url().and_then(|u| {
            url::Url::parse(&u.url)
                .ok()
                .map(|parsed| parsed.origin().ascii_serialization())
        }),
    }
}

/// Whether `tool` says (or the operator says) it has effects.
fn has_effects(tool: &Tool, options: &Options) -> bool {
    if options.effects.contains(&tool.name) {
        return true;
    }
    let Some(a) = &tool.annotations else {
        return false;
    };
    a.read_only_hint != Some(true)
        && (a.destructive_hint == Some(true) || a.idempotent_hint == Some(false))
}

/// Connect on `revision`, learn whether the server speaks it, list its
/// tools and call the allowed ones.
async fn discover<'a>(
    target: &'a Target,
    options: &'a Options,
    revision: Revision,
) -> (RevisionInfo, Option<Ctx<'a>>) {
    let rev = revision.as_str().to_owned();
    let not_spoken = |note: String| RevisionInfo {
        revision: rev.clone(),
        spoken: false,
        note,
        server: None,
    };
    let main = match Session::open(
        &target.server,
        SessionOptions {
            revision,
            modes: BOTH,
            answering: Answering::Scripted,
            timeout: options.timeout,
        },
    )
    .await
    {
        Ok(s) => s,
        Err(e) => return (not_spoken(format!("cannot connect: {e}")), None),
    };
    let (spoken, note, server) = match revision {
        Revision::V2025_11_25 => {
            let info = main.client.server_info();
            (
                true,
                "initialize answered with 2025-11-25".to_owned(),
                Some(format!("{} {}", info.name, info.version)),
            )
        }
        _ => match main
            .client
            .request(method::SERVER_DISCOVER, Map::new())
            .await
        {
            Ok(result) => {
                let versions: Vec<&str> = result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let server = result
                    .get("_meta")
                    .and_then(|m| m.get(meta_key::SERVER_INFO))
                    .map(|i| {
                        format!(
                            "{} {}",
                            i.get("name").and_then(Value::as_str).unwrap_or("?"),
                            i.get("version").and_then(Value::as_str).unwrap_or("")
                        )
                    });
                let spoken = versions.contains(&revision.as_str());
                (
                    spoken,
                    format!("server/discover lists {}", versions.join(", ")),
                    server,
                )
            }
            Err(e) => (false, format!("server/discover failed: {e}"), None),
        },
    };
    let mut info = RevisionInfo {
        revision: rev.clone(),
        spoken,
        note: escape_name(&note),
        server: server.map(|s| escape_name(&s)),
    };
    if !spoken {
        main.close().await;
        return (info, None);
    }
    let listed = match main.client.list_tools().await {
        Ok(tools) => tools,
        Err(e) => {
            info.note = format!(
                "{}; tools/list failed: {}",
                info.note,
                escape_name(&e.to_string())
            );
            Vec::new()
        }
    };
    // A tool the operator names is called even when tools/list leaves it
    // out (a server may list tools per principal, or not at all).
    let unlisted: Vec<Tool> = options
        .calls
        .iter()
        .filter(|(name, _)| !listed.iter().any(|t| t.name == *name))
        .map(|(name, _)| Tool::new(name.clone(), Map::new()))
        .collect();
    let mut runs = Vec::new();
    for tool in listed.into_iter().chain(unlisted) {
        let Some(args) = options.allowed(&tool.name) else {
            continue;
        };
        options.say(&format!("{rev}: calling {}", escape_name(&tool.name)));
        let baseline = call::call(&main, &tool.name, &args, careful(Variant::Primary)).await;
        let asks_form = baseline
            .asked
            .iter()
            .any(|a| matches!(a.params, ElicitRequestParams::Form(_)));
        let alternate = if asks_form {
            Some(call::call(&main, &tool.name, &args, careful(Variant::Alternate)).await)
        } else {
            None
        };
        runs.push(ToolRun {
            effects: has_effects(&tool, options),
            tool,
            args,
            baseline,
            alternate,
        });
    }
    let ctx = Ctx {
        options,
        target,
        revision,
        main,
        tools: runs,
        findings: Vec::new(),
    };
    (info, Some(ctx))
}

/// A name from the server, safe to show.
fn escape_name(s: &str) -> String {
    frontdesk_url::escape_for_display(s, 80)
}
