//! The `frontdesk` command-line tool: host MCP servers in the terminal, run the demo
//! server, and lint elicitation schemas.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]
// Everything printed goes through `output` (escaped); only it may print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod allocator;
mod audit;
mod call;
mod check;
mod client_args;
#[allow(clippy::print_stdout, clippy::print_stderr)]
mod conformance_client;
mod connect;
mod exit;
mod front_auth;
mod gateway;
mod hosting;
mod keys;
mod lab;
mod listen_limits;
mod logging;
mod metrics_endpoint;
mod output;
mod park;
mod run;
mod serve;
mod serve_config;
mod server_process;
mod signin;
mod tls_args;
mod tools;
mod traces;
mod web;

/// MCP elicitation, done completely: forms and URL flows in your terminal.
#[derive(Debug, Parser)]
#[command(name = "frontdesk", version, about, long_about = None)]
struct Cli {
    /// Write the log to this file (appended) instead of stderr.
    #[arg(long, global = true, value_name = "FILE")]
    log_file: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the brightgrid demo server and host it in this terminal.
    Lab(lab::LabArgs),
    /// Connect to an MCP server and call its tools interactively.
    Connect(connect::ConnectArgs),
    /// Call one tool of an MCP server and print its result as JSON.
    Call(call::CallArgs),
    /// List the tools of an MCP server as JSON.
    Tools(tools::ToolsArgs),
    /// Answer a question of a parked call (`frontdesk call --park`).
    Respond(park::RespondArgs),
    /// Run the brightgrid demo server for other hosts (stdio or Streamable HTTP).
    Serve(serve::ServeArgs),
    /// Offer another MCP server (a command, or a URL) on stdio or Streamable HTTP,
    /// its questions checked and bridged between protocol revisions.
    Gateway(gateway::GatewayArgs),
    /// Make request-state keys (`keys generate`) for FRONTDESK_STATE_KEYS.
    Keys(keys::KeysArgs),
    /// Lint a requestedSchema and, optionally, validate an answer against it.
    Check(check::CheckArgs),
    /// Check an MCP server's elicitation against the spec and its security rules.
    Audit(audit::AuditArgs),
    /// Run one MCP conformance client scenario (from `MCP_CONFORMANCE_SCENARIO`) against URL.
    ConformanceClient {
        /// The mock server's endpoint URL.
        url: String,
    },
    /// Keep a parked call open (started by `frontdesk call --park`).
    #[command(hide = true)]
    ParkKeeper(park::KeeperArgs),
}

fn main() -> ExitCode {
    let cli = match serve_config::matches(Cli::command(), std::env::args_os().collect()) {
        Ok(matches) => match Cli::from_arg_matches(&matches) {
            Ok(cli) => cli,
            Err(e) => e.exit(),
        },
        Err(serve_config::Failure::Clap(e, None)) => e.exit(),
        Err(serve_config::Failure::Clap(e, Some(from_file))) => {
            let _ = e.print();
            output::note(&from_file);
            return exit::code(u8::try_from(e.exit_code()).unwrap_or(exit::CANNOT_START));
        }
        Err(serve_config::Failure::Config(why)) => return exit::cannot_start("serve", why),
    };
    if matches!(cli.command, Command::Serve(_)) {
        allocator::settle();
    }
    // Only `serve` (and a parked call's keeper, into its own log file) tell
    // what they do; the rest show warnings only (held while a form is up), the
    // server's own stderr, and not the in-process demo's development key. The
    // audit's probes make servers and the client log on purpose: its progress
    // and report are its output, so it logs errors only.
    let filter = match &cli.command {
        Command::Serve(_) | Command::Gateway(_) => "info",
        Command::ParkKeeper(_) => "info,frontdesk::state::sealer=error",
        Command::Audit(_) => "error",
        _ => "warn,frontdesk::state::sealer=error,frontdesk::server_stderr=info",
    };
    // Traces go out while the command runs; the last ones when it ends.
    let traces = match &cli.command {
        Command::Serve(args) => match args.otlp_endpoint() {
            Some(endpoint) => match traces::Traces::start(endpoint, "frontdesk") {
                Ok(traces) => Some(traces),
                Err(e) => return exit::cannot_start("serve", format!("{e:#}")),
            },
            None => None,
        },
        _ => None,
    };
    if let Err(e) = logging::init(
        filter,
        cli.log_file.as_deref(),
        traces.as_ref().map(traces::Traces::tracer),
    ) {
        output::note(&format!("frontdesk: {e:#}"));
        return exit::code(exit::CANNOT_START);
    }
    let code = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Audit(args) => audit::run(&args),
        Command::Keys(args) => keys::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Gateway(args) => gateway::run(&args),
        Command::Lab(args) => lab::run(&args),
        Command::Connect(args) => connect::run(&args),
        Command::Call(args) => call::run(&args),
        Command::Tools(args) => tools::run(&args),
        Command::Respond(args) => park::respond(&args),
        Command::ConformanceClient { url } => conformance_client::run(&url),
        Command::ParkKeeper(args) => park::keep(&args),
    };
    drop(traces);
    code
}
