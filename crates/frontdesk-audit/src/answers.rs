//! Answers the audit gives to a form: two different valid ones (what a
//! careful person could submit) and the invalid ones a hostile client sends
//! (a value of the wrong type, a required field left out, an option that was
//! never offered). Every valid answer is checked against the form with the
//! same validation the frontdesk client and server use.

use frontdesk_form::{FieldKind, FormSchema, StringFormat};
use serde_json::{Map, Value, json};

/// Which of the two valid answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variant {
    /// Defaults first, else the first option, the minimum, `true`, a plain
    /// word: what accepting the form as shown submits.
    Primary,
    /// Another value wherever the form allows one, so the two answers'
    /// results tell whether a tool's result depends on the answer.
    Alternate,
}

/// A valid answer to `schema`, or `None` when none can be made (a required
/// field of a shape outside the subset, a pattern no candidate matches).
pub(crate) fn valid(schema: &FormSchema, variant: Variant) -> Option<Map<String, Value>> {
    let mut content = Map::new();
    for field in schema.fields() {
        let candidates = candidates(field, variant);
        let mut chosen = None;
        for value in candidates {
            let mut trial = content.clone();
            trial.insert(field.key().to_owned(), value.clone());
            if field_ok(schema, &trial, field.key()) {
                chosen = Some(value);
                break;
            }
        }
        match chosen {
            Some(value) => {
                content.insert(field.key().to_owned(), value);
            }
            None if field.is_required() => return None,
            None => {}
        }
    }
    schema.validate(&content).ok().map(|()| content)
}

/// Whether `content` has no problem with the field `key` (the others are
/// judged when they are filled).
fn field_ok(schema: &FormSchema, content: &Map<String, Value>, key: &str) -> bool {
    match schema.validate(content) {
        Ok(()) => true,
        Err(errors) => !errors
            .errors()
            .iter()
            .any(|e| e.field.as_deref() == Some(key)),
    }
}

/// Values to try for one field, best first.
fn candidates(field: &frontdesk_form::Field, variant: Variant) -> Vec<Value> {
    let mut out = Vec::new();
    let default = field.default_value().cloned();
    match field.kind() {
        FieldKind::Text(text) => {
            let words: &[&str] = match (text.format, variant) {
                (Some(StringFormat::Email), Variant::Primary) => &["audit@example.com"],
                (Some(StringFormat::Email), Variant::Alternate) => &["other.audit@example.org"],
                (Some(StringFormat::Uri), Variant::Primary) => &["https://example.com/audit"],
                (Some(StringFormat::Uri), Variant::Alternate) => &["https://example.org/other"],
                (Some(StringFormat::Date), Variant::Primary) => &["2030-01-15"],
                (Some(StringFormat::Date), Variant::Alternate) => &["2031-06-20"],
                (Some(StringFormat::DateTime), Variant::Primary) => &["2030-01-15T10:00:00Z"],
                (Some(StringFormat::DateTime), Variant::Alternate) => &["2031-06-20T16:30:00Z"],
                (_, Variant::Primary) => &["audit", "Audit", "a", "A", "1", "audit-1", "aaaaaaaa"],
                (_, Variant::Alternate) => {
                    &["other", "Other", "b", "B", "2", "other-2", "bbbbbbbb"]
                }
            };
            if variant == Variant::Primary {
                out.extend(default.clone());
            }
            for word in words {
                out.push(Value::String(fit_length(
                    word,
                    text.min_length,
                    text.max_length,
                )));
            }
            if variant == Variant::Alternate {
                out.extend(default.clone());
            }
        }
        FieldKind::Number(number) => {
            let step = if number.integer { 1.0 } else { 0.5 };
            let low = number
                .minimum
                .map(|m| if number.integer { m.ceil() } else { m });
            let high = number
                .maximum
                .map(|m| if number.integer { m.floor() } else { m });
            let primary = default
                .as_ref()
                .and_then(Value::as_f64)
                .or(low)
                .or(high)
                .unwrap_or(1.0);
            let mut values = match variant {
                Variant::Primary => vec![primary],
                Variant::Alternate => vec![primary + step, primary - step, primary + 2.0 * step],
            };
            values.extend(low.into_iter().chain(high));
            values.push(primary);
            for v in values {
                out.push(number_value(v, number.integer));
            }
        }
        FieldKind::Boolean => {
            let primary = default.as_ref().and_then(Value::as_bool).unwrap_or(true);
            let v = match variant {
                Variant::Primary => primary,
                Variant::Alternate => !primary,
            };
            out.push(Value::Bool(v));
            out.push(Value::Bool(!v));
        }
        FieldKind::Select(select) => {
            let options: Vec<Value> = select
                .options
                .iter()
                .map(|c| Value::String(c.value.clone()))
                .collect();
            match variant {
                Variant::Primary => {
                    out.extend(default.clone());
                    out.extend(options);
                }
                Variant::Alternate => {
                    out.extend(options.iter().rev().cloned());
                    out.extend(default.clone());
                }
            }
        }
        FieldKind::MultiSelect(multi) => {
            let values: Vec<&str> = multi.options.iter().map(|c| c.value.as_str()).collect();
            let want = multi.min_items.unwrap_or(1).max(1) as usize;
            if variant == Variant::Primary {
                out.extend(default.clone());
            }
            let first: Vec<&str> = values.iter().copied().take(want).collect();
            let last: Vec<&str> = values.iter().rev().copied().take(want).collect();
            let (a, b) = match variant {
                Variant::Primary => (first, last),
                Variant::Alternate => (last, first),
            };
            out.push(json!(a));
            out.push(json!(b));
            if variant == Variant::Alternate {
                out.extend(default.clone());
            }
        }
        _ => {}
    }
    out
}

