//! A browser host: the page of `frontdesk-web` (`WebHost`), served on loopback
//! behind a per-launch secret, for an MCP server started as a command (stdio). The
//! page lists the server's tools, calls them with arguments asked as a form, shows
//! every question (forms, URL consent) and the wire timeline; `frontdesk lab --web`
//! and `frontdesk connect --web` are built on it.
//!
//! ```sh
//! cargo build -p frontdesk-examples --example web_host --example readme_server
//! target/debug/examples/web_host target/debug/examples/readme_server
//! ```
//!
//! It prints the page's address (with its secret) on stderr and opens the browser
//! through a one-time address; Ctrl-C stops it.

use std::sync::Arc;

use frontdesk::client::Client;
use frontdesk_web::{Connector, WebHost, WebOptions, open_in_browser};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(server) = std::env::args().nth(1) else {
        return Err("usage: web_host SERVER_COMMAND".into());
    };
    let host = WebHost::bind(WebOptions::new("web_host example").target(server.clone())).await?;

    // How the page connects (and reconnects, when the person switches revision).
    let connector: Connector = Arc::new(move |config, handler| {
        let server = server.clone();
        Box::pin(async move {
            Client::connect_stdio(tokio::process::Command::new(server), config, handler)
                .await
                .map_err(|e| e.to_string())
        })
    });

    // The secret is in the address: show it only to the person, on this terminal.
    eprintln!("open {}", host.url());
    if let Err(why) = open_in_browser(&host.open_url()) {
        eprintln!("(no browser opened: {why})");
    }
    host.run(connector, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
