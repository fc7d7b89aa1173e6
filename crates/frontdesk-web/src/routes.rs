//! The page's HTTP routes, all under the launch secret:
//!
//! | route | what |
//! | --- | --- |
//! | `GET /` | the page |
//! | `GET /app.js`, `GET /app.css`, `GET /favicon.svg` | the embedded script, style and icon |
//! | `GET /status?screen=S&queue=Q` | waits (up to 25 s) until the page is out of date, then the counters and the queue |
//! | `POST /q/{id}/check` | the form's controls → per-field messages from the form model |
//! | `POST /q/{id}` | a choice: `review`, `edit`, `accept`, `open`, `decline`, `cancel`, `stop`; or `answer` (a one-step question's button) |
//! | `POST /call` | call a tool with its arguments (its form's fields, or JSON) |
//! | `POST /protocol` | reconnect with the other revision (the lab) |
//!
//! and one outside it: `GET /open/{code}`, the one-time address the browser is
//! started with (see [`crate::guard`]): `303` to the page once, `404` after.
//!
//! Choices and calls answer `303` back to the page (after waiting up to a second
//! for what they set off, so the page rarely has to refresh twice).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use frontdesk::client::ElicitationResponse;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use frontdesk::wire::Tool;
use frontdesk_host::widgets::{ArgumentsForm, arguments_form};

use crate::draft::Draft;
use crate::guard::{Guard, OPEN_PREFIX, Refusal, guard};
use crate::session::Session;
use crate::state::{FormStage, Question, QuestionKind, Shared};
use crate::view::{self, PageText, queue_items, waiting_note};

const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/app.css");
const ICON: &str = include_str!("assets/favicon.svg");

/// The largest request body the page may send.
const MAX_BODY: usize = 256 * 1024;

/// What the routes share.
pub(crate) struct App {
    pub shared: Arc<Shared>,
    pub session: Arc<Session>,
    pub text: PageText,
    pub stopping: CancellationToken,
    /// `/SECRET/`: where every choice goes back to.
    pub home: String,
}

/// The router, behind the guard.
pub(crate) fn router(app: Arc<App>, guard_state: Arc<Guard>) -> Router {
    let at = |tail: &str| format!("/{}/{tail}", guard_state.secret);
    let codes = Arc::clone(&guard_state);
    Router::new()
        .route(
            &format!("{OPEN_PREFIX}{{code}}"),
            get(
                move |State(app): State<Arc<App>>, Path(code): Path<String>| async move {
                    open(&codes, &app, &code)
                },
            ),
        )
        .route(&at(""), get(page))
        .route(&at("app.js"), get(script))
        .route(&at("app.css"), get(style))
        .route(&at("favicon.svg"), get(icon))
        .route(&at("status"), get(status))
        .route(&at("q/{id}/check"), post(check))
        .route(&at("q/{id}"), post(act))
        .route(&at("call"), post(call))
        .route(&at("protocol"), post(switch))
        .fallback(|| async { Refusal::Secret })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(guard_state, guard))
        .with_state(app)
}

/// `GET /open/{code}`: a code made for this launch and not used yet sends the
/// browser on to the page; anything else is `404`.
fn open(guard: &Guard, app: &App, code: &str) -> Response {
    if guard.redeem_open_code(code, std::time::Instant::now()) {
        return Redirect::to(&app.home).into_response();
    }
    tracing::warn!("an opening address was used again, or too late");
    (
        axum::http::StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Not found: this opening address works once, for a short while. \
         Open the address frontdesk printed in the terminal.",
    )
        .into_response()
}

