//! What `connect`, `call` and `lab` share: picking the elicitation handler, reaching a
//! server (a URL, a command, or the in-process demo), the protocol flag, the wire tap.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{Context, bail};
use clap::ValueEnum;
use frontdesk::client::{
    Client, ClientConfig, Direction, ElicitationHandler, HandlerModes, ProtocolChoice, Revision,
};
use frontdesk_demo::{DemoOptions, brightgrid};
use frontdesk_host::{Answers, HeadlessHandler, ScriptedHandler, TerminalHandler};
use serde_json::Value;

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
    /// 2025-11-25: the server sends `elicitation/create` while the call is open.
    #[value(name = "2025-11-25")]
    Legacy,
    /// 2026-07-28: the call returns `input_required`; the client retries.
    #[value(name = "2026-07-28")]
    Modern,
}

impl ProtocolArg {
    /// The client's protocol choice.
    pub fn choice(self) -> ProtocolChoice {
        match self {
            ProtocolArg::Auto => ProtocolChoice::Auto,
            ProtocolArg::Legacy => ProtocolChoice::Only(Revision::V2025_11_25),
            ProtocolArg::Modern => ProtocolChoice::Only(Revision::V2026_07_28),
        }
    }
}

/// The handler that answers questions, and (for scripts) where its problems are.
pub struct Answerer {
    /// Given to the client.
    pub handler: Arc<dyn ElicitationHandler>,
    /// Set when answers come from a file.
    pub scripted: Option<Arc<ScriptedHandler>>,
}

/// `--answers FILE` → scripted; a terminal → the terminal form; otherwise cancel
/// every question, saying why.
pub fn answerer(answers: Option<&PathBuf>) -> anyhow::Result<Answerer> {
    if let Some(path) = answers {
        let scripted = Arc::new(ScriptedHandler::new(Answers::load(path)?));
        return Ok(Answerer {
            handler: scripted.clone(),
            scripted: Some(scripted),
        });
    }
    let handler: Arc<dyn ElicitationHandler> = if frontdesk_host::terminal_available() {
        Arc::new(TerminalHandler::new())
    } else {
        // Declares both modes, so the server asks and hears `cancel` (the
        // person could not be asked), rather than being told nobody answers.
        Arc::new(
            HeadlessHandler::new("no terminal to ask on and no --answers file").declaring(
                HandlerModes {
                    form: true,
                    url: true,
                },
            ),
        )
    };
    Ok(Answerer {
        handler,
        scripted: None,
    })
}

/// Print every JSON-RPC message to stderr, compact, one per line.
pub fn wire_printer(direction: Direction, message: &Value) {
    let arrow = match direction {
        Direction::Outgoing => "→",
        Direction::Incoming => "←",
    };
    eprintln!("  wire {arrow} {message}");
}

/// Split a command line on whitespace, honouring '…' and "…" quotes and `\`.
pub fn split_command(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Streamable HTTP endpoint.
    Url(String),
    /// A command to spawn (stdio).
    Command(Vec<String>),
    /// The brightgrid demo, in this process.
    Demo,
}

impl Target {
    /// `demo`, an `http(s)://` URL, or a command line.
    pub fn parse(spec: &str) -> anyhow::Result<Target> {
        let spec = spec.trim();
        if spec == "demo" {
            return Ok(Target::Demo);
        }
        if spec.starts_with("http://") || spec.starts_with("https://") {
            return Ok(Target::Url(spec.to_owned()));
        }
        let words = split_command(spec);
        if words.is_empty() {
            bail!("no server given: use a URL, a command, or `demo`");
        }
        Ok(Target::Command(words))
    }

    /// How to name it in status lines.
    pub fn describe(&self) -> String {
        match self {
            Target::Url(u) => u.clone(),
            Target::Command(words) => words.join(" "),
            Target::Demo => "the brightgrid demo (in this process)".to_owned(),
        }
    }
}

/// Connect to `target`.
pub async fn connect(
    target: &Target,
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
) -> anyhow::Result<Client> {
    match target {
        Target::Url(url) => Client::connect_http(url, config, handler)
            .await
            .with_context(|| format!("cannot connect to {url}")),
        Target::Command(words) => {
            let Some((program, args)) = words.split_first() else {
                bail!("empty server command");
            };
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            Client::connect_stdio(command, config, handler)
                .await
                .with_context(|| format!("cannot start or talk to `{}`", words.join(" ")))
        }
        Target::Demo => connect_demo(config, handler).await,
    }
}

/// Start brightgrid in this process on an in-memory pipe and connect to it.
pub async fn connect_demo(
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
) -> anyhow::Result<Client> {
    let server = brightgrid(&DemoOptions::default())
        .await
        .context("cannot start the demo server")?;
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        if let Err(e) = frontdesk::server::stdio::serve(server, server_read, server_write).await {
            tracing::debug!(error = %e, "in-process demo server ended");
        }
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    Client::connect_io(client_read, client_write, config, handler)
        .await
        .context("cannot talk to the in-process demo server")
}

/// Messages seen by the wire tap, for explanations.
#[derive(Clone, Default)]
pub struct WireLog(Arc<Mutex<Vec<(Direction, Value)>>>);

impl WireLog {
    /// Record one message.
    pub fn record(&self, direction: Direction, message: &Value) {
        if let Ok(mut log) = self.0.lock() {
            log.push((direction, message.clone()));
        }
    }

    /// Take everything recorded so far.
    pub fn take(&self) -> Vec<(Direction, Value)> {
        self.0
            .lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quoted_commands() {
        assert_eq!(
            split_command(r#"frontdesk serve --stdio "a b" 'c d' e\ f"#),
            ["frontdesk", "serve", "--stdio", "a b", "c d", "e f"]
        );
        assert_eq!(Target::parse("demo").ok(), Some(Target::Demo));
        assert!(matches!(
            Target::parse("http://127.0.0.1:1/mcp"),
            Ok(Target::Url(_))
        ));
        assert!(Target::parse("  ").is_err());
    }
}
