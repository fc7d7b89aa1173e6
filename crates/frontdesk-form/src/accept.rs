//! One answer pipeline for both ends: what an `accept`'s `content` becomes before anyone
//! reads it.

use serde_json::{Map, Value};

use crate::model::FormSchema;
use crate::validate::ValidationErrors;

/// Whether [`FormSchema::accept`] fills omitted optional fields from their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defaults {
    /// Fill every omitted *optional* field that has a (valid) default, as
    /// [`FormSchema::apply_defaults`] does: what a server hands its handler, and what a
    /// client that applies defaults sends.
    Apply,
    /// Leave omitted fields omitted.
    Leave,
}

/// An answer that passed [`FormSchema::accept`]: content that validates against the form,
/// and the keys that were dropped on the way because the form does not declare them.
///
/// Only `accept` makes one, so holding an `Accepted` means the content was judged.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Accepted {
    content: Map<String, Value>,
    dropped: Vec<String>,
}

impl Accepted {
    /// The clean content: declared fields only, normalized, defaults applied if asked.
    pub fn content(&self) -> &Map<String, Value> {
        &self.content
    }

    /// Take the clean content.
    pub fn into_content(self) -> Map<String, Value> {
        self.content
    }

    /// The keys the answer carried that are not fields of the form, in the answer's
    /// order. They were dropped, not judged; a host may still tell the author of scripted
    /// answers about a likely typo.
    pub fn dropped(&self) -> &[String] {
        &self.dropped
    }

    /// Take the clean content and the dropped keys.
    pub fn into_parts(self) -> (Map<String, Value>, Vec<String>) {
        (self.content, self.dropped)
    }
}

impl FormSchema {
    /// Judge the `content` of an `accept`: the one pipeline both ends use, so **a client
    /// and a server judge an answer identically because both call this**.
    ///
    /// In this order:
    ///
    /// 1. **drop** every key the form does not declare, and record it
    ///    ([`Accepted::dropped`]): a key that answers no question neither helps nor
    ///    spoils an answer, so adding or removing one never changes the verdict;
    /// 2. **normalize** whole-number floats of integer fields (`3.0` → `3`,
    ///    [`normalize`](FormSchema::normalize));
    /// 3. **apply defaults** to omitted optional fields if `defaults` is
    ///    [`Defaults::Apply`] ([`apply_defaults`](FormSchema::apply_defaults)); a default
    ///    is valid for its field by construction (an invalid one is dropped when the schema
    ///    is parsed), so this never turns a good answer into a bad one;
    /// 4. **validate** what is left ([`validate`](FormSchema::validate)), so the content
    ///    returned is exactly the content that was checked.
    ///
    /// ```
    /// use frontdesk_form::{Defaults, FormSchema};
    /// use serde_json::json;
    ///
    /// let form = FormSchema::builder()
    ///     .integer("boxes", |f| f.range(1, 3).default(1))
    ///     .string("email", |f| f.email().required())
    ///     .build()?;
    /// let answer = json!({ "email": "ann@example.com", "emial": "typo" });
    /// let accepted = form.accept(answer.as_object().cloned().unwrap_or_default(), Defaults::Apply)?;
    /// assert_eq!(accepted.dropped(), ["emial"]);
    /// assert_eq!(accepted.content()["boxes"], json!(1));
    ///
    /// let wrong = json!({ "email": "ann@example.com", "boxes": 3.5 });
    /// let errors = form.accept(wrong.as_object().cloned().unwrap_or_default(), Defaults::Leave);
    /// assert_eq!(errors.unwrap_err().errors()[0].field.as_deref(), Some("boxes"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn accept(
        &self,
        content: Map<String, Value>,
        defaults: Defaults,
    ) -> Result<Accepted, ValidationErrors> {
        let mut clean = Map::new();
        let mut dropped = Vec::new();
        for (key, value) in content {
            if self.field(&key).is_some() {
                clean.insert(key, value);
            } else {
                dropped.push(key);
            }
        }
        self.normalize(&mut clean);
        if defaults == Defaults::Apply {
            self.apply_defaults(&mut clean);
        }
        self.validate(&clean)?;
        Ok(Accepted {
            content: clean,
            dropped,
        })
    }
}
