//! `form.subset`, `form.secrets`, `form.advice`: every form question the
//! tools asked, read as a host reads it (frontdesk-form's lenient parse and
//! the sensitive-field lint of `frontdesk check`).

use frontdesk_form::FormSchema;
use serde_json::Value;

use crate::catalog::CheckId;
use crate::evidence::quote;
use crate::report::Outcome;
use crate::runner::Ctx;
use crate::session::Asked;

/// Run the form checks.
pub(super) fn run(ctx: &mut Ctx<'_>) {
    let mut forms: Vec<(String, Asked)> = Vec::new();
    for run in &ctx.tools {
        let calls = std::iter::once(&run.baseline).chain(run.alternate.as_ref());
        for asked in calls.flat_map(|c| c.asked.iter()) {
            let Some(schema) = asked.schema_json() else {
                continue;
            };
            if !forms
                .iter()
                .any(|(tool, a)| *tool == run.tool.name && a.schema_json() == Some(schema))
            {
                forms.push((run.tool.name.clone(), asked.clone()));
            }
        }
    }
    let checks = [
        CheckId::FormSubset,
        CheckId::FormSecrets,
        CheckId::FormAdvice,
    ];
    if forms.is_empty() {
        let why = ctx
            .no_asking_tool()
            .unwrap_or_else(|| "no tool asked a form question".to_owned());
        for check in checks.into_iter().filter(|c| ctx.options.wants(*c)) {
            ctx.skip(check, why.clone());
        }
        return;
    }
    for (tool, asked) in &forms {
        let Some(schema) = asked.schema_json() else {
            continue;
        };
        let which = question_name(asked);
        let parsed = FormSchema::parse(&Value::Object(schema.clone()));
        if ctx.options.wants(CheckId::FormSubset) {
            let (outcome, evidence) = match &parsed {
                Err(e) => (
                    Outcome::Fail,
                    format!("{which}: the requestedSchema cannot be read: {e}"),
                ),
                Ok(p) if p.diagnostics.is_empty() => (
                    Outcome::Pass,
                    format!(
                        "{which}: {} field(s), all inside the subset",
                        p.schema.fields().len()
                    ),
                ),
                Ok(p) => {
                    let problems: Vec<String> = p
                        .diagnostics
                        .iter()
                        .map(|d| {
                            let field = d
                                .field
                                .as_deref()
                                .map(quote)
                                .unwrap_or_else(|| "schema".into());
                            format!("{field}: {}", quote(&d.message))
                        })
                        .collect();
                    (Outcome::Fail, format!("{which}: {}", problems.join("; ")))
                }
            };
            ctx.found(CheckId::FormSubset, tool, outcome, evidence);
        }
        if ctx.options.wants(CheckId::FormSecrets) {
            let (outcome, evidence) = match &parsed {
                Ok(p) => {
                    let lint = p.schema.lint();
                    if lint.is_empty() {
                        (
                            Outcome::Pass,
                            format!("{which}: no field looks like a secret"),
                        )
                    } else {
                        let found: Vec<String> = lint.iter().map(|w| quote(&w.message)).collect();
                        (Outcome::Fail, format!("{which}: {}", found.join("; ")))
                    }
                }
                Err(_) => (
                    Outcome::Skipped,
                    format!("{which}: the schema cannot be read"),
                ),
            };
            ctx.found(CheckId::FormSecrets, tool, outcome, evidence);
        }
        if ctx.options.wants(CheckId::FormAdvice) {
            let advice = advice(asked);
            let (outcome, evidence) = if advice.is_empty() {
                (
                    Outcome::Pass,
                    format!("{which}: no link, no keyword outside the schema"),
                )
            } else {
                (Outcome::Fail, format!("{which}: {}", advice.join("; ")))
            };
            ctx.found(CheckId::FormAdvice, tool, outcome, evidence);
        }
    }
}

/// How the evidence names a question.
pub(crate) fn question_name(asked: &Asked) -> String {
    match &asked.key {
        Some(key) => format!("question {}", quote(key)),
        None => format!("question {}", asked.n + 1),
    }
}

/// What a form does against the spec's advice.
fn advice(asked: &Asked) -> Vec<String> {
    let mut out = Vec::new();
    if has_link(asked.params.message()) {
        out.push("its message carries a link (links belong in URL mode)".to_owned());
    }
    let Some(schema) = asked.schema_json() else {
        return out;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    for (key, property) in properties.into_iter().flatten() {
        let Some(property) = property.as_object() else {
            continue;
        };
        if property.contains_key("pattern") {
            out.push(format!(
                "{} has \"pattern\", which is not part of StringSchema",
                quote(key)
            ));
        }
        let texts = ["title", "description", "default"]
            .into_iter()
            .filter_map(|k| property.get(k).and_then(Value::as_str));
        if texts.into_iter().any(has_link) {
            out.push(format!("{} carries a link in its text", quote(key)));
        }
    }
    out
}

/// Whether `text` holds an http(s) link.
fn has_link(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("https://") || lower.contains("http://")
}
