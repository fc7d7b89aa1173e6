//! A tool's result for a person: its text content as text, a tool error said plainly,
//! other content named by kind, and the whole result as JSON only on demand.

use frontdesk_wire::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::sanitize::{display_line, display_text, json_for_terminal};

/// The most characters of one text block shown.
pub const MAX_TEXT_CHARS: usize = 20_000;

/// The lines a person reads for `result` of `tool`.
///
/// ```
/// use frontdesk_host::result::result_lines;
/// use frontdesk_wire::{CallToolResult, ContentBlock};
///
/// let mut r = CallToolResult::new(vec![ContentBlock::text("No such order\x1b[2J")]);
/// r.is_error = Some(true);
/// assert_eq!(
///     result_lines("book_return", &r),
///     ["book_return reported an error:", "  No such order\\u{001B}[2J"]
/// );
/// ```
pub fn result_lines(tool: &str, result: &CallToolResult) -> Vec<String> {
    let tool = display_line(tool, 120);
    let mut lines = vec![if result.is_error == Some(true) {
        format!("{tool} reported an error:")
    } else {
        format!("Result of {tool}:")
    }];
    for block in &result.content {
        lines.extend(block_lines(block));
    }
    if result.content.is_empty() {
        lines.push("  (no content)".to_owned());
    }
    if result.structured_content.is_some() {
        lines.push("  (it also sent structured content: [j] shows the result as JSON)".to_owned());
    }
    lines
}

fn block_lines(block: &ContentBlock) -> Vec<String> {
    let one = |s: String| vec![s];
    match block {
        ContentBlock::Text(t) => display_text(&t.text, MAX_TEXT_CHARS)
            .lines()
            .map(|l| format!("  {l}"))
            .collect(),
        ContentBlock::Image(i) => one(format!(
            "  [an image, {}, {} bytes of base64]",
            display_line(&i.mime_type, 60),
            i.data.len()
        )),
        ContentBlock::Audio(a) => one(format!(
            "  [audio, {}, {} bytes of base64]",
            display_line(&a.mime_type, 60),
            a.data.len()
        )),
        ContentBlock::ResourceLink(r) => one(format!(
            "  [a link to the resource {}]",
            display_line(&r.resource.uri, 300)
        )),
        ContentBlock::Resource(_) => {
            one("  [an embedded resource: [j] shows it in the JSON]".to_owned())
        }
        _ => one("  [content of another kind: [j] shows it in the JSON]".to_owned()),
    }
}

/// The whole result as pretty JSON, safe for a terminal.
pub fn result_json(result: &CallToolResult) -> String {
    json_for_terminal(&serde_json::to_value(result).unwrap_or(Value::Null), true)
}
