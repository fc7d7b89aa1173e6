//! The whole form: header, every field in order, then a review screen where any field
//! can be edited before the answer is sent.

use frontdesk_form::{FieldKind, ParsedForm, ValidationErrors};
use serde_json::{Map, Value};

use super::fields::{ask_field, field_label, shown_value};
use super::header::Header;
use crate::sanitize::display_line;
use crate::screen::{LineQuestion, Prompted, Screen};

/// How a form ended.
#[derive(Debug, Clone, PartialEq)]
pub enum FormOutcome {
    /// Send these values.
    Accept(Map<String, Value>),
    /// The person said no.
    Decline,
    /// The person dismissed it (Esc, Ctrl-C, `c`).
    Cancel,
}

/// What the form flow needs besides a screen.
pub struct FormRequest<'a> {
    /// Who asks.
    pub header: &'a Header,
    /// The parsed requestedSchema.
    pub form: &'a ParsedForm,
    /// Values to start from (defaults).
    pub prefill: &'a Map<String, Value>,
    /// Problems with the previous answer to the same request.
    pub previous_errors: Option<&'a ValidationErrors>,
}

/// Run the form on `screen`: ask each field, then review until the person accepts,
/// declines or cancels. Esc / Ctrl-C at any prompt cancels.
pub fn run_form(screen: &mut dyn Screen, request: &FormRequest<'_>) -> FormOutcome {
    match form_flow(screen, request) {
        Ok(outcome) => outcome,
        Err(_) => {
            screen.show("Cancelled: nothing was sent.");
            FormOutcome::Cancel
        }
    }
}

fn form_flow(screen: &mut dyn Screen, request: &FormRequest<'_>) -> Prompted<FormOutcome> {
    let schema = &request.form.schema;
    request.header.show(screen, "asks you to fill in a form");
    let sensitive: Vec<&str> = schema.sensitive_fields().map(|f| f.key()).collect();
    for warning in schema.lint() {
        screen.show(&format!("  ! {}", display_line(&warning.message, 300)));
    }
    if !sensitive.is_empty() {
        screen.show(
            "  ! Servers must not ask for secrets in a form. Decline unless you trust this server.",
        );
    }
    if let Some(errors) = request.previous_errors {
        screen.show("  ! Your previous answer was not accepted:");
        for e in errors.errors() {
            screen.show(&format!("    - {}", display_line(&e.message, 300)));
        }
    }
    let unsupported: Vec<_> = schema
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
        let key = screen.key("Your answer:", &[('d', "decline"), ('c', "cancel")])?;
        return Ok(if key == 'd' {
            FormOutcome::Decline
        } else {
            FormOutcome::Cancel
        });
    }

    let mut values = request.prefill.clone();
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .filter(|f| f.is_supported())
        .collect();
    for field in &fields {
        ask_into(screen, field, &mut values, sensitive.contains(&field.key()))?;
    }
    loop {
        show_review(screen, request, &fields, &values, &sensitive);
        let problems = schema.validate(&values).err();
        if let Some(errors) = &problems {
            for e in errors.errors() {
                screen.show(&format!("  ! {}", display_line(&e.message, 300)));
            }
        }
        let keys: &[(char, &str)] = if problems.is_some() {
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
        match screen.key("Review:", keys)? {
            'a' => return Ok(FormOutcome::Accept(values)),
            'd' => {
                screen.show("Declined: the server was told no.");
                return Ok(FormOutcome::Decline);
            }
            'c' => {
                screen.show("Cancelled: nothing was sent.");
                return Ok(FormOutcome::Cancel);
            }
            _ => {
                let index = if fields.len() == 1 {
                    0
                } else {
                    pick_field(screen, fields.len())?
                };
                if let Some(field) = fields.get(index) {
                    ask_into(screen, field, &mut values, sensitive.contains(&field.key()))?;
                }
            }
        }
    }
}

fn ask_into(
    screen: &mut dyn Screen,
    field: &frontdesk_form::Field,
    values: &mut Map<String, Value>,
    masked: bool,
) -> Prompted<()> {
    match ask_field(screen, field, values.get(field.key()), masked)? {
        Some(v) => {
            values.insert(field.key().to_owned(), v);
        }
        None => {
            values.remove(field.key());
        }
    }
    Ok(())
}

fn show_review(
    screen: &mut dyn Screen,
    request: &FormRequest<'_>,
    fields: &[&frontdesk_form::Field],
    values: &Map<String, Value>,
    sensitive: &[&str],
) {
    screen.show("");
    screen.show(&format!(
        "Review your answer to {} before it is sent:",
        request.header.server
    ));
    if fields.is_empty() {
        screen.show("  (no fields: accepting only confirms)");
    }
    let width = fields
        .iter()
        .map(|f| field_label(f).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    for (i, field) in fields.iter().enumerate() {
        let masked = sensitive.contains(&field.key());
        screen.show(&format!(
            "  {:>2}  {:<width$}  {}",
            i + 1,
            field_label(field),
            shown_value(field, values.get(field.key()), masked),
        ));
    }
    screen.show("");
}

fn pick_field(screen: &mut dyn Screen, count: usize) -> Prompted<usize> {
    let typed = screen.line(&LineQuestion {
        label: "Edit which field?".to_owned(),
        help: Some(format!("a number from 1 to {count}")),
        initial: String::new(),
        masked: false,
        validator: std::sync::Arc::new(move |s: &str| match s.trim().parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => Ok(()),
            _ => Err(format!("Type a number from 1 to {count}")),
        }),
    })?;
    Ok(typed
        .trim()
        .parse::<usize>()
        .map_or(0, |n| n.saturating_sub(1)))
}
