//! Bounds on every input the form layer accepts.

/// Size and work bounds applied when parsing a schema and when validating an answer.
///
/// Every schema and answer that comes from the wire is untrusted: these numbers keep a
/// hostile server (or client) from making a host spend unbounded memory or time.
/// [`Limits::default`] is meant for production; tests may tighten it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Most fields (`properties`) a schema may declare. Exceeding it fails the whole parse.
    pub max_fields: usize,
    /// Most options one single- or multi-select field may offer.
    pub max_options: usize,
    /// Longest `pattern`, in characters.
    pub max_pattern_len: usize,
    /// Longest string accepted in an answer (and in typed input), in bytes.
    pub max_answer_string_bytes: usize,
    /// Longest field key, in characters.
    pub max_key_len: usize,
    /// Deepest nesting of JSON values kept verbatim (unknown keys, unsupported fields).
    pub max_depth: usize,
    /// Most backtracking steps one `pattern` match may take before it is abandoned.
    pub backtrack_limit: usize,
    /// Approximate bound, in bytes, on the compiled size of one `pattern`.
    pub regex_size_limit: usize,
}

impl Limits {
    /// The default bounds: 100 fields, 500 options, 1000-character patterns, 64 KiB answer
    /// strings, 256-character keys, depth 32, 100 000 backtracking steps, 1 MiB regex size.
    pub const DEFAULT: Limits = Limits {
        max_fields: 100,
        max_options: 500,
        max_pattern_len: 1000,
        max_answer_string_bytes: 64 * 1024,
        max_key_len: 256,
        max_depth: 32,
        backtrack_limit: 100_000,
        regex_size_limit: 1 << 20,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Depth of a JSON object: an empty one is 1, one holding an array or an
/// object one more than the deepest of those (scalars are 0). Stops
/// counting past `cap`.
pub(crate) fn object_depth(
    object: &serde_json::Map<String, serde_json::Value>,
    cap: usize,
) -> usize {
    depth_from(object.values().map(|v| (v, 1)).collect(), 1, cap)
}

/// The depth of the values on `stack` (each with its own), at least `max`.
fn depth_from(mut stack: Vec<(&serde_json::Value, usize)>, mut max: usize, cap: usize) -> usize {
    // Iterative to stay safe on deep input; stops counting past `cap`.
    while let Some((v, d)) = stack.pop() {
        if d > max {
            max = d;
        }
        if max > cap {
            return max;
        }
        match v {
            serde_json::Value::Array(items) => {
                max = max.max(d + 1);
                stack.extend(items.iter().map(|i| (i, d + 1)));
            }
            serde_json::Value::Object(map) => {
                max = max.max(d + 1);
                stack.extend(map.values().map(|i| (i, d + 1)));
            }
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Depth of any JSON value, as [`object_depth`] counts.
    fn json_depth(value: &serde_json::Value, cap: usize) -> usize {
        depth_from(vec![(value, 0)], 0, cap)
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(json_depth(&json!(1), 10), 0);
        assert_eq!(json_depth(&json!([]), 10), 1);
        assert_eq!(json_depth(&json!({"a": [1, {"b": 2}]}), 10), 3);
    }

    #[test]
    fn an_objects_depth_is_its_values_depth() {
        for v in [
            json!({}),
            json!({"a": 1}),
            json!({"a": [1, {"b": 2}], "c": {}}),
        ] {
            let object = v.as_object().unwrap();
            for cap in [0, 1, 2, 10] {
                assert_eq!(
                    object_depth(object, cap),
                    json_depth(&v, cap),
                    "{v} under {cap}"
                );
            }
        }
    }

    #[test]
    fn defaults_are_documented_values() {
        let l = Limits::default();
        assert_eq!(l.max_fields, 100);
        assert_eq!(l.max_options, 500);
        assert_eq!(l.max_pattern_len, 1000);
        assert_eq!(l.max_answer_string_bytes, 65536);
    }
}
