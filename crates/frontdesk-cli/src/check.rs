//! `frontdesk check`: lint a `requestedSchema` and validate an answer against it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use frontdesk_form::FormSchema;
use frontdesk_host::problems::describe;
use serde_json::{Map, Value, json};

use crate::output;

/// Arguments of `frontdesk check`.
#[derive(Debug, Args)]
#[command(after_help = "\
SCHEMA.json may hold a bare requestedSchema, the params of an elicitation/create request \
(with a requestedSchema member) or the whole JSON-RPC request. ANSWER.json may hold the \
content object or a whole ElicitResult ({\"action\":\"accept\",\"content\":{...}}).

Exit status: 0 when nothing was found, 1 when the schema or the answer has problems, \
2 when a file cannot be read or is not JSON.")]
pub struct CheckArgs {
    /// The requestedSchema to lint.
    #[arg(value_name = "SCHEMA.json")]
    schema: PathBuf,
    /// An answer (`content` of an accept) to validate against the schema.
    #[arg(value_name = "ANSWER.json")]
    answer: Option<PathBuf>,
    /// Print the findings as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Everything `check` found, in the order it is printed.
struct Report {
    fields: usize,
    diagnostics: Vec<Value>,
    lint: Vec<Value>,
    answer: Option<Vec<Value>>,
}

impl Report {
    fn problems(&self) -> usize {
        self.diagnostics.len() + self.lint.len() + self.answer.as_ref().map_or(0, Vec::len)
    }
}

/// Run `frontdesk check`.
pub fn run(args: &CheckArgs) -> ExitCode {
    match check(args) {
        Ok(report) => {
            if args.json {
                print_json(&report);
            } else {
                print_text(&report);
            }
            if report.problems() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(error) => crate::exit::cannot_start("check", &error),
    }
}

fn check(args: &CheckArgs) -> Result<Report> {
    let document = read_json(&args.schema)?;
    let schema_value = requested_schema(&document)
        .with_context(|| format!("{}: no requestedSchema found", args.schema.display()))?;
    let parsed = FormSchema::parse(schema_value)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.schema.display()))?;
    let diagnostics = parsed.diagnostics.iter().map(to_json).collect();
    let lint = parsed.schema.lint().iter().map(to_json).collect();
    let answer = match &args.answer {
        None => None,
        Some(path) => {
            let content = answer_content(read_json(path)?)
                .with_context(|| format!("{}: not an answer object", path.display()))?;
            Some(match parsed.schema.validate(&content) {
                Ok(()) => Vec::new(),
                // Worded for whoever fixes the answer: a choice error names the
                // values to send next to their titles.
                Err(errors) => errors
                    .errors()
                    .iter()
                    .map(|e| {
                        let mut finding = to_json(e);
                        if let Some(obj) = finding.as_object_mut() {
                            obj.insert(
                                "message".into(),
                                json!(describe(&parsed.schema, e, Some(&content))),
                            );
                        }
                        finding
                    })
                    .collect(),
            })
        }
    };
    Ok(Report {
        fields: parsed.schema.fields().len(),
        diagnostics,
        lint,
        answer,
    })
}

/// One of the form model's findings as JSON (they all serialize infallibly).
fn to_json<T: serde::Serialize>(finding: &T) -> Value {
    serde_json::to_value(finding).unwrap_or(Value::Null)
}

fn read_json(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", path.display()))
}

/// Find the requestedSchema in a bare schema, elicitation params or a whole request.
fn requested_schema(document: &Value) -> Option<&Value> {
    if let Some(schema) = document.get("requestedSchema") {
        return Some(schema);
    }
    if let Some(schema) = document.pointer("/params/requestedSchema") {
        return Some(schema);
    }
    document.is_object().then_some(document)
}

/// The content of an answer file: a bare object or an ElicitResult.
fn answer_content(document: Value) -> Result<Map<String, Value>> {
    let Value::Object(mut object) = document else {
        bail!("expected a JSON object");
    };
    if object.get("action").is_some_and(Value::is_string) {
        if object.get("action") != Some(&json!("accept")) {
            bail!("only an accept carries content to validate");
        }
        return match object.remove("content") {
            Some(Value::Object(content)) => Ok(content),
            None => Ok(Map::new()),
            Some(_) => bail!("`content` must be an object"),
        };
    }
    Ok(object)
}

fn print_json(report: &Report) {
    let mut out = json!({
        "fields": report.fields,
        "diagnostics": report.diagnostics,
        "sensitive": report.lint,
    });
    if let (Some(answer), Some(object)) = (&report.answer, out.as_object_mut()) {
        object.insert("answer".into(), json!(answer));
    }
    output::line(&frontdesk_host::sanitize::json_for_terminal(&out, false));
}

fn print_text(report: &Report) {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    output::line(&format!(
        "schema: {} field{}",
        report.fields,
        s(report.fields)
    ));
    for d in &report.diagnostics {
        output::line(&format!("  problem   {}", line(d)));
    }
    for w in &report.lint {
        output::line(&format!("  sensitive {}", line(w)));
    }
    if report.diagnostics.is_empty() && report.lint.is_empty() {
        output::line("  no problems");
    }
    if let Some(answer) = &report.answer {
        if answer.is_empty() {
            output::line("answer: valid");
        } else {
            output::line(&format!(
                "answer: {} problem{}",
                answer.len(),
                s(answer.len())
            ));
            for e in answer {
                output::line(&format!("  {}", line(e)));
            }
        }
    }
}

/// `field: message [code]` for one finding.
fn line(finding: &Value) -> String {
    let field = finding
        .get("field")
        .and_then(Value::as_str)
        .unwrap_or("(schema)");
    let message = finding.get("message").and_then(Value::as_str).unwrap_or("");
    let code = finding
        .get("code")
        .or_else(|| finding.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("");
    frontdesk_host::sanitize::one_line(&format!("{field}: {message} [{code}]"), 1000)
}
