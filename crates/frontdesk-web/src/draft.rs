//! A form being filled in: what each control of the page holds, read back into
//! values and per-field messages by the form model (`Field::parse_input`,
//! `Field::validate`, `FormSchema::validate`), exactly as the terminal host reads
//! what is typed. The page's script never judges an answer; it posts the controls
//! here and shows the messages it gets back.
//!
//! Controls are named by the field's position (`f0`, `f1`, …) and choices by the
//! option's position, so no server-chosen string becomes a name, an id or a value
//! the page sends back.

use frontdesk_form::{Field, FormSchema, Widget};
use frontdesk_host::sanitize::display_line;
use serde_json::{Map, Value};

/// How a field is shown on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Control {
    /// One line of text (also used for a date and time, typed as RFC 3339).
    Text,
    /// Several lines of free text.
    TextArea,
    Email,
    Url,
    Date,
    DateTime,
    Integer,
    Number,
    /// A hidden text input for a field that looks like a secret.
    Secret,
    /// A boolean with a default: a checkbox.
    Checkbox,
    /// A boolean without a default: Yes / No / no answer, so nothing is chosen for
    /// the person.
    YesNo,
    Select,
    MultiSelect,
    Unsupported,
}

/// The control for `field`.
pub(crate) fn control(field: &Field) -> Control {
    let sensitive = field.sensitive_kind().is_some();
    match field.widget() {
        Widget::Text if sensitive => Control::Secret,
        Widget::Text => {
            let long = field.constraints().max_length.is_none_or(|max| max > 120);
            if long {
                Control::TextArea
            } else {
                Control::Text
            }
        }
        Widget::Email => Control::Email,
        Widget::Url => Control::Url,
        Widget::Date => Control::Date,
        Widget::DateTime => Control::DateTime,
        Widget::Integer => Control::Integer,
        Widget::Number => Control::Number,
        Widget::Checkbox if field.default_value().is_some() => Control::Checkbox,
        Widget::Checkbox => Control::YesNo,
        Widget::Select => Control::Select,
        Widget::MultiSelect => Control::MultiSelect,
        _ => Control::Unsupported,
    }
}

/// What one control holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Raw {
    /// The text typed (text-like controls), `yes`/`no` (checkbox, Yes/No) or empty.
    pub text: String,
    /// The chosen options, by position (select: at most one).
    pub chosen: Vec<usize>,
    /// The browser could not read the number typed (`validity.badInput`).
    pub bad: bool,
}

/// Every control of one form, in field order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Draft {
    pub raw: Vec<Raw>,
    /// Show every message, not only those of fields the person touched (after a
    /// Review that failed).
    pub show_all: bool,
}

/// A draft read by the form model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Checked {
    /// The values to send, for the fields that have one.
    pub values: Map<String, Value>,
    /// A message per field (field order), `None` when it is fine.
    pub messages: Vec<Option<String>>,
    /// Problems that belong to no shown field.
    pub general: Vec<String>,
}

impl Checked {
    /// Whether the answer may be sent.
    pub(crate) fn valid(&self) -> bool {
        self.general.is_empty() && self.messages.iter().all(Option::is_none)
    }
}

impl Draft {
    /// The controls as a form starts: its `values` (the defaults).
    pub(crate) fn from_values(form: &FormSchema, values: &Map<String, Value>) -> Draft {
        let raw = form
            .fields()
            .iter()
            .map(|field| {
                let Some(value) = values.get(field.key()) else {
                    return Raw::default();
                };
                let position = |v: &str| field.options().iter().position(|o| o.value == v);
                match control(field) {
                    Control::Select => Raw {
                        chosen: value.as_str().and_then(position).into_iter().collect(),
                        ..Raw::default()
                    },
                    Control::MultiSelect => Raw {
                        chosen: value
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .filter_map(position)
                            .collect(),
                        ..Raw::default()
                    },
                    _ => Raw {
                        text: field.input_text(value),
                        ..Raw::default()
                    },
                }
            })
            .collect();
        Draft {
            raw,
            show_all: false,
        }
    }

    /// The controls as the page posted them (`f0=…&f1=…&f1.bad=1`).
    pub(crate) fn from_pairs(form: &FormSchema, pairs: &[(String, String)]) -> Draft {
        let raw = form
            .fields()
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let name = format!("f{i}");
                let bad_name = format!("f{i}.bad");
                let values: Vec<&str> = pairs
                    .iter()
                    .filter(|(k, _)| *k == name)
                    .map(|(_, v)| v.as_str())
                    .collect();
                let bad = pairs.iter().any(|(k, v)| *k == bad_name && v == "1");
                let options = field.options().len();
                let index = |v: &&str| v.parse::<usize>().ok().filter(|&k| k < options);
                match control(field) {
                    Control::Select => Raw {
                        chosen: values.iter().find_map(index).into_iter().collect(),
                        ..Raw::default()
                    },
                    Control::MultiSelect => {
                        let mut chosen: Vec<usize> = values.iter().filter_map(index).collect();
                        chosen.sort_unstable();
                        chosen.dedup();
                        Raw {
                            chosen,
                            ..Raw::default()
                        }
                    }
                    Control::Checkbox => Raw {
                        text: if values.contains(&"yes") { "yes" } else { "no" }.to_owned(),
                        ..Raw::default()
                    },
                    _ => Raw {
                        text: values.first().copied().unwrap_or_default().to_owned(),
                        chosen: Vec::new(),
                        bad,
                    },
                }
            })
            .collect();
        Draft {
            raw,
            show_all: false,
        }
    }

    /// Read every control with the form model.
    pub(crate) fn check(&self, form: &FormSchema) -> Checked {
        let mut values = Map::new();
        let mut messages = Vec::new();
        let empty = Raw::default();
        for (i, field) in form.fields().iter().enumerate() {
            let raw = self.raw.get(i).unwrap_or(&empty);
            match read(field, raw) {
                Ok(Some(value)) => {
                    values.insert(field.key().to_owned(), value);
                    messages.push(None);
                }
                Ok(None) => messages.push(None),
                Err(message) => messages.push(Some(display_line(&message, 300))),
            }
        }
        let mut general = Vec::new();
        if messages.iter().all(Option::is_none)
            && let Err(errors) = form.validate(&values)
        {
            for e in errors.errors() {
                let at = e
                    .field
                    .as_deref()
                    .and_then(|k| form.fields().iter().position(|f| f.key() == k));
                let message = display_line(&e.message, 300);
                match at.and_then(|i| messages.get_mut(i)) {
                    Some(slot @ None) => *slot = Some(message),
                    _ => general.push(message),
                }
            }
        }
        Checked {
            values,
            messages,
            general,
        }
    }
}

