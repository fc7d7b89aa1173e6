//! A server author's examples of frontdesk, each a small program to run and copy:
//!
//! | Example | What it shows |
//! | --- | --- |
//! | `readme_server` | the README's server: a tool that asks a typed form, on stdio |
//! | `url_sign_in` | URL mode: a tool sends the person to a sign-in page the server serves next to its Streamable HTTP endpoint; the page completes the flow |
//! | `long_task` | a long-running tool that continues as a task (2026-07-28 Tasks extension), reports progress and asks a question from inside the task |
//! | `jwt_server` | a Streamable HTTP server behind OAuth 2.1 bearer JWTs, with its protected-resource metadata |
//!
//! Run one with `cargo run -p frontdesk-examples --example NAME`; each file's first
//! lines say what to try with it. They use only frontdesk's public API, and
//! `cargo test --workspace` compiles them.
