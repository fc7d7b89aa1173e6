//! The one interface between the client runtime and whatever shows a request to a
//! person: a terminal form, a browser page, a script of answers, or your own code.
//!
//! The runtime turns both revisions' elicitations (a live 2025-11-25
//! `elicitation/create`, or an entry of a 2026-07-28 `input_required` result) into one
//! [`Elicitation`], hands it to an [`ElicitationHandler`], validates what comes back
//! and sends it. A handler never sees JSON-RPC.

use frontdesk_form::{ParsedForm, ValidationErrors};
use frontdesk_url::UrlReview;
use frontdesk_wire::{ElicitRequestParams, Implementation, InputRequests, InputResponses};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::BoxFuture;

/// Which modes a handler can really serve; the client declares exactly these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HandlerModes {
    /// It can show a form and collect typed answers.
    pub form: bool,
    /// It can show a URL for consent and open it.
    pub url: bool,
}

/// Where an elicitation comes from, so a person can tell parallel requests apart.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationOrigin {
    /// The server asking (its `serverInfo` / `io.modelcontextprotocol/serverInfo`).
    pub server: Implementation,
    /// The tool call (or prompt / resource read) this request belongs to, when known:
    /// e.g. `tools/call book_return`.
    pub request: Option<String>,
    /// The key of the question inside an `input_required` round (2026-07-28), or the
    /// JSON-RPC id of the `elicitation/create` (2025-11-25), for logs.
    pub key: String,
}

impl ElicitationOrigin {
    /// The tool whose call asked (`book_return` for `tools/call book_return`),
    /// when the request is a tool call.
    pub fn tool(&self) -> Option<&str> {
        self.request
            .as_deref()?
            .strip_prefix(frontdesk_wire::method::TOOLS_CALL)?
            .strip_prefix(' ')
            .map(str::trim)
    }
}

/// What the server asks for.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ElicitationKind {
    /// A form: the requestedSchema parsed leniently. Fields the subset does not allow
    /// are kept as unsupported with diagnostics; a renderer shows the rest and offers
    /// decline.
    Form {
        /// The parsed schema and its diagnostics.
        form: ParsedForm,
        /// The values to pre-fill (defaults), from [`frontdesk_form::FormSchema::prefill`].
        prefill: Map<String, Value>,
    },
    /// A URL to open outside the chat, already reviewed.
    Url {
        /// The review: verdict, findings, display parts. Never open a refused URL.
        review: UrlReview,
        /// The 2025-11-25 `elicitationId`, when there is one.
        elicitation_id: Option<String>,
    },
}

/// One request for the person.
#[derive(Debug, Clone)]
pub struct Elicitation {
    /// Who asks and for which call.
    pub origin: ElicitationOrigin,
    /// The server's message, as sent (a renderer escapes it for display).
    pub message: String,
    /// Form or URL.
    pub kind: ElicitationKind,
    /// When the previous answer to this same request failed validation, the problems,
    /// so the form can show them next to the fields. The answer went back to the
    /// person, never to the server.
    pub previous_errors: Option<ValidationErrors>,
    /// Fires when the request is withdrawn (the server cancelled it, the call was
    /// cancelled, or the connection went away): close the form, answer nothing.
    pub cancelled: CancellationToken,
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationResponse {
    /// Form: accept with this content (validated by the runtime before it is sent).
    /// URL: accept means the person consented and the URL was opened; content is empty.
    Accept(Map<String, Value>),
    /// The person explicitly said no.
    Decline,
    /// The person dismissed the request without choosing, or nothing could show it.
    Cancel,
}

/// Shows elicitations to a person (or a script) and returns the answers.
///
/// Honest outcomes: a handler that cannot show a request (no terminal, unsupported
/// field it cannot render) returns [`ElicitationResponse::Cancel`] and logs why; it
/// never invents a decline and never accepts with empty content.
pub trait ElicitationHandler: Send + Sync {
    /// The modes this handler can serve; the client declares only these.
    fn modes(&self) -> HandlerModes;

    /// Show one request and wait for the answer.
    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse>;

    /// Why this request must be refused unseen, if it must: checked before
    /// anything is shown, on the request as the server sent it. A refusal is
    /// no answer of the person's: a 2025-11-25 `elicitation/create` is
    /// answered with `-32602` and the reason; a 2026-07-28 round ends the
    /// call ([`ClientError::Refused`](crate::client::ClientError::Refused)),
    /// nothing is sent back. Both are logged with a
    /// [`Notice::FormRefused`](crate::client::Notice::FormRefused).
    ///
    /// The default refuses nothing (forms the form crate marks unusable are
    /// refused by the runtime either way). A relay that must hold a request
    /// to stricter rules than a person's screen (a gateway passing forms on
    /// only inside the elicitation schema subset) says so here.
    fn refusal(&self, _params: &ElicitRequestParams) -> Option<String> {
        None
    }

    /// The server said (2025-11-25 `notifications/elicitation/complete`)
    /// that the URL interaction `elicitation_id` is done. The runtime
    /// tracks it itself (a `-32042` retry waits for it); a relay that
    /// passed the URL on tells its own client here. The default does
    /// nothing. Called for any id the server names, known or not.
    fn url_completed(&self, _elicitation_id: &str) {}

    /// A whole 2026-07-28 `input_required` round at once, for a relay that
    /// passes a round on as one (all its requests together, under the
    /// server's own keys): `Ok` answers every key of `requests` (or ends the
    /// call with its error); `Err` gives `requests` back, and the runtime
    /// puts each request to [`elicit`](Self::elicit) and the sampling and
    /// roots handlers one after another (the default). Called after
    /// [`refusal`](Self::refusal) let every elicitation of the round
    /// through; `cancelled` fires when the call is given up. The requests
    /// are the handler's: a relay keeps of them only what it needs while
    /// the round is open, not every schema twice.
    #[allow(clippy::type_complexity)] // the future, or the requests given back
    fn round(
        &self,
        requests: InputRequests,
        _cancelled: CancellationToken,
    ) -> Result<BoxFuture<'_, Result<InputResponses, crate::client::ClientError>>, InputRequests>
    {
        Err(requests)
    }
}
