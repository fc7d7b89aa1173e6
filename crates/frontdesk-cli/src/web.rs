//! `--web` for `frontdesk lab` and `frontdesk connect`: the same session hosted on a
//! page served on loopback (`frontdesk-web`) instead of in the terminal.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use frontdesk::client::{Client, ClientConfig};
use frontdesk_web::{Connector, WebHost, WebOptions, open_in_browser};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::client_args::{ClientArgs, Reach};
use crate::hosting::{ProtocolArg, Target, connect_demo, demo_over_http, wire_printer};
use crate::lab::TransportArg;

/// `--web`, `--no-open` and `--port`.
#[derive(Debug, Clone, Args)]
pub struct WebFlags {
    /// Host the session on a local web page instead of this terminal (the page's
    /// address, with its launch secret, is printed on stderr and opened in your
    /// browser when there is one).
    #[arg(long)]
    pub web: bool,
    /// With --web: only print the page's address; do not open a browser.
    #[arg(long, requires = "web")]
    pub no_open: bool,
    /// With --web: the port on 127.0.0.1 (default: a free one).
    #[arg(long, value_name = "N", requires = "web")]
    pub port: Option<u16>,
}

/// `frontdesk lab --web`.
pub fn lab(
    flags: &WebFlags,
    protocol: ProtocolArg,
    transport: TransportArg,
    show_wire: bool,
) -> ExitCode {
    let protocol = match protocol {
        ProtocolArg::Auto => ProtocolArg::Modern,
        p => p,
    };
    let flags = flags.clone();
    crate::run::block_on("lab", async move {
        let (connector, target) = lab_connector(transport).await?;
        let options = WebOptions::new("frontdesk lab")
            .intro("The brightgrid demo server runs inside this process, and this page is its host.")
            .intro(
                "book_return asks with a form (form mode): reason, boxes, pickup date, contact \
                 email and notes, then a confirmation, with a review before anything is sent. \
                 connect_store_account asks you to open the demo's loopback sign-in page (URL mode).",
            )
            .intro(
                "Switch the protocol to see both revisions: on 2025-11-25 the server sends \
                 elicitation/create while the call is open; on 2026-07-28 the call returns \
                 input_required and the client retries. After each call the page says what \
                 travelled on the wire.",
            )
            .target(target)
            .protocol(protocol.choice())
            .switchable(true)
            .preset("book_return", json!({ "order_id": "A-1001" }));
        serve(
            &flags,
            "lab",
            options,
            connector,
            ClientConfig::default(),
            show_wire,
        )
        .await
    })
}

/// The demo over an in-process pipe (a fresh server per connection), or over
/// Streamable HTTP on loopback (one server, both revisions on its endpoint).
async fn lab_connector(transport: TransportArg) -> anyhow::Result<(Connector, String)> {
    match transport {
        TransportArg::Stdio => {
            let connector: Connector = Arc::new(|config, handler| {
                Box::pin(async move {
                    connect_demo(config, handler)
                        .await
                        .map_err(|e| format!("{e:#}"))
                })
            });
            Ok((
                connector,
                "the brightgrid demo over an in-process stdio pipe".to_owned(),
            ))
        }
        TransportArg::Http => {
            // The page's server runs until the process ends; so does the demo.
            let endpoint = demo_over_http(CancellationToken::new()).await?;
            let at = endpoint.clone();
            let connector: Connector = Arc::new(move |config, handler| {
                let at = at.clone();
                Box::pin(async move {
                    Client::connect_http(&at, config, handler)
                        .await
                        .map_err(|e| e.to_string())
                })
            });
            Ok((
                connector,
                format!("the brightgrid demo over Streamable HTTP at {endpoint}"),
            ))
        }
    }
}

/// `frontdesk connect --web`.
pub fn connect(flags: &WebFlags, target: &Target, client: &ClientArgs) -> ExitCode {
    if client.answers.is_some() {
        crate::output::error(
            "connect",
            "--answers and --web do not go together (with --web the person answers on the page)",
        );
        return ExitCode::from(2);
    }
    // --root and, for a URL, the remote flags (CA certificates, sign-in) apply
    // to the page's client as to the terminal's.
    let reach = match client.reach(target.clone()) {
        Ok(reach) => reach,
        Err(e) => {
            return crate::exit::cannot_start("connect", &e);
        }
    };
    let flags = flags.clone();
    let (protocol, show_wire) = (client.protocol, client.show_wire);
    crate::run::block_on("connect", async move {
        // The page's client starts from this configuration and adds its own.
        let Reach {
            target,
            config: base,
            timeout,
        } = reach;
        let described = target.describe();
        let connector: Connector = Arc::new(move |config, handler| {
            let target = target.clone();
            Box::pin(async move {
                crate::hosting::connect(&target, config, handler, timeout)
                    .await
                    .map(crate::hosting::Connection::detach)
                    .map_err(|e| format!("{e:#}"))
            })
        });
        let options = WebOptions::new("frontdesk connect")
            .intro("Call the server's tools; its questions appear on this page.")
            .target(frontdesk_host::sanitize::display_line(&described, 200))
            .protocol(protocol.choice());
        serve(&flags, "connect", options, connector, base, show_wire).await
    })
}

/// Bind, print (and maybe open) the address, serve until Ctrl-C.
async fn serve(
    flags: &WebFlags,
    command: &str,
    options: WebOptions,
    connector: Connector,
    mut config: ClientConfig,
    show_wire: bool,
) -> anyhow::Result<()> {
    // A URL flow the person is finishing in another tab is checked again
    // every round (2026-07-28, about every 10 s on the demo): room for ten minutes.
    config.max_rounds = config.max_rounds.max(64);
    if show_wire {
        config = config.on_wire(wire_printer);
    }
    let options = options.port(flags.port.unwrap_or(0)).client_config(config);
    let host = WebHost::bind(options)
        .await
        .context("cannot listen on 127.0.0.1")?;
    let url = host.url().to_owned();
    // The address is printed whole, never wrapped, so it can be copied.
    crate::output::note_unwrapped(&format!("frontdesk {command}: the page is at {url}"));
    crate::output::note(&format!(
        "frontdesk {command}: the address holds this launch's secret; Ctrl-C stops."
    ));
    // The browser gets a one-time address: its command line is readable by
    // every local user, and must not hold the launch secret.
    if !flags.no_open
        && let Err(reason) = open_in_browser(&host.open_url())
    {
        crate::output::note(&format!(
            "frontdesk {command}: no browser was opened ({reason}); open the address above."
        ));
    }
    host.run(connector, frontdesk::shutdown::requested())
        .await
        .context("the page's server failed")
}
