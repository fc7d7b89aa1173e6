//! The person's last answer to each form, so that when the same question comes back
//! (a server asking again after rejecting an answer, or the runtime re-asking an
//! answer that did not fit) nothing typed is lost: the form starts from it.
//!
//! Kept in memory for one handler (one connection), at most [`MAX_FORMS`] forms,
//! never the values of fields that look like secrets. A form is "the same" when the
//! same server asks it for the same kind of call with the same field keys.

use std::collections::VecDeque;
use std::sync::Mutex;

use frontdesk::client::ElicitationOrigin;
use frontdesk_form::FormSchema;
use serde_json::{Map, Value};

/// Forms remembered at most.
pub(super) const MAX_FORMS: usize = 16;

/// Last answers, newest last.
#[derive(Debug, Default)]
pub struct AnswerMemory {
    forms: Mutex<VecDeque<(String, Map<String, Value>)>>,
}

/// What identifies "the same form".
fn form_key(origin: &ElicitationOrigin, schema: &FormSchema) -> String {
    let fields: Vec<&str> = schema.fields().iter().map(|f| f.key()).collect();
    format!(
        "{}\u{1f}{}\u{1f}{}",
        origin.server.name,
        origin.request.as_deref().unwrap_or(""),
        fields.join("\u{1e}")
    )
}

impl AnswerMemory {
    /// Remember `values` as the answer to this form (sensitive fields left out).
    pub fn remember(
        &self,
        origin: &ElicitationOrigin,
        schema: &FormSchema,
        values: &Map<String, Value>,
    ) {
        let sensitive: Vec<&str> = schema.sensitive_fields().map(|f| f.key()).collect();
        let kept: Map<String, Value> = values
            .iter()
            .filter(|(k, _)| !sensitive.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let key = form_key(origin, schema);
        let Ok(mut forms) = self.forms.lock() else {
            return;
        };
        forms.retain(|(k, _)| *k != key);
        forms.push_back((key, kept));
        while forms.len() > MAX_FORMS {
            forms.pop_front();
        }
    }

    /// The last answer to this form: only values that still fit their field.
    pub fn recall(
        &self,
        origin: &ElicitationOrigin,
        schema: &FormSchema,
    ) -> Option<Map<String, Value>> {
        let key = form_key(origin, schema);
        let forms = self.forms.lock().ok()?;
        let (_, values) = forms.iter().rev().find(|(k, _)| *k == key)?;
        let fitting: Map<String, Value> = values
            .iter()
            .filter(|(k, v)| schema.field(k).is_some_and(|f| f.validate(v).is_ok()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (!fitting.is_empty()).then_some(fitting)
    }
}
