//! The page over plain HTTP: each protection reproduced as the attack it stops,
//! and the whole form and consent flows without any script (every choice is a
//! form post), checked against what the server received.

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::{Page, SCRIPT};

#[tokio::test]
async fn a_wrong_or_missing_secret_gets_nothing() {
    let page = Page::start().await;
    let base = format!("http://127.0.0.1:{}", page.port);
    let wrong = page.url.replace(
        page.url.trim_start_matches(&base).trim_matches('/'),
        &"0".repeat(64),
    );
    for url in [
        format!("{base}/"),
        wrong.clone(),
        format!("{wrong}app.js"),
        format!("{base}/app.js"),
    ] {
        let response = page.http.get(&url).send().await.expect("an answer");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{url}");
        let body = response.text().await.expect("text");
        assert_eq!(body, "Not found.", "{url}");
    }
    let shorter = &page.url[..page.url.len() - 2];
    let response = page
        .http
        .get(format!("{shorter}/"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(
        response.status(),
        StatusCode::NOT_FOUND,
        "a prefix of the secret"
    );
}

#[tokio::test]
async fn a_rebound_host_name_is_refused() {
    let page = Page::start().await;
    let evil = format!("evil.example:{}", page.port);
    let response = page.raw(false, "", Some(&evil), None).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let body = response.text().await.expect("text");
    assert!(body.contains("only on its own loopback address"), "{body}");
    let other_port = format!("127.0.0.1:{}", page.port.wrapping_add(1));
    let response = page.raw(false, "", Some(&other_port), None).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let localhost = format!("localhost:{}", page.port);
    assert_eq!(
        page.raw(false, "", Some(&localhost), None).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_foreign_or_missing_origin_cannot_change_anything() {
    let page = Page::start().await;
    for origin in [
        Some("http://evil.example"),
        Some("null"),
        Some("http://127.0.0.1:1"),
        None,
    ] {
        let response = page.raw(true, "call", None, origin).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin:?}");
    }
    let foreign = page.raw(false, "", None, Some("http://evil.example")).await;
    assert_eq!(
        foreign.status(),
        StatusCode::FORBIDDEN,
        "a cross-origin read"
    );
    assert!(
        !page.html().await.contains("article class=\"call\""),
        "no call was started"
    );
    let own = page
        .post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    assert_eq!(own.status(), StatusCode::SEE_OTHER, "the page's own post");
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let page = Page::start().await;
    let responses = [
        page.http.get(&page.url).send().await.expect("page"),
        page.http
            .get(format!("{}app.js", page.url))
            .send()
            .await
            .expect("script"),
        page.http
            .get(format!("{}nothing", page.url))
            .send()
            .await
            .expect("404"),
        page.raw(true, "call", None, None).await,
    ];
    for r in &responses {
        let h = r.headers();
        let csp = h
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(
            csp.starts_with("default-src 'none'; script-src 'self'; style-src 'self'"),
            "{} {csp}",
            r.url()
        );
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(
            h.get("referrer-policy").and_then(|v| v.to_str().ok()),
            Some("same-origin")
        );
        assert_eq!(
            h.get("x-frame-options").and_then(|v| v.to_str().ok()),
            Some("DENY")
        );
        assert_eq!(
            h.get("cache-control").and_then(|v| v.to_str().ok()),
            Some("no-store")
        );
    }
    let html = page.html().await;
    assert!(!html.contains("<script>"), "no inline script");
    assert!(!html.contains(" style=\""), "no inline style");
    let handler = html.match_indices(" on").any(|(at, _)| {
        let rest = &html[at + 3..];
        let name: String = rest.chars().take_while(char::is_ascii_lowercase).collect();
        !name.is_empty() && rest[name.len()..].starts_with('=')
    });
    assert!(!handler, "no inline event handlers");
}

#[tokio::test]
async fn server_text_is_escaped_everywhere() {
    let page = Page::start().await;
    page.post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    page.question_id().await;
    let html = page.html().await;
    assert!(!html.contains(SCRIPT), "server text became markup:\n{html}");
    assert!(
        html.contains("shop&lt;script&gt;window.__pwned=1&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        html.contains("Where should we write? &lt;script&gt;"),
        "{html}"
    );
}

#[tokio::test]
async fn a_form_is_checked_reviewed_and_sent_without_script() {
    let page = Page::start().await;
    page.post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    let id = page.question_id().await;
    let check: Value = page
        .post(&format!("q/{id}/check"), &[("f0", "ann@"), ("f1", "")])
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(check["valid"], Value::Bool(false));
    assert_eq!(
        check["fields"][0]["message"],
        "Email must be an email address like name@example.com"
    );

    page.post(
        &format!("q/{id}"),
        &[("action", "review"), ("f0", "ann@"), ("f1", "")],
    )
    .await;
    let html = page.html().await;
    assert!(
        html.contains("Email must be an email address like name@example.com"),
        "{html}"
    );
    assert!(
        !html.contains("Review your answer"),
        "an invalid form is not reviewed"
    );

    page.post(
        &format!("q/{id}"),
        &[
            ("action", "review"),
            ("f0", "ann@example.com"),
            ("f1", "tok-123"),
        ],
    )
    .await;
    let html = page.html().await;
    assert!(
        html.contains("Review your answer before it is sent"),
        "{html}"
    );
    assert!(html.contains("ann@example.com"));
    assert!(
        !html.contains("tok-123"),
        "the review masks a field that looks like a secret"
    );
    assert!(
        html.contains("Access token looks like it asks for a token"),
        "the lint warning"
    );

    let accepted = page.post(&format!("q/{id}"), &[("action", "accept")]).await;
    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    let html = page
        .wait_for(
            "received {&quot;email&quot;:&quot;ann@example.com&quot;",
            "the result",
        )
        .await;
    assert!(
        html.contains("&quot;token&quot;:&quot;tok-123&quot;"),
        "the server got the token it asked for"
    );
    let timeline = &html[html.find("class=\"timeline\"").expect("a timeline")..];
    let answer = &timeline[..timeline.find("received {").unwrap_or(timeline.len())];
    assert!(
        !answer.contains("tok-123"),
        "the wire timeline masks the token"
    );
    assert!(
        answer.contains("••••••••"),
        "the wire timeline shows it masked"
    );
}

#[tokio::test]
async fn a_refused_link_is_never_offered_or_opened() {
    let page = Page::start().await;
    page.post("call", &[("tool", "ask_link"), ("arguments", "{}")])
        .await;
    let id = page.question_id().await;
    let html = page.html().await;
    assert!(
        html.contains("This link is refused and will not be opened."),
        "{html}"
    );
    assert!(
        !html.contains("data-open"),
        "the page is not given the URL to open"
    );
    assert!(!html.contains("value=\"open\""), "no Open link");
    page.post(&format!("q/{id}"), &[("action", "open")]).await;
    let html = page.html().await;
    assert!(
        html.contains(&format!("action=\"q/{id}\"")) && !html.contains("Finish in the other tab"),
        "forcing open does nothing: {html}"
    );
    page.post(&format!("q/{id}"), &[("action", "decline")])
        .await;
    page.wait_for("received decline", "the declined result")
        .await;
}

#[tokio::test]
async fn choices_for_a_question_not_on_screen_do_nothing() {
    let page = Page::start().await;
    page.post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    let id = page.question_id().await;
    page.post("q/999/", &[("action", "decline")]).await;
    page.post("q/999", &[("action", "decline")]).await;
    let html = page.html().await;
    assert!(
        html.contains("That question is no longer on screen."),
        "{html}"
    );
    assert!(
        html.contains(&format!("action=\"q/{id}\"")),
        "the real question is still there"
    );
    page.post(&format!("q/{id}"), &[("action", "cancel")]).await;
    page.wait_for("received cancel", "the cancelled result")
        .await;
}

/// The ids of the JSON-RPC messages the card of call `n` lists, in order.
fn card_ids(html: &str, n: usize) -> Vec<String> {
    let start = html
        .find(&format!("<article class=\"call\" id=\"call-{n}\""))
        .unwrap_or_else(|| panic!("no card for call {n}: {html}"));
    let card = &html[start..];
    let card = &card[..card.find("</article>").unwrap_or(card.len())];
    card.split(" · id ")
        .skip(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
        .collect()
}

/// Issue 29: two calls of the same tool at once. Each card lists exactly its own
/// messages (by JSON-RPC id and `requestState`), with their times, and says
/// how many times its own request was sent.
#[tokio::test]
async fn two_calls_at_once_each_list_only_their_own_messages() {
    let page = Page::start().await;
    page.post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    let first = page.question_id().await;
    page.post("call", &[("tool", "ask_email"), ("arguments", "{}")])
        .await;
    page.wait_for("1 more question waiting", "the second question queued")
        .await;
    page.post(&format!("q/{first}"), &[("action", "decline")])
        .await;
    page.wait_for("received decline", "the first result").await;
    let second = page.question_id().await;
    assert_ne!(second, first);
    page.post(&format!("q/{second}"), &[("action", "cancel")])
        .await;
    let html = page.wait_for("received cancel", "the second result").await;
    // Calls are numbered with the questions; find the two cards' numbers.
    let numbers: Vec<usize> = html
        .match_indices("<article class=\"call\" id=\"call-")
        .map(|(at, m)| {
            html[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .expect("a number")
        })
        .collect();
    assert_eq!(numbers.len(), 2, "{html}");
    let (a, b) = (card_ids(&html, numbers[0]), card_ids(&html, numbers[1]));
    for ids in [&a, &b] {
        // tools/call, input_required, the retry with the answer, its result.
        assert_eq!(ids.len(), 4, "{ids:?}\n{html}");
        assert_eq!(ids[0], ids[1], "{ids:?}");
        assert_eq!(ids[2], ids[3], "{ids:?}");
        assert_ne!(ids[0], ids[2], "{ids:?}");
    }
    assert!(
        a.iter().all(|id| !b.contains(id)),
        "no message on both cards: {a:?} {b:?}"
    );
    assert_eq!(
        html.matches("tools/call ask_email was sent 2 times")
            .count(),
        2,
        "each card counts its own requests: {html}"
    );
    assert!(
        html.contains("<time datetime=\""),
        "messages carry their time"
    );
    assert!(html.contains("Copy as JSON"), "{html}");
}
