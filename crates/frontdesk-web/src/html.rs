//! The one way server text enters the page's markup: [`esc`], which escapes it for
//! HTML text and for double-quoted attribute values. Markup itself is only ever
//! written from string literals in this crate; every value that came from the
//! server, the person or the wire goes through [`esc`].

use std::fmt;

/// Text escaped for HTML content and double-quoted attributes.
pub(crate) struct Esc<'a>(&'a str);

/// Escape `text` (`& < > " '`).
pub(crate) fn esc(text: &str) -> Esc<'_> {
    Esc(text)
}

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            let entity = match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            };
            f.write_str(entity)?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// The longest JSON shown for one message or result, in bytes.
const MAX_JSON: usize = 64 * 1024;

/// A value as indented JSON, cut at [`MAX_JSON`] bytes (on a character boundary).
pub(crate) fn pretty(value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    if text.len() <= MAX_JSON {
        return text;
    }
    let mut end = MAX_JSON;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… ({} more bytes)", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<img src=x onerror=\"alert('1')\"> & co").to_string(),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co"
        );
        assert_eq!(esc("plain é").to_string(), "plain é");
    }

    #[test]
    fn long_json_is_cut() {
        let big = serde_json::Value::String("é".repeat(MAX_JSON));
        let shown = pretty(&big);
        assert!(shown.len() < MAX_JSON + 40);
        assert!(shown.ends_with("more bytes)"));
    }
}
