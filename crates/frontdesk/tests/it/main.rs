//! The `frontdesk` runtime's integration tests, one binary: the server over
//! stdio in process ([`stdio`]), over Streamable HTTP ([`http`]), and the
//! client against the demo and small test servers ([`client`]).
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod client;
mod client_auth;
mod client_bounds;
mod client_hostile;
mod client_listen;
mod client_notes;
mod client_requests;
mod client_streams;
mod client_tasks;
mod fuzz_props;
mod http;
mod shares;
mod stdio;
mod stores;
mod support;
