//! The form, consent and scripted flows driven by scripted input, as a person (or a
//! script) would use them.

use std::sync::Arc;

use frontdesk::client::{
    Elicitation, ElicitationHandler, ElicitationKind, ElicitationOrigin, ElicitationResponse,
};
use frontdesk_form::FormSchema;
use frontdesk_host::consent::{ConsentOutcome, NoBrowser, Opener, UrlAction, run_consent};
use frontdesk_host::screen::{FakeInput, FakeScreen};
use frontdesk_host::scripted::{Answers, ScriptedHandler};
use frontdesk_host::terminal::{Header, present};
use frontdesk_url::{ConsentedUrl, UrlPolicy, review};
use frontdesk_wire::Implementation;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

fn return_form() -> FormSchema {
    FormSchema::builder()
        .select("reason", |f| {
            f.title("Reason")
                .option("damaged", "It arrived damaged")
                .option("wrong_item", "Wrong item")
                .option("not_needed", "No longer needed")
                .required()
        })
        .integer("boxes", |f| {
            f.title("Number of boxes").range(1, 3).default(1)
        })
        .string("pickup_date", |f| f.title("Pickup date").date().required())
        .string("contact_email", |f| {
            f.title("Contact email").email().required()
        })
        .string("notes", |f| {
            f.title("Notes")
                .description("Anything the driver should know")
        })
        .build()
        .expect("a valid form")
}

fn server() -> Implementation {
    serde_json::from_value(json!({"name": "brightgrid", "version": "0.1.0"})).expect("valid")
}

fn origin(tool: &str, key: &str) -> ElicitationOrigin {
    ElicitationOrigin {
        server: server(),
        request: Some(format!("tools/call {tool}")),
        key: key.to_owned(),
    }
}

fn form_request(schema: &FormSchema, tool: &str, key: &str, message: &str) -> Elicitation {
    let parsed = FormSchema::parse(&schema.to_json()).expect("an object");
    Elicitation {
        origin: origin(tool, key),
        message: message.to_owned(),
        kind: ElicitationKind::Form {
            prefill: parsed.schema.prefill(),
            form: parsed,
        },
        previous_errors: None,
        cancelled: CancellationToken::new(),
    }
}

fn url_request(url: &str) -> Elicitation {
    Elicitation {
        origin: origin("connect_store_account", "signin"),
        message: "Sign in to your Brightgrid store account to connect it.".to_owned(),
        kind: ElicitationKind::Url {
            review: review(url, &UrlPolicy::default()),
            elicitation_id: None,
        },
        previous_errors: None,
        cancelled: CancellationToken::new(),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn wrong_email_is_explained_then_fixed_then_reviewed_and_sent() {
    let req = form_request(
        &return_form(),
        "book_return",
        "return",
        "Tell us about the return",
    );
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![0]),
        FakeInput::Enter, // boxes keeps its default 1
        FakeInput::Line("2026-12-01".into()),
        FakeInput::Line("ann@".into()),
        FakeInput::Line("ann@example.com".into()),
        FakeInput::Enter, // no notes
        FakeInput::Key('a'),
    ]);
    let answer = present(&mut screen, &req, 2, &NoBrowser, None);
    assert_eq!(
        answer,
        ElicitationResponse::Accept(obj(json!({
            "reason": "damaged",
            "boxes": 1,
            "pickup_date": "2026-12-01",
            "contact_email": "ann@example.com",
        })))
    );
    let shown = screen.transcript();
    assert!(
        shown.contains("── brightgrid 0.1.0 — tools/call book_return ──"),
        "{shown}"
    );
    assert!(shown.contains("(2 more waiting)"), "{shown}");
    assert!(
        shown.contains("? Reason * {It arrived damaged | Wrong item | No longer needed}"),
        "{shown}"
    );
    assert!(
        shown.contains("? Number of boxes [1] a whole number from 1 to 3"),
        "{shown}"
    );
    assert!(
        shown.contains("! Contact email must be an email address"),
        "{shown}"
    );
    assert!(shown.contains("Anything the driver should know"), "{shown}");
    assert!(
        shown.contains("Review your answer to brightgrid 0.1.0"),
        "{shown}"
    );
    assert!(shown.contains("It arrived damaged"), "{shown}");
    assert!(shown.contains("(no answer)"), "{shown}");
    assert_eq!(screen.remaining(), 0);
}

