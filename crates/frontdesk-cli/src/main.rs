//! The `frontdesk` command-line tool: host MCP servers in the terminal, run the demo
//! server, and lint elicitation schemas.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
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
    Lab,
    /// Connect to an MCP server and call its tools interactively.
    Connect,
    /// Call one tool of an MCP server and print its result as JSON.
    Call,
    /// Run the brightgrid demo server for other hosts (stdio or Streamable HTTP).
    Serve(serve::ServeArgs),
    /// Lint a requestedSchema and, optionally, validate an answer against it.
    Check(check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Lab => not_built("lab"),
        Command::Connect => not_built("connect"),
        Command::Call => not_built("call"),
    }
}

/// Logs go to stderr: stdout belongs to the stdio transport and to results.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn not_built(name: &str) -> ExitCode {
    eprintln!(
        "frontdesk {name}: not built yet (the client runtime and terminal host come next). \
         Try `frontdesk serve --stdio` or `frontdesk check SCHEMA.json`."
    );
    ExitCode::from(2)
}
