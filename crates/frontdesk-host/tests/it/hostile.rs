//! A hostile server's text through every printing path of the host: the form (server
//! name and title, the call, the message, the form's title, field titles,
//! descriptions, defaults, option titles), the consent screen, the tool list, the
//! argument form, a result (text and JSON), an error line and a parked question.
//! Nothing unsafe may come out; the escape sequences show as visible `\u{…}` text.

use frontdesk::client::{Elicitation, ElicitationKind, ElicitationOrigin, ElicitationResponse};
use frontdesk_form::FormSchema;
use frontdesk_host::consent::NoBrowser;
use frontdesk_host::parked::{QuestionState, describe_question};
use frontdesk_host::result::{result_json, result_lines};
use frontdesk_host::sanitize::{is_unsafe, json_for_terminal, one_line, terminal_safe};
use frontdesk_host::screen::{FakeInput, FakeScreen};
use frontdesk_host::terminal::arguments::ask_arguments;
use frontdesk_host::terminal::present;
use frontdesk_host::widgets::tool_items;
use frontdesk_url::{UrlPolicy, review};
use frontdesk_wire::{CallToolResult, ContentBlock, Implementation, Tool};
use proptest::prelude::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Pieces a hostile server mixes into its strings.
const ATTACKS: &[&str] = &[
    "\u{1b}]0;PWNED\u{7}",
    "\u{1b}]8;;https://evil.example/\u{1b}\\click me\u{1b}]8;;\u{1b}\\",
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}[31m",
    "\u{9b}31m",
    "\u{9d}0;t\u{9c}",
    "\u{202e}gnp.exe",
    "\u{2066}x\u{2069}",
    "\u{200b}\u{200d}\u{feff}",
    "\u{e0041}\u{e007f}",
    "\r\u{8}\u{7f}",
    "\u{2028}\u{2029}\u{85}",
    "\u{a0}\u{3000}",
    "\u{115f}\u{3164}\u{fe0f}",
    "\n",
    "\t",
];

fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        proptest::sample::select(ATTACKS).prop_map(str::to_owned),
        "[a-zA-Z ]{0,8}",
        any::<char>().prop_map(|c| c.to_string()),
    ];
    proptest::collection::vec(piece, 1..8).prop_map(|p| p.concat())
}

/// Everything a terminal would receive, line breaks aside, is safe.
fn assert_safe(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|&c| c != '\n' && is_unsafe(c)) {
        panic!(
            "{what}: U+{:04X} reached the screen in:\n{text:?}",
            u32::from(c)
        );
    }
}

fn hostile_form(text: &str) -> FormSchema {
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "title": text,
        "properties": {
            "name": {"type": "string", "title": text, "description": text, "default": text},
            "reason": {"type": "string", "title": text, "oneOf": [
                {"const": "a", "title": text}, {"const": "b", "title": "plain"}
            ]},
            "tags": {"type": "array", "title": text, "items": {"anyOf": [{"const": "x", "title": text}]}},
            "ok": {"type": "boolean", "title": text, "description": text, "default": true}
        },
        "required": ["name"]
    }))
    .expect("an object");
    parsed.schema
}

fn request(text: &str, kind: ElicitationKind) -> Elicitation {
    let mut server = Implementation::new(text, text);
    server.title = Some(text.to_owned());
    Elicitation {
        origin: ElicitationOrigin {
            server,
            request: Some(format!("tools/call {text}")),
            key: text.to_owned(),
        },
        message: text.to_owned(),
        kind,
        previous_errors: None,
        cancelled: CancellationToken::new(),
    }
}

fn form_kind(schema: &FormSchema) -> ElicitationKind {
    let parsed = FormSchema::parse(&schema.to_json()).expect("an object");
    ElicitationKind::Form {
        prefill: parsed.schema.prefill(),
        form: parsed,
    }
}

fn tool(text: &str) -> Tool {
    serde_json::from_value(json!({
        "name": text,
        "title": text,
        "description": text,
        "inputSchema": {"type": "object", "properties": {
            "order_id": {"type": "string", "title": text, "description": text, "default": text}
        }}
    }))
    .expect("a tool")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn nothing_a_server_sends_reaches_the_screen_raw(text in hostile()) {
        // The form, answered with Enter everywhere, reviewed, accepted.
        let schema = hostile_form(&text);
        let req = request(&text, form_kind(&schema));
        let mut screen = FakeScreen::new([
            FakeInput::Enter,
            FakeInput::Enter,
            FakeInput::Enter,
            FakeInput::Enter,
            FakeInput::Key('e'),
            FakeInput::Line("1".into()),
            FakeInput::Enter,
            FakeInput::Key('a'),
        ]);
        let _ = present(&mut screen, &req, 3, &NoBrowser, None);
        assert_safe("form", &screen.transcript());

        // The consent screen, for a URL with the same text in it.
        let url = format!("https://login.example.com/{text}");
        let req = request(&text, ElicitationKind::Url {
            review: review(&url, &UrlPolicy::default()),
            elicitation_id: None,
        });
        let mut screen = FakeScreen::new([FakeInput::Key('d')]);
        let _ = present(&mut screen, &req, 0, &NoBrowser, None);
        assert_safe("consent", &screen.transcript());

        // The tool list and the argument form.
        assert_safe("tool list", &tool_items(&[tool(&text)]).join("\n"));
        let mut screen = FakeScreen::new([FakeInput::Enter, FakeInput::Key('a')]);
        let _ = ask_arguments(&mut screen, &tool(&text));
        assert_safe("arguments", &screen.transcript());

        // A result, as text and as JSON; an error line.
        let mut result = CallToolResult::new(vec![ContentBlock::text(text.clone())]);
        result.is_error = Some(true);
        result.structured_content = Some(json!({ "k": text }));
        assert_safe("result", &result_lines(&text, &result).join("\n"));
        assert_safe("result json", &result_json(&result));
        assert_safe("error", &one_line(&text, 500));

        // A parked question, as the JSON `frontdesk call --park` prints.
        let req = request(&text, form_kind(&schema));
        assert_safe("parked", &json_for_terminal(&describe_question("c.1", &req, QuestionState::NeedsAnswer), true));

        // The last writer's filter is safe and idempotent on anything.
        let once = terminal_safe(&text);
        assert_safe("sink", &once);
        prop_assert_eq!(terminal_safe(&once), once.clone());
    }
}

#[test]
fn escape_sequences_show_as_visible_text() {
    let text = "shop\u{1b}]0;PWNED\u{7}";
    let schema = hostile_form(text);
    let req = request(text, form_kind(&schema));
    let mut screen = FakeScreen::new([FakeInput::Escape, FakeInput::Key('c')]);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Cancel
    );
    let shown = screen.transcript();
    assert!(
        shown.contains("── shop\\u{001B}]0;PWNED\\u{0007}"),
        "{shown}"
    );
    // The default is pre-filled as it is shown: escaped.
    assert!(
        shown.contains("[shop\\u{001B}]0;PWNED\\u{0007}]"),
        "{shown}"
    );
}
