//! A terminal host: connect to an MCP server started as a command (stdio), call
//! one tool, and answer the server's questions in the terminal form and URL consent
//! screen of `frontdesk-host` (`TerminalHandler`), the ones `frontdesk connect`
//! uses. The result is printed as JSON.
//!
//! ```sh
//! cargo build -p frontdesk-examples --example terminal_host --example readme_server
//! target/debug/examples/terminal_host target/debug/examples/readme_server \
//!     book_return '{"order_id": "A-1001"}'
//! ```
//!
//! The form opens in the terminal: fill it in, review, accept (or Esc to decline or
//! cancel). It needs a terminal; a program without one uses a scripted or headless
//! handler instead (`scripted_host`).

use std::sync::Arc;

use frontdesk::client::{Client, ClientConfig, ElicitationHandler};
use frontdesk::serde_json::{self, Value};
use frontdesk_host::terminal::TerminalHandler;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server, tool, arguments] = args.as_slice() else {
        return Err("usage: terminal_host SERVER_COMMAND TOOL ARGUMENTS_JSON".into());
    };
    let arguments: Value = serde_json::from_str(arguments)?;

    // The server speaks MCP on its stdin and stdout.
    let command = tokio::process::Command::new(server);
    let handler: Arc<dyn ElicitationHandler> = Arc::new(TerminalHandler::new());
    let client = Client::connect_stdio(command, ClientConfig::default(), handler).await?;
    eprintln!(
        "{} {} speaks {}",
        client.server_info().name,
        client.server_info().version,
        client.revision()
    );

    // Every question the call asks is shown in the terminal before the result comes.
    let result = client.call_tool(tool, arguments).await;
    client.close().await;
    println!("{}", serde_json::to_string_pretty(&result?)?);
    Ok(())
}
