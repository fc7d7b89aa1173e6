//! What every renderer shows the same way, whatever it draws on (the terminal here,
//! the browser page in `frontdesk-web`): the header of a request, what a field
//! expects, an answer as the review shows it, a server's tools, and how a tool's
//! arguments are asked (a form, or the JSON they start from). Pure functions over
//! the form model and the wire types. The lines meant to be shown come back
//! escaped ([`crate::sanitize`]); a tool's [`ArgumentsForm`] and
//! [`argument_skeleton`] are data, escaped by the renderer where it shows them.

use frontdesk::client::ElicitationOrigin;
use frontdesk_form::{Field, FormSchema, ParsedForm, Widget};
use frontdesk_wire::Tool;
use serde_json::{Map, Value};

use crate::sanitize::{MAX_MESSAGE_CHARS, display_line, display_text, one_line, server_label};

/// Who asks and what they say, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `brightgrid 0.1.0`, escaped.
    pub server: String,
    /// `tools/call book_return`, escaped, when known.
    pub request: Option<String>,
    /// The message, escaped, line breaks kept.
    pub message: String,
    /// Requests waiting behind this one.
    pub waiting: usize,
}

impl Header {
    /// The header of a request from `origin` with `message`.
    pub fn new(origin: &ElicitationOrigin, message: &str, waiting: usize) -> Header {
        Header {
            server: server_label(&origin.server),
            request: origin.request.as_deref().map(|r| display_line(r, 200)),
            message: display_text(message, MAX_MESSAGE_CHARS),
            waiting,
        }
    }

    /// The title line: `brightgrid 0.1.0 — tools/call book_return`.
    pub fn title(&self) -> String {
        match &self.request {
            Some(r) => format!("{} — {r}", self.server),
            None => self.server.clone(),
        }
    }
}

/// What an answer to `field` must be, with its limits, for a help line:
/// `an email address, like name@example.com`, `a whole number from 1 to 5`,
/// `text, at most 80 characters`, `choose 1 to 3`. It says nothing about keys or
/// controls; each renderer adds its own.
///
/// ```
/// use frontdesk_form::FormSchema;
/// use frontdesk_host::widgets::input_hint;
///
/// let schema = FormSchema::builder()
///     .integer("boxes", |f| f.title("Boxes").minimum(1).maximum(5))
///     .build()
///     .expect("valid");
/// assert_eq!(input_hint(&schema.fields()[0]), "a whole number from 1 to 5");
/// ```
pub fn input_hint(field: &Field) -> String {
    let c = field.constraints();
    let range = |what: &str| match (c.minimum, c.maximum) {
        (Some(lo), Some(hi)) => format!("{what} from {} to {}", number(lo), number(hi)),
        (Some(lo), None) => format!("{what}, at least {}", number(lo)),
        (None, Some(hi)) => format!("{what}, at most {}", number(hi)),
        (None, None) => what.to_owned(),
    };
    match field.widget() {
        Widget::Email => "an email address, like name@example.com".to_owned(),
        Widget::Url => "a URL, like https://example.com/page".to_owned(),
        Widget::Date => "a date, YYYY-MM-DD".to_owned(),
        Widget::DateTime => "a date and time, like 2026-12-01T09:30:00Z".to_owned(),
        Widget::Integer => range("a whole number"),
        Widget::Number => range("a number"),
        Widget::Checkbox => "yes or no".to_owned(),
        Widget::Select => "one of the options".to_owned(),
        Widget::MultiSelect => choice_count(c.min_items, c.max_items),
        Widget::Text => match (c.min_length, c.max_length) {
            (Some(lo), Some(hi)) => format!("text, {lo} to {hi} characters"),
            (Some(lo), None) => format!("text, at least {lo} characters"),
            (None, Some(hi)) => format!("text, at most {hi} characters"),
            (None, None) => "text".to_owned(),
        },
        _ => "text".to_owned(),
    }
}

/// How many options a multi-select takes: `choose exactly 2`, `choose 1 to 3`,
/// `choose at least 1`, `choose at most 3`, `choose any`.
pub fn choice_count(min_items: Option<u64>, max_items: Option<u64>) -> String {
    match (min_items, max_items) {
        (Some(lo), Some(hi)) if lo == hi => format!("choose exactly {lo}"),
        (Some(lo), Some(hi)) => format!("choose {lo} to {hi}"),
        (Some(lo), None) => format!("choose at least {lo}"),
        (None, Some(hi)) => format!("choose at most {hi}"),
        (None, None) => "choose any".to_owned(),
    }
}

