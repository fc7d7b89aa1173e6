//! `frontdesk lab`: the brightgrid demo server hosted in this terminal, to see both
//! modes (form, URL) in both revisions, and what travelled on the wire after each step.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use frontdesk::client::{Client, ClientConfig, ElicitationHandler};
use frontdesk::wire::Revision;
use frontdesk_host::result::{result_json, result_lines};
use frontdesk_host::screen::{LineQuestion, Screen};
use frontdesk_host::terminal::TtyScreen;
use frontdesk_host::{TerminalHandler, UrlAction, terminal_available};
use frontdesk_url::ConsentedUrl;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::hosting::{
    ProtocolArg, WireLog, client_error, connect_demo, demo_over_http, wire_printer,
};
use crate::output;
use frontdesk_host::explain::explain;

/// How the lab reaches its in-process server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// An in-memory pipe carrying newline-delimited JSON, as stdio would.
    Stdio,
    /// Streamable HTTP on a loopback port.
    Http,
}

/// Arguments of `frontdesk lab`.
#[derive(Debug, Args)]
#[command(after_help = "\
The lab starts the brightgrid demo server inside this process and hosts it here.
Its menu:
  1  book a return            a form: reason, boxes, pickup date, contact email,
                              notes; then a confirmation; review before sending
  2  connect a store account  URL mode: a consent screen for the demo's loopback
                              sign-in page ([o] open in a browser, or [s] simulate
                              signing in when there is no browser)
  3  switch protocol          2025-11-25 <-> 2026-07-28
  j  the last result as JSON  (after a call; lines are never cut, so it copies
                              as valid JSON)
  q  quit
After each step a few lines say what travelled on the wire; --show-wire prints
every JSON-RPC message (stderr, one per line, → sent, ← received).

Exit status: 0 when you quit; 1 when the demo could not keep running; 2 without a
terminal (the lab needs one). For automation use `frontdesk call demo TOOL --answers FILE`.")]
pub struct LabArgs {
    /// Protocol revision to start with.
    #[arg(long, value_enum, default_value = "2026-07-28")]
    protocol: ProtocolArg,
    /// How to reach the in-process server.
    #[arg(long, value_enum, default_value = "stdio")]
    transport: TransportArg,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    show_wire: bool,
    #[command(flatten)]
    web: crate::web::WebFlags,
}

/// Run `frontdesk lab`.
pub fn run(args: &LabArgs) -> ExitCode {
    if args.web.web {
        return crate::web::lab(&args.web, args.protocol, args.transport, args.show_wire);
    }
    if !terminal_available() {
        return crate::exit::cannot_start(
            "lab",
            "needs a terminal to show its forms (none here). For scripts, use \
             `frontdesk call demo book_return --args '{\"order_id\":\"A-1001\"}' --answers FILE`.",
        );
    }
    crate::run::block_on("lab", lab(args))
}

/// Run a blocking terminal interaction off the async threads, log lines held meanwhile.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce(&mut TtyScreen) -> T + Send + 'static,
) -> Option<T> {
    tokio::task::spawn_blocking(move || {
        let _quiet = frontdesk_host::logs::hold();
        f(&mut TtyScreen::new())
    })
    .await
    .ok()
}

/// A fresh terminal handler for one connection ("stop asking" lasts as long as it).
fn terminal_handler() -> Arc<dyn ElicitationHandler> {
    Arc::new(TerminalHandler::new().with_url_action(simulate_sign_in()))
}

struct Session {
    client: Client,
    stop_http: Option<CancellationToken>,
}

async fn start(
    args: &LabArgs,
    protocol: ProtocolArg,
    wire: &WireLog,
    handler: Arc<dyn ElicitationHandler>,
) -> anyhow::Result<Session> {
    let log = wire.clone();
    let show = args.show_wire;
    let config = ClientConfig::default()
        .protocol(protocol.choice())
        .on_wire(move |d, m| {
            log.record(d, m);
            if show {
                wire_printer(d, m);
            }
        });
    match args.transport {
        TransportArg::Stdio => Ok(Session {
            client: connect_demo(config, handler).await?,
            stop_http: None,
        }),
        TransportArg::Http => {
            let stop = CancellationToken::new();
            let endpoint = demo_over_http(stop.clone()).await?;
            let client = Client::connect_http(&endpoint, config, handler)
                .await
                .with_context(|| format!("cannot connect to {endpoint}"))?;
            Ok(Session {
                client,
                stop_http: Some(stop),
            })
        }
    }
}

impl Session {
    async fn end(self) {
        self.client.close().await;
        if let Some(stop) = self.stop_http {
            stop.cancel();
        }
    }
}

