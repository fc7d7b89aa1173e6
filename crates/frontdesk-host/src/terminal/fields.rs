//! One field of a form as a prompt: a line with live validation for text, email, URL,
//! date, date-time, integer and number (several lines for long text); one key for a
//! checkbox; a list of titles for a select; a checklist with its item limits for a
//! multi-select. Every prompt says which field of how many it is and how to leave.

use std::sync::Arc;

use frontdesk_form::{Field, FieldKind, Widget};
use serde_json::Value;

use crate::sanitize::{display_line, terminal_safe};
use crate::screen::{ChoiceValidator, LineQuestion, ListQuestion, MenuKey, Prompted, Screen};
use crate::widgets::{choice_count, input_hint};

/// A text field without a format whose `maxLength` is over this allows several lines.
const SHORT_TEXT: u64 = 100;

/// Where a field sits in its form: the `index`-th (from 1) of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// 1-based position.
    pub index: usize,
    /// Fields in the form.
    pub total: usize,
}

impl Step {
    fn suffix(self) -> String {
        if self.total > 1 {
            format!("  ({} of {})", self.index, self.total)
        } else {
            String::new()
        }
    }
}

/// The keys that leave a form, as every prompt's help line ends.
pub(super) const LEAVE_KEYS: &str = "Esc: decline, cancel or stop asking";

/// The label shown for a field: its title (escaped), with ` *` when required.
pub fn field_label(field: &Field) -> String {
    let label = display_line(field.label(), 120);
    if field.is_required() {
        format!("{label} *")
    } else {
        label
    }
}

/// Whether a field gets a several-line input: text without a format that may be
/// long (`maxLength` over 100). Text without a `maxLength` stays one line (a name, an
/// order id): it still wraps as it grows.
pub fn is_long_text(field: &Field) -> bool {
    match field.kind() {
        FieldKind::Text(t) => t.format.is_none() && t.max_length.is_some_and(|m| m > SHORT_TEXT),
        _ => false,
    }
}

/// What a field expects and its limits, with the keys that answer it, for the help
/// line.
pub fn field_hint(field: &Field) -> String {
    let c = field.constraints();
    match field.widget() {
        Widget::Checkbox => "y or n".to_owned(),
        Widget::Select => "↑/↓ to move, Enter to choose".to_owned(),
        Widget::MultiSelect => format!(
            "{}; Space to tick, Enter to confirm",
            choice_count(c.min_items, c.max_items)
        ),
        _ => input_hint(field),
    }
}

/// Ask one field. `current` is the value it has now (a default or an earlier answer);
/// the result is the new value, `None` for "no answer".
pub(super) fn ask_field(
    screen: &mut dyn Screen,
    field: &Field,
    current: Option<&Value>,
    masked: bool,
    step: Step,
) -> Prompted<Option<Value>> {
    if let Some(description) = field.description().filter(|d| !d.trim().is_empty()) {
        screen.show(&format!("  {}", display_line(description, 400)));
    }
    match field.widget() {
        Widget::Select => ask_select(screen, field, current, step),
        Widget::MultiSelect => ask_multi(screen, field, current, step),
        Widget::Checkbox => ask_checkbox(screen, field, current, step),
        _ => ask_line(screen, field, current, masked, step),
    }
}

fn ask_line(
    screen: &mut dyn Screen,
    field: &Field,
    current: Option<&Value>,
    masked: bool,
    step: Step,
) -> Prompted<Option<Value>> {
    // What the person sees is what they send: a value with unsafe characters (a
    // hostile default) is pre-filled escaped.
    let initial = match current {
        Some(v) if !masked => terminal_safe(&field.input_text(v)).into_owned(),
        _ => String::new(),
    };
    let multiline = !masked && is_long_text(field);
    let mut help = field_hint(field);
    if !field.is_required() {
        help.push_str("; leave empty for no answer");
    }
    if masked {
        help.push_str("; hidden while you type");
    }
    help.push_str(" · Enter: next");
    if multiline {
        help.push_str(" · Alt-Enter: new line");
    }
    help.push_str(" · ");
    help.push_str(LEAVE_KEYS);
    let checker = field.clone();
    let question = LineQuestion {
        label: format!("{}{}", field_label(field), step.suffix()),
        help: Some(help),
        initial,
        masked,
        multiline,
        validator: Arc::new(move |typed: &str| {
            checker
                .parse_input(typed)
                .map(|_| ())
                .map_err(|e| display_line(&e.message, 300))
        }),
    };
    let typed = screen.line(&question)?;
    // The validator accepted it, so this parses; if it somehow does not, ask nothing
    // more and keep no answer rather than inventing one.
    Ok(field.parse_input(&typed).ok().flatten())
}

