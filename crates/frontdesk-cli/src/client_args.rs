//! What `call` and `connect` share, in two steps as ripgrep's `LowArgs` → `HiArgs`:
//! the flags that say how to reach a server and who answers its questions
//! ([`ClientArgs`], flattened into both commands, no I/O), then what they become
//! before anything is sent ([`ClientSetup`]: the server, the answerer and the client
//! configuration), built once and connected once.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use frontdesk::client::ClientConfig;

use crate::exit;
use crate::hosting::{
    Answerer, Connection, ProtocolArg, Target, answerer, client_config, connect, person_side,
    wire_printer,
};
use crate::output;
use crate::signin::RemoteArgs;

/// The flags of a command that talks to one server as a client.
#[derive(Debug, Args)]
pub struct ClientArgs {
    /// Answer the server's questions from this JSON file instead of the terminal (its
    /// format: `frontdesk call --help`).
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Protocol revision.
    #[arg(long, value_enum, default_value = "auto")]
    pub protocol: ProtocolArg,
    /// Seconds to wait for the server to connect and to answer each request (the
    /// person's time to answer a question is not counted).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    pub show_wire: bool,
    /// Offer this directory to the server as a root (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// `--timeout SECS` as a duration (at least 0.1 s).
pub fn timeout(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.1)).unwrap_or(Duration::from_secs(30))
}

impl ClientArgs {
    /// `--timeout` as a duration.
    pub fn timeout(&self) -> Duration {
        timeout(self.timeout)
    }

    /// Everything needed to reach `target`: who answers (`--answers`, the terminal,
    /// or nobody), and the client configuration (revision, time limit, wire tap,
    /// roots, and for a URL the CA certificates and the sign-in).
    pub fn setup(&self, target: Target) -> anyhow::Result<ClientSetup> {
        let answerer = answerer(self.answers.as_ref())?;
        let mut config = client_config(self.protocol, self.timeout());
        if self.show_wire {
            config = config.on_wire(wire_printer);
        }
        person_side(&mut config, &answerer, &self.roots)?;
        if matches!(target, Target::Url(_)) {
            self.remote.apply(&mut config)?;
        }
        Ok(ClientSetup {
            target,
            answerer,
            config,
            timeout: self.timeout(),
        })
    }

    /// [`ClientArgs::setup`] and [`ClientSetup::connect`], a failure of either
    /// reported as `frontdesk COMMAND: …` with the exit status of "nothing was done".
    pub async fn connect(
        &self,
        command: &str,
        target: Target,
    ) -> Result<(Connection, Answerer), ExitCode> {
        let connected = match self.setup(target) {
            Ok(setup) => setup.connect().await,
            Err(e) => Err(e),
        };
        connected.map_err(|e| {
            output::error(command, &format!("{e:#}"));
            exit::code(exit::CANNOT_START)
        })
    }
}

/// A server to reach and how: built from [`ClientArgs`], used once.
pub struct ClientSetup {
    target: Target,
    answerer: Answerer,
    config: ClientConfig,
    timeout: Duration,
}

impl ClientSetup {
    /// Say where it connects (stderr), then connect within the time limit.
    pub async fn connect(self) -> anyhow::Result<(Connection, Answerer)> {
        output::note(&format!(
            "frontdesk: connecting to {} …",
            self.target.describe()
        ));
        let handler = self.answerer.handler.clone();
        let connection = connect(&self.target, self.config, handler, self.timeout).await?;
        Ok((connection, self.answerer))
    }
}