#[test]
fn review_edits_a_field_before_sending() {
    let req = form_request(&return_form(), "book_return", "return", "m");
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![1]),
        FakeInput::Line("4".into()), // out of range
        FakeInput::Line("2".into()),
        FakeInput::Line("2026-12-01".into()),
        FakeInput::Line("ann@example.com".into()),
        FakeInput::Line("ring twice".into()),
        FakeInput::Key('e'),
        FakeInput::Line("2".into()), // field 2: boxes
        FakeInput::Line("3".into()),
        FakeInput::Key('a'),
    ]);
    let answer = present(&mut screen, &req, 0, &NoBrowser, None);
    let ElicitationResponse::Accept(content) = answer else {
        panic!("expected accept, screen: {}", screen.transcript());
    };
    assert_eq!(content.get("boxes"), Some(&json!(3)));
    assert_eq!(content.get("reason"), Some(&json!("wrong_item")));
    assert_eq!(content.get("notes"), Some(&json!("ring twice")));
    assert!(
        screen
            .transcript()
            .contains("! Number of boxes must be between 1 and 3")
    );
    assert!(!screen.transcript().contains("more waiting"));
}

#[test]
fn decline_and_cancel_are_one_key_and_interrupt_cancels() {
    let schema = return_form();
    let fill = || {
        vec![
            FakeInput::Pick(vec![0]),
            FakeInput::Enter,
            FakeInput::Line("2026-12-01".into()),
            FakeInput::Line("a@example.com".into()),
            FakeInput::Enter,
        ]
    };
    let mut decline = fill();
    decline.push(FakeInput::Key('d'));
    let mut screen = FakeScreen::new(decline);
    let req = form_request(&schema, "book_return", "return", "m");
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Decline
    );

    let mut cancel = fill();
    cancel.push(FakeInput::Key('c'));
    let mut screen = FakeScreen::new(cancel);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Cancel
    );

    // Esc / Ctrl-C in the middle of the form.
    let mut screen = FakeScreen::new([FakeInput::Pick(vec![0]), FakeInput::Interrupt]);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Cancel
    );
    assert!(screen.transcript().contains("Cancelled: nothing was sent."));
}

#[test]
fn multi_select_shows_and_enforces_its_limits_and_checkbox_takes_yes_no() {
    let schema = FormSchema::builder()
        .multi_select("toppings", |f| {
            f.title("Toppings")
                .option("ch", "Cheese")
                .option("mu", "Mushrooms")
                .option("ol", "Olives")
                .min_items(1)
                .max_items(2)
                .required()
        })
        .boolean("extra", |f| f.title("Extra crispy").required())
        .build()
        .expect("valid");
    let req = form_request(&schema, "order_pizza", "pizza", "Your pizza");
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![0, 1, 2]),
        FakeInput::Pick(vec![0, 2]),
        FakeInput::Line("maybe".into()),
        FakeInput::Line("y".into()),
        FakeInput::Key('a'),
    ]);
    let answer = present(&mut screen, &req, 0, &NoBrowser, None);
    assert_eq!(
        answer,
        ElicitationResponse::Accept(obj(json!({"toppings": ["ch", "ol"], "extra": true})))
    );
    let shown = screen.transcript();
    assert!(shown.contains("choose 1 to 2"), "{shown}");
    assert!(
        shown.contains("! Extra crispy must be yes or no"),
        "{shown}"
    );
    assert!(shown.contains("Cheese, Olives"), "{shown}");
}

