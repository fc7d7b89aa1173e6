//! Integration tests of `#[derive(Form)]` and `#[derive(FormEnum)]`, in one binary.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

mod forms;
mod golden;
mod roundtrip;
mod ui;
