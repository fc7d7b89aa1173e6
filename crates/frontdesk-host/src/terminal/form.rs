//! The whole form: header, every field in order ("2 of 5"), then a review screen where
//! any field can be edited before the answer is sent. Esc at any prompt offers to
//! decline, cancel or stop asking; a form that is a single yes/no question is one key.

use frontdesk_form::{Field, FieldKind, ParsedForm, ValidationErrors, Widget};
use serde_json::{Map, Value};

use super::fields::{Step, ask_field, field_label};
use super::leave::{CANCELLED, DECLINED, Leave, how_to_leave, stopped_asking};
use crate::problems::describe;
use crate::sanitize::display_line;
use crate::screen::{Interrupted, LineQuestion, MenuKey, Screen};
use crate::widgets::{Header, shown_value};

/// How a form ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FormOutcome {
    /// Send these values.
    Accept(Map<String, Value>),
    /// The person said no.
    Decline,
    /// The person dismissed it (Esc then `c`, Ctrl-C, `c`).
    Cancel,
    /// The person dismissed it and asked not to be asked again by this server.
    StopAsking,
}

/// What the form flow needs besides a screen.
pub struct FormRequest<'a> {
    /// Who asks.
    pub header: &'a Header,
    /// The parsed requestedSchema.
    pub form: &'a ParsedForm,
    /// Values to start from (defaults, or the person's last answer).
    pub prefill: &'a Map<String, Value>,
    /// Problems with the previous answer to the same request.
    pub previous_errors: Option<&'a ValidationErrors>,
    /// The prefill holds the person's last answer to this form.
    pub remembered: bool,
}

/// Run the form on `screen`: ask each field, then review until the person accepts,
/// declines or cancels.
pub fn run_form(screen: &mut dyn Screen, request: &FormRequest<'_>) -> FormOutcome {
    let outcome = form_flow(screen, request);
    match &outcome {
        FormOutcome::Decline => screen.show(DECLINED),
        FormOutcome::Cancel => screen.show(CANCELLED),
        FormOutcome::StopAsking => screen.show(&stopped_asking(&request.header.server)),
        FormOutcome::Accept(_) => {}
    }
    outcome
}

/// Where the flow goes after a prompt was left.
fn left(screen: &mut dyn Screen, how: Interrupted, server: &str) -> Option<FormOutcome> {
    match how {
        Interrupted::Cancel => Some(FormOutcome::Cancel),
        Interrupted::Escape => match how_to_leave(screen, server) {
            Leave::Back => None,
            Leave::Decline => Some(FormOutcome::Decline),
            Leave::Cancel => Some(FormOutcome::Cancel),
            Leave::StopAsking => Some(FormOutcome::StopAsking),
        },
    }
}

fn show_warnings(screen: &mut dyn Screen, request: &FormRequest<'_>, sensitive: bool) {
    let schema = &request.form.schema;
    let fields = schema.fields();
    let required = fields.iter().filter(|f| f.is_required()).count();
    let title = schema
        .title()
        .map(|t| format!("{} · ", display_line(t, 120)))
        .unwrap_or_default();
    if fields.len() > 1 {
        screen.show(&format!(
            "  {title}{} fields, {required} required (*)",
            fields.len()
        ));
    } else if !title.is_empty() {
        screen.show(&format!("  {}", title.trim_end_matches(" · ")));
    }
    for warning in schema.lint() {
        screen.show(&format!("  ! {}", display_line(&warning.message, 300)));
    }
    if sensitive {
        screen.show(
            "  ! Servers must not ask for secrets in a form. Decline unless you trust this server.",
        );
    }
    if let Some(errors) = request.previous_errors {
        screen.show("  ! Your previous answer was not accepted:");
        for e in errors.errors() {
            screen.show(&format!(
                "    - {}",
                display_line(&describe(schema, e, None), 300)
            ));
        }
    }
    if request.remembered {
        screen.show("  Filled in from your last answer to this form; check each field.");
    }
}

fn form_flow(screen: &mut dyn Screen, request: &FormRequest<'_>) -> FormOutcome {
    let schema = &request.form.schema;
    let server = request.header.server.as_str();
    let single_checkbox = matches!(schema.fields(), [f] if f.widget() == Widget::Checkbox);
    request.header.show(
        screen,
        if single_checkbox {
            "asks you to confirm"
        } else {
            "asks you to fill in a form"
        },
    );
    let sensitive: Vec<&str> = schema.sensitive_fields().map(|f| f.key()).collect();
    show_warnings(screen, request, !sensitive.is_empty());
    let unsupported: Vec<&Field> = schema
        .fields()
        .iter()
        .filter(|f| matches!(f.kind(), FieldKind::Unsupported(_)))
        .collect();
    for field in &unsupported {
        screen.show(&format!(
            "  ! {} cannot be shown here (its definition is not supported).",
            field_label(field)
        ));
    }
    if unsupported.iter().any(|f| f.is_required()) {
        screen.show("This form cannot be filled in here: a required field is not supported.");
        return match screen.key("Your answer:", &[('d', "decline"), ('c', "cancel")]) {
            Ok('d') => FormOutcome::Decline,
            _ => FormOutcome::Cancel,
        };
    }
    let mut values = request.prefill.clone();
    if let [field] = schema.fields()
        && single_checkbox
    {
        return confirm(screen, field, &values, server);
    }
    let fields: Vec<&Field> = schema
        .fields()
        .iter()
        .filter(|f| f.is_supported())
        .collect();
    let total = fields.len();
    for (i, field) in fields.iter().enumerate() {
        let step = Step {
            index: i + 1,
            total,
        };
        if let Some(outcome) =
            ask_until_answered(screen, field, &mut values, &sensitive, step, server)
        {
            return outcome;
        }
    }
    loop {
        show_review(screen, server, &fields, &values, &sensitive);
        let problems = schema.validate(&values).err();
        if let Some(errors) = &problems {
            for e in errors.errors() {
                screen.show(&format!(
                    "  ! {}",
                    display_line(&describe(schema, e, Some(&values)), 300)
                ));
            }
        }
        let keys: &[MenuKey] = if problems.is_some() {
            &[('e', "edit"), ('d', "decline"), ('c', "cancel")]
        } else if fields.is_empty() {
            &[('a', "accept"), ('d', "decline"), ('c', "cancel")]
        } else {
            &[
                ('a', "accept and send"),
                ('e', "edit"),
                ('d', "decline"),
                ('c', "cancel"),
            ]
        };
        let key = match screen.key("Review:", keys) {
            Ok(k) => k,
            Err(how) => match left(screen, how, server) {
                Some(outcome) => return outcome,
                None => continue,
            },
        };
        match key {
            'a' => return FormOutcome::Accept(values),
            'd' => return FormOutcome::Decline,
            'c' => return FormOutcome::Cancel,
            _ => {
                let index = if fields.len() == 1 {
                    Some(0)
                } else {
                    pick_field(screen, fields.len())
                };
                let Some(index) = index else { continue };
                if let Some(field) = fields.get(index) {
                    let step = Step {
                        index: index + 1,
                        total,
                    };
                    if let Some(outcome) =
                        ask_until_answered(screen, field, &mut values, &sensitive, step, server)
                    {
                        return outcome;
                    }
                }
            }
        }
    }
}

