//! What an audit found: the revisions the server speaks, its tools and the
//! questions they ask, and one [`Finding`] per check, revision and tool.
//! Serialized as the `--json` report (its schema: `report.schema.json` in
//! this crate); [`crate::render`] draws the terminal table.

use serde::Serialize;

use crate::catalog::{CHECKS, CheckId, Severity};

/// How a finding that a check does not apply to a revision starts.
pub(crate) const NOT_HERE: &str = "applies to ";

/// The version of the JSON report's format (`report.schema.json`).
pub const REPORT_FORMAT: u32 = 1;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It did not apply or could not run (why: the evidence).
    Skipped,
    /// The server did what the check asks.
    Pass,
    /// The probe ran but what the server did does not settle it either way.
    Inconclusive,
    /// The server did not do what the check asks.
    Fail,
}

impl Outcome {
    /// The stable lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Skipped => "skipped",
            Outcome::Pass => "pass",
            Outcome::Inconclusive => "inconclusive",
            Outcome::Fail => "fail",
        }
    }
}

/// One result of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check.
    pub check: CheckId,
    /// The revision it ran on (none: it did not get that far).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The tool it ran on (none: the server as a whole).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// How it came out.
    pub outcome: Outcome,
    /// What showed it: the message, described (no token, no answer content
    /// unless `--show-content`).
    pub evidence: String,
}

impl Finding {
    /// A finding of `check`.
    pub fn new(check: CheckId, outcome: Outcome, evidence: impl Into<String>) -> Self {
        Self {
            check,
            revision: None,
            tool: None,
            outcome,
            evidence: evidence.into(),
        }
    }

    /// On this revision (builder style).
    pub fn on(mut self, revision: &str) -> Self {
        self.revision = Some(revision.to_owned());
        self
    }

    /// For this tool (builder style).
    pub fn tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self
    }
}

/// What the server said about one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RevisionInfo {
    /// `2025-11-25` or `2026-07-28`.
    pub revision: String,
    /// Whether the server speaks it.
    pub spoken: bool,
    /// How that was found (or why not).
    pub note: String,
    /// The server's name and version, when it said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// One question a tool asked during discovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionInfo {
    /// `form` or `url`.
    pub mode: String,
    /// The `inputRequests` key (2026-07-28), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Form: the field keys; URL: empty.
    pub fields: Vec<String>,
    /// URL: the URL's origin (scheme and host), never its path or query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// One tool on one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolInfo {
    /// Its name.
    pub name: String,
    /// The revision it was listed and called on.
    pub revision: String,
    /// Whether the operator allowed calling it (`--call`, `--call-all`).
    pub called: bool,
    /// Whether its annotations or `--effects` say it has effects.
    pub effects: bool,
    /// The questions it asked in a call answered like a careful person
    /// would (empty when it asked none or was not called).
    pub questions: Vec<QuestionInfo>,
    /// How that call ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// One line per check: its outcome over every revision and tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The check.
    pub check: CheckId,
    /// Its severity.
    pub severity: Severity,
    /// Its title.
    pub title: &'static str,
    /// Where the spec says so.
    pub spec: &'static str,
    /// The worst outcome of its findings (`fail` over `inconclusive` over
    /// `pass` over `skipped`).
    pub outcome: Outcome,
    /// The evidence of that worst finding, with how many more there are.
    pub evidence: String,
}

/// Everything an audit found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// [`REPORT_FORMAT`].
    pub format: u32,
    /// The audited server as given (a command line or URL).
    pub server: String,
    /// The revisions tried.
    pub revisions: Vec<RevisionInfo>,
    /// The tools, per revision spoken.
    pub tools: Vec<ToolInfo>,
    /// One line per check.
    pub summary: Vec<Summary>,
    /// Every result.
    pub findings: Vec<Finding>,
}

impl Report {
    /// A report of `findings` (the summary is worked out here).
    pub fn new(
        server: String,
        revisions: Vec<RevisionInfo>,
        tools: Vec<ToolInfo>,
        findings: Vec<Finding>,
    ) -> Self {
        let summary = CHECKS
            .iter()
            .filter_map(|check| {
                let mine: Vec<&Finding> = findings.iter().filter(|f| f.check == check.id).collect();
                let top = mine.iter().map(|f| f.outcome).max()?;
                // A check skipped on a revision it does not apply to says
                // more where it does (what it needs).
                let worst = mine
                    .iter()
                    .find(|f| f.outcome == top && !f.evidence.starts_with(NOT_HERE))
                    .or_else(|| mine.iter().find(|f| f.outcome == top))?;
                let same = mine.iter().filter(|f| f.outcome == worst.outcome).count();
                let mut evidence = String::new();
                match (&worst.revision, &worst.tool) {
                    (Some(revision), Some(tool)) => {
                        evidence.push_str(&format!("{revision} {tool}: "));
                    }
                    (Some(revision), None) => evidence.push_str(&format!("{revision}: ")),
                    (None, Some(tool)) => evidence.push_str(&format!("{tool}: ")),
                    (None, None) => {}
                }
                evidence.push_str(&worst.evidence);
                if same > 1 {
                    evidence.push_str(&format!(" (+{} more)", same - 1));
                }
                Some(Summary {
                    check: check.id,
                    severity: check.severity,
                    title: check.title,
                    spec: check.spec,
                    outcome: worst.outcome,
                    evidence,
                })
            })
            .collect();
        Self {
            format: REPORT_FORMAT,
            server,
            revisions,
            tools,
            summary,
            findings,
        }
    }

    /// The checks that failed at `severity` or above.
    pub fn failed_at(&self, severity: Severity) -> Vec<CheckId> {
        self.summary
            .iter()
            .filter(|s| s.outcome == Outcome::Fail && s.severity >= severity)
            .map(|s| s.check)
            .collect()
    }

    /// How many checks came out `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.summary.iter().filter(|s| s.outcome == outcome).count()
    }

    /// The summary line of `check`, if it ran.
    pub fn outcome_of(&self, check: CheckId) -> Option<Outcome> {
        self.summary
            .iter()
            .find(|s| s.check == check)
            .map(|s| s.outcome)
    }
}
