//! `frontdesk serve`: the brightgrid demo server for other hosts.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use frontdesk::http::{HttpOptions, bind};
use frontdesk_demo::{DemoOptions, brightgrid};

/// Arguments of `frontdesk serve`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  frontdesk serve --stdio                       # for hosts that spawn the server
  frontdesk serve --http 127.0.0.1:8080         # Streamable HTTP at http://127.0.0.1:8080/mcp
  frontdesk serve --conformance-fixtures --http 127.0.0.1:3000   # for the official suite

Logs go to stderr (RUST_LOG=debug for more); stdout is the stdio transport.")]
pub struct ServeArgs {
    /// Speak MCP over stdin/stdout (newline-delimited JSON).
    #[arg(long, conflicts_with = "http", required_unless_present = "http")]
    stdio: bool,
    /// Serve Streamable HTTP on this address (both protocol revisions on one endpoint).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Also serve the official conformance suite's fixture tools and prompt.
    #[arg(long)]
    conformance_fixtures: bool,
}

/// Run `frontdesk serve` until the transport closes, Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> ExitCode {
    crate::run::block_on("serve", serve(args))
}

async fn serve(args: &ServeArgs) -> anyhow::Result<()> {
    let options = DemoOptions {
        conformance_fixtures: args.conformance_fixtures,
    };
    match args.http {
        // One listener serves the MCP endpoint and the demo's sign-in page.
        Some(addr) => {
            let listener = bind(addr, HttpOptions::default())
                .await
                .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
            crate::output::note(&format!(
                "frontdesk: MCP endpoint at {}",
                listener.endpoint_url()
            ));
            Ok(frontdesk_demo::serve_http(listener, &options).await?)
        }
        None => {
            let server = brightgrid(&options).await?;
            Ok(frontdesk::server::stdio::serve_stdio(server).await?)
        }
    }
}
