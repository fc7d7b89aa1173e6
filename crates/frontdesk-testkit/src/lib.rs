//! Test data and test helpers for the frontdesk workspace: dev-only, never published.
//!
//! The tests of the pure crates need the official MCP `schema.json` of both protocol
//! revisions, the official 2026-07-28 examples and the labelled examples of the project's
//! protocol digests. This crate carries them in the repository (under `data/`, with their
//! origin in `data/spec/README.md` and `data/digests/README.md`), so `cargo test` passes in
//! a fresh clone with nothing beside it. Paths are built from this crate's own
//! `CARGO_MANIFEST_DIR`, so every crate that uses it gets the same, correct paths.
//!
//! ```
//! use frontdesk_testkit::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::load("2026-07-28");
//! assert!(schema.is_valid("ElicitResult", &json!({ "action": "decline" })));
//! assert!(!schema.is_valid("ElicitResult", &json!({ "action": "maybe" })));
//! ```
//!
//! What it offers: locating and reading the data ([`data_dir`], [`read_json`]), a
//! revision's `schema.json` ([`schema_json`]) and a validator for any of its `$defs`
//! entries ([`Schema`]), the official examples ([`example_folders`], [`example_files`],
//! [`example`]), the digests' labelled examples ([`digest_examples`],
//! [`elicitation_form_example`]), a proptest strategy for arbitrary JSON
//! ([`arb_json`]), the first messages of a test client ([`TestClient`]: the
//! `_meta` of a 2026-07-28 request, the 2025-11-25 `initialize`; [`initialized`]),
//! the messages of a response sent as Server-Sent Events ([`sse_data`],
//! [`take_sse_data`]), and the Redis server a test may use ([`redis_url`]).
//!
//! Every function panics with a readable message when the data is missing or malformed:
//! in a test that is a failure with its reason. This crate depends on no frontdesk crate
//! (the pure crates have it as a dev-dependency; a dependency back would be a cycle).

mod arb;
mod client;
mod examples;
mod schema;
mod services;
mod sse;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use arb::arb_json;
pub use client::{LEGACY, MODERN, TestClient, initialized};
pub use examples::{
    DigestExample, EXAMPLES_REVISION, digest_examples, elicitation_form_example, example,
    example_files, example_folders, examples_dir,
};
pub use schema::Schema;
pub use services::redis_url;
pub use sse::{sse_data, take_sse_data};

/// The protocol revisions whose `schema.json` is carried, oldest first.
pub const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// This crate's `data/` folder.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// `data/spec/`: the official files, one folder per revision.
pub fn spec_dir() -> PathBuf {
    data_dir().join("spec")
}

/// Reads a text file, panicking with the path on failure.
pub fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Reads and parses a JSON file (key order kept), panicking with the path on failure.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read_text(path))
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The path of a revision's official `schema.json`; panics for a revision not carried.
pub fn schema_path(revision: &str) -> PathBuf {
    assert!(
        REVISIONS.contains(&revision),
        "no schema.json for revision {revision:?}; carried: {REVISIONS:?}"
    );
    spec_dir().join(revision).join("schema.json")
}

/// A revision's official `schema.json`, parsed.
pub fn schema_json(revision: &str) -> Value {
    read_json(&schema_path(revision))
}

#[cfg(test)]
mod tests;
