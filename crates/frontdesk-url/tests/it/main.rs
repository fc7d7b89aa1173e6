//! Integration tests for frontdesk-url (one test binary).
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used)]

mod display;
mod fuzz_props;
mod policy;
mod props;
mod table;
