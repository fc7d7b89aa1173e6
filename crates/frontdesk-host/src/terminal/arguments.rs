//! A tool's arguments asked with the same form renderer as a server's questions: the
//! tool's `inputSchema` read as a form when it fits the elicitation subset (flat,
//! primitive fields), or one line of JSON when it does not
//! ([`crate::widgets::arguments_form`] decides, for every renderer).

use std::sync::Arc;

use frontdesk_form::{Field, FormSchema};
use frontdesk_wire::Tool;
use serde_json::{Map, Value};

use super::fields::{Step, ask_field};
use super::form::{pick_field, show_values};
use crate::problems::describe;
use crate::sanitize::{display_line, display_text};
use crate::screen::{Interrupted, LineQuestion, MenuKey, Screen};
use crate::widgets::{ArgumentsForm, arguments_form};

/// Ask for the arguments of `tool`; `None` when the person went back to the tool list.
pub fn ask_arguments(screen: &mut dyn Screen, tool: &Tool) -> Option<Map<String, Value>> {
    let name = display_line(&tool.name, 120);
    match arguments_form(tool) {
        ArgumentsForm::None => Some(Map::new()),
        ArgumentsForm::Form(form) => {
            screen.show("");
            screen.show(&format!("── Arguments of {name} ──"));
            if let Some(about) = tool.description.as_deref().filter(|d| !d.trim().is_empty()) {
                for line in display_text(about, 1000).lines() {
                    screen.show(&format!("  │ {line}"));
                }
            }
            argument_flow(screen, &name, &form.schema)
        }
        ArgumentsForm::Json(start) => {
            screen.show(&format!(
                "The arguments of {name} do not fit a form; type them as JSON."
            ));
            let mut question = LineQuestion::new(
                format!("Arguments of {name} (JSON)"),
                Arc::new(|t: &str| match serde_json::from_str::<Value>(t) {
                    Ok(Value::Object(_)) => Ok(()),
                    Ok(_) => Err("The arguments must be a JSON object".to_owned()),
                    Err(e) => Err(format!("Not JSON: {e}")),
                }),
            );
            question.help = Some("a JSON object · Enter: call · Esc: back to the tools".into());
            question.initial = start;
            let typed = screen.line(&question).ok()?;
            serde_json::from_str(&typed).ok()
        }
    }
}

fn argument_flow(
    screen: &mut dyn Screen,
    name: &str,
    schema: &FormSchema,
) -> Option<Map<String, Value>> {
    let fields: Vec<&Field> = schema.fields().iter().collect();
    let total = fields.len();
    let mut values = schema.prefill();
    let ask = |screen: &mut dyn Screen, values: &mut Map<String, Value>, i: usize| -> bool {
        let Some(field) = fields.get(i) else {
            return true;
        };
        let step = Step {
            index: i + 1,
            total,
        };
        match ask_field(screen, field, values.get(field.key()), false, step) {
            Ok(Some(v)) => {
                values.insert(field.key().to_owned(), v);
                true
            }
            Ok(None) => {
                values.remove(field.key());
                true
            }
            Err(Interrupted::Escape | Interrupted::Cancel) => false,
        }
    };
    for i in 0..total {
        if !ask(screen, &mut values, i) {
            screen.show("Back to the tools: nothing was called.");
            return None;
        }
    }
    loop {
        screen.show("");
        screen.show(&format!("Call {name} with:"));
        show_values(screen, &fields, &values, &[]);
        let problems = schema.validate(&values).err();
        for e in problems.iter().flat_map(|p| p.errors()) {
            screen.show(&format!(
                "  ! {}",
                display_line(&describe(schema, e, Some(&values)), 300)
            ));
        }
        let keys: &[MenuKey] = if problems.is_some() {
            &[('e', "edit"), ('b', "back to the tools")]
        } else {
            &[('a', "call it"), ('e', "edit"), ('b', "back to the tools")]
        };
        match screen.key("Arguments:", keys) {
            Ok('a') => return Some(values),
            Ok('e') => {
                let index = if total == 1 {
                    Some(0)
                } else {
                    pick_field(screen, total)
                };
                if let Some(i) = index
                    && !ask(screen, &mut values, i)
                {
                    continue;
                }
            }
            _ => {
                screen.show("Back to the tools: nothing was called.");
                return None;
            }
        }
    }
}
