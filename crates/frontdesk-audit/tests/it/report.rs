//! The report: its JSON matches the committed schema (`report.schema.json`),
//! the schema names every check, and nothing in it shows an answer's
//! content or a state unless asked.

use frontdesk_audit::fixture::Defect;
use frontdesk_audit::{CHECKS, Disclosure, Options, render};
use serde_json::Value;

use crate::support::{audit_fixture, options};

fn schema() -> Value {
    serde_json::from_str(render::REPORT_SCHEMA).unwrap()
}

#[test]
fn the_schema_names_every_check_and_only_them() {
    let schema = schema();
    let named: Vec<&str> = schema["$defs"]["check"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let ids: Vec<&str> = CHECKS.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(named, ids);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_report_matches_its_schema() {
    let validator = jsonschema::validator_for(&schema()).unwrap();
    for defect in [None, Some(Defect::NoTypeCheck), Some(Defect::LookalikeUrl)] {
        let report = audit_fixture(defect, &options()).await;
        let json = render::json(&report);
        let problems: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(problems.is_empty(), "{defect:?}: {problems:?}");
    }
}

/// Every evidence sentence of a report, one per line.
fn evidence(report: &frontdesk_audit::Report) -> String {
    let findings = report.findings.iter().map(|f| f.evidence.as_str());
    let summary = report.summary.iter().map(|s| s.evidence.as_str());
    findings.chain(summary).collect::<Vec<_>>().join("\n")
}

/// The answers the audit sends hold values it made up (`"nights":1`), the
/// tool results the fixture's booking text; neither appears unless
/// `--show-content`, and no state ever (only its fingerprint).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_content_or_state_unless_asked() {
    let hidden = audit_fixture(Some(Defect::NoTypeCheck), &options()).await;
    let text = evidence(&hidden);
    for secret in ["\"nights\":1", "booked a", "small room"] {
        assert!(!text.contains(secret), "{secret} shown:\n{text}");
    }
    assert!(text.contains("{room: boolean, nights: integer, note: string}"));
    assert!(
        text.contains("requestState #"),
        "states are named by fingerprint"
    );
    let json = render::json(&hidden).to_string();
    assert!(
        !json.contains("requestState\":"),
        "no state value in the JSON"
    );
    let shown = Options {
        disclosure: Disclosure { content: true },
        ..options()
    };
    let text = evidence(&audit_fixture(Some(Defect::NoTypeCheck), &shown).await);
    assert!(text.contains("booked a"), "--show-content shows results");
    assert!(
        text.contains("\"nights\":1"),
        "--show-content shows answers"
    );
}
