//! `frontdesk tools SERVER`: the tools a server offers, as JSON on stdout (for
//! agents and scripts about to `frontdesk call` one).

use std::process::ExitCode;

use clap::Args;
use frontdesk_host::sanitize::server_label;
use serde_json::{Value, json};

use crate::client_args::ClientArgs;
use crate::exit;
use crate::hosting::{Target, client_error};
use crate::output;

/// Arguments of `frontdesk tools`.
#[derive(Debug, Args)]
#[command(after_help = "\
SERVER is `demo`, an http(s):// URL of a Streamable HTTP endpoint, or a command line
that starts a stdio server (quote it), as for `frontdesk call`.

Prints one JSON object: the server (name, version), the protocol revision spoken,
and its tools (name, title, description, inputSchema), every key camelCase as in MCP.
Nothing is called and no question is asked.

Exit status:
  0   the tools are printed
  1   the server could not list its tools
  2   nothing was done: bad arguments, or no connection to the server

Examples:
  frontdesk tools demo
  frontdesk tools 'frontdesk serve --stdio' --protocol 2025-11-25
  frontdesk tools http://127.0.0.1:8080/mcp")]
pub struct ToolsArgs {
    /// The server: `demo`, a URL, or a command line.
    pub server: String,
    #[command(flatten)]
    pub client: ClientArgs,
}

/// Run `frontdesk tools`.
pub fn run(args: &ToolsArgs) -> ExitCode {
    crate::run::block_on_exit("tools", list(args))
}

async fn list(args: &ToolsArgs) -> ExitCode {
    let target = match Target::parse(&args.server) {
        Ok(t) => t,
        Err(e) => {
            return exit::cannot_start("tools", &e);
        }
    };
    let (connection, _answerer) = match args.client.connect("tools", target).await {
        Ok(c) => c,
        Err(status) => return status,
    };
    let client = &connection.client;
    let listed = client.list_tools().await;
    let server = client.server_info();
    let revision = client.revision().to_string();
    connection.close().await;
    match listed {
        Ok(tools) => {
            output::note(&format!(
                "frontdesk: {} offers {} tool(s)",
                server_label(&server),
                tools.len()
            ));
            output::json(&json!({
                "server": server,
                "protocol": revision,
                "tools": serde_json::to_value(&tools).unwrap_or(Value::Null),
            }));
            exit::code(exit::OK)
        }
        Err(e) => {
            output::error(
                "tools",
                &format!("cannot list the tools: {}", client_error(&e)),
            );
            exit::code(exit::FAILED)
        }
    }
}
