//! `frontdesk serve --metrics ADDR` as the README starts it (the SQLite
//! store): a scripted run of 2026-07-28 calls (a form accepted and
//! confirmed, one declined, one answered wrongly and asked again, a retry
//! sent twice, a tampered state) and of a 2025-11-25 session (a booking
//! accepted, one declined), then `/metrics` scraped and each counter found
//! at its value.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::wire::Revision;
use serde_json::{Value, json};

use crate::serve_restart::{
    Serve, booked, call, confirm_answer, generate_key, http, order, refused, return_answer,
    state_of, temp_dir,
};

/// A person who gives these answers, in order.
struct Answers(Mutex<VecDeque<ElicitationResponse>>);

impl ElicitationHandler for Answers {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let next = self.0.lock().unwrap().pop_front();
        Box::pin(async move { next.unwrap_or(ElicitationResponse::Cancel) })
    }
}

fn accept(content: Value) -> ElicitationResponse {
    match content {
        Value::Object(map) => ElicitationResponse::Accept(map),
        _ => unreachable!("an object"),
    }
}

/// The value of the series `name{labels}` (exactly these labels) in a
/// Prometheus text exposition; `None` when there is no such series.
fn series(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<&str, &str> = labels.iter().copied().collect();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (key, value) = line.rsplit_once(' ')?;
            let (metric, have) = match key.split_once('{') {
                Some((metric, rest)) => (metric, rest.strip_suffix('}')?),
                None => (key, ""),
            };
            if metric != name {
                return None;
            }
            let have: BTreeMap<&str, &str> = have
                .split(',')
                .filter(|p| !p.is_empty())
                .filter_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    Some((k, v.trim_matches('"')))
                })
                .collect();
            (have == want).then(|| value.parse().ok())?
        })
}

