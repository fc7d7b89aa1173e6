//! [`FlowTicket`]: what a handler gets to build a URL question's page address.

/// What a handler gets to build the page address of a URL question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowTicket {
    /// The flow id (2025-11-25 `elicitationId`; kept in `requestState` on 2026-07-28).
    pub flow_id: String,
    /// The single-use secret the page presents to complete the flow; put it in
    /// the URL (it is bound to the flow's principal and expires with it).
    pub connect_token: String,
}