fn pairs(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

fn value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

async fn page(State(app): State<Arc<App>>) -> Response {
    let html = {
        let mut inner = app.shared.lock();
        let versions = app.shared.versions();
        view::page(&mut inner, versions, &app.text)
    };
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

async fn icon() -> Response {
    ([(header::CONTENT_TYPE, "image/svg+xml")], ICON).into_response()
}

/// The counters the page was rendered with.
#[derive(Debug, Deserialize)]
struct Seen {
    screen: u64,
    queue: u64,
}

async fn status(State(app): State<Arc<App>>, Query(seen): Query<Seen>) -> Response {
    let mut changes = app.shared.subscribe();
    let deadline = tokio::time::sleep(Duration::from_secs(25));
    tokio::pin!(deadline);
    loop {
        let now = *changes.borrow_and_update();
        if now.screen != seen.screen || now.queue != seen.queue {
            break;
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { break },
            () = &mut deadline => break,
            () = app.stopping.cancelled() => break,
        }
    }
    let body = {
        let inner = app.shared.lock();
        let v = app.shared.versions();
        json!({
            "screen": v.screen,
            "queue": v.queue,
            "waiting": queue_items(&inner),
            "note": waiting_note(inner.questions.len().saturating_sub(1)),
        })
    };
    axum::Json(body).into_response()
}

/// The answer to a check for a question no longer being edited (answered,
/// withdrawn, under review): nothing to show; the page refreshes by itself.
fn gone() -> Response {
    axum::Json(json!({ "gone": true })).into_response()
}

async fn check(State(app): State<Arc<App>>, Path(id): Path<u64>, body: Bytes) -> Response {
    let pairs = pairs(&body);
    let mut inner = app.shared.lock();
    let Some(question) = inner.questions.first_mut().filter(|q| q.id == id) else {
        return gone();
    };
    let QuestionKind::Form {
        form,
        draft,
        stage: FormStage::Editing,
    } = &mut question.kind
    else {
        return gone();
    };
    let mut fresh = Draft::from_pairs(&form.schema, &pairs);
    fresh.show_all = draft.show_all;
    let checked = fresh.check(&form.schema);
    *draft = fresh;
    let fields: Vec<Value> = checked
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| json!({ "index": index, "message": message }))
        .collect();
    axum::Json(json!({
        "valid": checked.valid(),
        "fields": fields,
        "general": checked.general,
    }))
    .into_response()
}

/// What a choice leads to.
enum Next {
    Answer(ElicitationResponse),
    /// Cancel, and answer every later question of this server `cancel`.
    Stop,
    Changed,
    Nothing,
}

fn decide(question: &mut Question, action: &str, pairs: &[(String, String)]) -> Next {
    match (&mut question.kind, action) {
        (_, "decline") => Next::Answer(ElicitationResponse::Decline),
        (_, "cancel") => Next::Answer(ElicitationResponse::Cancel),
        (
            QuestionKind::Form {
                form,
                draft,
                stage: stage @ FormStage::Editing,
            },
            "review",
        ) => {
            let mut fresh = Draft::from_pairs(&form.schema, pairs);
            let checked = fresh.check(&form.schema);
            if checked.valid() {
                *stage = FormStage::Review(checked.values);
            } else {
                fresh.show_all = true;
            }
            *draft = fresh;
            Next::Changed
        }
        (
            QuestionKind::Form {
                stage: FormStage::Review(values),
                ..
            },
            "accept",
        ) => Next::Answer(ElicitationResponse::Accept(values.clone())),
        (
            QuestionKind::Form {
                stage: stage @ FormStage::Review(_),
                ..
            },
            "edit",
        ) => {
            *stage = FormStage::Editing;
            Next::Changed
        }
        // Consent: the page opens the link in a new tab on this click, and the
        // server hears accept at once (the flow then finishes by itself).
        (QuestionKind::Url { review, .. }, "open") if review.may_open() => {
            Next::Answer(ElicitationResponse::Accept(Map::new()))
        }
        (_, "stop") => Next::Stop,
        // A one-step question: the button is the answer.
        (QuestionKind::Form { form, .. }, "") => match value(pairs, "answer") {
            Some(answer) => {
                let fresh =
                    Draft::from_pairs(&form.schema, &[("f0".to_owned(), answer.to_owned())]);
                let checked = fresh.check(&form.schema);
                if checked.valid() {
                    Next::Answer(ElicitationResponse::Accept(checked.values))
                } else {
                    Next::Nothing
                }
            }
            None => Next::Nothing,
        },
        _ => Next::Nothing,
    }
}

/// Wait (at most a second) for the screen to move on from `seen`.
async fn settle(app: &App, seen: u64) {
    let mut changes = app.shared.subscribe();
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while changes.borrow_and_update().screen == seen {
            if changes.changed().await.is_err() {
                return;
            }
        }
    })
    .await;
}

