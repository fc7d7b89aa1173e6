//! Helpers shared by the integration tests: locating the shared spec folder and
//! validating instances against a `$defs` entry of an official schema.json.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// `shared/spec` (CI keeps `shared/` at the same relative place).
pub fn spec_dir() -> PathBuf {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec"));
    assert!(
        dir.is_dir(),
        "the shared spec folder is missing: expected it at {} (…/shared/spec next to the repository)",
        dir.display()
    );
    dir.to_path_buf()
}

/// Reads and parses a JSON file, with a clear panic.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// One revision's schema.json, compiled once, able to validate against any `$defs` entry.
pub struct Schema {
    defs: Vec<String>,
    validator: jsonschema::Validator,
    pub revision: &'static str,
}

impl Schema {
    /// Loads `schema/<revision>/schema.json`.
    ///
    /// The document is compiled once with a root that has one property per
    /// `$defs` entry (`{"<Def>": {"$ref": "#/$defs/<Def>"}}`), so validating
    /// `{"<Def>": instance}` validates `instance` against that definition,
    /// resolved inside the document. Formats are asserted.
    pub fn load(revision: &'static str) -> Self {
        let path = spec_dir().join("schema").join(revision).join("schema.json");
        let mut doc = read_json(&path);
        let root = doc.as_object_mut().expect("schema.json is an object");
        let defs: Vec<String> = root["$defs"]
            .as_object()
            .expect("$defs")
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
            defs,
            validator,
            revision,
        }
    }

    /// Whether the schema has this definition.
    pub fn has(&self, def: &str) -> bool {
        self.defs.iter().any(|d| d == def)
    }

    /// Validation errors of `instance` against `#/$defs/<def>` (empty = valid).
    pub fn errors(&self, def: &str, instance: &Value) -> Vec<String> {
        assert!(self.has(def), "{} schema has no $defs/{def}", self.revision);
        let wrapped = json!({ def: instance });
        self.validator
            .iter_errors(&wrapped)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    /// Panics with the errors unless `instance` is valid against `def`.
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
