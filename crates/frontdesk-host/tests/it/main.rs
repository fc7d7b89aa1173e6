//! frontdesk-host's integration tests, one binary: the form, consent, scripted and
//! parked flows driven as a person (or a script) uses them, the queue between a real
//! client and server, and hostile server text through every printing path.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod flows;
mod hostile;
mod parked;
mod queue;
mod support;
