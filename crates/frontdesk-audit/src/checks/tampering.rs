//! How the audit changes a `requestState` it must treat as opaque: one
//! character replaced, or, when a part of it is readable JSON (plain or
//! base64, as unsigned or merely signed states are), one leaf of that JSON
//! changed and the part encoded back the same way. A state that is sealed or
//! signed refuses every change; one that is not lets a change through.

use base64::Engine as _;
use base64::engine::GeneralPurpose;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::Value;

/// Most changed copies of one state tried.
pub(super) const TAMPERINGS: usize = 12;

/// The state with one character replaced by another of the same kind.
fn flip(state: &str) -> String {
    let chars: Vec<char> = state.chars().collect();
    let at = chars.len() / 2;
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i != at {
                return *c;
            }
            match c {
                'a'..='y' | 'A'..='Y' | '0'..='8' => char::from(*c as u8 + 1),
                'z' => 'a',
                'Z' => 'A',
                '9' => '0',
                _ => 'A',
            }
        })
        .collect()
}

/// One way the audit changes a state.
pub(super) enum Change {
    /// One character replaced (see [`flip`]).
    Flip,
    /// One leaf of the JSON in a base64 (or plain) JSON part changed (see
    /// [`change_leaf`]). A state that is signed or sealed refuses every one;
    /// one that is not lets the change through.
    Leaf {
        /// Which `.`-separated part.
        part: usize,
        /// The JSON pointer of the leaf.
        path: String,
    },
}

impl Change {
    pub(super) fn describe(&self) -> String {
        match self {
            Change::Flip => "one character changed".to_owned(),
            Change::Leaf { path, .. } => format!("{path} changed in its JSON"),
        }
    }

    /// `state` changed this way (`None`: it has no such part or leaf).
    pub(super) fn apply(&self, state: &str) -> Option<String> {
        match self {
            Change::Flip => Some(flip(state)),
            Change::Leaf { part, path } => {
                let mut parts: Vec<String> = state.split('.').map(str::to_owned).collect();
                let (mut json, encode) = decode_part(parts.get(*part)?)?;
                change_leaf(json.pointer_mut(path)?)?;
                parts[*part] = encode(&json.to_string());
                Some(parts.join("."))
            }
        }
    }
}

/// Every leaf of the state's JSON parts, as changes.
pub(super) fn leaf_paths(state: &str) -> Vec<Change> {
    let mut out = Vec::new();
    for (part, text) in state.split('.').enumerate() {
        let Some((json, _)) = decode_part(text) else {
            continue;
        };
        let mut paths = Vec::new();
        collect_leaves(&json, String::new(), &mut paths);
        out.extend(paths.into_iter().map(|path| Change::Leaf { part, path }));
        if out.len() >= TAMPERINGS {
            break;
        }
    }
    out
}

type Encoder = Box<dyn Fn(&str) -> String>;

/// A part of a state read as JSON, with how to write it back.
fn decode_part(part: &str) -> Option<(Value, Encoder)> {
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(part) {
        return Some((v, Box::new(|s: &str| s.to_owned())));
    }
    let engines: [&GeneralPurpose; 4] = [&URL_SAFE_NO_PAD, &URL_SAFE, &STANDARD_NO_PAD, &STANDARD];
    for engine in engines {
        let Ok(bytes) = engine.decode(part) else {
            continue;
        };
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(&bytes) {
            let encode = engine.clone();
            return Some((v, Box::new(move |s: &str| encode.encode(s.as_bytes()))));
        }
    }
    None
}

/// Change one leaf: strings get a suffix, numbers one more, booleans
/// flip (`None` for null).
fn change_leaf(leaf: &mut Value) -> Option<()> {
    *leaf = match leaf {
        Value::String(s) => Value::String(format!("{s}x")),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i.saturating_add(1)),
            None => Value::from(n.as_f64().unwrap_or(0.0) + 1.0),
        },
        Value::Bool(b) => Value::Bool(!*b),
        _ => return None,
    };
    Some(())
}

fn collect_leaves(value: &Value, path: String, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                let escaped = k.replace('~', "~0").replace('/', "~1");
                collect_leaves(v, format!("{path}/{escaped}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                collect_leaves(v, format!("{path}/{i}"), out);
            }
        }
        Value::Null => {}
        _ => out.push(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_character_changes_within_its_alphabet() {
        assert_eq!(flip("abcdz"), "abddz");
        assert_eq!(flip("ab9cd"), "ab0cd");
        assert_eq!(flip("ab.cd"), "abAcd");
        assert_ne!(flip("opaque-sealed-state"), "opaque-sealed-state");
    }

    #[test]
    fn a_readable_json_part_is_changed_leaf_by_leaf_and_encoded_back() {
        let payload = URL_SAFE_NO_PAD.encode(json!({"t": "book", "n": 1, "ok": true}).to_string());
        let state = format!("{payload}.c2ln");
        let changes = leaf_paths(&state);
        assert_eq!(changes.len(), 3);
        let read = |s: &str| -> Value {
            let part = s.split('.').next().unwrap();
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
        };
        let changed: Vec<Value> = changes
            .iter()
            .map(|c| read(&c.apply(&state).unwrap()))
            .collect();
        assert_eq!(changed[0], json!({"t": "bookx", "n": 1, "ok": true}));
        assert_eq!(changed[1], json!({"t": "book", "n": 2, "ok": true}));
        assert_eq!(changed[2], json!({"t": "book", "n": 1, "ok": false}));
        for c in &changes {
            assert!(
                c.apply(&state).unwrap().ends_with(".c2ln"),
                "the other part is kept"
            );
        }
        assert!(
            leaf_paths("bm90IGpzb24.c2ln").is_empty(),
            "base64 that is no JSON object"
        );
    }
}
