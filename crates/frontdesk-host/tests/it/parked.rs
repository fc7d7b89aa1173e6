//! Parked questions: described as JSON, answered later with the same checks as typed
//! answers (an invalid answer is refused and the question stays parked).

use std::sync::Arc;

use frontdesk::client::{ElicitationHandler, ElicitationResponse};
use frontdesk_host::parked::{ParkedAnswer, ParkedHandler, RespondError};
use serde_json::json;

use crate::support::{form_request, obj, return_form, url_request};

#[tokio::test]
async fn a_parked_form_takes_only_a_valid_answer() {
    let handler = Arc::new(ParkedHandler::new("c1"));
    let mut changes = handler.subscribe();
    let asking = handler.clone();
    let call = tokio::spawn(async move {
        asking
            .elicit(form_request(
                &return_form(),
                "book_return",
                "return",
                "Tell us",
            ))
            .await
    });
    changes.changed().await.expect("a question is parked");
    assert_eq!(handler.pending_ids(), ["c1.1"]);
    let questions = handler.questions();
    let q = &questions[0];
    assert_eq!(q["id"], "c1.1");
    assert_eq!(q["mode"], "form");
    assert_eq!(q["server"]["name"], "brightgrid");
    assert_eq!(q["request"], "tools/call book_return");
    assert_eq!(q["form"]["fields"][0]["key"], "reason");
    assert_eq!(q["form"]["fields"][0]["type"], "select");
    assert_eq!(
        q["form"]["fields"][0]["options"][0],
        json!({"value": "damaged", "title": "It arrived damaged"})
    );
    assert_eq!(q["state"], "needsAnswer");
    // An integer field's bounds are integers (`3`, not `3.0`), and every field
    // says what its value looks like, with an example that fits it.
    let boxes = &q["form"]["fields"][1];
    assert_eq!(boxes["default"], 1);
    assert_eq!(boxes["maximum"].to_string(), "3");
    assert_eq!(boxes["minimum"].to_string(), "1");
    assert_eq!(boxes["example"], 1);
    let date = &q["form"]["fields"][2];
    assert_eq!(date["type"], "date");
    assert!(
        date["format"]
            .as_str()
            .is_some_and(|f| f.contains("YYYY-MM-DD")),
        "{date}"
    );
    assert_eq!(date["example"], "2026-12-31");
    for field in q["form"]["fields"].as_array().expect("fields") {
        assert!(field["format"].is_string(), "{field}");
    }

    let bad = handler.respond(
        "c1.1",
        ParkedAnswer::Accept(Some(obj(
            json!({"reason": "Wrong item", "pickup_date": "2026-12-01", "contact_email": "nope"}),
        ))),
    );
    let Err(RespondError::Invalid(problems)) = bad else {
        panic!("{bad:?}");
    };
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].field.as_deref(), Some("reason"));
    assert!(
        problems[0].message.contains("\"wrong_item\" (Wrong item)"),
        "{problems:?}"
    );
    assert_eq!(problems[1].field.as_deref(), Some("contact_email"));
    assert!(
        problems[1]
            .message
            .contains("Contact email must be an email address"),
        "{problems:?}"
    );
    assert_eq!(handler.pending_ids(), ["c1.1"], "still parked");

    handler
        .respond(
            "c1.1",
            ParkedAnswer::Accept(Some(obj(json!({"reason": "wrong_item", "pickup_date": "2026-12-01", "contact_email": "ann@example.com"})))),
        )
        .expect("valid");
    assert_eq!(
        call.await.expect("the call"),
        ElicitationResponse::Accept(obj(json!({
            "reason": "wrong_item", "boxes": 1, "pickup_date": "2026-12-01", "contact_email": "ann@example.com"
        })))
    );
    assert!(handler.pending_ids().is_empty());
    assert!(matches!(
        handler.respond("c1.1", ParkedAnswer::Decline),
        Err(RespondError::NoSuchQuestion { .. })
    ));
}

#[tokio::test]
async fn a_parked_url_carries_its_review_and_a_refused_one_cannot_be_accepted() {
    let handler = Arc::new(ParkedHandler::new("c2"));
    let mut changes = handler.subscribe();
    let asking = handler.clone();
    let call = tokio::spawn(async move {
        asking
            .elicit(url_request("https://good.example@evil.example/"))
            .await
    });
    changes.changed().await.expect("a question is parked");
    let q = &handler.questions()[0];
    assert_eq!(q["mode"], "url");
    assert_eq!(q["review"]["verdict"], "refused");
    assert!(
        q["reviewText"].as_array().is_some_and(|l| !l.is_empty()),
        "{q}"
    );
    assert_eq!(
        handler.respond("c2.1", ParkedAnswer::Accept(None)),
        Err(RespondError::RefusedUrl)
    );
    handler
        .respond("c2.1", ParkedAnswer::Cancel)
        .expect("cancel is fine");
    assert_eq!(call.await.expect("the call"), ElicitationResponse::Cancel);
}
