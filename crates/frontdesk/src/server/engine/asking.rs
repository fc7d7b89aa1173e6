//! What every conversation shares when it asks: reading the person's answer
//! out of an elicitation result, and the whole life of a URL question
//! ([`ask_url`]: create the flow → put the question → decline or cancel
//! fails the flow → accept waits for it to complete; a *relayed* question,
//! whose page is someone else's, answers an accept at once and leaves the
//! flow to whoever learns that page's outcome). Each conversation
//! plays only its part of a URL question, through [`UrlRole`]: how the
//! question reaches the client, how its answer is found, how long it waits
//! for the flow.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::server::api::config::ServerConfig;
use crate::server::api::context::{Page, UrlMaker};
use crate::server::api::error::AskError;
use crate::server::api::question::{Answer, ElicitOutcome, InputRequest, parse_elicit_result};
use crate::server::engine::call::Call;
use crate::server::engine::flow_port::Progress;

/// The person's answer in the elicitation result `result` of the question
/// under `key`; a malformed result is [`AskError::InvalidResponse`].
pub(crate) fn outcome(key: &str, result: &Value) -> Result<ElicitOutcome, AskError> {
    parse_elicit_result(result).map_err(|reason| AskError::InvalidResponse {
        key: key.to_string(),
        reason,
    })
}

/// The answer to a form question in its (checked) elicitation result.
pub(crate) fn form_answer(
    key: &str,
    result: &Value,
) -> Result<Answer<Map<String, Value>>, AskError> {
    Ok(match outcome(key, result)? {
        ElicitOutcome::Accept(content) => Answer::Accepted(content),
        ElicitOutcome::Decline => Answer::Declined,
        ElicitOutcome::Cancel => Answer::Cancelled,
    })
}

/// A URL flow a question sends the person to.
pub(crate) struct UrlFlow {
    /// The flow's id (2025-11-25's `elicitationId`).
    pub(crate) id: String,
    /// The URL the question carries.
    pub(crate) url: String,
}

/// A URL question as [`ask_url`] puts it to a conversation.
pub(crate) struct UrlAsk<'a> {
    /// The question's key (empty when the conversation is not
    /// [`keyed`](UrlRole::keyed)).
    pub(crate) key: &'a str,
    /// The question as sent.
    pub(crate) request: InputRequest,
    /// The flow it sends the person to.
    pub(crate) flow: UrlFlow,
    /// Whether the flow was made by this ask (not found in a prior round).
    pub(crate) fresh: bool,
}

/// What the client answered to a URL question.
pub(crate) struct UrlReply {
    /// The client's elicitation result.
    pub(crate) result: Value,
    /// The flow completed while the question was open, and the client was
    /// already told: an `accept` needs no wait.
    pub(crate) completed: bool,
}

/// A conversation's part in a URL question; the rest is [`ask_url`].
pub(crate) trait UrlRole: Send + Sync {
    /// Whether the client can take `request` now (its capabilities; the
    /// 2025-11-25 session also initialized); the error when not.
    fn check(&self, request: &InputRequest) -> Result<(), AskError>;
    /// Whether questions go by their keys. 2025-11-25 sends none on the
    /// wire, so its errors name none (the key is empty).
    fn keyed(&self) -> bool {
        true
    }
    /// How long a new flow lives.
    fn flow_ttl(&self, config: &ServerConfig) -> Duration;
    /// The flow a question under `key` already has (made in an earlier
    /// round of the same call).
    fn known_flow(&self, _key: &str) -> Result<Option<UrlFlow>, AskError> {
        Ok(None)
    }
    /// Put the question to the client and find its answer (or suspend the
    /// handler until a later round brings one).
    fn ask<'a>(
        &'a self,
        call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<UrlReply, AskError>>;
    /// After an `accept`: wait, as long as this conversation waits, for the
    /// flow to leave `Pending`; where it stands then.
    fn wait_for_flow<'a>(
        &'a self,
        call: &'a Call,
        flow_id: &'a str,
    ) -> BoxFuture<'a, Result<Progress, AskError>>;
    /// The flow completed after the `accept` (2025-11-25 announces it).
    fn completed(&self, _call: &Call, _flow_id: &str) {}
    /// A relayed question was accepted: its flow completes later, when
    /// whoever owns the page says so (2025-11-25 announces it then, on the
    /// session, the call being over by then perhaps). By default nothing:
    /// a 2026-07-28 client is told nothing of a flow.
    fn announce_later(&self, _call: &Call, _flow_id: &str) {}
    /// The flow is still pending when [`wait_for_flow`](Self::wait_for_flow) gave up. By
    /// default the flow fails and the question times out.
    fn still_pending<'a>(
        &'a self,
        call: &'a Call,
        ask: &'a UrlAsk<'a>,
    ) -> BoxFuture<'a, Result<Answer<()>, AskError>> {
        Box::pin(async move {
            call.server.flows.fail(&ask.flow.id, "timed out").await;
            Err(AskError::TimedOut)
        })
    }
}

