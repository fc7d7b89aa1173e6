//! The binary's allocator settings as a running process has them: `frontdesk
//! serve` runs with transparent huge pages off (see `src/allocator.rs`: with
//! them, mimalloc held 2 MiB pages and 27.6 instead of 19.5 KiB per pending
//! question), and a server `frontdesk gateway` starts keeps its own setting.

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

/// The setting is inherited by every program a process starts: the gateway
/// leaves it alone, so the server it starts decides for itself.
#[cfg(target_os = "linux")]
#[test]
fn a_server_the_gateway_starts_keeps_its_huge_pages() {
    let script =
        format!("grep THP_enabled /proc/self/status >&2; exec {BIN} serve --stdio --store memory");
    let mut command = Command::new(BIN);
    command
        .args(["gateway", "--stdio", "--", "sh", "-c", &script])
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped());
    let gateway = Running::spawn(command);
    let seen = gateway
        .first(Duration::from_secs(30), |line| {
            line.contains("THP_enabled").then(|| line.to_string())
        })
        .expect("the server's stderr reaches the gateway's log");
    // The log escapes the tab between the name and the value.
    assert!(seen.ends_with(r"THP_enabled:\u{0009}1"), "{seen}");
    gateway.kill();
}
