//! Integration tests of frontdesk-form, in one binary. The official schema.json and the
//! ELICITATION.md §3.4 example come from `frontdesk-testkit`.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

mod accept;
mod build;
mod describe;
mod fuzz_props;
mod golden;
mod parse;
mod props;
mod validation_table;