#[tokio::test]
async fn metrics_count_a_scripted_run() {
    let dir = temp_dir("metrics");
    let serve = Serve::start(
        &generate_key("m"),
        &[
            "--data-dir",
            dir.to_str().expect("a UTF-8 path"),
            "--metrics",
            "127.0.0.1:0",
        ],
    );
    let metrics = serve
        .metrics
        .clone()
        .expect("serve says where its metrics are");

    // A form accepted, then confirmed: booked. Its last retry sent again
    // gets the kept reply.
    let s1 = state_of(&call(&serve, None, "book_return", order(), None).await);
    let s2 = state_of(
        &call(
            &serve,
            None,
            "book_return",
            order(),
            Some((return_answer(), &s1)),
        )
        .await,
    );
    let last = Some((confirm_answer(), s2.as_str()));
    booked(&call(&serve, None, "book_return", order(), last.clone()).await);
    booked(&call(&serve, None, "book_return", order(), last).await);
    // Declined.
    let s3 = state_of(&call(&serve, None, "book_return", order(), None).await);
    let declined = json!({"return": {"action": "decline"}});
    let v = call(&serve, None, "book_return", order(), Some((declined, &s3))).await;
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    // Answered wrongly (no pickup date): asked again.
    let s4 = state_of(&call(&serve, None, "book_return", order(), None).await);
    let wrong = json!({"return": {"action": "accept", "content": {"reason": "damaged",
        "boxes": 2, "contact_email": "ann@example.com"}}});
    let s5 = state_of(&call(&serve, None, "book_return", order(), Some((wrong, &s4))).await);
    // A tampered state: refused.
    let mut tampered = s5.clone();
    let flipped = if tampered.ends_with('A') { "B" } else { "A" };
    tampered.replace_range(tampered.len() - 1.., flipped);
    refused(
        &call(
            &serve,
            None,
            "book_return",
            order(),
            Some((return_answer(), &tampered)),
        )
        .await,
    );

    // A 2025-11-25 session: booked (two questions), then declined.
    let person = Arc::new(Answers(Mutex::new(VecDeque::from([
        accept(json!({"reason": "damaged", "pickup_date": "2026-12-01",
            "contact_email": "ann@example.com"})),
        accept(json!({"confirm": true})),
        ElicitationResponse::Decline,
    ]))));
    let client = Client::connect_http(
        &serve.mcp,
        ClientConfig::default().protocol(Revision::V2025_11_25),
        Arc::clone(&person) as _,
    )
    .await
    .unwrap();
    let booking = client
        .call_tool("book_return", json!({"order_id": "L-1"}))
        .await
        .unwrap();
    let status = booking
        .structured_content
        .as_ref()
        .map(|c| c["status"].clone());
    assert_eq!(status, Some(json!("booked")), "{booking:?}");
    let declined = client
        .call_tool("book_return", json!({"order_id": "L-2"}))
        .await
        .unwrap();
    assert_eq!(
        declined.content[0].as_text(),
        Some("No return was booked: the person declined."),
        "{declined:?}"
    );
    client.close().await;

    let r = http().get(&metrics).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = r.text().await.unwrap();
    let at = |name: &str, labels: &[(&str, &str)]| series(&text, name, labels);
    let modern = ("revision", "2026-07-28");
    let call_ok = [("method", "tools/call"), modern, ("outcome", "ok")];
    let call_failed = [("method", "tools/call"), modern, ("outcome", "error")];
    assert_eq!(
        at("frontdesk_requests_total", &call_ok),
        Some(8.0),
        "{text}"
    );
    assert_eq!(
        at("frontdesk_requests_total", &call_failed),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        at(
            "frontdesk_input_required_total",
            &[("method", "tools/call")]
        ),
        Some(5.0),
        "{text}"
    );
    let form = ("mode", "form");
    assert_eq!(
        at("frontdesk_elicitations_asked_total", &[form, modern]),
        Some(5.0),
        "{text}"
    );
    for (outcome, count) in [("accept", 2.0), ("decline", 1.0), ("invalid", 1.0)] {
        assert_eq!(
            at(
                "frontdesk_elicitations_answered_total",
                &[form, modern, ("outcome", outcome)]
            ),
            Some(count),
            "{outcome}: {text}"
        );
    }
    let legacy = ("revision", "2025-11-25");
    assert_eq!(
        at("frontdesk_elicitations_asked_total", &[form, legacy]),
        Some(3.0),
        "{text}"
    );
    for (outcome, count) in [("accept", 2.0), ("decline", 1.0)] {
        assert_eq!(
            at(
                "frontdesk_elicitations_answered_total",
                &[form, legacy, ("outcome", outcome)]
            ),
            Some(count),
            "{outcome}: {text}"
        );
    }
    assert_eq!(
        at("frontdesk_elicitation_answer_seconds_count", &[legacy]),
        Some(3.0),
        "{text}"
    );
    assert_eq!(at("frontdesk_questions_waiting", &[]), Some(0.0), "{text}");
    // Each retry that carried answers, timed from its state's sealing.
    assert_eq!(
        at("frontdesk_elicitation_answer_seconds_count", &[modern]),
        Some(4.0),
        "{text}"
    );
    for (event, count) in [("sealed", 5.0), ("opened", 5.0), ("resent", 1.0)] {
        assert_eq!(
            at("frontdesk_states_total", &[("event", event)]),
            Some(count),
            "{event}: {text}"
        );
    }
    assert_eq!(
        at(
            "frontdesk_states_total",
            &[("event", "refused"), ("reason", "unauthentic")]
        ),
        Some(1.0),
        "{text}"
    );
    // The SQLite store's redemptions, timed; none failed.
    assert_eq!(
        at("frontdesk_store_seconds_count", &[("op", "redeem")]),
        Some(4.0),
        "{text}"
    );
    assert_eq!(
        at("frontdesk_store_errors_total", &[("op", "redeem")]),
        None,
        "{text}"
    );
    assert_eq!(at("frontdesk_requests_in_flight", &[]), Some(0.0), "{text}");
    // Help texts are there; no state, token or answer is.
    assert!(
        text.contains("# HELP frontdesk_elicitations_answered_total"),
        "{text}"
    );
    for secret in [s1.as_str(), "ann@example.com", "damaged"] {
        assert!(!text.contains(secret), "{secret} in the metrics");
    }
}
