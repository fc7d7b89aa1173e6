//! The server over Streamable HTTP on loopback: 2025-11-25 sessions and
//! streams, 2026-07-28 stateless POSTs, authentication.

mod auth;
#[cfg(feature = "jwt")]
mod jwt;
mod legacy;
mod modern;
mod signin;
