//! Validating an instance against one `$defs` entry of an official `schema.json`.

use serde_json::{Map, Value, json};

/// One revision's `schema.json`, compiled once, able to validate against any `$defs` entry.
///
/// The document is compiled (JSON Schema 2020-12, **formats asserted**) with a root that
/// has one property per `$defs` entry (`{"<Def>": {"$ref": "#/$defs/<Def>"}}`), so
/// validating `{"<Def>": instance}` validates `instance` against that definition, resolved
/// inside the document.
pub struct Schema {
    revision: &'static str,
    defs: Vec<String>,
    validator: jsonschema::Validator,
}

impl Schema {
    /// Loads and compiles `data/spec/<revision>/schema.json`.
    pub fn load(revision: &'static str) -> Self {
        let mut doc = crate::schema_json(revision);
        let root = doc
            .as_object_mut()
            .unwrap_or_else(|| panic!("{revision} schema.json is not an object"));
        let defs: Vec<String> = root
            .get("$defs")
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("{revision} schema.json has no $defs"))
            .keys()
            .cloned()
            .collect();
        let mut props = Map::new();
        for d in &defs {
            props.insert(d.clone(), json!({ "$ref": format!("#/$defs/{d}") }));
        }
        root.insert("type".into(), json!("object"));
        root.insert("properties".into(), Value::Object(props));
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&doc)
            .unwrap_or_else(|e| panic!("{revision} schema does not compile: {e}"));
        Self {
            revision,
            defs,
            validator,
        }
    }

    /// The protocol revision (`"2025-11-25"`, `"2026-07-28"`).
    pub fn revision(&self) -> &'static str {
        self.revision
    }

    /// Whether the schema has this `$defs` entry.
    pub fn has(&self, def: &str) -> bool {
        self.defs.iter().any(|d| d == def)
    }

    /// The validation errors of `instance` against `#/$defs/<def>`, each as
    /// `"<instance path>: <error>"` (empty = valid). Panics for an unknown `def`.
    pub fn errors(&self, def: &str, instance: &Value) -> Vec<String> {
        assert!(self.has(def), "{} schema has no $defs/{def}", self.revision);
        let wrapped = json!({ def: instance });
        self.validator
            .iter_errors(&wrapped)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    /// Whether `instance` is valid against `#/$defs/<def>`.
    pub fn is_valid(&self, def: &str, instance: &Value) -> bool {
        self.errors(def, instance).is_empty()
    }

    /// Panics with the errors and the instance unless `instance` is valid against `def`;
    /// `what` names the instance in the message.
    pub fn assert_valid(&self, def: &str, instance: &Value, what: &str) {
        let errors = self.errors(def, instance);
        assert!(
            errors.is_empty(),
            "{what} is not a valid {} {def}:\n{}\n{}",
            self.revision,
            errors.join("\n"),
            serde_json::to_string_pretty(instance).unwrap_or_default()
        );
    }
}
