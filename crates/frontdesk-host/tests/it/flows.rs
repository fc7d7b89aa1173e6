//! The form, consent and scripted flows driven by scripted input, as a person (or a
//! script) would use them.

use std::sync::Arc;

use frontdesk::client::{Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse};
use frontdesk_form::FormSchema;
use frontdesk_host::TerminalHandler;
use frontdesk_host::consent::{ConsentOutcome, NoBrowser, Opener, UrlAction, run_consent};
use frontdesk_host::screen::{FakeInput, FakeScreen};
use frontdesk_host::scripted::{Answers, ScriptedHandler};
use frontdesk_host::terminal::present;
use frontdesk_host::widgets::Header;
use frontdesk_url::{ConsentedUrl, UrlPolicy, review};
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;

use crate::support::{form_request, obj, origin, return_form, url_request};

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
        shown.contains("? Reason *  (1 of 5) {It arrived damaged | Wrong item | No longer needed}"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "? Number of boxes  (2 of 5) [1] a whole number from 1 to 3; leave empty for no answer · Enter: next · Esc: decline, cancel or stop asking"
        ),
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

    // Ctrl-C in the middle of the form cancels at once, and says the server was told.
    let mut screen = FakeScreen::new([FakeInput::Pick(vec![0]), FakeInput::Interrupt]);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Cancel
    );
    assert!(screen.transcript().contains(
        "Cancelled: the server was told you dismissed it; none of your answers were sent."
    ));
}

#[test]
fn esc_at_the_first_field_offers_decline_and_the_choice_is_sent() {
    let req = form_request(&return_form(), "book_return", "return", "m");
    let mut screen = FakeScreen::new([FakeInput::Escape, FakeInput::Key('d')]);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Decline
    );
    let shown = screen.transcript();
    assert!(
        shown.contains("Esc: decline, cancel or stop asking"),
        "{shown}"
    );
    assert!(
        shown.contains("Leave this request from brightgrid 0.1.0?"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "[d] decline: tell the server no  [c] cancel: dismiss it  [s] stop asking: cancel all its questions until you disconnect  [b] back"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("Declined: the server was told no"),
        "{shown}"
    );

    // Esc then back returns to the same field; Esc twice cancels.
    let mut screen = FakeScreen::new([
        FakeInput::Escape,
        FakeInput::Key('b'),
        FakeInput::Escape,
        FakeInput::Escape,
    ]);
    assert_eq!(
        present(&mut screen, &req, 0, &NoBrowser, None),
        ElicitationResponse::Cancel
    );
    assert_eq!(
        screen.transcript().matches("? Reason *  (1 of 5)").count(),
        2,
        "{}",
        screen.transcript()
    );
}

#[test]
fn stop_asking_cancels_this_and_every_later_question_from_the_server() {
    let handler = TerminalHandler::new();
    let req = form_request(&return_form(), "book_return", "return", "m");
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![0]),
        FakeInput::Escape,
        FakeInput::Key('s'),
    ]);
    assert_eq!(
        handler.present_on(&mut screen, &req, 0),
        ElicitationResponse::Cancel
    );
    assert!(
        screen
            .transcript()
            .contains("brightgrid 0.1.0 will not ask you anything more on this connection"),
        "{}",
        screen.transcript()
    );
    assert!(handler.stopped_asking("brightgrid"));
    // The next question, form or URL, is answered cancel without a screen.
    for next in [req.clone(), url_request("https://login.example.com/x")] {
        let mut screen = FakeScreen::new([FakeInput::Key('a')]);
        assert_eq!(
            handler.present_on(&mut screen, &next, 0),
            ElicitationResponse::Cancel
        );
        assert!(screen.shown().is_empty(), "{}", screen.transcript());
    }
}

#[test]
fn a_form_asked_again_starts_from_the_last_answer() {
    let handler = TerminalHandler::new();
    let req = form_request(&return_form(), "book_return", "return", "m");
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![1]),
        FakeInput::Line("2".into()),
        FakeInput::Line("2026-12-05".into()),
        FakeInput::Line("ann@example.com".into()),
        FakeInput::Line("ring twice".into()),
        FakeInput::Key('a'),
    ]);
    let first = handler.present_on(&mut screen, &req, 0);
    let ElicitationResponse::Accept(first) = first else {
        panic!("{}", screen.transcript());
    };
    // The server rejects the date and asks the same form again: Enter on every field
    // keeps what the person typed, and only the date is changed.
    let mut again = form_request(
        &return_form(),
        "book_return",
        "return-2",
        "That day is full.",
    );
    again.origin.key = "17".into();
    let mut screen = FakeScreen::new([
        FakeInput::Enter,
        FakeInput::Enter,
        FakeInput::Line("2026-12-07".into()),
        FakeInput::Enter,
        FakeInput::Enter,
        FakeInput::Key('a'),
    ]);
    let ElicitationResponse::Accept(second) = handler.present_on(&mut screen, &again, 0) else {
        panic!("{}", screen.transcript());
    };
    let shown = screen.transcript();
    assert!(
        shown.contains("Filled in from your last answer to this form"),
        "{shown}"
    );
    assert!(shown.contains("[2026-12-05]"), "{shown}");
    assert!(shown.contains("[ann@example.com]"), "{shown}");
    let mut expected = first.clone();
    expected.insert("pickup_date".into(), json!("2026-12-07"));
    assert_eq!(second, expected);
}

