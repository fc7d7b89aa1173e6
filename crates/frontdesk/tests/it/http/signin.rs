//! Who answers a URL flow: the demo sign-in page with an authenticator,
//! driven as a browser drives it (a cookie jar, the page's own `Origin`).
//!
//! The attacks, reproduced: Alice's sign-in link forwarded to Bob and
//! completed by him (refused with a page that says why; the flow stays
//! pending and Alice can still finish it), and Alice's sealed state replayed
//! with Bob's bearer token (refused).

use std::sync::Arc;

use frontdesk::http::auth::tokens::StaticTokens;
use frontdesk::http::{self, HttpOptions};
use frontdesk_demo::signin::SignIn;
use reqwest::header::SET_COOKIE;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use std::time::Duration;

use frontdesk::server::{Server, ServerConfig};
use frontdesk_demo::DemoOptions;

use crate::support::http::{MODERN, all_messages, content_type, modern_call};
use crate::support::token_of;

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-0123456789ab";

struct Running {
    base: String,
    mcp: String,
    _stop: oneshot::Sender<()>,
}

async fn start() -> Running {
    let tokens = Arc::new(StaticTokens::parse(&format!("alice {ALICE}\nbob {BOB}\n")).unwrap());
    let mut options = HttpOptions::new();
    options.authenticator = Some(tokens.clone());
    let listener = http::bind("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    let (base, mcp) = (listener.base_url(), listener.endpoint_url());
    // A pending flow holds a retry this long before asking again.
    let mut config = ServerConfig::default();
    config.url_hold = Duration::from_millis(300);
    let server = frontdesk_demo::register(
        Server::builder("signin-test", "1").config(config),
        &base,
        &DemoOptions::default(),
    )
    .build();
    let page = SignIn::new(server.clone()).authenticator(tokens).router();
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(listener.routes(page).serve_with_shutdown(server, async {
        let _ = rx.await;
    }));
    Running {
        base,
        mcp,
        _stop: tx,
    }
}

/// A 2026-07-28 POST as the client of `token`.
async fn modern(s: &Running, token: &str, body: &Value) -> Value {
    let r = reqwest::Client::new()
        .post(&s.mcp)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", body["params"]["name"].as_str().unwrap())
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    if content_type(&r).starts_with("text/event-stream") {
        return all_messages(r).await.pop().unwrap();
    }
    r.json().await.unwrap()
}

/// Round 1 of `connect_store_account` for `token`: the sign-in URL and the state.
async fn start_connect(s: &Running, token: &str) -> (String, String) {
    let v = modern(
        s,
        token,
        &modern_call(1, "connect_store_account", json!({})),
    )
    .await;
    let r = &v["result"];
    assert_eq!(r["resultType"], "input_required", "{v}");
    (
        r["inputRequests"]["signin"]["params"]["url"]
            .as_str()
            .unwrap()
            .to_string(),
        r["requestState"].as_str().unwrap().to_string(),
    )
}

async fn retry(s: &Running, token: &str, state: &str) -> Value {
    let mut body = modern_call(2, "connect_store_account", json!({}));
    body["params"]["inputResponses"] = json!({"signin": {"action": "accept"}});
    body["params"]["requestState"] = json!(state);
    modern(s, token, &body).await
}

/// A browser: its own cookie jar, sending the page's `Origin` on POSTs.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap()
}

async fn submit(
    browser: &reqwest::Client,
    s: &Running,
    form: &[(&str, &str)],
) -> (u16, String, Option<String>) {
    let r = browser
        .post(format!("{}/signin", s.base))
        .header("origin", &s.base)
        .form(form)
        .send()
        .await
        .unwrap();
    assert!(
        content_type(&r).starts_with("text/html"),
        "errors are pages for a person"
    );
    let cookie = r
        .headers()
        .get(SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), r.text().await.unwrap(), cookie)
}

