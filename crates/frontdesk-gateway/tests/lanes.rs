//! Lanes to a 2025-11-25 upstream (`Gateway::connect_more`): a call that
//! finds every lane busy takes the first one let go, whichever it is, a
//! connection being opened holds no other call, and each connection tells
//! the upstream exactly the capabilities of the clients whose calls it
//! serves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Direction, Elicitation, ElicitationHandler, ElicitationResponse,
    HandlerModes,
};
use frontdesk::server::Server;
use frontdesk::wire::Revision;
use frontdesk_gateway::{Gateway, GatewayOptions};
use serde_json::{Value, json};
use support::*;
use tokio::sync::{mpsc, oneshot};

/// A person at a desk: each question waits until the test answers it.
/// Form only unless `url`.
struct Desk {
    asked: mpsc::UnboundedSender<oneshot::Sender<ElicitationResponse>>,
    url: bool,
}

impl ElicitationHandler for Desk {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: self.url,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let (answer, answered) = oneshot::channel();
        let _ = self.asked.send(answer);
        Box::pin(async move { answered.await.unwrap_or(ElicitationResponse::Cancel) })
    }
}

/// The capabilities each connection to the upstream declared at
/// `initialize`, the attached upstream's first, in the order opened.
type Declared = Arc<Mutex<Vec<Value>>>;

/// `config` noting the capabilities of its `initialize` in `declared`.
fn noting(config: ClientConfig, declared: &Declared) -> ClientConfig {
    let declared = Arc::clone(declared);
    config.on_wire(move |direction, message: &Value| {
        if direction == Direction::Outgoing && message["method"] == "initialize" {
            let capabilities = message["params"]["capabilities"].clone();
            declared.lock().unwrap().push(capabilities);
        }
    })
}

/// The gateway in front of the demo on 2025-11-25, opening up to `more`
/// extra connections (counted in `opened`; the `hang_from`th and later
/// never finish connecting; what each declared noted in `declared`), and
/// a 2026-07-28 client of it, form only, whose questions arrive on the
/// receiver.
async fn desk_before_lanes(
    more: usize,
    hang_from: usize,
) -> (
    Gateway,
    Client,
    mpsc::UnboundedReceiver<oneshot::Sender<ElicitationResponse>>,
    Arc<AtomicUsize>,
    Declared,
    Server,
) {
    desk_before_lanes_with(more, hang_from, GatewayOptions::default()).await
}

/// [`desk_before_lanes`] with the gateway's `options`.
async fn desk_before_lanes_with(
    more: usize,
    hang_from: usize,
    options: GatewayOptions,
) -> (
    Gateway,
    Client,
    mpsc::UnboundedReceiver<oneshot::Sender<ElicitationResponse>>,
    Arc<AtomicUsize>,
    Declared,
    Server,
) {
    let gateway = Gateway::new(options);
    let declared = Declared::default();
    let base = noting(
        ClientConfig::default().protocol(Revision::V2025_11_25),
        &declared,
    );
    let up = client_of(
        brightgrid(),
        gateway.upstream_config(base.clone()),
        gateway.upstream_handler(),
    )
    .await;
    let opened = Arc::new(AtomicUsize::new(0));
    {
        let opened = Arc::clone(&opened);
        gateway.connect_more(more, move |lane| {
            let nth = opened.fetch_add(1, Ordering::SeqCst) + 1;
            let config = lane.config(base.clone());
            Box::pin(async move {
                if nth >= hang_from {
                    // An upstream that never finishes connecting.
                    std::future::pending::<()>().await;
                }
                Ok(client_of(brightgrid(), config, lane.handler()).await)
            })
        });
    }
    let server = gateway.attach(up).await.unwrap().build();
    let (asked, questions) = mpsc::unbounded_channel();
    let down = client_of(
        server.clone(),
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Arc::new(Desk { asked, url: false }),
    )
    .await;
    (gateway, down, questions, opened, declared, server)
}

/// Starts one `book_return` call; its result text arrives on the handle.
fn book(down: &Client, order: &str) -> tokio::task::JoinHandle<String> {
    let down = down.clone();
    let order = order.to_owned();
    tokio::spawn(async move {
        let result = down
            .call_tool("book_return", json!({"order_id": order}))
            .await
            .unwrap();
        result.content[0].as_text().unwrap().to_owned()
    })
}

async fn next_question(
    questions: &mut mpsc::UnboundedReceiver<oneshot::Sender<ElicitationResponse>>,
    what: &str,
) -> oneshot::Sender<ElicitationResponse> {
    tokio::time::timeout(Duration::from_secs(10), questions.recv())
        .await
        .unwrap_or_else(|_| panic!("{what}: no question within 10 s"))
        .unwrap()
}

async fn no_question_yet(
    questions: &mut mpsc::UnboundedReceiver<oneshot::Sender<ElicitationResponse>>,
) {
    let early = tokio::time::timeout(Duration::from_millis(300), questions.recv()).await;
    assert!(
        early.is_err(),
        "a third call was asked with every lane busy"
    );
}

const DECLINED: &str = "No return was booked: the person declined.";