/// One control as a value: `Ok(None)` for no answer, `Err(message)` when the form
/// model says it does not fit.
fn read(field: &Field, raw: &Raw) -> Result<Option<Value>, String> {
    let first_error = |value: Value| match field.validate(&value) {
        Ok(()) => Ok(Some(value)),
        Err(errors) => Err(errors
            .errors()
            .first()
            .map_or_else(String::new, |e| e.message.clone())),
    };
    match control(field) {
        Control::Unsupported => {
            if field.is_required() {
                Err(format!(
                    "{} cannot be answered here: its definition is not supported",
                    field.label()
                ))
            } else {
                Ok(None)
            }
        }
        Control::Select => match raw.chosen.first().and_then(|&k| field.options().get(k)) {
            Some(option) => first_error(Value::String(option.value.clone())),
            None => field.parse_input("").map_err(|e| e.message),
        },
        Control::MultiSelect => {
            if raw.chosen.is_empty() && !field.is_required() {
                return Ok(None);
            }
            let chosen = raw
                .chosen
                .iter()
                .filter_map(|&k| field.options().get(k))
                .map(|o| Value::String(o.value.clone()))
                .collect();
            first_error(Value::Array(chosen))
        }
        // A number the browser could not read: the model's own message for text
        // that is not a number.
        _ if raw.bad => field.parse_input("?").map_err(|e| e.message),
        _ => field.parse_input(&raw.text).map_err(|e| e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> FormSchema {
        FormSchema::builder()
            .select("reason", |f| {
                f.title("Reason")
                    .option("damaged", "It arrived damaged")
                    .option("wrong_item", "Wrong item")
                    .required()
            })
            .integer("boxes", |f| {
                f.title("Number of boxes").range(1, 3).default(1)
            })
            .string("email", |f| f.title("Contact email").email().required())
            .multi_select("sizes", |f| {
                f.title("Sizes")
                    .option("s", "Small")
                    .option("m", "Medium")
                    .max_items(1)
            })
            .boolean("gift", |f| f.title("Gift wrap"))
            .build()
            .expect("valid")
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn messages_come_from_the_form_model() {
        let form = form();
        let draft = Draft::from_pairs(
            &form,
            &pairs(&[
                ("f0", ""),
                ("f1", "7"),
                ("f2", "ann@"),
                ("f3", "0"),
                ("f3", "1"),
                ("f4", ""),
            ]),
        );
        let checked = draft.check(&form);
        assert!(!checked.valid());
        assert_eq!(
            checked.messages,
            [
                Some("Reason is required".to_owned()),
                Some("Number of boxes must be between 1 and 3".to_owned()),
                Some("Contact email must be an email address like name@example.com".to_owned()),
                Some("Sizes must have at most 1 choice".to_owned()),
                None,
            ]
        );
    }

    #[test]
    fn a_valid_draft_gives_the_values_to_send() {
        let form = form();
        let draft = Draft::from_pairs(
            &form,
            &pairs(&[
                ("f0", "1"),
                ("f1", "2"),
                ("f2", " ann@example.com "),
                ("f4", "no"),
            ]),
        );
        let checked = draft.check(&form);
        assert!(checked.valid(), "{checked:?}");
        assert_eq!(
            Value::Object(checked.values),
            serde_json::json!({"reason": "wrong_item", "boxes": 2,
                "email": "ann@example.com", "gift": false})
        );
    }

    #[test]
    fn bad_numbers_unknown_positions_and_defaults() {
        let form = form();
        let draft = Draft::from_pairs(&form, &pairs(&[("f0", "9"), ("f1", ""), ("f1.bad", "1")]));
        assert_eq!(draft.raw[0].chosen, Vec::<usize>::new(), "no such option");
        let checked = draft.check(&form);
        assert_eq!(
            checked.messages[1].as_deref(),
            Some("Number of boxes must be a whole number")
        );
        let start = Draft::from_values(&form, &form.prefill());
        assert_eq!(start.raw[1].text, "1");
        assert_eq!(control(&form.fields()[4]), Control::YesNo);
    }
}
