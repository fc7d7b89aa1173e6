//! The `frontdesk` command-line tool: host MCP servers in the terminal, run the demo
//! server, and lint elicitation schemas.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod call;
mod check;
mod conformance_client;
mod connect;
mod hosting;
mod keys;
mod lab;
mod run;
mod serve;

/// MCP elicitation, done completely: forms and URL flows in your terminal.
#[derive(Debug, Parser)]
#[command(name = "frontdesk", version, about, long_about = None)]
struct Cli {
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
    /// Run the brightgrid demo server for other hosts (stdio or Streamable HTTP).
    Serve(serve::ServeArgs),
    /// Make request-state keys (`keys generate`) for FRONTDESK_STATE_KEYS.
    Keys(keys::KeysArgs),
    /// Lint a requestedSchema and, optionally, validate an answer against it.
    Check(check::CheckArgs),
    /// Run one MCP conformance client scenario (from `MCP_CONFORMANCE_SCENARIO`) against URL.
    ConformanceClient {
        /// The mock server's endpoint URL.
        url: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Interactive commands keep the terminal for the forms: warnings only by default.
    let interactive = matches!(cli.command, Command::Lab(_) | Command::Connect(_));
    init_logging(if interactive {
        "warn,frontdesk::state::sealer=error"
    } else {
        "info"
    });
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Keys(args) => keys::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Lab(args) => lab::run(&args),
        Command::Connect(args) => connect::run(&args),
        Command::Call(args) => call::run(&args),
        Command::ConformanceClient { url } => conformance_client::run(&url),
    }
}

/// Logs go to stderr: stdout belongs to the stdio transport and to results.
fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