/// Two lanes, both busy; a third call waits, and takes the second lane as
/// soon as its call ends, while the first lane's person still takes their
/// time. (The client in front is form only, so its calls run on extra
/// connections: the attached upstream declared everything.)
#[tokio::test]
async fn a_waiting_call_takes_whichever_lane_is_let_go() {
    let (gateway, down, mut questions, opened, _, _) = desk_before_lanes(2, usize::MAX).await;
    let a = book(&down, "A");
    let first = next_question(&mut questions, "call A").await;
    let b = book(&down, "B");
    let extra = next_question(&mut questions, "call B").await;
    let c = book(&down, "C");
    no_question_yet(&mut questions).await;

    // The call on the extra lane ends; C is asked there, A still waiting.
    extra.send(ElicitationResponse::Decline).unwrap();
    assert_eq!(b.await.unwrap(), DECLINED);
    let third = next_question(&mut questions, "call C after B ended").await;
    assert!(!a.is_finished());

    third.send(ElicitationResponse::Decline).unwrap();
    first.send(ElicitationResponse::Decline).unwrap();
    assert_eq!(c.await.unwrap(), DECLINED);
    assert_eq!(a.await.unwrap(), DECLINED);
    assert_eq!(opened.load(Ordering::SeqCst), 2, "two extra connections");
    gateway.close_extra_connections().await;
}

/// A connection that never finishes opening holds only the call that
/// asked for it: another call still takes a lane that is let go.
#[tokio::test]
async fn a_slow_connection_holds_no_other_call() {
    // Up to three extra lanes; the third never connects.
    let (gateway, down, mut questions, opened, _, _) = desk_before_lanes(3, 3).await;
    let _a = book(&down, "A");
    let first = next_question(&mut questions, "call A").await;
    let b = book(&down, "B");
    let extra = next_question(&mut questions, "call B").await;
    let _c = book(&down, "C"); // opens the third extra lane: it hangs
    tokio::time::timeout(Duration::from_secs(10), async {
        while opened.load(Ordering::SeqCst) < 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("call C asks for another connection");
    let d = book(&down, "D");
    no_question_yet(&mut questions).await;

    extra.send(ElicitationResponse::Decline).unwrap();
    assert_eq!(b.await.unwrap(), DECLINED);
    let fourth = next_question(&mut questions, "call D after B ended").await;
    fourth.send(ElicitationResponse::Decline).unwrap();
    assert_eq!(d.await.unwrap(), DECLINED);
    drop(first);
    gateway.close_extra_connections().await;
}

/// A 2025-11-25 upstream learns what the client in front declared, not
/// more: the attached upstream (told everything the gateway can pass on)
/// serves no call of a form-only client; that call runs on a connection
/// that declared form elicitation and nothing else, and a client that
/// also takes URL mode gets one of its own. At the bound, an idle
/// connection of other capabilities gives its place up.
#[tokio::test]
async fn each_connection_declares_what_its_calls_clients_declared() {
    let (gateway, form_only, mut questions, opened, declared, server) =
        desk_before_lanes(1, usize::MAX).await;
    let elicitation = |caps: &Value| {
        (
            caps["elicitation"].clone(),
            caps.get("sampling").is_some(),
            caps.get("roots").is_some(),
        )
    };
    assert_eq!(
        elicitation(&declared.lock().unwrap()[0]),
        (json!({"form": {}, "url": {}}), true, true),
        "the attached upstream"
    );

    let a = book(&form_only, "A");
    next_question(&mut questions, "the form-only call")
        .await
        .send(ElicitationResponse::Decline)
        .unwrap();
    assert_eq!(a.await.unwrap(), DECLINED);
    assert_eq!(opened.load(Ordering::SeqCst), 1);
    assert_eq!(
        elicitation(&declared.lock().unwrap()[1]),
        (json!({"form": {}}), false, false),
        "the form-only client's connection"
    );

    // A client taking URL mode too: the one extra place goes to it.
    let (asked, mut url_questions) = mpsc::unbounded_channel();
    let with_url = client_of(
        server,
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Arc::new(Desk { asked, url: true }),
    )
    .await;
    let b = book(&with_url, "B");
    next_question(&mut url_questions, "the form-and-URL call")
        .await
        .send(ElicitationResponse::Decline)
        .unwrap();
    assert_eq!(b.await.unwrap(), DECLINED);
    assert_eq!(opened.load(Ordering::SeqCst), 2);
    assert_eq!(
        elicitation(&declared.lock().unwrap()[2]),
        (json!({"form": {}, "url": {}}), false, false),
        "the form-and-URL client's connection"
    );
    gateway.close_extra_connections().await;
}

/// A 2026-07-28 client that never comes back for its round holds its
/// connection only while nobody else needs it: with every connection busy,
/// a new call takes the connection of the round that waited longest (past
/// `yield_after`), and a late retry of that round is refused.
#[tokio::test]
async fn an_abandoned_round_gives_its_connection_to_a_waiting_call() {
    let mut options = GatewayOptions::default();
    options.yield_after = Duration::from_millis(200);
    let (gateway, down, mut questions, opened, _, _) =
        desk_before_lanes_with(1, usize::MAX, options).await;
    // Round one of a call, never retried (no `input_required` handling).
    let mut params = serde_json::Map::new();
    params.insert("name".into(), json!("book_return"));
    params.insert("arguments".into(), json!({"order_id": "A"}));
    let abandoned = down.request("tools/call", params.clone()).await.unwrap();
    assert_eq!(abandoned["resultType"], "input_required");
    assert_eq!(gateway.held_calls(), 1);

    // The one connection is held by it; a new call waits, then takes it.
    let b = book(&down, "B");
    next_question(&mut questions, "the call after the abandoned round")
        .await
        .send(ElicitationResponse::Decline)
        .unwrap();
    assert_eq!(b.await.unwrap(), DECLINED);
    assert_eq!(opened.load(Ordering::SeqCst), 1, "no second connection");

    // The abandoned round's late retry is refused.
    params.insert(
        "inputResponses".into(),
        json!({"upstream-1": {"action": "decline"}}),
    );
    params.insert("requestState".into(), abandoned["requestState"].clone());
    let late = down.request("tools/call", params).await;
    let refused = format!("{late:?}");
    assert!(
        refused.contains("requestState is invalid or expired"),
        "{refused}"
    );
    gateway.close_extra_connections().await;
}