/// A URL question under `key` through `role`: the flow made (or found from
/// an earlier round), the question put; a decline or cancel fails the flow,
/// an accept waits for it to complete (a flow that failed meanwhile is
/// `Cancelled`) — unless the question is `relayed`: then the accept is the
/// answer (the person agreed to open someone else's page), and the flow is
/// left pending for its owner to complete
/// ([`UrlRole::announce_later`]).
pub(crate) async fn ask_url<R: UrlRole + ?Sized>(
    role: &R,
    call: &Call,
    key: &str,
    message: &str,
    make_url: UrlMaker<'_>,
    page: Page,
) -> Result<Answer<()>, AskError> {
    let key = if role.keyed() { key } else { "" };
    role.check(&InputRequest::url(String::new(), String::new()))?;
    let (flow, fresh) = match role.known_flow(key)? {
        Some(flow) => (flow, false),
        None => (
            new_flow(call, role.flow_ttl(&call.server.config), message, make_url).await?,
            true,
        ),
    };
    let (relayed, meta) = match page {
        Page::Own => (false, None),
        Page::Relayed { meta } => (true, meta),
    };
    let ask = UrlAsk {
        key,
        request: InputRequest::url(message.to_string(), flow.url.clone()).with_meta(meta),
        flow,
        fresh,
    };
    let reply = role.ask(call, &ask).await?;
    let flows = &call.server.flows;
    match outcome(key, &reply.result)? {
        ElicitOutcome::Accept(_) if reply.completed => Ok(Answer::Accepted(())),
        ElicitOutcome::Decline => {
            flows.fail(&ask.flow.id, "declined").await;
            Ok(Answer::Declined)
        }
        ElicitOutcome::Cancel => {
            flows.fail(&ask.flow.id, "cancelled").await;
            Ok(Answer::Cancelled)
        }
        ElicitOutcome::Accept(_) if relayed => {
            role.announce_later(call, &ask.flow.id);
            Ok(Answer::Accepted(()))
        }
        ElicitOutcome::Accept(_) => match role.wait_for_flow(call, &ask.flow.id).await? {
            Progress::Complete => {
                role.completed(call, &ask.flow.id);
                Ok(Answer::Accepted(()))
            }
            Progress::Failed => Ok(Answer::Cancelled),
            Progress::Pending => role.still_pending(call, &ask).await,
        },
    }
}

/// A new pending flow of `call`'s principal, living `ttl`, and the URL
/// `make_url` makes for it.
pub(crate) async fn new_flow(
    call: &Call,
    ttl: Duration,
    message: &str,
    make_url: UrlMaker<'_>,
) -> Result<UrlFlow, AskError> {
    let ticket = call
        .server
        .flows
        .create(&call.principal, &call.quota_key, ttl, message)
        .await?;
    let url = make_url(&ticket);
    Ok(UrlFlow {
        id: ticket.flow_id,
        url,
    })
}