#[test]
fn server_text_cannot_inject_escape_sequences() {
    let parsed = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean", "title": "OK\u{1b}[31m", "default": true}}
    }))
    .expect("an object");
    let req = Elicitation {
        origin: origin("t", "k"),
        message: "Hello\u{1b}[2J\u{202e}world".to_owned(),
        kind: ElicitationKind::Form {
            prefill: parsed.schema.prefill(),
            form: parsed,
        },
        previous_errors: None,
        cancelled: CancellationToken::new(),
    };
    let mut screen = FakeScreen::new([FakeInput::Enter, FakeInput::Key('a')]);
    let _ = present(&mut screen, &req, 0, &NoBrowser, None);
    let shown = screen.transcript();
    assert!(!shown.contains('\u{1b}'), "{shown}");
    assert!(!shown.contains('\u{202e}'), "{shown}");
    assert!(shown.contains("Hello\\u{001B}[2J\\u{202E}world"), "{shown}");
}

#[test]
fn sensitive_fields_are_masked_and_warned_about() {
    let schema = FormSchema::builder()
        .string("api_token", |f| f.title("API token").required())
        .build()
        .expect("valid");
    let req = form_request(&schema, "t", "k", "m");
    let mut screen = FakeScreen::new([FakeInput::Line("s3cret".into()), FakeInput::Key('a')]);
    let answer = present(&mut screen, &req, 0, &NoBrowser, None);
    assert_eq!(
        answer,
        ElicitationResponse::Accept(obj(json!({"api_token": "s3cret"})))
    );
    let shown = screen.transcript();
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(shown.contains("must not ask for secrets"), "{shown}");
}

struct Recorder(std::sync::Mutex<Vec<String>>);

impl Opener for Recorder {
    fn open(&self, url: &ConsentedUrl) -> Result<(), String> {
        if let Ok(mut v) = self.0.lock() {
            v.push(url.as_str().to_owned());
        }
        Ok(())
    }
}

#[test]
fn consent_opens_only_after_o() {
    let req = url_request("https://login.example.com/connect?flow=42");
    let opener = Recorder(std::sync::Mutex::new(Vec::new()));
    let mut screen = FakeScreen::new([FakeInput::Key('d')]);
    assert_eq!(
        present(&mut screen, &req, 0, &opener, None),
        ElicitationResponse::Decline
    );
    let mut screen = FakeScreen::new([FakeInput::Key('o'), FakeInput::Key('r')]);
    assert_eq!(
        present(&mut screen, &req, 0, &opener, None),
        ElicitationResponse::Accept(Map::new())
    );
    let opened = opener.0.lock().map(|v| v.clone()).unwrap_or_default();
    assert_eq!(opened, ["https://login.example.com/connect?flow=42"]);
    let shown = screen.transcript();
    assert!(
        shown.contains("brightgrid 0.1.0 asks you to open a link"),
        "{shown}"
    );
    assert!(
        shown.contains("URL:      https://login.example.com/connect?flow=42"),
        "{shown}"
    );
    assert!(
        shown.contains("               ^^^^^^^^^^^ registrable domain"),
        "{shown}"
    );
    assert!(
        shown.contains("[o] open in browser  [d] decline  [c] cancel"),
        "{shown}"
    );
}

#[test]
fn refused_url_is_never_opened_or_offered() {
    let req = url_request("https://good.example@evil.example/");
    let opener = Recorder(std::sync::Mutex::new(Vec::new()));
    let mut screen = FakeScreen::new([FakeInput::Key('o'), FakeInput::Key('c')]);
    assert_eq!(
        present(&mut screen, &req, 0, &opener, None),
        ElicitationResponse::Cancel
    );
    assert!(opener.0.lock().map(|v| v.is_empty()).unwrap_or(false));
    let shown = screen.transcript();
    assert!(shown.contains("refused and will not be opened"), "{shown}");
    assert!(shown.contains("[c] close"), "{shown}");
    assert!(!shown.contains("[o]"), "{shown}");
}