/// A number as JSON: an integer when the field wants one.
fn number_value(v: f64, integer: bool) -> Value {
    if integer && v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// `word`, padded or cut to fit the length bounds (in characters).
fn fit_length(word: &str, min: Option<u64>, max: Option<u64>) -> String {
    let mut s: String = word.to_owned();
    let min = min.unwrap_or(0) as usize;
    while s.chars().count() < min {
        s.push('x');
    }
    if let Some(max) = max {
        s = s.chars().take(max as usize).collect();
    }
    s
}

/// An invalid answer: which field it breaks and the whole content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invalid {
    /// The field it breaks.
    pub field: String,
    /// The content to send with `accept`.
    pub content: Map<String, Value>,
}

/// The valid answer with one field given a value of another type: a boolean
/// for text and choices, words for numbers and booleans (ones no lenient
/// reader turns into the right type).
pub(crate) fn wrong_type(schema: &FormSchema) -> Option<Invalid> {
    let mut content = valid(schema, Variant::Primary)?;
    let supported = || schema.fields().iter().filter(|f| f.is_supported());
    let field = supported()
        .find(|f| f.is_required())
        .or_else(|| supported().next())?;
    let value = match field.kind() {
        FieldKind::Text(_) | FieldKind::Select(_) | FieldKind::MultiSelect(_) => json!(true),
        FieldKind::Number(_) => json!("not a number"),
        FieldKind::Boolean => json!("not a boolean"),
        _ => return None,
    };
    content.insert(field.key().to_owned(), value);
    Some(Invalid {
        field: field.key().to_owned(),
        content,
    })
}

/// The valid answer without its first required field.
pub(crate) fn missing_required(schema: &FormSchema) -> Option<Invalid> {
    let mut content = valid(schema, Variant::Primary)?;
    let field = schema.fields().iter().find(|f| f.is_required())?;
    content.remove(field.key());
    Some(Invalid {
        field: field.key().to_owned(),
        content,
    })
}

/// The valid answer with its first choice field set to a value that was not
/// offered.
pub(crate) fn unknown_option(schema: &FormSchema) -> Option<Invalid> {
    let mut content = valid(schema, Variant::Primary)?;
    let field = schema
        .fields()
        .iter()
        .find(|f| matches!(f.kind(), FieldKind::Select(_) | FieldKind::MultiSelect(_)))?;
    let mut odd = "audit-not-offered".to_owned();
    while field.options().iter().any(|c| c.value == odd) {
        odd.push('-');
    }
    let value = match field.kind() {
        FieldKind::MultiSelect(_) => json!([odd]),
        _ => json!(odd),
    };
    content.insert(field.key().to_owned(), value);
    Some(Invalid {
        field: field.key().to_owned(),
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> FormSchema {
        FormSchema::parse(&v)
            .map(|p| p.schema)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn every_kind() -> FormSchema {
        schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 8, "maxLength": 10},
                "email": {"type": "string", "format": "email"},
                "day": {"type": "string", "format": "date"},
                "seats": {"type": "integer", "minimum": 2, "maximum": 3},
                "budget": {"type": "number", "maximum": 10.5},
                "ok": {"type": "boolean", "default": false},
                "room": {"type": "string", "enum": ["small", "large"], "default": "small"},
                "tags": {"type": "array", "minItems": 2,
                    "items": {"type": "string", "enum": ["a", "b", "c"]}},
                "code": {"type": "string", "pattern": "^[0-9]+$"}
            },
            "required": ["name", "email", "seats", "room", "tags", "code"]
        }))
    }

    #[test]
    fn both_valid_answers_fit_the_form_and_differ() {
        let form = every_kind();
        let a = valid(&form, Variant::Primary).unwrap();
        let b = valid(&form, Variant::Alternate).unwrap();
        assert!(form.validate(&a).is_ok() && form.validate(&b).is_ok());
        assert_eq!(a["room"], json!("small"), "the default comes first");
        assert_eq!(a["ok"], json!(false));
        assert_eq!(a["seats"], json!(2));
        assert_eq!(a["code"], json!("1"), "a candidate matching the pattern");
        assert_eq!(a["name"].as_str().map(str::len), Some(8));
        assert_ne!(a["room"], b["room"]);
        assert_ne!(a["seats"], b["seats"]);
        assert_ne!(a["ok"], b["ok"]);
        assert_ne!(a["tags"], b["tags"]);
    }

    #[test]
    fn invalid_answers_break_exactly_one_field() {
        let form = every_kind();
        for (invalid, field) in [
            (wrong_type(&form), "name"),
            (missing_required(&form), "name"),
            (unknown_option(&form), "room"),
        ] {
            let invalid = invalid.unwrap();
            assert_eq!(invalid.field, field);
            let errors = form.validate(&invalid.content).unwrap_err();
            assert!(
                errors
                    .errors()
                    .iter()
                    .all(|e| e.field.as_deref() == Some(field)),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn a_form_without_choices_or_required_fields_has_no_such_probe() {
        let form = schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
        assert!(unknown_option(&form).is_none());
        assert!(missing_required(&form).is_none());
        assert_eq!(
            wrong_type(&form).unwrap().content["n"],
            json!("not a number")
        );
        let unanswerable = schema(json!({"type": "object",
            "properties": {"x": {"type": "string", "pattern": "^zz$"}}, "required": ["x"]}));
        assert!(valid(&unanswerable, Variant::Primary).is_none());
    }
}
