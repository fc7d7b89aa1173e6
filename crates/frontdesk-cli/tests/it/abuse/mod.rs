//! The abuse suite: each way one anonymous client could once make
//! `frontdesk serve --http` unavailable to everyone (issue 10's table), done
//! against a real server process on loopback, under the usual limit of
//! 1,024 open files, while a well-behaved client on another loopback address
//! completes 2026-07-28 and 2025-11-25 calls throughout; every one of its
//! calls must succeed. Each row prints its figures (`abuse | …` lines; run
//! with `--nocapture` to see them). The rows run against `--store memory`;
//! the redemption row (retries without answers) also against `--store
//! sqlite` and `--store redis` (the Redis at `FRONTDESK_REDIS_URL`, skipped
//! with a note when it is unset unless `FRONTDESK_REQUIRE_REDIS=1`), its
//! lines naming the store.
//!
//! Bounded in count and time and stopping by itself: the short run (the
//! default, and what CI runs) does a tenth or less of the issue's counts;
//! `FRONTDESK_ABUSE=full` does the issue's counts.
//!
//! ```text
//! cargo test -p frontdesk-cli --test it abuse -- --nocapture --test-threads 1
//! FRONTDESK_REDIS_URL=redis://127.0.0.1:6379 cargo test -p frontdesk-cli --test it abuse_retries -- --nocapture --test-threads 1
//! FRONTDESK_ABUSE=full cargo test --release -p frontdesk-cli --test it abuse -- --nocapture --test-threads 1
//! ```

mod connections;
mod harness;
mod resources;
mod sessions;
mod shares;
mod stores;