#[test]
fn a_yes_no_question_is_one_key() {
    let confirm = FormSchema::builder()
        .boolean("confirm", |f| {
            f.title("Book this pickup").default(true).required()
        })
        .build()
        .expect("valid");
    let req = form_request(&confirm, "book_return", "confirm", "Book it?");
    for (input, expected) in [
        (FakeInput::Key('y'), Some(true)),
        (FakeInput::Key('n'), Some(false)),
        (FakeInput::Enter, Some(true)),
        (FakeInput::Key('d'), None),
    ] {
        let mut screen = FakeScreen::new([input.clone()]);
        let answer = present(&mut screen, &req, 0, &NoBrowser, None);
        match expected {
            Some(v) => assert_eq!(
                answer,
                ElicitationResponse::Accept(obj(json!({"confirm": v})))
            ),
            None => assert_eq!(answer, ElicitationResponse::Decline),
        }
        assert_eq!(screen.remaining(), 0, "{input:?}");
        assert!(
            screen.transcript().contains(
                "Book this pickup? [y] answer Yes  [n] answer No  [Enter] keep Yes  [d] decline to answer  [c] cancel"
            ),
            "{}",
            screen.transcript()
        );
    }
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
        FakeInput::Key('x'),
        FakeInput::Key('y'),
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
        shown.contains("? Extra crispy *  (2 of 2): [y] yes  [n] no"),
        "{shown}"
    );
    assert!(shown.contains("(key x does nothing here)"), "{shown}");
    assert!(shown.contains("Cheese, Olives"), "{shown}");
}

#[test]
fn an_empty_required_choice_list_reviews_as_none() {
    let schema = FormSchema::builder()
        .multi_select("extras", |f| {
            f.title("Extras")
                .option("a", "A")
                .option("b", "B")
                .required()
        })
        .string("name", |f| f.title("Name"))
        .build()
        .expect("valid");
    let req = form_request(&schema, "t", "k", "m");
    let mut screen = FakeScreen::new([
        FakeInput::Pick(vec![]),
        FakeInput::Enter,
        FakeInput::Key('a'),
    ]);
    let answer = present(&mut screen, &req, 0, &NoBrowser, None);
    assert_eq!(
        answer,
        ElicitationResponse::Accept(obj(json!({"extras": []})))
    );
    let shown = screen.transcript();
    assert!(shown.contains("   1  Extras *  (none)"), "{shown}");
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
    let mut screen = FakeScreen::new([FakeInput::Enter]);
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
    // A choice error names the values to send, with their titles.
    let answers = Answers::parse(
        r#"{"tools": {"book_return": [{"action": "accept", "content": {"reason": "It arrived damaged", "pickup_date": "2026-12-01", "contact_email": "a@example.com"}}]}}"#,
    )
    .expect("valid answers");
    let by_title = ScriptedHandler::new(answers);
    let _ = by_title
        .elicit(form_request(&return_form(), "book_return", "1", "m"))
        .await;
    assert_eq!(
        by_title.problems(),
        [
            "the scripted answer tools.book_return[0] for tools/call book_return is not valid, so it was not sent: \
             Reason must be one of these values: \"damaged\" (It arrived damaged), \"wrong_item\" (Wrong item), \
             \"not_needed\" (No longer needed); \"It arrived damaged\" is not one of them"
        ]
    );
    // Accepting a refused URL is a problem too.
    let mut req = url_request("https://good.example@evil.example/");
    req.origin.key = "signin".into();
    assert_eq!(handler.elicit(req).await, ElicitationResponse::Cancel);
    assert_eq!(handler.problems().len(), 2);
    // Unknown members are rejected when the file is read.
    assert!(Answers::parse(r#"{"tool": {}}"#).is_err());
}
