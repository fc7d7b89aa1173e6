//! The person's last answer to each form, so that when the same question comes back
//! (a server asking again after rejecting an answer, or the runtime re-asking an
//! answer that did not fit) nothing typed is lost: the form starts from it. Every
//! renderer that keeps answers uses it (the terminal's [`crate::TerminalHandler`],
//! the browser page of `frontdesk-web`).
//!
//! Kept in memory for one handler (one connection), at most [`MAX_FORMS`] forms,
//! never the values of fields that look like secrets. A form is "the same" when the
//! same server asks it for the same kind of call with the same field keys.
//!
//! ```
//! use frontdesk::client::ElicitationOrigin;
//! use frontdesk_form::FormSchema;
//! use frontdesk_host::memory::AnswerMemory;
//! use serde_json::json;
//!
//! let schema = FormSchema::builder()
//!     .string("city", |f| f.title("City"))
//!     .string("token", |f| f.title("API token"))
//!     .build()
//!     .expect("valid");
//! let origin = ElicitationOrigin {
//!     server: serde_json::from_value(json!({"name": "shop", "version": "1"})).expect("an implementation"),
//!     request: Some("tools/call order".into()),
//!     key: "0".into(),
//! };
//! let memory = AnswerMemory::default();
//! let answer = json!({"city": "Lyon", "token": "s3cret"});
//! memory.remember(&origin, &schema, answer.as_object().expect("an object"));
//!
//! let prefill = json!({"city": "Paris"});
//! let start = memory.start(&origin, &schema, prefill.as_object().expect("an object"));
//! assert!(start.remembered);
//! // The person's last answer over the server's prefill; never a secret.
//! assert_eq!(serde_json::Value::Object(start.values), json!({"city": "Lyon"}));
//! ```

use std::collections::VecDeque;
use std::sync::Mutex;

use frontdesk::client::ElicitationOrigin;
use frontdesk_form::FormSchema;
use serde_json::{Map, Value};

/// Forms remembered at most.
pub const MAX_FORMS: usize = 16;

/// Last answers, newest last: one per handler, shared by its requests.
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

    /// Where a form asked by `origin` starts: the server's `prefill`, with the
    /// person's last answer to the same form over it ([`AnswerMemory::recall`]).
    pub fn start(
        &self,
        origin: &ElicitationOrigin,
        schema: &FormSchema,
        prefill: &Map<String, Value>,
    ) -> FormStart {
        let mut values = prefill.clone();
        let remembered = self.recall(origin, schema);
        let found = remembered.is_some();
        values.extend(remembered.unwrap_or_default());
        FormStart {
            values,
            remembered: found,
        }
    }
}

/// The values a form starts from ([`AnswerMemory::start`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FormStart {
    /// The server's prefill, with the person's last answer over it.
    pub values: Map<String, Value>,
    /// Whether a last answer was found (a renderer says "your last answer").
    pub remembered: bool,
}