/// Ask one field until it is answered (`None`) or the person leaves the form.
fn ask_until_answered(
    screen: &mut dyn Screen,
    field: &Field,
    values: &mut Map<String, Value>,
    sensitive: &[&str],
    step: Step,
    server: &str,
) -> Option<FormOutcome> {
    loop {
        let masked = sensitive.contains(&field.key());
        match ask_field(screen, field, values.get(field.key()), masked, step) {
            Ok(Some(v)) => {
                values.insert(field.key().to_owned(), v);
                return None;
            }
            Ok(None) => {
                values.remove(field.key());
                return None;
            }
            Err(how) => {
                if let Some(outcome) = left(screen, how, server) {
                    return Some(outcome);
                }
            }
        }
    }
}

/// A form that is one yes/no question: one key sends the answer.
fn confirm(
    screen: &mut dyn Screen,
    field: &Field,
    values: &Map<String, Value>,
    server: &str,
) -> FormOutcome {
    // Yes and No are answers (sent at once); decline and cancel send none.
    let mut keys: Vec<MenuKey> = vec![('y', "answer Yes"), ('n', "answer No")];
    match values.get(field.key()).and_then(Value::as_bool) {
        Some(true) => keys.push(('\n', "keep Yes")),
        Some(false) => keys.push(('\n', "keep No")),
        None => {}
    }
    keys.extend([('d', "decline to answer"), ('c', "cancel")]);
    let prompt = format!("{}?", display_line(field.label(), 120));
    loop {
        let answer = match screen.key(&prompt, &keys) {
            Ok('y') => true,
            Ok('n') => false,
            Ok('\n') => values
                .get(field.key())
                .and_then(Value::as_bool)
                .unwrap_or(false),
            Ok('d') => return FormOutcome::Decline,
            Ok(_) => return FormOutcome::Cancel,
            Err(how) => match left(screen, how, server) {
                Some(outcome) => return outcome,
                None => continue,
            },
        };
        let mut content = Map::new();
        content.insert(field.key().to_owned(), Value::Bool(answer));
        screen.show(&format!(
            "Sent: {} {}.",
            display_line(field.label(), 120),
            if answer { "Yes" } else { "No" }
        ));
        return FormOutcome::Accept(content);
    }
}

/// The review table: every field's label and value.
pub(crate) fn show_review(
    screen: &mut dyn Screen,
    server: &str,
    fields: &[&Field],
    values: &Map<String, Value>,
    sensitive: &[&str],
) {
    screen.show("");
    screen.show(&format!(
        "Review your answer to {server} before it is sent:"
    ));
    if fields.is_empty() {
        screen.show("  (no fields: accepting only confirms)");
    }
    show_values(screen, fields, values, sensitive);
    screen.show("");
}

/// `  1  Reason *          It arrived damaged`, one line per field.
pub(crate) fn show_values(
    screen: &mut dyn Screen,
    fields: &[&Field],
    values: &Map<String, Value>,
    sensitive: &[&str],
) {
    let width = fields
        .iter()
        .map(|f| field_label(f).chars().count())
        .max()
        .unwrap_or(0)
        .min(30);
    for (i, field) in fields.iter().enumerate() {
        let masked = sensitive.contains(&field.key());
        screen.show(&format!(
            "  {:>2}  {:<width$}  {}",
            i + 1,
            field_label(field),
            shown_value(field, values.get(field.key()), masked),
        ));
    }
}

/// Which field to edit; `None` when the person went back.
pub(crate) fn pick_field(screen: &mut dyn Screen, count: usize) -> Option<usize> {
    let mut question = LineQuestion::new(
        "Edit which field?",
        std::sync::Arc::new(move |s: &str| match s.trim().parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => Ok(()),
            _ => Err(format!("Type a number from 1 to {count}")),
        }),
    );
    question.help = Some(format!("a number from 1 to {count} · Esc: back"));
    let typed = screen.line(&question).ok()?;
    typed
        .trim()
        .parse::<usize>()
        .ok()
        .map(|n| n.saturating_sub(1))
}
