//! Putting a held call's open question to the client in front of it: a
//! form or a URL (with the gateway's own flow) under the key `upstream-N`,
//! sampling and roots as a one-request round, a 2026-07-28 upstream's
//! whole round under the upstream's keys; and completing the flows of
//! relayed URL questions whose page is done upstream.

use std::sync::Arc;

use frontdesk::client::ElicitationResponse;
use frontdesk::server::question::{FlowTicket, InputRequest};
use frontdesk::server::{Answer, AskError, Question, ToolContext, ToolError};
use frontdesk::wire::{CreateMessageResult, ListRootsResult};
use serde_json::{Map, Value};

use super::{Asks, HeldCall, Relayed, Reply};

/// Put the open question `seq` to the client in front, under the key
/// `upstream-N` (a round: under the upstream's keys); its answer for the
/// upstream. A question that cannot be put is `cancel` (an elicitation) or
/// an error naming why (sampling, roots, a round); a round's answer that is
/// not a result of its request is the client's error (`-32602`).
pub(super) async fn ask_open(
    cx: &ToolContext,
    call: &Arc<HeldCall>,
    seq: u32,
    message: String,
    asks: Asks,
) -> Result<Reply, ToolError> {
    let key = format!("upstream-{seq}");
    let answer = match asks {
        Asks::Form(schema) => cx.ask(Question::schema(message, schema).key(key)).await,
        Asks::Url {
            url,
            upstream_id,
            review,
        } => {
            let keep = Arc::clone(call);
            let page = url.clone();
            let mut question = Question::relayed_url(message, url);
            if let Some(review) = review {
                question = question.meta(review);
            }
            let question = question.key(key).on_ticket(move |t| {
                keep.keep_flow(Relayed {
                    upstream_id,
                    url: page,
                    ticket: t.clone(),
                });
            });
            cx.ask(question).await.map(|a| a.map(|()| Map::new()))
        }
        Asks::Sampling(params) => {
            let asked = cx
                .ask_all(vec![(key, InputRequest::sampling(*params))])
                .await;
            return Ok(Reply::Sampled(
                only::<CreateMessageResult>(asked, seq).map(Box::new),
            ));
        }
        Asks::Roots => {
            let asked = cx.ask_all(vec![(key, InputRequest::roots())]).await;
            return Ok(Reply::Roots(
                only::<ListRootsResult>(asked, seq).map(|r| r.roots),
            ));
        }
        Asks::Round(questions) => {
            return match cx.ask_all(questions).await {
                Ok(answers) => Ok(Reply::Round(Ok(answers))),
                Err(e @ AskError::InvalidResponse { .. }) => Err(e.into()),
                Err(e) => {
                    tracing::info!(error = %e, seq, "the client in front did not answer the round");
                    Ok(Reply::Round(Err(format!(
                        "the client behind this gateway did not answer: {e}"
                    ))))
                }
            };
        }
    };
    Ok(Reply::Elicit(match answer {
        Ok(Answer::Accepted(content)) => ElicitationResponse::Accept(content),
        Ok(Answer::Declined) => ElicitationResponse::Decline,
        Ok(Answer::Cancelled) => ElicitationResponse::Cancel,
        Err(e) => {
            tracing::warn!(error = %e, seq, "the question could not be put to the client; the upstream gets cancel");
            ElicitationResponse::Cancel
        }
    }))
}

/// The one answer of an `ask_all`, read as `T`; or why there is none.
fn only<T: frontdesk::serde::de::DeserializeOwned>(
    asked: Result<Vec<Value>, frontdesk::server::AskError>,
    seq: u32,
) -> Result<T, String> {
    let answer = match asked {
        Ok(mut answers) => answers.pop().ok_or("no answer came back")?,
        Err(e) => {
            tracing::info!(error = %e, seq, "the client in front did not answer the request");
            return Err(format!(
                "the client behind this gateway did not answer: {e}"
            ));
        }
    };
    serde_json::from_value(answer)
        .map_err(|e| format!("the client behind this gateway answered something else: {e}"))
}

/// Complete the gateway's flows of relayed URL questions whose page is done
/// upstream (a 2025-11-25 client is then told, under the id it was given).
pub(super) async fn complete(cx: &ToolContext, tickets: Vec<FlowTicket>) {
    for ticket in tickets {
        match cx.complete_flow(&ticket.connect_token, None).await {
            Ok(()) => tracing::info!(flow = %ticket.flow_id, "relayed URL interaction complete"),
            Err(e) => {
                tracing::info!(flow = %ticket.flow_id, error = %e, "a relayed URL flow could not be completed");
            }
        }
    }
}
