//! The server over Streamable HTTP on loopback: 2025-11-25 sessions and
//! streams, 2026-07-28 stateless POSTs, authentication, the rest of the
//! surface (resources, header parameters, subscriptions) and tasks.

mod archive;
mod auth;
mod drain;
#[cfg(feature = "jwt")]
mod jwt;
mod last_event_id;
mod legacy;
mod modern;
mod signin;
mod surface;
mod tasks;
mod uri_bounds;
