//! The browser host's integration tests, one binary: the page over plain HTTP
//! (`http`), and the browser scenarios in Chromium (`browser`).
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser;
mod http;
mod support;
