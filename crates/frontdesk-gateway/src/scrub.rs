//! Server-controlled strings kept free of control characters on their way
//! to the person: a question's message, and every `title` and
//! `description` (of a form's fields, of tools, of their schemas), the
//! server's name and instructions. C0 and C1 controls (but `\n` and `\t`)
//! and the bidirectional formatting characters (embeddings, overrides,
//! isolates, marks) are removed: a terminal escape cannot clear a screen or
//! recolour a warning, and a right-to-left override cannot make `exe.pdf`
//! read `fdp.exe`.

use std::borrow::Cow;

use serde_json::Value;

/// Whether `c` is removed.
fn unwanted(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` without the characters this module removes (borrowed when there
/// are none).
pub(crate) fn scrub(text: &str) -> Cow<'_, str> {
    if text.chars().any(unwanted) {
        Cow::Owned(text.chars().filter(|c| !unwanted(*c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` scrubbed when `scrubbing` (the check is on), else as it is.
pub(crate) fn clean(text: &str, scrubbing: bool) -> String {
    if scrubbing {
        scrub(text).into_owned()
    } else {
        text.to_owned()
    }
}

/// Scrub, in place and at any depth of `value`, every string under a
/// `title` or `description` key and every string of an `enumNames` list.
/// How many strings changed.
pub(crate) fn scrub_labels(value: &mut Value) -> usize {
    let mut changed = 0;
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v) {
                    ("title" | "description", Value::String(s)) => changed += scrub_string(s),
                    ("enumNames", Value::Array(names)) => {
                        for name in names.iter_mut() {
                            if let Value::String(s) = name {
                                changed += scrub_string(s);
                            }
                        }
                    }
                    (_, v) => changed += scrub_labels(v),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                changed += scrub_labels(item);
            }
        }
        _ => {}
    }
    changed
}

/// Scrub, in place, every string of `value` at any depth (a log message's
/// data is text for the person, whatever its shape). How many changed.
pub(crate) fn scrub_strings(value: &mut Value) -> usize {
    match value {
        Value::String(s) => scrub_string(s),
        Value::Array(items) => items.iter_mut().map(scrub_strings).sum(),
        Value::Object(map) => map.values_mut().map(scrub_strings).sum(),
        _ => 0,
    }
}

fn scrub_string(s: &mut String) -> usize {
    match scrub(s) {
        Cow::Borrowed(_) => 0,
        Cow::Owned(clean) => {
            *s = clean;
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn controls_and_bidi_go_newlines_and_tabs_stay() {
        assert_eq!(
            scrub("a\u{1b}[2Jb\u{7}c\u{9b}d\u{202e}e\u{2066}f\u{200f}g\r\nh\ti\u{7f}"),
            "a[2Jbcdefg\nh\ti"
        );
        assert!(matches!(scrub("plain, ünïcode ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_string_of_a_log_message() {
        let mut v = json!({"a": ["x\u{1b}[31m", 1, {"b": "y\u{202e}z"}], "c": "plain"});
        assert_eq!(scrub_strings(&mut v), 2);
        assert_eq!(v, json!({"a": ["x[31m", 1, {"b": "yz"}], "c": "plain"}));
    }

    #[test]
    fn labels_at_any_depth_but_not_data() {
        let mut v = json!({
            "title": "T\u{1b}", "description": "D\u{202e}",
            "properties": {
                "title": {"type": "string", "title": "x\u{7}", "default": "keep\u{7}"},
                "e": {"enum": ["a\u{7}"], "enumNames": ["A\u{7}"]}
            }
        });
        assert_eq!(scrub_labels(&mut v), 4);
        assert_eq!(
            v,
            json!({
                "title": "T", "description": "D",
                "properties": {
                    "title": {"type": "string", "title": "x", "default": "keep\u{7}"},
                    "e": {"enum": ["a\u{7}"], "enumNames": ["A"]}
                }
            })
        );
    }
}
