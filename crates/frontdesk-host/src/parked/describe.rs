//! A parked question as JSON, in the agent contract's words (every key camelCase,
//! as MCP's own): who asks, the message, and the form's fields (each with its type,
//! the format its value takes and an example value that fits it, limits as the
//! numbers they are: an integer field's bounds are integers) or the URL with its
//! whole review. The URL is a string in a JSON document: never a link.

use frontdesk::client::{Elicitation, ElicitationKind};
use frontdesk_form::{Field, FormSchema, Widget};
use frontdesk_url::{UrlReview, Verdict};
use serde_json::{Map, Value, json};

use super::QuestionState;
use crate::problems::describe_keyed;

fn widget_name(widget: Widget) -> &'static str {
    match widget {
        Widget::Text => "text",
        Widget::Email => "email",
        Widget::Url => "url",
        Widget::Date => "date",
        Widget::DateTime => "date-time",
        Widget::Integer => "integer",
        Widget::Number => "number",
        Widget::Checkbox => "boolean",
        Widget::Select => "select",
        Widget::MultiSelect => "multi-select",
        _ => "unsupported",
    }
}

/// What the value of a field of this kind looks like, in words.
fn format_of(widget: Widget) -> &'static str {
    match widget {
        Widget::Text => "a JSON string",
        Widget::Email => "a JSON string: an email address like name@example.com",
        Widget::Url => "a JSON string: an absolute URL like https://example.com/page",
        Widget::Date => "a JSON string: a date as YYYY-MM-DD (ISO 8601), like 2026-12-31",
        Widget::DateTime => "a JSON string: a date and time (RFC 3339) like 2026-12-31T09:30:00Z",
        Widget::Integer => "a JSON integer (no quotes, no fraction)",
        Widget::Number => "a JSON number",
        Widget::Checkbox => "true or false",
        Widget::Select => "a JSON string: one of the options' values",
        Widget::MultiSelect => "a JSON array of the options' values",
        _ => "not supported: leave it out, or decline",
    }
}

/// A bound as the number it is: an integer field's bounds are JSON integers.
fn bound(widget: Widget, value: f64) -> Value {
    if widget == Widget::Integer && value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        // Exact: |value| < 2^53 and whole.
        #[allow(clippy::cast_possible_truncation)]
        return Value::from(value as i64);
    }
    Value::from(value)
}

/// A value that fits `field`, for an example: its default, else one made from its
/// kind and limits; `None` when none can be made honestly (a pattern, say).
fn example(field: &Field) -> Option<Value> {
    if let Some(d) = field.default_value() {
        return Some(d.clone());
    }
    let c = field.constraints();
    let made = match field.widget() {
        Widget::Email => json!("name@example.com"),
        Widget::Url => json!("https://example.com/page"),
        Widget::Date => json!("2026-12-31"),
        Widget::DateTime => json!("2026-12-31T09:30:00Z"),
        Widget::Integer => {
            let lo = c.minimum.map_or(1.0, f64::ceil);
            let v = c.maximum.map_or(lo, |hi| lo.min(hi.floor()));
            bound(Widget::Integer, v)
        }
        Widget::Number => Value::from(c.minimum.or(c.maximum).unwrap_or(1.0)),
        Widget::Checkbox => json!(true),
        Widget::Select => json!(field.options().first()?.value),
        Widget::MultiSelect => {
            let n = usize::try_from(c.min_items.unwrap_or(1).max(1)).unwrap_or(1);
            Value::Array(
                field
                    .options()
                    .iter()
                    .take(n)
                    .map(|o| json!(o.value))
                    .collect(),
            )
        }
        Widget::Text if c.pattern.is_none() => {
            let min = usize::try_from(c.min_length.unwrap_or(0)).unwrap_or(0);
            json!("example".repeat(min / 7 + 1))
        }
        _ => return None,
    };
    field.validate(&made).ok().map(|()| made)
}

/// One field: key, label, type, required, the format of its value, an example
/// value, and its description, default, options and limits when it has them.
pub fn describe_field(field: &Field) -> Value {
    let widget = field.widget();
    let c = field.constraints();
    let mut out = Map::new();
    out.insert("key".into(), json!(field.key()));
    out.insert("label".into(), json!(field.label()));
    out.insert("type".into(), json!(widget_name(widget)));
    out.insert("required".into(), json!(field.is_required()));
    out.insert("format".into(), json!(format_of(widget)));
    if let Some(e) = example(field) {
        out.insert("example".into(), e);
    }
    if let Some(d) = field.description() {
        out.insert("description".into(), json!(d));
    }
    if let Some(d) = field.default_value() {
        out.insert("default".into(), d.clone());
    }
    if !field.options().is_empty() {
        let options: Vec<Value> = field
            .options()
            .iter()
            .map(|o| json!({"value": o.value, "title": o.label()}))
            .collect();
        out.insert("options".into(), Value::Array(options));
    }
    let limits = [
        ("minLength", c.min_length.map(Value::from)),
        ("maxLength", c.max_length.map(Value::from)),
        ("pattern", c.pattern.map(Value::from)),
        ("minimum", c.minimum.map(|v| bound(widget, v))),
        ("maximum", c.maximum.map(|v| bound(widget, v))),
        ("minItems", c.min_items.map(Value::from)),
        ("maxItems", c.max_items.map(Value::from)),
    ];
    for (name, value) in limits {
        if let Some(v) = value {
            out.insert(name.into(), v);
        }
    }
    Value::Object(out)
}