#[test]
fn no_browser_prints_the_url_and_extra_action_runs_after_consent() {
    let r = review(
        "http://127.0.0.1:4321/signin?token=t",
        &UrlPolicy::default(),
    );
    let header = Header {
        server: "brightgrid 0.1.0".into(),
        request: None,
        message: "Sign in".into(),
        waiting: 0,
    };
    let mut screen = FakeScreen::new([FakeInput::Key('o'), FakeInput::Key('r')]);
    let outcome = run_consent(&mut screen, &header, &r, &NoBrowser, None);
    assert_eq!(outcome, ConsentOutcome::Printed);
    assert!(
        screen
            .transcript()
            .contains("    http://127.0.0.1:4321/signin?token=t")
    );
    assert!(
        screen.transcript().contains("warning"),
        "{}",
        screen.transcript()
    );

    let action = UrlAction {
        key: 's',
        label: "simulate signing in",
        run: Arc::new(|url: &ConsentedUrl| Ok(format!("signed in at {}", url.as_str()))),
    };
    let mut screen = FakeScreen::new([FakeInput::Key('s')]);
    let outcome = run_consent(&mut screen, &header, &r, &NoBrowser, Some(&action));
    assert!(outcome.consented());
    assert!(screen.transcript().contains("[s] simulate signing in"));
}

#[tokio::test]
async fn scripted_answers_by_tool_in_order_and_by_question_key() {
    let answers = Answers::parse(
        &json!({
            "questions": {"confirm": {"action": "accept", "content": {"confirm": true}}},
            "tools": {"book_return": [
                {"action": "accept", "content": {"reason": "damaged", "pickup_date": "2026-12-01", "contact_email": "a@example.com"}},
                {"action": "decline"}
            ]},
            "default": {"action": "cancel"}
        })
        .to_string(),
    )
    .expect("valid answers");
    let handler = ScriptedHandler::new(answers);
    let schema = return_form();
    let first = handler
        .elicit(form_request(&schema, "book_return", "1", "m"))
        .await;
    assert_eq!(
        first,
        ElicitationResponse::Accept(obj(json!({
            "boxes": 1, "reason": "damaged", "pickup_date": "2026-12-01", "contact_email": "a@example.com"
        })))
    );
    assert_eq!(
        handler
            .elicit(form_request(&schema, "book_return", "2", "m"))
            .await,
        ElicitationResponse::Decline
    );
    // Exhausted: falls to the default.
    assert_eq!(
        handler
            .elicit(form_request(&schema, "book_return", "3", "m"))
            .await,
        ElicitationResponse::Cancel
    );
    let confirm = FormSchema::builder()
        .boolean("confirm", |f| f.title("Book").required())
        .build()
        .expect("valid");
    assert_eq!(
        handler
            .elicit(form_request(&confirm, "other", "confirm", "m"))
            .await,
        ElicitationResponse::Accept(obj(json!({"confirm": true})))
    );
    assert!(handler.problems().is_empty());
}

#[tokio::test]
async fn invalid_scripted_answer_is_not_sent_and_reported() {
    let answers = Answers::parse(
        r#"{"tools": {"book_return": [{"action": "accept", "content": {"reason": "damaged", "pickup_date": "2026-12-01", "contact_email": "nope"}}]},
            "questions": {"signin": {"action": "accept"}}}"#,
    )
    .expect("valid answers");
    let handler = ScriptedHandler::new(answers);
    let answer = handler
        .elicit(form_request(&return_form(), "book_return", "1", "m"))
        .await;
    assert_eq!(answer, ElicitationResponse::Cancel);
    let problems = handler.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("Contact email must be an email address"),
        "{problems:?}"
    );
    // Accepting a refused URL is a problem too.
    let mut req = url_request("https://good.example@evil.example/");
    req.origin.key = "signin".into();
    assert_eq!(handler.elicit(req).await, ElicitationResponse::Cancel);
    assert_eq!(handler.problems().len(), 2);
    // Unknown members are rejected when the file is read.
    assert!(Answers::parse(r#"{"tool": {}}"#).is_err());
}
