//! End-to-end tests of the server over stdio, in process.

#![allow(clippy::unwrap_used)]

mod bad_input;
mod legacy;
mod modern;
mod support;
mod url;
