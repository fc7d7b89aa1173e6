//! The durable and shared stores against the real thing: a SQLite file
//! ([`sqlite`]) and a `redis-server` ([`redis`]), each through the same
//! contract as the in-memory stores ([`contract`]).

pub mod contract;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_events;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
mod sqlite_model;
#[cfg(any(feature = "sqlite", feature = "redis"))]
pub mod tasks;
