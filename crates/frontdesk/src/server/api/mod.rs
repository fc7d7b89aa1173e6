//! The author's layer: what a server author writes (tools, prompts,
//! resources, their handlers' [`ToolContext`](context::ToolContext)) and
//! reads back (questions, answers, errors, configuration). It depends on
//! nothing else in the server: a handler reaches its call through the
//! [`CallPort`](context::CallPort) the engine implements.

pub(crate) mod completion;
pub(crate) mod config;
pub(crate) mod context;
// 0.1 names kept for one release (#[deprecated]).
mod deprecated;
pub(crate) mod error;
pub(crate) mod flow_ticket;
pub(crate) mod prompt;
pub(crate) mod question;
pub(crate) mod relayed_url;
pub(crate) mod resource;
pub(crate) mod resource_registry;
pub(crate) mod tool;
pub(crate) mod uri_template;
