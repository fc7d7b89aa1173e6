//! The binary's allocator settings as a running process has them: `frontdesk
//! serve` runs with transparent huge pages off (see `src/allocator.rs`: with
//! them, mimalloc held 2 MiB pages and 27.6 instead of 19.5 KiB per pending
//! question).

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{BIN, Running};

#[cfg(target_os = "linux")]
#[test]
fn serve_runs_with_transparent_huge_pages_off() {
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--stdio", "--store", "memory"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped());
    let server = Running::spawn(command);
    server
        .first(Duration::from_secs(30), |line| {
            line.contains("speaking MCP on stdin and stdout")
                .then_some(())
        })
        .expect("serve starts");
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id())).unwrap();
    let thp = status
        .lines()
        .find_map(|l| l.strip_prefix("THP_enabled:"))
        .expect("Linux 5.0 or later reports THP_enabled");
    assert_eq!(thp.trim(), "0", "{status}");
    server.kill();
}
