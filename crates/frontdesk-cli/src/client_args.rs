//! What the commands that talk to one server as a client share, in two steps as
//! ripgrep's `LowArgs` → `HiArgs`: the flags, parsed by clap and flattened into each
//! command ([`ClientArgs`] for `call`, `connect` and `tools`; [`TimeoutArg`] and
//! [`RemoteArgs`] for `gateway` too; no I/O), then what they become before anything
//! is sent: [`Reach`] (the server, the client configuration the flags make, the time
//! limit), built once by every command and by a parked call's keeper, and for a
//! person's questions [`ClientSetup`] (a `Reach` and who answers).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use frontdesk::client::{ClientConfig, ElicitationHandler, StaticRoots};

use crate::exit;
use crate::hosting::{
    Answerer, Connection, ProtocolArg, Target, answerer, client_config, connect, wire_printer,
};
use crate::output;
use crate::signin::RemoteArgs;

/// `--timeout SECS`, the same for every command that connects to a server.
#[derive(Debug, Clone, Copy, Args)]
pub struct TimeoutArg {
    /// Seconds to wait for the server to connect and to answer each request (the
    /// person's time to answer a question is not counted).
    #[arg(
        id = "timeout",
        long = "timeout",
        value_name = "SECS",
        default_value_t = 30.0
    )]
    pub secs: f64,
}

impl TimeoutArg {
    /// As a duration.
    pub fn duration(self) -> Duration {
        timeout(self.secs)
    }
}

/// A number of seconds from the command line as a duration (at least 0.1 s).
pub fn timeout(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.1)).unwrap_or(Duration::from_secs(30))
}

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
    #[command(flatten)]
    pub timeout: TimeoutArg,
    /// Print every JSON-RPC message to stderr.
    #[arg(long)]
    pub show_wire: bool,
    /// Offer this directory to the server as a root (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

impl ClientArgs {
    /// `target` reached as these flags say: revision, time limit, roots and, for a
    /// URL, the CA certificates and the sign-in. Nobody answers questions yet and
    /// nothing is printed (`--answers` and `--show-wire` are [`ClientArgs::setup`]'s;
    /// the web host answers on its page and taps the wire itself).
    pub fn reach(&self, target: Target) -> anyhow::Result<Reach> {
        Reach::new(target, self.protocol, self.timeout.duration())
            .roots(&self.roots)?
            .remote(&self.remote)
    }

    /// Everything needed to reach `target` and answer its questions: who answers
    /// (`--answers`, the terminal, or nobody; the terminal also shows sampling
    /// requests), the wire tap, and [`ClientArgs::reach`].
    pub fn setup(&self, target: Target) -> anyhow::Result<ClientSetup> {
        let answerer = answerer(self.answers.as_ref())?;
        let mut reach = self.reach(target)?;
        if self.show_wire {
            reach.config = reach.config.on_wire(wire_printer);
        }
        reach.config.sampling.clone_from(&answerer.sampling);
        Ok(ClientSetup { reach, answerer })
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
        connected.map_err(|e| exit::cannot_start(command, &e))
    }
}

/// One server and how to reach it: what every command that connects builds from
/// its flags, once, before anything is sent.
#[derive(Clone)]
pub struct Reach {
    /// Where the server is.
    pub target: Target,
    /// The client configuration the flags make; a command adds what is its own
    /// (the wire tap, sampling, the keeper's wait for a person).
    pub config: ClientConfig,
    /// How long connecting and each request may take.
    pub timeout: Duration,
}

impl Reach {
    /// `target` on `protocol` within `timeout` (connecting and each request, never
    /// the person's time).
    pub fn new(target: Target, protocol: ProtocolArg, timeout: Duration) -> Reach {
        Reach {
            target,
            config: client_config(protocol, timeout),
            timeout,
        }
    }

    /// The same with the remote flags (CA certificates, sign-in) when the server
    /// is a URL.
    pub fn remote(mut self, remote: &RemoteArgs) -> anyhow::Result<Reach> {
        if matches!(self.target, Target::Url(_)) {
            remote.apply(&mut self.config)?;
        }
        Ok(self)
    }

    /// The same, offering `dirs` to the server as its roots (`--root`).
    pub fn roots(mut self, dirs: &[PathBuf]) -> anyhow::Result<Reach> {
        if !dirs.is_empty() {
            let roots = frontdesk_host::sampling::roots_of(dirs).context("--root")?;
            self.config.roots = Some(Arc::new(StaticRoots(roots)));
        }
        Ok(self)
    }

    /// Connect within the time limit, questions going to `handler`; again after
    /// the server ended, if need be (the gateway restarts its stdio server so).
    pub async fn connect(
        &self,
        handler: Arc<dyn ElicitationHandler>,
    ) -> anyhow::Result<Connection> {
        connect(&self.target, self.config.clone(), handler, self.timeout).await
    }
}

/// A server to reach and who answers its questions: built from [`ClientArgs`],
/// used once.
pub struct ClientSetup {
    reach: Reach,
    answerer: Answerer,
}

impl ClientSetup {
    /// Say where it connects (stderr), then connect within the time limit.
    pub async fn connect(self) -> anyhow::Result<(Connection, Answerer)> {
        output::note(&format!(
            "frontdesk: connecting to {} …",
            self.reach.target.describe()
        ));
        let connection = self.reach.connect(self.answerer.handler.clone()).await?;
        Ok((connection, self.answerer))
    }
}
