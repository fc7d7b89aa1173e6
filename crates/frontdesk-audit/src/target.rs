//! What is audited and how it is reached: the server (a command line for
//! stdio, an `http(s)://` URL, or an in-process pipe), and optionally a
//! second instance of it and the same server as another principal.

use std::fmt;
use std::sync::Arc;

use frontdesk::client::ClientConfig;

use frontdesk::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite};

/// A reader and a writer speaking newline-delimited JSON-RPC.
pub type Pipe = (
    Box<dyn AsyncRead + Unpin + Send>,
    Box<dyn AsyncWrite + Unpin + Send>,
);

/// Opens a fresh in-process connection to a server (tests, embedding).
pub trait PipeOpener: Send + Sync {
    /// A new connection: each session of the audit opens its own.
    fn open(&self) -> BoxFuture<'_, std::io::Result<Pipe>>;
}

impl<F> PipeOpener for F
where
    F: Fn() -> BoxFuture<'static, std::io::Result<Pipe>> + Send + Sync,
{
    fn open(&self) -> BoxFuture<'_, std::io::Result<Pipe>> {
        self()
    }
}

/// Adds what reaching the server needs to a client configuration (for an
/// HTTP server: its CA certificates and the sign-in or tokens of one
/// principal).
pub type Configure = Arc<dyn Fn(&mut ClientConfig) -> Result<(), String> + Send + Sync>;

/// How to reach a server.
#[derive(Clone)]
pub enum Reach {
    /// Spawn this command (program and arguments) for every session and
    /// speak over its stdin/stdout.
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
    /// An in-process pipe (a new one per session).
    Pipe(Arc<dyn PipeOpener>),
}

impl fmt::Debug for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reach::Command(words) => f.debug_tuple("Command").field(words).finish(),
            Reach::Url(url) => f.debug_tuple("Url").field(url).finish(),
            Reach::Pipe(_) => f.write_str("Pipe"),
        }
    }
}

/// One way to reach the server, with what the client needs for it.
#[derive(Clone)]
pub struct Endpoint {
    /// Where.
    pub reach: Reach,
    /// Client settings of this endpoint (credentials, CA certificates).
    pub configure: Option<Configure>,
    /// How the report names it.
    pub name: String,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("reach", &self.reach)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// A server started with this command line (program and arguments).
    pub fn command(words: Vec<String>) -> Self {
        let name = words.join(" ");
        Self {
            reach: Reach::Command(words),
            configure: None,
            name,
        }
    }

    /// A Streamable HTTP endpoint.
    pub fn url(url: impl Into<String>) -> Self {
        let url = url.into();
        Self {
            name: url.clone(),
            reach: Reach::Url(url),
            configure: None,
        }
    }

    /// An in-process server: `open` makes a new pipe to it per session.
    pub fn pipe(name: impl Into<String>, open: impl PipeOpener + 'static) -> Self {
        Self {
            reach: Reach::Pipe(Arc::new(open)),
            configure: None,
            name: name.into(),
        }
    }

    /// With these client settings (builder style).
    pub fn configured(
        mut self,
        configure: impl Fn(&mut ClientConfig) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.configure = Some(Arc::new(configure));
        self
    }
}

/// The server under audit and the other ways of reaching it some checks
/// need.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server.
    pub server: Endpoint,
    /// A second instance of the same server (same keys, same tools): a
    /// retry there must work (`instance.retry-elsewhere`).
    pub also: Option<Endpoint>,
    /// The same server reached as another principal (another token, or a
    /// command that starts it as someone else): it must not be able to use
    /// the first one's state (`state.principal`).
    pub second_principal: Option<Endpoint>,
}

impl Target {
    /// Just the server.
    pub fn new(server: Endpoint) -> Self {
        Self {
            server,
            also: None,
            second_principal: None,
        }
    }
}
