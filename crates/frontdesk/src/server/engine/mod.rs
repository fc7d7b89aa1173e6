//! The engine: one call's life, whatever the revision. A [`Call`](call::Call)
//! carries the request's server, principal and sink and implements the
//! handlers' [`CallPort`](crate::server::api::context::CallPort); `invoke`
//! runs a handler; `asking` holds what every conversation shares when it
//! asks (the answer checks, and a URL question's whole flow); `flow_port`
//! keeps URL flows; `requests` holds the steps every revision shares (lists,
//! lookups, bounds); the tables (sessions, subscriptions, tasks, kept retry
//! replies, load) live here too. The revision modules above ask questions
//! and find answers through the [`Conversation`](call::Conversation) trait.

pub(crate) mod asking;
pub(crate) mod call;
pub(crate) mod completions;
pub(crate) mod drain;
pub(crate) mod flow_port;
pub(crate) mod inner;
pub(crate) mod invoke;
pub(crate) mod load;
pub(crate) mod notify;

pub(crate) mod replies;
pub(crate) mod requests;
pub(crate) mod session;
pub(crate) mod states;
pub(crate) mod subscribed;
pub(crate) mod tasks;
