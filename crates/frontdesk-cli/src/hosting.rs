//! What `connect`, `call` and `lab` share: picking the elicitation handler, reaching a
//! server (a URL, a command, or the in-process demo) within a time limit, the
//! protocol flag, the wire tap, and one-line reports of what went wrong.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::ValueEnum;
use frontdesk::client::{
    Client, ClientConfig, ClientError, Direction, ElicitationHandler, HandlerModes, ProtocolChoice,
    SamplingHandler,
};
use frontdesk::http::{HttpOptions, bind};
use frontdesk::server::Server;
use frontdesk::wire::Revision;
use frontdesk_demo::{DemoOptions, brightgrid, register};
use frontdesk_host::sanitize::{json_for_terminal, one_line};
use frontdesk_host::{Answers, HeadlessHandler, ScriptedHandler, TerminalHandler};
use serde_json::Value;
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};
use tokio_util::sync::CancellationToken;

use crate::server_process::{ServerProcess, quoted};

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
    /// The server sends `elicitation/create` while the call is open.
    #[value(name = "2025-11-25")]
    Legacy,
    /// The call returns `input_required`; the client retries.
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

/// `--revision` of `serve` and `audit`: one protocol revision only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RevisionArg {
    /// 2025-11-25: live `elicitation/create` on a session.
    #[value(name = "2025-11-25")]
    Legacy,
    /// 2026-07-28: `input_required` results, no session.
    #[value(name = "2026-07-28")]
    Modern,
}

impl RevisionArg {
    /// The revision named.
    pub fn revision(self) -> Revision {
        match self {
            RevisionArg::Legacy => Revision::V2025_11_25,
            RevisionArg::Modern => Revision::V2026_07_28,
        }
    }
}

/// The handler that answers questions, and (for scripts) where its problems are.
pub struct Answerer {
    /// Given to the client.
    pub handler: Arc<dyn ElicitationHandler>,
    /// Shows sampling requests (at a terminal only; elsewhere sampling is not declared).
    pub sampling: Option<Arc<dyn SamplingHandler>>,
    /// Set when answers come from a file.
    pub scripted: Option<Arc<ScriptedHandler>>,
    /// Set when nobody can answer (no terminal, no file): counts the questions.
    pub unanswered: Option<Arc<Unanswered>>,
}

/// `--answers FILE` → scripted; a terminal → the terminal form; otherwise cancel
/// every question, saying why.
pub fn answerer(answers: Option<&PathBuf>) -> anyhow::Result<Answerer> {
    if let Some(path) = answers {
        let scripted = Arc::new(ScriptedHandler::new(Answers::load(path)?));
        return Ok(Answerer {
            handler: scripted.clone(),
            sampling: None,
            scripted: Some(scripted),
            unanswered: None,
        });
    }
    if frontdesk_host::terminal_available() {
        let terminal = TerminalHandler::new();
        // No model here: the person sees the whole prompt and the server hears why not.
        let sampling: Arc<dyn SamplingHandler> = Arc::new(terminal.sampling(None));
        return Ok(Answerer {
            handler: Arc::new(terminal),
            sampling: Some(sampling),
            scripted: None,
            unanswered: None,
        });
    }
    // Declares both modes, so the server asks and hears `cancel` (the person
    // could not be asked), rather than being told nobody answers; counted, so
    // the command fails instead of passing a dismissal off as a result.
    let unanswered = Arc::new(Unanswered {
        inner: HeadlessHandler::new("no terminal to ask on and no --answers file").declaring(
            HandlerModes {
                form: true,
                url: true,
            },
        ),
        count: std::sync::atomic::AtomicUsize::new(0),
    });
    Ok(Answerer {
        handler: unanswered.clone(),
        sampling: None,
        scripted: None,
        unanswered: Some(unanswered),
    })
}

/// One JSON-RPC message as `--show-wire` prints it: compact, one line, unsafe
/// characters as `\u` escapes (the same JSON).
pub fn wire_line(direction: Direction, message: &Value) -> String {
    let arrow = match direction {
        Direction::Outgoing => "→",
        Direction::Incoming => "←",
    };
    format!("  wire {arrow} {}", json_for_terminal(message, false))
}