/// One key: `y` or `n`; Enter keeps the current value (or no answer).
fn ask_checkbox(
    screen: &mut dyn Screen,
    field: &Field,
    current: Option<&Value>,
    step: Step,
) -> Prompted<Option<Value>> {
    let keep: Option<MenuKey> = match current.and_then(Value::as_bool) {
        Some(true) => Some(('\n', "keep Yes")),
        Some(false) => Some(('\n', "keep No")),
        None if !field.is_required() => Some(('\n', "no answer")),
        None => None,
    };
    let mut keys: Vec<MenuKey> = vec![('y', "yes"), ('n', "no")];
    keys.extend(keep);
    let prompt = format!("? {}{}:", field_label(field), step.suffix());
    let key = screen.key(&prompt, &keys)?;
    Ok(match key {
        'y' => Some(Value::Bool(true)),
        'n' => Some(Value::Bool(false)),
        _ => current.filter(|v| v.is_boolean()).cloned(),
    })
}

fn ask_select(
    screen: &mut dyn Screen,
    field: &Field,
    current: Option<&Value>,
    step: Step,
) -> Prompted<Option<Value>> {
    let options = field.options();
    let mut items: Vec<String> = options
        .iter()
        .map(|o| display_line(o.label(), 200))
        .collect();
    let optional = !field.is_required();
    if optional {
        items.push("(no answer)".to_owned());
    }
    let start = current
        .and_then(Value::as_str)
        .and_then(|v| options.iter().position(|o| o.value == v))
        .unwrap_or(if optional && current.is_none() {
            options.len()
        } else {
            0
        });
    let question = ListQuestion {
        label: format!("{}{}", field_label(field), step.suffix()),
        help: Some(format!("{} · {LEAVE_KEYS}", field_hint(field))),
        items,
        chosen: vec![start],
        validator: None,
    };
    let index = screen.choose_one(&question)?;
    Ok(options.get(index).map(|o| Value::String(o.value.clone())))
}

fn ask_multi(
    screen: &mut dyn Screen,
    field: &Field,
    current: Option<&Value>,
    step: Step,
) -> Prompted<Option<Value>> {
    let options = field.options();
    let items: Vec<String> = options
        .iter()
        .map(|o| display_line(o.label(), 200))
        .collect();
    let chosen: Vec<usize> = current
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|v| options.iter().position(|o| o.value == v))
                .collect()
        })
        .unwrap_or_default();
    let checker = field.clone();
    let values: Vec<String> = options.iter().map(|o| o.value.clone()).collect();
    let validator: ChoiceValidator = Arc::new(move |picked: &[usize]| {
        if picked.is_empty() && !checker.is_required() {
            return Ok(());
        }
        let value = Value::Array(
            picked
                .iter()
                .filter_map(|&i| values.get(i))
                .map(|v| Value::String(v.clone()))
                .collect(),
        );
        checker.validate(&value).map_err(|errors| {
            errors
                .errors()
                .first()
                .map_or_else(String::new, |e| display_line(&e.message, 300))
        })
    });
    let question = ListQuestion {
        label: format!("{}{}", field_label(field), step.suffix()),
        help: Some(format!("{} · {LEAVE_KEYS}", field_hint(field))),
        items,
        chosen,
        validator: Some(validator),
    };
    let picked = screen.choose_many(&question)?;
    if picked.is_empty() && !field.is_required() {
        return Ok(None);
    }
    Ok(Some(Value::Array(
        picked
            .iter()
            .filter_map(|&i| options.get(i))
            .map(|o| Value::String(o.value.clone()))
            .collect(),
    )))
}

#[cfg(test)]
mod tests {
    use frontdesk_form::FormSchema;

    use super::*;

    #[test]
    fn only_text_that_may_be_long_gets_several_lines() {
        let form = FormSchema::builder()
            .string("name", |f| f.title("Name"))
            .string("notes", |f| f.title("Notes").max_length(500))
            .string("code", |f| f.title("Code").max_length(8))
            .string("email", |f| f.title("Email").email())
            .build()
            .expect("valid");
        let long: Vec<bool> = form.fields().iter().map(is_long_text).collect();
        assert_eq!(long, [false, true, false, false]);
    }
}
