//! The browser host's integration tests, one binary: the page over plain HTTP
//! (`http`), and the browser scenarios in Chromium (`browser`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser;
mod http;
mod support;
