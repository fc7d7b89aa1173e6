//! The MCP client: connects to a server over stdio or Streamable HTTP, speaks
//! 2025-11-25 and 2026-07-28, and hands every elicitation to an
//! [`ElicitationHandler`].

mod handler;

pub use handler::{
    BoxFuture, Elicitation, ElicitationHandler, ElicitationKind, ElicitationOrigin,
    ElicitationResponse, HandlerModes,
};
