//! The `frontdesk` command's tests, one binary: as a person uses it in a terminal
//! (tmux), as a script runs it (exit statuses, stdout, stderr), and against hostile
//! servers.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse;
mod allocator;
mod audit;
mod call;
mod check;
mod connect;
mod data_dir;
mod errors;
mod fleet;
mod gateway;
mod hostile;
mod lab;
mod log_secrets;
mod park;
mod requests;
mod serve_archive;
mod serve_config;
mod serve_crash;
mod serve_http;
mod serve_limits;
mod serve_metrics;
mod serve_pages;
mod serve_restart;
mod serve_signals;
mod serve_tasks;
mod serve_traces;
mod signin;
mod support;
mod tmux;
mod web_open;