/// A bound as a person writes it: `5`, not `5.0`.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A value as the review shows it (option titles, Yes/No; masked when sensitive;
/// `(no answer)`, and `(none)` for an empty choice list), on one escaped line.
pub fn shown_value(field: &Field, value: Option<&Value>, masked: bool) -> String {
    match value {
        None => "(no answer)".to_owned(),
        Some(_) if masked => "••••••••".to_owned(),
        Some(Value::Array(items)) if items.is_empty() => "(none)".to_owned(),
        Some(v) => display_line(&field.display_value(v).replace('\n', " ⏎ "), 200),
    }
}

/// What a tool says it does: its description, else its title (raw: escape it for
/// where it is shown).
pub fn tool_about(tool: &Tool) -> Option<&str> {
    tool.description.as_deref().or(tool.title.as_deref())
}

/// `book_return — Book the return of an order; …` for each tool, one escaped line
/// each, to pick from.
///
/// ```
/// use frontdesk_host::widgets::tool_items;
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
            let about = tool_about(t).map(|a| one_line(a, 160)).unwrap_or_default();
            if about.is_empty() {
                name
            } else {
                format!("{name} — {about}")
            }
        })
        .collect()
}

/// `{"order_id":""}`: every property of the tool's input schema with an empty value
/// of its type, the JSON its arguments start from when they are typed as JSON.
///
/// ```
/// use frontdesk_host::widgets::argument_skeleton;
/// let tool: frontdesk_wire::Tool = serde_json::from_value(serde_json::json!({
///     "name": "book_return",
///     "inputSchema": {"type": "object", "properties": {
///         "order_id": {"type": "string"}, "boxes": {"type": "integer"},
///         "gift": {"type": "boolean"}, "tags": {"type": "array"}
///     }}
/// })).expect("a tool");
/// assert_eq!(argument_skeleton(&tool), r#"{"order_id":"","boxes":0,"gift":false,"tags":[]}"#);
/// ```
pub fn argument_skeleton(tool: &Tool) -> String {
    let mut out = Map::new();
    if let Some(props) = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    {
        for (key, schema) in props {
            let empty = match schema.get("type").and_then(Value::as_str) {
                Some("integer" | "number") => Value::from(0),
                Some("boolean") => Value::Bool(false),
                Some("array") => Value::Array(Vec::new()),
                Some("object") => Value::Object(Map::new()),
                _ => Value::String(String::new()),
            };
            out.insert(key.clone(), empty);
        }
    }
    Value::Object(out).to_string()
}

/// How the arguments of a tool are asked.
#[derive(Debug, Clone)]
pub enum ArgumentsForm {
    /// No arguments to ask for: call with `{}`.
    None,
    /// A form of the tool's (flat, primitive) input schema.
    Form(Box<ParsedForm>),
    /// A JSON object typed on one line, starting from this skeleton.
    Json(String),
}

/// How the arguments of `tool` will be asked: not at all when its input schema has
/// no properties; as a form when the schema is one the elicitation subset allows
/// (flat, primitive fields, nothing the reader had to leave out); else as JSON from
/// its [`argument_skeleton`].
///
/// ```
/// use frontdesk_host::widgets::{ArgumentsForm, arguments_form};
/// let tool = |schema| -> frontdesk_wire::Tool {
///     serde_json::from_value(serde_json::json!({"name": "t", "inputSchema": schema}))
///         .expect("a tool")
/// };
/// let none = tool(serde_json::json!({"type": "object"}));
/// assert!(matches!(arguments_form(&none), ArgumentsForm::None));
/// let flat = tool(serde_json::json!({"type": "object",
///     "properties": {"order_id": {"type": "string"}}}));
/// assert!(matches!(arguments_form(&flat), ArgumentsForm::Form(_)));
/// let nested = tool(serde_json::json!({"type": "object",
///     "properties": {"address": {"type": "object"}}}));
/// assert!(matches!(arguments_form(&nested), ArgumentsForm::Json(s) if s == r#"{"address":{}}"#));
/// ```
pub fn arguments_form(tool: &Tool) -> ArgumentsForm {
    let schema = Value::Object(tool.input_schema.clone());
    let empty = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if empty {
        return ArgumentsForm::None;
    }
    match FormSchema::parse(&schema) {
        Ok(parsed) if parsed.is_clean() && parsed.schema.is_fully_supported() => {
            ArgumentsForm::Form(Box::new(parsed))
        }
        _ => ArgumentsForm::Json(argument_skeleton(tool)),
    }
}