async fn lab(args: &LabArgs) -> anyhow::Result<()> {
    let wire = WireLog::default();
    let mut protocol = match args.protocol {
        ProtocolArg::Auto => ProtocolArg::Modern,
        p => p,
    };
    output::note("frontdesk lab: starting the brightgrid demo server …");
    let mut session = start(args, protocol, &wire, terminal_handler()).await?;
    wire.take();
    // The last call's result, for `[j]`.
    let mut last: Option<String> = None;
    loop {
        let speaks = session.client.revision();
        let has_last = last.is_some();
        let banner = format!(
            "\nfrontdesk lab — the brightgrid demo, protocol {speaks}\n  (over {})",
            match args.transport {
                TransportArg::Stdio => "an in-process stdio pipe",
                TransportArg::Http => "Streamable HTTP on loopback",
            }
        );
        let choice = blocking(move |s| {
            s.show(&banner);
            s.show("  [1] book a return          (form mode)");
            s.show("  [2] connect a store account (URL mode)");
            s.show(&format!(
                "  [3] switch protocol to {}",
                if speaks == Revision::V2026_07_28 {
                    "2025-11-25"
                } else {
                    "2026-07-28"
                }
            ));
            if has_last {
                s.show("  [j] see the last result as JSON");
            }
            s.show("  [q] quit");
            let mut keys = vec![('1', "return"), ('2', "account"), ('3', "protocol")];
            if has_last {
                keys.push(('j', "JSON"));
            }
            keys.push(('q', "quit"));
            s.key("Choose:", &keys)
        })
        .await;
        match choice {
            Some(Ok('1')) => {
                if let Some(json) = book_return(&session.client, &wire).await {
                    last = Some(json);
                }
            }
            Some(Ok('2')) => {
                last = step(&session.client, &wire, "connect_store_account", json!({})).await;
            }
            Some(Ok('j')) => {
                let json = last.clone().unwrap_or_default();
                let _ = blocking(move |s| s.show_verbatim(&json)).await;
            }
            Some(Ok('3')) => {
                protocol = if speaks == Revision::V2026_07_28 {
                    ProtocolArg::Legacy
                } else {
                    ProtocolArg::Modern
                };
                session.end().await;
                output::note("frontdesk lab: reconnecting …");
                session = start(args, protocol, &wire, terminal_handler()).await?;
                wire.take();
            }
            _ => break,
        }
    }
    session.end().await;
    Ok(())
}

/// Ask for the order, then call `book_return`; the result as JSON, if it ran.
async fn book_return(client: &Client, wire: &WireLog) -> Option<String> {
    let order = blocking(|s| {
        let mut question = LineQuestion::new(
            "Order to return",
            Arc::new(|t: &str| {
                if t.trim().is_empty() {
                    Err("Type an order id".to_owned())
                } else {
                    Ok(())
                }
            }),
        );
        question.help = Some("the tool's argument order_id · Enter: call · Esc: back".into());
        question.initial = "A-1001".to_owned();
        s.line(&question)
    })
    .await;
    let Some(Ok(order)) = order else { return None };
    step(
        client,
        wire,
        "book_return",
        json!({ "order_id": order.trim() }),
    )
    .await
}

/// Call `tool`, then show its result and what travelled; the result as JSON.
async fn step(client: &Client, wire: &WireLog, tool: &str, args: Value) -> Option<String> {
    wire.take();
    output::note(&format!("Calling {tool} …"));
    let outcome = client.call_tool(tool, args).await;
    let messages = wire.take();
    let mut lines = vec![String::new()];
    match &outcome {
        Ok(result) => lines.extend(result_lines(tool, result)),
        Err(e) => lines.push(format!("The call failed: {}", client_error(e))),
    }
    lines.push(String::new());
    lines.push("What travelled on the wire:".to_owned());
    lines.extend(
        explain(client.revision(), tool, &messages)
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    let _ = blocking(move |s| {
        for l in &lines {
            s.show(l);
        }
    })
    .await;
    outcome.ok().map(|result| result_json(&result))
}

/// `[s] simulate signing in`: POST the demo's loopback sign-in form for the person.
fn simulate_sign_in() -> UrlAction {
    UrlAction {
        key: 's',
        label: "simulate signing in",
        run: Arc::new(|url: &ConsentedUrl| post_sign_in(url.as_str())),
    }
}

fn post_sign_in(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .ok_or("only the demo's loopback sign-in page can be simulated")?;
    let (port, path) = rest.split_once('/').ok_or("no path in the URL")?;
    let port: u16 = port.parse().map_err(|_| "bad port".to_owned())?;
    let token = path
        .split_once('?')
        .and_then(|(_, q)| q.split('&').find_map(|p| p.strip_prefix("token=")))
        .ok_or("no token in the URL")?;
    let body = format!("token={token}&email=lab%40example.com&password=lab");
    let request = format!(
        "POST /signin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reply = String::new();
    let _ = stream.take(64 * 1024).read_to_string(&mut reply);
    if reply.starts_with("HTTP/1.1 200") || reply.starts_with("HTTP/1.0 200") {
        Ok("Signed in on the demo's page for you (a POST to its /signin form).".to_owned())
    } else {
        Err(format!(
            "the sign-in page answered: {}",
            reply.lines().next().unwrap_or("nothing")
        ))
    }
}