async fn act(State(app): State<Arc<App>>, Path(id): Path<u64>, body: Bytes) -> Response {
    let pairs = pairs(&body);
    let action = value(&pairs, "action").unwrap_or("");
    let next = {
        let mut inner = app.shared.lock();
        match inner.questions.first_mut().filter(|q| q.id == id) {
            None => {
                inner.notice = Some("That question is no longer on screen.".to_owned());
                app.shared.bump(true, false);
                Next::Nothing
            }
            Some(question) => {
                let next = decide(question, action, &pairs);
                if matches!(next, Next::Changed) {
                    app.shared.bump(true, false);
                }
                next
            }
        }
    };
    let response = match next {
        Next::Answer(response) => Some(response),
        Next::Stop => {
            let server = app.shared.lock().current().map(|q| q.header.server.clone());
            if let Some(server) = server {
                app.shared.lock().stopped.insert(server);
            }
            Some(ElicitationResponse::Cancel)
        }
        Next::Changed | Next::Nothing => None,
    };
    if let Some(response) = response
        && app.shared.answer(id, response)
    {
        settle(&app, app.shared.versions().screen).await;
    }
    Redirect::to(&app.home).into_response()
}

fn parse_arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err("The arguments must be a JSON object.".to_owned()),
        Err(e) => Err(format!("The arguments are not JSON: {e}")),
    }
}

/// The arguments of `tool` from its form on the page: its fields read by the form
/// model (as a question's are), or its JSON.
fn tool_arguments(tool: &Tool, pairs: &[(String, String)]) -> Result<Value, String> {
    match arguments_form(tool) {
        ArgumentsForm::None => Ok(Value::Object(Map::new())),
        ArgumentsForm::Json(_) => parse_arguments(value(pairs, "arguments").unwrap_or("")),
        ArgumentsForm::Form(parsed) => {
            let checked = Draft::from_pairs(&parsed.schema, pairs).check(&parsed.schema);
            if checked.valid() {
                return Ok(Value::Object(checked.values));
            }
            let problems: Vec<&str> = checked
                .messages
                .iter()
                .flatten()
                .chain(&checked.general)
                .map(String::as_str)
                .collect();
            Err(problems.join("; "))
        }
    }
}

async fn call(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let pairs = pairs(&body);
    let tool = value(&pairs, "tool").unwrap_or("").to_owned();
    let known = app
        .shared
        .lock()
        .connection
        .tools
        .iter()
        .find(|t| t.name == tool)
        .cloned();
    let started = match known {
        Some(found) => {
            tool_arguments(&found, &pairs).and_then(|args| app.session.call(tool.clone(), args))
        }
        None => Err("This server has no such tool.".to_owned()),
    };
    match started {
        Ok(()) => settle(&app, app.shared.versions().screen).await,
        Err(reason) => app.shared.change(|inner| {
            let name = frontdesk_host::sanitize::display_line(&tool, 80);
            inner.notice = Some(format!("{name} was not called: {reason}"));
        }),
    }
    Redirect::to(&app.home).into_response()
}

async fn switch(State(app): State<Arc<App>>) -> Response {
    if !app.text.switchable {
        return Refusal::Secret.into_response();
    }
    app.session.switch().await;
    Redirect::to(&app.home).into_response()
}
