//! `frontdesk audit` as a server's CI runs it: the report on stdout (a table
//! or JSON), progress on stderr, and the exit status `--fail-on` chooses.

use serde_json::Value;

use crate::support::{frontdesk, texts};

const BOOK: &str = r#"book_return={"order_id":"A-1001"}"#;

/// The demo (in process) passes every check it can run but `url.https`:
/// its sign-in link is its own loopback http address, a warning.
#[test]
fn the_demo_fails_only_a_warning_so_the_default_exit_is_zero() {
    let out = frontdesk(
        &[
            "audit",
            "demo",
            "--call",
            BOOK,
            "--call",
            "connect_store_account",
            "--effects",
            "book_return",
            "--json",
        ],
        &[],
    );
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let failed: Vec<&str> = report["summary"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["outcome"] == "fail")
        .filter_map(|s| s["check"].as_str())
        .collect();
    assert_eq!(failed, ["url.https"]);
    assert!(
        stderr.contains("frontdesk audit: 2026-07-28: state.tamper"),
        "progress: {stderr}"
    );
}

#[test]
fn fail_on_chooses_which_failure_fails_the_run() {
    let run = |fail_on: &str| {
        frontdesk(
            &[
                "audit",
                "demo",
                "--call",
                "connect_store_account",
                "--check",
                "url.https",
                "--fail-on",
                fail_on,
            ],
            &[],
        )
    };
    let warning = run("warning");
    let (table, _) = texts(&warning);
    assert_eq!(warning.status.code(), Some(1), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("url.https") && l.contains(" fail ")),
        "{table}"
    );
    assert!(
        table.contains("1 failed (1 at warning or above)"),
        "{table}"
    );
    assert_eq!(run("error").status.code(), Some(0));
    assert_eq!(run("never").status.code(), Some(0));
}

#[test]
fn bad_arguments_and_a_server_that_is_not_mcp_exit_two() {
    let out = frontdesk(&["audit", "demo", "--call", "book_return=[1]"], &[]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("the arguments must be a JSON object"),
        "{stderr}"
    );
    let out = frontdesk(&["audit", "demo", "--check", "no.such"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = frontdesk(&["audit", "sh -c 'exit 0'", "--timeout", "2"], &[]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("speaks none of the revisions"), "{stderr}");
}

#[test]
fn the_catalog_and_the_schema_are_printed() {
    let out = frontdesk(&["audit", "--list-checks"], &[]);
    let (text, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    for id in ["form.subset", "state.tamper", "limits.retry-flood"] {
        assert!(text.contains(&format!("{id} [")), "{text}");
    }
    let out = frontdesk(&["audit", "--json-schema"], &[]);
    let (schema, _) = texts(&out);
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let committed: Value =
        serde_json::from_str(include_str!("../../../frontdesk-audit/report.schema.json")).unwrap();
    assert_eq!(schema, committed);
}