/// Print every JSON-RPC message to stderr, one per line ([`wire_line`]).
pub fn wire_printer(direction: Direction, message: &Value) {
    crate::output::note_unwrapped(&wire_line(direction, message));
}

/// Check that the server has a tool called `name`; if not, the error lists the
/// ones it has.
pub async fn check_tool(client: &Client, name: &str) -> anyhow::Result<()> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| anyhow::anyhow!("cannot list the tools: {}", client_error(&e)))?;
    if tools.iter().any(|t| t.name == name) {
        return Ok(());
    }
    let names: Vec<String> = tools.iter().map(|t| one_line(&t.name, 80)).collect();
    if names.is_empty() {
        bail!(
            "this server has no tool `{}`: it offers no tools",
            one_line(name, 80)
        );
    }
    bail!(
        "this server has no tool `{}`; its tools: {} (`frontdesk tools SERVER` describes them)",
        one_line(name, 80),
        names.join(", ")
    )
}

/// The headless handler of `call`: cancels every question (nobody can be
/// asked), and counts them, so the command can say so and fail.
pub struct Unanswered {
    inner: HeadlessHandler,
    count: std::sync::atomic::AtomicUsize,
}

impl Unanswered {
    /// How many questions were answered `cancel` for want of a person.
    pub fn count(&self) -> usize {
        self.count.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl ElicitationHandler for Unanswered {
    fn modes(&self) -> HandlerModes {
        self.inner.modes()
    }

    fn elicit(
        &self,
        request: frontdesk::client::Elicitation,
    ) -> frontdesk::BoxFuture<'_, frontdesk::client::ElicitationResponse> {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.elicit(request)
    }
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

/// Whether `spec` starts like `scheme://`.
fn url_scheme(spec: &str) -> Option<&str> {
    let (scheme, _) = spec.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

impl Target {
    /// `demo`, an `http(s)://` URL, or a command line (quoted as in a shell).
    pub fn parse(spec: &str) -> anyhow::Result<Target> {
        let spec = spec.trim();
        if spec == "demo" {
            return Ok(Target::Demo);
        }
        if let Some(scheme) = url_scheme(spec) {
            if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
                return Ok(Target::Url(spec.to_owned()));
            }
            bail!(
                "{scheme}:// is not a way to reach an MCP server: give an http(s):// URL, a command line, or `demo`"
            );
        }
        let Some(words) = shlex::split(spec) else {
            bail!("the server command has an unbalanced quote: {spec}");
        };
        if words.is_empty() {
            bail!("no server given: use a URL, a command, or `demo`");
        }
        Ok(Target::Command(words))
    }

    /// The server of `--url URL` (`connect`, `gateway`): an http(s):// URL only,
    /// since a command goes after `--`.
    pub fn url_flag(url: &str) -> anyhow::Result<Target> {
        match Target::parse(url)? {
            target @ Target::Url(_) => Ok(target),
            _ => bail!("--url takes an http(s):// URL; give a command after `--` instead"),
        }
    }

    /// How to name it in status lines (a command quoted as a shell needs it).
    pub fn describe(&self) -> String {
        match self {
            Target::Url(u) => u.clone(),
            Target::Command(words) => quoted(words),
            Target::Demo => "the brightgrid demo (in this process)".to_owned(),
        }
    }
}

/// A connected client, and the server process when this CLI started one.
pub struct Connection {
    /// The client.
    pub client: Client,
    process: Option<ServerProcess>,
}

impl Connection {
    /// The client alone, for hosts that keep it (the web host): a spawned
    /// server process is kept until it exits (closing the client closes its
    /// stdin, which ends it).
    pub fn detach(self) -> Client {
        if let Some(mut process) = self.process {
            tokio::spawn(async move {
                let _ = process.wait().await;
            });
        }
        self.client
    }

    /// Wait until the server process this CLI started ends (never, for a
    /// URL or the demo); how it ended, for a sentence.
    pub async fn ended(&mut self) -> String {
        match &mut self.process {
            Some(process) => {
                let status = process.wait().await;
                process.ended(status)
            }
            None => std::future::pending().await,
        }
    }

    /// Close the client, then let the server process end.
    pub async fn close(self) {
        self.client.close().await;
        if let Some(process) = self.process {
            process.shut_down().await;
        }
    }
}

/// The client settings every command shares: `timeout` bounds connecting and each
/// request (never the person's time to answer).
pub fn client_config(protocol: ProtocolArg, timeout: Duration) -> ClientConfig {
    let mut config = ClientConfig::default().protocol(protocol.choice());
    config.request_timeout = timeout;
    config.probe_timeout = config.probe_timeout.min(timeout);
    config
}

/// A network failure in a few words: the innermost cause of the transport's
/// chain (`error sending request …: client error (Connect): tcp connect error:
/// Connection refused (os error 111)` → `connection refused (nothing listens
/// there?)`).
fn network_reason(chain: &str) -> String {
    // The wrappers each layer adds say nothing the person can act on.
    const WRAPPERS: [&str; 5] = [
        "error sending request",
        "client error",
        "tcp connect error",
        "transport",
        "TLS failed",
    ];
    let parts: Vec<&str> = chain
        .split(": ")
        .map(|p| p.find(" (os error").map_or(p, |at| &p[..at]).trim())
        .filter(|p| !p.is_empty() && !WRAPPERS.iter().any(|w| p.starts_with(w)))
        .collect();
    let rest = if parts.is_empty() {
        chain.to_owned()
    } else {
        parts.join(": ")
    };
    let lower = rest.to_ascii_lowercase();
    let reason = if lower.contains("connection refused") {
        "connection refused (is the server running, on that port?)".to_owned()
    } else if lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("dns error")
    {
        "the host name was not found".to_owned()
    } else if lower.contains("timed out") {
        "the connection timed out".to_owned()
    } else {
        rest
    };
    if chain.starts_with("TLS failed") {
        format!("TLS failed: {reason}")
    } else {
        reason
    }
}

/// The message for a client error: one line, escaped, and an HTML page said to be one.
pub fn client_error(error: &ClientError) -> String {
    if let ClientError::Transport(reason) = error
        && let chain = reason.message()
        && !chain.to_ascii_lowercase().contains("<html")
        && !chain.to_ascii_lowercase().contains("<!doctype")
        && chain.contains(": ")
    {
        return one_line(&network_reason(chain), 300);
    }
    let text = error.to_string();
    let lower = text.to_ascii_lowercase();
    if let Some(at) = lower.find("<!doctype").or_else(|| lower.find("<html")) {
        let before = one_line(&text[..at], 200);
        return format!(
            "{}: the server answered with a web page, not MCP: is this its MCP endpoint (often …/mcp)?",
            before.trim_end_matches([':', ' '])
        );
    }
    one_line(&text, 300)
}

/// Connect to `target` within `timeout`.
pub async fn connect(
    target: &Target,
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
    timeout: Duration,
) -> anyhow::Result<Connection> {
    let secs = timeout.as_secs_f64();
    match target {
        Target::Url(url) => {
            match tokio::time::timeout(timeout, Client::connect_http(url, config, handler)).await {
                Ok(Ok(client)) => Ok(Connection {
                    client,
                    process: None,
                }),
                Ok(Err(e)) if e.auth() == Some(&frontdesk::client::auth::AuthError::Unattended) => {
                    bail!(
                        "{url} needs a sign-in, and there is no terminal here to approve it: \
                         sign in once with `frontdesk connect --url {url}` (the token is kept)"
                    )
                }
                Ok(Err(e)) => bail!("cannot connect to {url}: {}", client_error(&e)),
                Err(_) => {
                    bail!("{url} did not answer within {secs} s (--timeout SECS to wait longer)")
                }
            }
        }
        Target::Command(words) => {
            let (mut process, stdout, stdin) = ServerProcess::spawn(words)?;
            let shown = quoted(words);
            let connecting =
                tokio::time::timeout(timeout, Client::connect_io(stdout, stdin, config, handler));
            tokio::select! {
                connected = connecting => match connected {
                    Ok(Ok(client)) => Ok(Connection { client, process: Some(process) }),
                    Ok(Err(e)) => {
                        let status = tokio::time::timeout(Duration::from_millis(500), process.wait()).await;
                        match status {
                            Ok(status) => bail!(
                                "the server command `{shown}` {} before it answered",
                                process.ended(status)
                            ),
                            Err(_) => bail!("cannot talk to `{shown}`: {}", client_error(&e)),
                        }
                    }
                    Err(_) => bail!(
                        "`{shown}` did not answer within {secs} s: is it an MCP server on stdio? \
                         (--timeout SECS to wait longer)"
                    ),
                },
                status = process.wait() => bail!(
                    "the server command `{shown}` {} before it answered",
                    process.ended(status)
                ),
            }
        }
        Target::Demo => Ok(Connection {
            client: connect_demo(config, handler).await?,
            process: None,
        }),
    }
}

/// The client's end of an in-memory pipe to brightgrid, started in this process
/// and served as on stdio (`connect --demo`, `call demo`, `audit demo`).
pub async fn demo_pipe() -> std::io::Result<(ReadHalf<DuplexStream>, WriteHalf<DuplexStream>)> {
    let server = brightgrid(&DemoOptions::default()).await?;
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        if let Err(e) = frontdesk::server::stdio::serve(server, server_read, server_write).await {
            tracing::debug!(error = %e, "in-process demo server ended");
        }
    });
    Ok(tokio::io::split(client_end))
}