fn describe_form(schema: &FormSchema) -> Value {
    let mut out = Map::new();
    if let Some(title) = schema.title() {
        out.insert("title".into(), json!(title));
    }
    out.insert(
        "fields".into(),
        Value::Array(schema.fields().iter().map(describe_field).collect()),
    );
    Value::Object(out)
}

/// The URL review in the contract's words.
fn describe_review(review: &UrlReview) -> Value {
    let findings: Vec<Value> = review
        .findings()
        .iter()
        .map(|f| {
            json!({
                "code": f.code.as_str(),
                "severity": f.severity.as_str(),
                "message": f.message,
            })
        })
        .collect();
    let mut out = Map::new();
    let verdict = match review.verdict() {
        Verdict::Allowed => "allowed",
        Verdict::AllowedWithWarnings => "allowedWithWarnings",
        Verdict::Refused => "refused",
    };
    out.insert("verdict".into(), json!(verdict));
    out.insert("mayOpen".into(), json!(review.may_open()));
    let optional = [
        ("scheme", review.scheme()),
        ("host", review.host()),
        ("hostUnicode", review.host_unicode()),
        ("registrableDomain", review.registrable_domain()),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            out.insert(key.into(), json!(v));
        }
    }
    if let Some(port) = review.port() {
        out.insert("port".into(), json!(port));
    }
    out.insert("loopback".into(), json!(review.is_loopback()));
    out.insert("findings".into(), Value::Array(findings));
    Value::Object(out)
}

/// A question as JSON: its id, its state, who asks (server, request), the message,
/// and either the form (fields with type, format, example, limits; problems of a
/// previous answer keyed by field) or the URL with its review, and how to answer.
pub fn describe_question(id: &str, request: &Elicitation, state: QuestionState) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(id));
    let respond = |tail: &str| format!("frontdesk respond {id} {tail}");
    match &request.kind {
        ElicitationKind::Form { .. } => {
            out.insert("mode".into(), json!("form"));
        }
        ElicitationKind::Url { .. } => {
            out.insert("mode".into(), json!("url"));
        }
        // A kind this host does not know is never handed to it (its handler
        // declares form and URL only); described as one to cancel.
        _ => {
            out.insert("mode".into(), json!("unknown"));
        }
    }
    let (state_name, not_finished) = match state {
        QuestionState::NeedsAnswer => ("needsAnswer", None),
        QuestionState::InProgress { not_finished_yet } => ("inProgress", Some(not_finished_yet)),
    };
    out.insert("state".into(), json!(state_name));
    out.insert("server".into(), json!(request.origin.server));
    if let Some(r) = &request.origin.request {
        out.insert("request".into(), json!(r));
    }
    out.insert("message".into(), json!(request.message));
    let how: Vec<String> = match &request.kind {
        ElicitationKind::Form { form, .. } => {
            out.insert("form".into(), describe_form(&form.schema));
            if let Some(errors) = &request.previous_errors {
                out.insert(
                    "previousProblems".into(),
                    json!(describe_keyed(&form.schema, errors, None)),
                );
            }
            vec![
                respond("accept --content '{\"KEY\": VALUE, …}'"),
                respond("decline"),
                respond("cancel"),
            ]
        }
        ElicitationKind::Url { review, .. } => {
            out.insert("url".into(), json!(review.url()));
            out.insert("review".into(), describe_review(review));
            out.insert(
                "reviewText".into(),
                json!(review.plain_text().lines().collect::<Vec<_>>()),
            );
            match not_finished {
                None => vec![
                    format!(
                        "show the person the URL and its review; if they consent: {} \
                         (they open it themselves)",
                        respond("accept")
                    ),
                    respond("decline"),
                    respond("cancel"),
                ],
                Some(not_finished_yet) => {
                    out.insert("notFinishedYet".into(), json!(not_finished_yet));
                    vec![
                        if not_finished_yet {
                            format!(
                                "the server checked: the person has not finished yet; when \
                                 they say they are done: {}",
                                respond("accept")
                            )
                        } else {
                            format!(
                                "the person finishes in the browser; to wait for it: {}",
                                respond("wait")
                            )
                        },
                        format!("to stop: {}", respond("cancel")),
                    ]
                }
            }
        }
        _ => vec![respond("cancel")],
    };
    out.insert("howToAnswer".into(), json!(how));
    Value::Object(out)
}
