//! Applying a schema's defaults.

use serde_json::{Map, Value};

use crate::model::FormSchema;

impl FormSchema {
    /// Fill every field missing from `content` that has a (valid) default, as a client that
    /// declares `applyDefaults` does. Values already present are never changed. Returns how
    /// many values were added.
    pub fn apply_defaults(&self, content: &mut Map<String, Value>) -> usize {
        let mut added = 0;
        for field in &self.fields {
            if let Some(d) = &field.default
                && !content.contains_key(&field.key)
            {
                content.insert(field.key.clone(), d.clone());
                added += 1;
            }
        }
        added
    }

    /// The initial values for a renderer: each field's default, in field order.
    pub fn prefill(&self) -> Map<String, Value> {
        let mut out = Map::new();
        self.apply_defaults(&mut out);
        out
    }
}