#[tokio::test]
async fn a_forwarded_link_completed_by_someone_else_is_refused_and_stays_the_owners() {
    let s = start().await;
    let (url, state) = start_connect(&s, ALICE).await;
    let token = token_of(&url);

    // Alice forwards the link; Bob opens it and signs in as himself.
    let bob = browser();
    let page = bob.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("name=access_token"));
    let (status, html, cookie) =
        submit(&bob, &s, &[("token", &token), ("access_token", BOB)]).await;
    assert_eq!(status, 403, "{html}");
    assert!(html.contains("This link belongs to someone else"), "{html}");
    assert!(html.contains("signed in as <b>bob</b>"), "{html}");
    assert!(!html.contains("alice"), "the owner is not revealed: {html}");
    let cookie = cookie.expect("Bob is signed in now");
    for flag in [
        "fd_signin=",
        "HttpOnly",
        "SameSite=Lax",
        "Path=/signin",
        "Max-Age=600",
    ] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    // Signed in by cookie now, Bob tries again: still not his.
    let (status, _, _) = submit(&bob, &s, &[("token", &token)]).await;
    assert_eq!(status, 403);
    // Nothing completed: Alice's retry is asked the same URL again.
    let v = retry(&s, ALICE, &state).await;
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
    let state = v["result"]["requestState"].as_str().unwrap().to_string();

    // Alice, in her own browser, completes her own flow.
    let alice = browser();
    let (status, html, cookie) =
        submit(&alice, &s, &[("token", &token), ("access_token", ALICE)]).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Your store account is connected"));
    assert!(cookie.is_some());
    let v = retry(&s, ALICE, &state).await;
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    assert_eq!(
        v["result"]["content"][0]["text"],
        "Your store account is connected."
    );

    // Her next link needs no new sign-in: the cookie says who she is.
    let (url2, _) = start_connect(&s, ALICE).await;
    let page = alice.get(&url2).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("signed in as <b>alice</b>"), "{page}");
    let (status, _, _) = submit(&alice, &s, &[("token", &token_of(&url2))]).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn sign_in_needs_valid_credentials_and_a_valid_cookie() {
    let s = start().await;
    let (url, _) = start_connect(&s, ALICE).await;
    let token = token_of(&url);
    let nobody = browser();
    // Neither credentials nor cookie.
    let (status, html, _) = submit(&nobody, &s, &[("token", &token)]).await;
    assert_eq!(status, 401);
    assert!(html.contains("Sign in first"));
    // Wrong credentials.
    let (status, html, cookie) = submit(
        &nobody,
        &s,
        &[
            ("token", &token),
            ("access_token", "guess-guess-guess-guess"),
        ],
    )
    .await;
    assert_eq!(status, 401);
    assert!(html.contains("Sign-in failed") && cookie.is_none());
    // A forged cookie is nobody.
    let r = reqwest::Client::new()
        .post(format!("{}/signin", s.base))
        .header("origin", &s.base)
        .header("cookie", "fd_signin=fd1.signin.AAAA")
        .form(&[("token", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // A POST from another site is refused before anything else.
    let r = reqwest::Client::new()
        .post(format!("{}/signin", s.base))
        .header("origin", "http://evil.example")
        .form(&[("token", token.as_str()), ("access_token", ALICE)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(content_type(&r).starts_with("text/html"));
    // After all that, the link still works for Alice.
    let (status, _, _) = submit(
        &browser(),
        &s,
        &[("token", &token), ("access_token", ALICE)],
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_state_replayed_with_another_principals_token_is_refused() {
    let s = start().await;
    let (_, state) = start_connect(&s, ALICE).await;
    let v = retry(&s, BOB, &state).await;
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert_eq!(
        v["error"]["message"],
        "Invalid params: requestState is invalid or expired"
    );
    // Alice's own retry still opens it (the refusal redeemed nothing).
    let v = retry(&s, ALICE, &state).await;
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
}
