//! Integration tests for frontdesk-url (one test binary).

#![allow(clippy::unwrap_used)]

mod display;
mod fuzz_props;
mod policy;
mod props;
mod table;
