//! Applying a schema's defaults, and normalizing answers.

use serde_json::{Map, Number, Value};

use crate::model::{FieldKind, FormSchema};
use crate::validate::MAX_SAFE_INTEGER;

impl FormSchema {
    /// Fill every *optional* field missing from `content` that has a (valid) default, as a
    /// client that applies defaults does. Values already present are never changed, and a
    /// missing required field is left missing so that validation asks the person for it
    /// rather than silently answering for them (renderers pre-fill with [`prefill`]).
    /// Returns how many values were added.
    ///
    /// [`prefill`]: FormSchema::prefill
    pub fn apply_defaults(&self, content: &mut Map<String, Value>) -> usize {
        let mut added = 0;
        for field in &self.fields {
            if let Some(d) = &field.default
                && !field.required
                && !content.contains_key(&field.key)
            {
                content.insert(field.key.clone(), d.clone());
                added += 1;
            }
        }
        added
    }

    /// The initial values for a renderer: each field's default (required or not), in field
    /// order.
    pub fn prefill(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .filter_map(|f| f.default.as_ref().map(|d| (f.key.clone(), d.clone())))
            .collect()
    }

    /// Rewrite whole-number floats of integer fields (`3.0`) as integers (`3`), so that a
    /// typed consumer reading an `i64` accepts every answer that validation accepts.
    /// Returns how many values were rewritten.
    pub fn normalize(&self, content: &mut Map<String, Value>) -> usize {
        let mut changed = 0;
        for field in &self.fields {
            let FieldKind::Number(n) = &field.kind else {
                continue;
            };
            if !n.integer {
                continue;
            }
            if let Some(Value::Number(num)) = content.get_mut(&field.key)
                && num.is_f64()
                && let Some(f) = num.as_f64()
                && f.fract() == 0.0
                && f.abs() <= MAX_SAFE_INTEGER as f64
            {
                *num = Number::from(f as i64);
                changed += 1;
            }
        }
        changed
    }
}

impl FormSchema {
    /// The same form with each field's default replaced by the value `answer`
    /// gave it, where that value is valid for the field. A server asking again
    /// after an invalid answer uses it so the person keeps what they got
    /// right; fields the answer left out or got wrong keep their own default.
    ///
    /// ```
    /// use frontdesk_form::FormSchema;
    /// use serde_json::json;
    ///
    /// let form = FormSchema::builder()
    ///     .string("email", |f| f.title("Email").email().required())
    ///     .integer("boxes", |f| f.title("Boxes").range(1, 3).default(1))
    ///     .build()?;
    /// let answer = json!({"email": "not-an-email", "boxes": 2});
    /// let again = form.with_defaults_from(answer.as_object().expect("object"));
    /// assert_eq!(again.field("boxes").and_then(|f| f.default_value()), Some(&json!(2)));
    /// assert_eq!(again.field("email").and_then(|f| f.default_value()), None);
    /// # Ok::<(), frontdesk_form::BuildError>(())
    /// ```
    pub fn with_defaults_from(&self, answer: &Map<String, Value>) -> FormSchema {
        let mut raw = Map::clone(&self.raw);
        let Some(Value::Object(properties)) = raw.get_mut("properties") else {
            return self.clone();
        };
        let mut changed = false;
        for field in &self.fields {
            let (Some(value), Some(Value::Object(prop))) =
                (answer.get(&field.key), properties.get_mut(&field.key))
            else {
                continue;
            };
            if field.is_supported() && field.validate(value).is_ok() {
                prop.insert("default".into(), value.clone());
                changed = true;
            }
        }
        if !changed {
            return self.clone();
        }
        match FormSchema::parse_with(&Value::Object(raw), &self.limits) {
            Ok(parsed) => parsed.schema,
            Err(_) => self.clone(),
        }
    }
}
