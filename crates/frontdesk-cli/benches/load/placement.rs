//! `--pin`: the load generator on one CPU and every server on another, so
//! that a server's latency is its own and not partly the time it waited for
//! the generator to leave its core.
//!
//! Shared (the default), the generator takes whatever CPU the server
//! leaves, so a server that needs less CPU per call is sent more calls per
//! second and shares its cores with a busier generator; its p99 then
//! measures that competition as well. Pinned, each server has one core to
//! itself: its p50 and p99 are its own, at the price of half the machine.

use core_affinity::CoreId;

/// The CPU the load generator runs on and the one every server runs on.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub generator: CoreId,
    pub servers: CoreId,
}

impl Placement {
    /// The first two CPUs this process may run on, or `None` when it may run
    /// on fewer than two.
    pub fn detect() -> Option<Self> {
        let cpus = core_affinity::get_core_ids()?;
        match cpus.as_slice() {
            [generator, servers, ..] => Some(Self {
                generator: *generator,
                servers: *servers,
            }),
            _ => None,
        }
    }

    /// Pin the calling thread, and so every thread it starts afterwards
    /// (the generator's runtime is built after this), to the generator's
    /// CPU.
    pub fn pin_generator(&self) -> anyhow::Result<()> {
        if core_affinity::set_for_current(self.generator) {
            Ok(())
        } else {
            anyhow::bail!("cannot pin the load generator to CPU {}", self.generator.id)
        }
    }

    /// One line for the report.
    pub fn describe(&self) -> String {
        format!(
            "pinned, the load generator on CPU {} and each server on CPU {}",
            self.generator.id, self.servers.id
        )
    }
}
