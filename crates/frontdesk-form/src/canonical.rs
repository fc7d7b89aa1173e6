//! Canonical JSON: compact, object keys sorted by their bytes at every depth,
//! strings and numbers written as serde_json writes them. Two values that
//! differ only in key order give the same bytes, so it is the form a digest
//! of JSON is taken over (a question's digest, a request's arguments).
//!
//! ```
//! use frontdesk_form::canonical::canonical_json;
//! use serde_json::json;
//!
//! let v = json!({"b": 1, "a": {"y": true, "x": null}});
//! assert_eq!(canonical_json(&v), br#"{"a":{"x":null,"y":true},"b":1}"#);
//! ```

use serde_json::{Map, Value};

/// The canonical JSON of `value`.
///
/// Nesting depth is whatever the value has; values parsed by serde_json are
/// bounded by its recursion limit.
pub fn canonical_json(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    write_value(value, &mut out);
    out
}

/// Append the canonical JSON of `value` to `out`.
pub fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // The number's text (as `Display` writes it: the same `itoa`/`ryu`
        // digits) written in place, without a `String` per number.
        Value::Number(n) => {
            if serde_json::to_writer(&mut *out, n).is_err() {
                out.extend_from_slice(n.to_string().as_bytes());
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

/// Append the canonical JSON of the object `map` to `out`.
pub fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) {
    // Keys in order already (one key, or a client that sorts them): written
    // as they are, without a sorted copy of the entries.
    if map.keys().is_sorted_by(|a, b| a.as_bytes() <= b.as_bytes()) {
        write_entries(map.iter(), out);
        return;
    }
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    write_entries(entries.into_iter(), out);
}

/// Append an object of `entries`, in the order given.
fn write_entries<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write_value(v, out);
    }
    out.push(b'}');
}

/// Append `s` as a JSON string to `out`.
pub fn write_string(s: &str, out: &mut Vec<u8>) {
    // Writing a &str into a Vec cannot fail; fall back to an empty string
    // rather than panic if serde_json ever reports an error.
    if serde_json::to_writer(&mut *out, s).is_err() {
        out.extend_from_slice(b"\"\"");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_recursively_and_strings_escaped() {
        let v = json!({"b": 1, "a": {"z": [1, {"y": true, "x": null}], "c": "é\n"}});
        assert_eq!(
            String::from_utf8(canonical_json(&v)).unwrap(),
            r#"{"a":{"c":"é\n","z":[1,{"x":null,"y":true}]},"b":1}"#
        );
    }

    #[test]
    fn keys_in_order_or_not_give_the_same_bytes() {
        let sorted = json!({"a": 1, "b": {"x": [], "y": {"k": "v"}}, "c": null});
        let shuffled = json!({"c": null, "b": {"y": {"k": "v"}, "x": []}, "a": 1});
        assert_eq!(canonical_json(&sorted), canonical_json(&shuffled));
        assert_eq!(
            canonical_json(&sorted),
            br#"{"a":1,"b":{"x":[],"y":{"k":"v"}},"c":null}"#
        );
        assert_eq!(canonical_json(&json!({})), b"{}");
        assert_eq!(canonical_json(&json!({"n": 7})), br#"{"n":7}"#);
    }

    #[test]
    fn keys_sort_by_bytes_not_by_characters() {
        // "Z" (0x5A) sorts before "a" (0x61), and "é" (0xC3 0xA9) after both.
        let v = json!({"é": 3, "a": 2, "Z": 1});
        assert_eq!(canonical_json(&v), r#"{"Z":1,"a":2,"é":3}"#.as_bytes());
    }

    /// Digests of sealed states are made of this text: numbers are written
    /// as they always were (their `Display`), and as these exact bytes.
    #[test]
    fn numbers_are_written_as_their_display() {
        let numbers = json!([
            0,
            -1,
            42,
            u64::MAX,
            i64::MIN,
            0.1,
            -0.0,
            1.5,
            2.5e-8,
            1e300,
            1e21,
            123456789.125
        ]);
        let mut expected = Vec::new();
        for n in numbers.as_array().unwrap() {
            let mut out = Vec::new();
            write_value(n, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
            expected.push(n.to_string());
        }
        assert_eq!(
            expected.join(","),
            "0,-1,42,18446744073709551615,-9223372036854775808,0.1,-0.0,1.5,2.5e-8,1e+300,1e+21,123456789.125"
        );
    }
}
