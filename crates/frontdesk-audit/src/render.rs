//! The report for a person (a table, one line per check) and for CI (JSON,
//! described by `report.schema.json`).

use std::fmt::Write as _;

use serde_json::Value;

use crate::catalog::{CHECKS, Severity};
use crate::report::{Outcome, Report};

/// The JSON Schema of [`json`]'s output (committed as `report.schema.json`).
pub const REPORT_SCHEMA: &str = include_str!("../report.schema.json");

/// The report as JSON.
pub fn json(report: &Report) -> Value {
    serde_json::to_value(report).unwrap_or(Value::Null)
}

/// The report as text: what was found about the server, then one line per
/// check (id, severity, result, evidence), then the counts. `fail_on` is
/// the severity from which a failure fails the run.
pub fn table(report: &Report, fail_on: Option<Severity>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "frontdesk audit of {}", report.server);
    for r in &report.revisions {
        let spoken = if r.spoken { "spoken" } else { "not spoken" };
        let server = r
            .server
            .as_deref()
            .map(|s| format!(", server {s}"))
            .unwrap_or_default();
        let _ = writeln!(out, "  {} {spoken}: {}{server}", r.revision, r.note);
    }
    for t in &report.tools {
        let asks: Vec<String> = t
            .questions
            .iter()
            .map(|q| match (&q.origin, q.fields.is_empty()) {
                (Some(origin), _) => format!("url {origin}"),
                (None, false) => format!("form ({})", q.fields.join(", ")),
                (None, true) => "form (no fields)".to_owned(),
            })
            .collect();
        let asks = if asks.is_empty() {
            "asked nothing".to_owned()
        } else {
            format!("asked {}", asks.join(", then "))
        };
        let effects = if t.effects { ", has effects" } else { "" };
        let ended = t.ended.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "  {} tool {}{effects}: {asks}; {ended}",
            t.revision, t.name
        );
    }
    if report.tools.is_empty() && report.revisions.iter().any(|r| r.spoken) {
        let _ = writeln!(
            out,
            "  no tool was called (--call TOOL[=ARGS] or --call-all lets the audit call tools)"
        );
    }
    out.push('\n');
    let width = CHECKS
        .iter()
        .map(|c| c.id.as_str().len())
        .max()
        .unwrap_or(20);
    let _ = writeln!(
        out,
        "{:<width$}  {:<8}  {:<12}  EVIDENCE",
        "CHECK", "SEVERITY", "RESULT"
    );
    for line in &report.summary {
        let _ = writeln!(
            out,
            "{:<width$}  {:<8}  {:<12}  {}",
            line.check.as_str(),
            line.severity.as_str(),
            line.outcome.as_str(),
            line.evidence
        );
    }
    let failing = fail_on.map_or(0, |s| report.failed_at(s).len());
    let _ = write!(
        out,
        "\n{} passed, {} failed",
        report.count(Outcome::Pass),
        report.count(Outcome::Fail)
    );
    if let Some(s) = fail_on {
        let _ = write!(out, " ({failing} at {s} or above)");
    }
    let _ = writeln!(
        out,
        ", {} inconclusive, {} skipped",
        report.count(Outcome::Inconclusive),
        report.count(Outcome::Skipped)
    );
    out
}

/// The catalog as text (`--list-checks`).
pub fn catalog() -> String {
    let mut out = String::new();
    for check in CHECKS {
        let _ = writeln!(
            out,
            "{} [{}] {}\n    spec: {}\n    rule: {}\n",
            check.id, check.severity, check.title, check.spec, check.rule
        );
    }
    out
}
