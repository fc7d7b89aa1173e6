//! Integration tests of `#[derive(Form)]` and `#[derive(FormEnum)]`, in one binary.

mod forms;
mod golden;
mod roundtrip;
mod ui;
