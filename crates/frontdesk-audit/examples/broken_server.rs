//! A deliberately broken MCP server for testing `frontdesk audit`: correct
//! by default, with exactly one defect per `--defect NAME` (one per check;
//! `--list` names them). Speaks both revisions over stdio, or 2026-07-28
//! over HTTP with bearer tokens as principals (`--http ADDR`, prints
//! `listening URL`).

fn main() -> std::process::ExitCode {
    frontdesk_audit::fixture::main()
}
