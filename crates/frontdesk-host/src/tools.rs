//! A server's tools as a person picks from them: name and what it does, escaped, one
//! line each.

use frontdesk_wire::Tool;

use crate::sanitize::one_line;

/// `book_return — Book the return of an order; …` for each tool.
///
/// ```
/// use frontdesk_host::tools::tool_items;
/// let tool: frontdesk_wire::Tool = serde_json::from_value(serde_json::json!({
///     "name": "x\u{1b}]8;;https://evil.example\u{7}",
///     "description": "does\nthings",
///     "inputSchema": {"type": "object"}
/// })).expect("a tool");
/// assert_eq!(tool_items(&[tool]), ["x\\u{001B}]8;;https://evil.example\\u{0007} — does things"]);
/// ```
pub fn tool_items(tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .map(|t| {
            let name = one_line(&t.name, 80);
            let about = t
                .description
                .as_deref()
                .or(t.title.as_deref())
                .map(|a| one_line(a, 160))
                .unwrap_or_default();
            if about.is_empty() {
                name
            } else {
                format!("{name} — {about}")
            }
        })
        .collect()
}