/// Start brightgrid in this process on an in-memory pipe and connect to it.
pub async fn connect_demo(
    config: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
) -> anyhow::Result<Client> {
    let (client_read, client_write) = demo_pipe().await.context("cannot start the demo server")?;
    Client::connect_io(client_read, client_write, config, handler)
        .await
        .map_err(|e| anyhow::anyhow!("cannot talk to the in-process demo server: {e}"))
}

/// Serve brightgrid in this process over Streamable HTTP on a loopback port, with
/// its sign-in page (`/signin`, where its URL question points), until `stop`
/// fires (`lab --transport http`, with or without `--web`). Its endpoint's URL.
pub async fn demo_over_http(stop: CancellationToken) -> anyhow::Result<String> {
    let listener = bind(([127, 0, 0, 1], 0).into(), HttpOptions::default())
        .await
        .context("cannot bind a loopback port for the demo server")?;
    let server: Server = register(
        Server::builder("brightgrid", env!("CARGO_PKG_VERSION")),
        &listener.base_url(),
        &DemoOptions::default(),
    )
    .build();
    let endpoint = listener.endpoint_url();
    tokio::spawn(async move {
        let served = listener
            .routes(frontdesk_demo::signin::router(server.clone()))
            .serve_with_shutdown(server, async move { stop.cancelled().await })
            .await;
        if let Err(e) = served {
            tracing::warn!(error = %e, "the demo's HTTP server ended");
        }
    });
    Ok(endpoint)
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
    fn targets_are_parsed_and_described_as_typed() {
        assert_eq!(
            Target::parse(r#"frontdesk serve --stdio "a b" 'c d' e\ f"#).ok(),
            Some(Target::Command(
                ["frontdesk", "serve", "--stdio", "a b", "c d", "e f"]
                    .map(String::from)
                    .to_vec()
            ))
        );
        assert_eq!(Target::parse("demo").ok(), Some(Target::Demo));
        assert!(matches!(
            Target::parse("http://127.0.0.1:1/mcp"),
            Ok(Target::Url(_))
        ));
        assert!(Target::parse("  ").is_err());
        assert!(Target::parse("'unbalanced").is_err());
        let ftp = Target::parse("ftp://example/mcp")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            ftp.as_deref(),
            Some(
                "ftp:// is not a way to reach an MCP server: give an http(s):// URL, a command line, or `demo`"
            )
        );
        let sh = Target::Command(["sh", "-c", "exit 1"].map(String::from).to_vec());
        assert_eq!(sh.describe(), "sh -c 'exit 1'");
    }

    #[test]
    fn network_errors_are_one_short_line() {
        assert_eq!(
            network_reason(
                "error sending request for url (http://127.0.0.1:1/mcp): client error (Connect): \
                 tcp connect error: Connection refused (os error 111)"
            ),
            "connection refused (is the server running, on that port?)"
        );
        assert_eq!(
            network_reason(
                "error sending request: dns error: failed to lookup address information: Name or service not known"
            ),
            "the host name was not found"
        );
        assert_eq!(
            network_reason(
                "TLS failed: error sending request: invalid peer certificate: UnknownIssuer"
            ),
            "TLS failed: invalid peer certificate: UnknownIssuer"
        );
    }
}
