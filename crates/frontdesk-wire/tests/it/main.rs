//! Integration tests of frontdesk-wire, in one binary. The official schema.json, its
//! examples and the digests' labelled examples come from `frontdesk-testkit`.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

mod digest_vs_schema;
mod examples_2026;
mod fuzz_props;
mod golden_2025_11_25;
mod jsonrpc_classifier;
mod modern_2026;
mod schema_sanity;
mod tasks_2026;
