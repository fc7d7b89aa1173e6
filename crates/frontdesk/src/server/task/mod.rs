//! The Tasks extension's protocol side (2026-07-28, SEP-2663): how a call
//! becomes a task and runs on ([`run`]), the conversation its questions go
//! through (`conversation`), and `tasks/get`, `tasks/update`, `tasks/cancel`
//! ([`serve`]). The task table itself is the engine's
//! ([`crate::server::engine::tasks`]).

mod conversation;
mod run;
mod serve;

pub(crate) use run::{run, starter};
pub(crate) use serve::{extension_required, negotiated, serve};
