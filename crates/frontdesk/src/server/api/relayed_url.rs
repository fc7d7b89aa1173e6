//! [`RelayedUrlQuestion`]: a URL question for a page that is not this
//! server's (a gateway passing on another server's URL question). The
//! engine asks it as any URL question (a flow for its id and its rounds)
//! but answers an accept at once; see [`Question::relayed_url`].

use frontdesk_wire::Meta;

use crate::BoxFuture;
use crate::server::api::context::{Page, ToolContext, UrlMaker};
use crate::server::api::error::AskError;
use crate::server::api::flow_ticket::FlowTicket;
use crate::server::api::question::{Answer, Ask, InputRequest, Question};

impl Question {
    /// Send the person to a page that is **not this server's** (a gateway
    /// passing on another server's URL question): `url` is sent as it is.
    /// The runtime still makes a flow for it (its id is the 2025-11-25
    /// `elicitationId`; it lives in the sealed state from round to round),
    /// but nobody here learns when that page is done, so:
    ///
    /// - `Accepted(())` means the person agreed to open the page, and is
    ///   answered at once (no wait for the flow);
    /// - whoever learns that the page is done completes the flow with the
    ///   connect token of its ticket ([`RelayedUrlQuestion::on_ticket`],
    ///   then [`ToolContext::complete_flow`]); a 2025-11-25 client is then
    ///   sent `notifications/elicitation/complete` with the flow's id, even
    ///   after the call ended (within the human-wait budget). A 2026-07-28
    ///   client is told nothing: its next retry is the way it learns.
    ///
    /// Decline and cancel fail the flow, as for [`Question::url`]. Review
    /// `url` before asking (`frontdesk_url::review`): it reaches the
    /// client as given.
    pub fn relayed_url(message: impl Into<String>, url: impl Into<String>) -> RelayedUrlQuestion {
        RelayedUrlQuestion {
            message: message.into(),
            url: url.into(),
            key: None,
            meta: None,
            on_ticket: None,
        }
    }
}

/// A URL question for someone else's page; see [`Question::relayed_url`].
pub struct RelayedUrlQuestion {
    message: String,
    url: String,
    key: Option<String>,
    meta: Option<Meta>,
    on_ticket: Option<TicketKeeper>,
}

/// What [`RelayedUrlQuestion::on_ticket`] keeps.
type TicketKeeper = Box<dyn FnOnce(&FlowTicket) + Send>;

impl std::fmt::Debug for RelayedUrlQuestion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayedUrlQuestion")
            .field("message", &self.message)
            .field("url", &self.url)
            .field("key", &self.key)
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

impl RelayedUrlQuestion {
    /// Ask under this stable key (the `inputRequests` key on 2026-07-28).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Send `meta` as the question's `_meta` (a gateway: its own review of
    /// the URL, for hosts that show it). Only a 2025-11-25 client gets it:
    /// that revision's `ElicitRequestURLParams` has `_meta`, 2026-07-28's
    /// lists no such member.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// `keep` gets the flow's ticket when the flow is made (on the round
    /// that first asks; a later round of the same call finds the flow in
    /// the sealed state and does not call it): keep its connect token to
    /// complete the flow when the page is done.
    pub fn on_ticket(mut self, keep: impl FnOnce(&FlowTicket) + Send + 'static) -> Self {
        self.on_ticket = Some(Box::new(keep));
        self
    }
}

impl Ask for RelayedUrlQuestion {
    type Output = ();

    fn ask_in<'a>(self, cx: &'a ToolContext) -> BoxFuture<'a, Result<Answer<()>, AskError>>
    where
        Self: 'a,
    {
        let key = match self.key {
            Some(k) => k,
            None => cx
                .call()
                .derived_key(&InputRequest::url(self.message.clone(), self.url.clone())),
        };
        let url = self.url;
        let on_ticket = self.on_ticket;
        let make_url: UrlMaker<'a> = Box::new(move |ticket: &FlowTicket| {
            if let Some(keep) = on_ticket {
                keep(ticket);
            }
            url
        });
        cx.call().ask_url(
            key,
            self.message,
            make_url,
            Page::Relayed { meta: self.meta },
        )
    }
}
