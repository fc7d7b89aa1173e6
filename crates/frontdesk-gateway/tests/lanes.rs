//! Lanes to a 2025-11-25 upstream (`Gateway::connect_more`): a call that
//! finds every lane busy takes the first one let go, whichever it is, and a
//! connection being opened holds no other call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::wire::Revision;
use frontdesk_gateway::{Gateway, GatewayOptions};
use serde_json::json;
use support::*;
use tokio::sync::{mpsc, oneshot};

/// A person at a desk: each question waits until the test answers it.
struct Desk {
    asked: mpsc::UnboundedSender<oneshot::Sender<ElicitationResponse>>,
}

impl ElicitationHandler for Desk {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let (answer, answered) = oneshot::channel();
        let _ = self.asked.send(answer);
        Box::pin(async move { answered.await.unwrap_or(ElicitationResponse::Cancel) })
    }
}

/// The gateway in front of the demo on 2025-11-25, opening up to `more`
/// extra connections (counted in `opened`; the `hang_from`th and later
/// never finish connecting), and a 2026-07-28 client of it whose questions
/// arrive on the receiver.
async fn desk_before_lanes(
    more: usize,
    hang_from: usize,
) -> (
    Gateway,
    Client,
    mpsc::UnboundedReceiver<oneshot::Sender<ElicitationResponse>>,
    Arc<AtomicUsize>,
) {
    let gateway = Gateway::new(GatewayOptions::default());
    let up = client_of(
        brightgrid(),
        gateway.upstream_config(ClientConfig::default().protocol(Revision::V2025_11_25)),
        gateway.upstream_handler(),
    )
    .await;
    let opened = Arc::new(AtomicUsize::new(0));
    {
        let opened = Arc::clone(&opened);
        gateway.connect_more(more, move |lane| {
            let nth = opened.fetch_add(1, Ordering::SeqCst) + 1;
            Box::pin(async move {
                if nth >= hang_from {
                    // An upstream that never finishes connecting.
                    std::future::pending::<()>().await;
                }
                let config = lane.config(ClientConfig::default().protocol(Revision::V2025_11_25));
                Ok(client_of(brightgrid(), config, lane.handler()).await)
            })
        });
    }
    let server = gateway.attach(up).await.unwrap().build();
    let (asked, questions) = mpsc::unbounded_channel();
    let down = client_of(
        server,
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Arc::new(Desk { asked }),
    )
    .await;
    (gateway, down, questions, opened)
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

/// Two lanes, both busy; a third call waits, and takes the extra lane as
/// soon as its call ends, while the first lane's person still takes their
/// time.
#[tokio::test]
async fn a_waiting_call_takes_whichever_lane_is_let_go() {
    let (gateway, down, mut questions, opened) = desk_before_lanes(1, usize::MAX).await;
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
    assert_eq!(opened.load(Ordering::SeqCst), 1, "one extra connection");
    gateway.close_extra_connections().await;
}

/// A connection that never finishes opening holds only the call that
/// asked for it: another call still takes a lane that is let go.
#[tokio::test]
async fn a_slow_connection_holds_no_other_call() {
    // Up to two extra lanes; the second never connects.
    let (gateway, down, mut questions, opened) = desk_before_lanes(2, 2).await;
    let _a = book(&down, "A");
    let first = next_question(&mut questions, "call A").await;
    let b = book(&down, "B");
    let extra = next_question(&mut questions, "call B").await;
    let _c = book(&down, "C"); // opens the second extra lane: it hangs
    tokio::time::timeout(Duration::from_secs(10), async {
        while opened.load(Ordering::SeqCst) < 2 {
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
