//! The server over stdio, in process over a duplex pipe: malformed input,
//! 2025-11-25 sessions, 2026-07-28 rounds, URL flows, resources and
//! completion, notifications and the client's model, tasks.

mod bad_input;
mod forward;
mod legacy;
mod modern;
mod notify;
mod one_revision;
mod principal;
mod relayed_url;
mod resources;
mod tasks;
mod url;
