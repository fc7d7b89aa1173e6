//! `frontdesk gateway`: one MCP server (a stdio child, or an http(s) URL)
//! offered on stdio or Streamable HTTP, every elicitation of its passing
//! through frontdesk's checks (`frontdesk-gateway`). A stdio child that
//! ends is started again with back-off, and stopped with the gateway.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use clap::Args;
use frontdesk::http::{HttpOptions, OriginPolicy, bind};
use frontdesk_gateway::{AuditLog, Gateway, GatewayOptions};

use crate::client_args::{Reach, TimeoutArg};
use crate::front_auth::AuthArgs;
use crate::hosting::{Connection, ProtocolArg, Target, client_error};
use crate::serve::{ENDPOINT, listen_address, sealer};
use crate::signin::RemoteArgs;
use tokio_util::sync::CancellationToken;

/// Arguments of `frontdesk gateway`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("front").required(true).args(["stdio", "http"]))]
#[command(group = clap::ArgGroup::new("upstream").required(true).args(["url", "command"]))]
#[command(after_help = "\
Examples:
  frontdesk gateway --stdio -- npx some-mcp-server      # a stdio server, for a stdio host
  frontdesk gateway --http 127.0.0.1:8080 -- python server.py   # a stdio server over HTTP
  frontdesk gateway --stdio --url https://mcp.example.com/mcp   # a remote server, for a stdio host

Questions the server asks pass frontdesk's checks on the way: a form outside the elicitation
subset is refused to the server (-32602), answers are validated against the schema, a URL
question's URL is reviewed (a refused URL never reaches the person), server text loses
control characters, and the server may ask at most 60 questions a minute (--no-url-review,
--no-scrub, --questions-per-minute switch these). A 2026-07-28 client answers in
input_required rounds whatever the server speaks, and a 2025-11-25 client live. Each question
is a line of the log (target frontdesk_gateway::audit) and, with --audit-log FILE, a JSON line
of that file.

A server command that ends is started again (after 0.5 s, doubling while it keeps ending, at
most 30 s). The server's stderr goes to this command's log (stderr); stdout is the stdio
transport.")]
pub struct GatewayArgs {
    /// Offer the server on stdin/stdout (newline-delimited JSON).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Offer the server over Streamable HTTP on this address (`/mcp`), e.g.
    /// `127.0.0.1:8080` or `localhost:8080`.
    #[arg(long, value_name = "ADDR", value_parser = listen_address)]
    http: Option<SocketAddr>,
    /// The server to front: a Streamable HTTP endpoint.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// The revision to speak to the server.
    #[arg(long, value_enum, default_value = "auto")]
    upstream_protocol: ProtocolArg,
    #[command(flatten)]
    timeout: TimeoutArg,
    /// Also accept browser requests from this origin (repeatable; --http).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origins: Vec<String>,
    #[command(flatten)]
    remote: RemoteArgs,
    /// Who may use the gateway's HTTP endpoint (--http): bearer tokens or JWTs,
    /// as `frontdesk serve` checks them.
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    tls: crate::tls_args::TlsArgs,
    #[command(flatten)]
    limits: crate::listen_limits::ListenLimitArgs,
    /// Record each question of the server as a JSON line of this file
    /// (appended; `-`: stderr): when, server, tool, mode, message, outcome,
    /// how long the person took. No answer content unless --audit-answers.
    #[arg(long, value_name = "FILE")]
    audit_log: Option<std::path::PathBuf>,
    /// Also record accepted answers' content in the audit file.
    #[arg(long, requires = "audit_log")]
    audit_answers: bool,
    /// Most questions the server may ask a minute (a burst of this many, then
    /// one every 60 s / N); past it a question is refused to the server. 0: no
    /// limit.
    #[arg(long, value_name = "N", default_value_t = 60)]
    questions_per_minute: u32,
    /// Most connections to a 2025-11-25 server, so that calls run side by
    /// side (each connection carries one call at a time: its live questions
    /// do not say which call they are for); more are opened as calls need
    /// them (a stdio server is started once more for each), each declaring
    /// at `initialize` exactly the capabilities of its calls' clients (the
    /// first one declares everything the gateway passes on).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    upstream_connections: u16,
    /// When every connection to a 2025-11-25 server is busy, a call whose
    /// 2026-07-28 client has not come back for its round for this many
    /// seconds gives its connection up to a waiting call (its retry is then
    /// refused), the longest-waiting first.
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    yield_after: u64,
    /// Most calls of the server in progress through the gateway at once,
    /// each until its result (a call waiting for a person's answer counts);
    /// more are refused as busy (`-32000`; `503` over HTTP). Raise it with
    /// --max-sessions for many people answering at once.
    #[arg(long, value_name = "N", default_value_t = GatewayOptions::default().max_held_calls,
          value_parser = crate::listen_limits::at_least_one)]
    max_calls: usize,
    /// Do not review URL-mode URLs (a URL the review refuses reaches the
    /// client's own review).
    #[arg(long)]
    no_url_review: bool,
    /// Pass the server's messages, titles and descriptions with their control
    /// and bidirectional formatting characters.
    #[arg(long)]
    no_scrub: bool,
    /// The server to front: a command that speaks MCP on stdio (after `--`).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Run `frontdesk gateway` until the front transport closes, Ctrl-C or SIGTERM.
pub fn run(args: &GatewayArgs) -> ExitCode {
    crate::run::block_on("gateway", gateway(args))
}

/// The gateway's checks and audit file, as the command line sets them.
fn options(args: &GatewayArgs) -> anyhow::Result<GatewayOptions> {
    let mut options = GatewayOptions::default();
    options.checks.questions_per_minute = args.questions_per_minute;
    options.checks.review_urls = !args.no_url_review;
    options.checks.scrub = !args.no_scrub;
    options.yield_after = std::time::Duration::from_secs(args.yield_after);
    options.max_held_calls = args.max_calls;
    if let Some(path) = &args.audit_log {
        let log = if path.as_os_str() == "-" {
            AuditLog::stderr()
        } else {
            AuditLog::append_to(path)
                .with_context(|| format!("cannot open the audit file {}", path.display()))?
        };
        options.audit = Some(std::sync::Arc::new(log.with_answers(args.audit_answers)));
    }
    Ok(options)
}

/// The upstream named on the command line.
fn upstream(args: &GatewayArgs) -> anyhow::Result<Target> {
    match &args.url {
        Some(url) => Target::url_flag(url),
        None if args.command.is_empty() => bail!("give the server: --url URL, or -- CMD ARGS…"),
        None => Ok(Target::Command(args.command.clone())),
    }
}

/// The first wait before a stdio server that ended is started again; it
/// doubles after each start that does not last, up to [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MOST_BACKOFF: Duration = Duration::from_secs(30);
/// A server that ran this long before it ended starts again at once.
const STAYED_UP: Duration = Duration::from_secs(60);

/// Keep a stdio server running: when it ends, start it again (after a
/// back-off that grows while it keeps ending) and attach the new
/// connection; close it when `stop` fires.
async fn supervise(
    gateway: Gateway,
    upstream: Reach,
    mut connection: Connection,
    stop: CancellationToken,
) {
    let shown = upstream.target.describe();
    let mut backoff = FIRST_BACKOFF;
    let mut up_since = Instant::now();
    loop {
        let how = tokio::select! {
            how = connection.ended() => how,
            () = stop.cancelled() => return connection.close().await,
        };
        // Calls fail at once until the new one is attached (the old
        // client would wait its whole request timeout on a dead pipe).
        if let Some(gone) = gateway.detach() {
            gone.close().await;
        }
        if up_since.elapsed() >= STAYED_UP {
            backoff = FIRST_BACKOFF;
        }
        tracing::warn!(upstream = %shown, ended = %how, ?backoff, "the server ended; starting it again");
        loop {
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = stop.cancelled() => return,
            }
            backoff = (backoff * 2).min(MOST_BACKOFF);
            let handler = gateway.upstream_handler();
            let next = match upstream.connect(handler).await {
                Ok(next) => next,
                Err(e) => {
                    tracing::warn!(upstream = %shown, error = %format!("{e:#}"), ?backoff, "the server did not start; trying again");
                    continue;
                }
            };
            match gateway.attach(next.client.clone()).await {
                Ok(_) => {
                    tracing::info!(upstream = %shown, "the server is back");
                    connection = next;
                    up_since = Instant::now();
                    break;
                }
                Err(e) => {
                    tracing::warn!(upstream = %shown, error = %client_error(&e), "the restarted server did not list its tools");
                    next.close().await;
                }
            }
        }
    }
}

async fn gateway(args: &GatewayArgs) -> anyhow::Result<()> {
    let mut upstream = Reach::new(
        upstream(args)?,
        args.upstream_protocol,
        args.timeout.duration(),
    )
    .remote(&args.remote)?;
    let target = upstream.target.clone();
    if args.http.is_none() && (args.auth.auth_tokens.is_some() || args.auth.auth_jwks.is_some()) {
        bail!("--auth-tokens and --auth-jwks protect the HTTP endpoint: give --http ADDR");
    }
    let gateway = Gateway::new(options(args)?);
    // The upstream's sampling and roots requests go to the client in front.
    // (Each extra connection's config is made from the one before: see
    // `Lane::config`.)
    let base = upstream.config.clone();
    upstream.config = gateway.upstream_config(upstream.config);
    let connection = upstream.connect(gateway.upstream_handler()).await?;
    let revision = connection.client.revision();
    let builder = match gateway.attach(connection.client.clone()).await {
        Ok(builder) => builder,
        Err(e) => {
            let reason = client_error(&e);
            connection.close().await;
            bail!("cannot list the tools of {}: {reason}", target.describe());
        }
    };
    // Calls to a 2025-11-25 server run side by side on more connections.
    if args.upstream_connections > 1 {
        let target = upstream.target.clone();
        let config = base;
        let timeout = upstream.timeout;
        gateway.connect_more(usize::from(args.upstream_connections - 1), move |lane| {
            let target = target.clone();
            let config = lane.config(config.clone());
            Box::pin(async move {
                crate::hosting::connect(&target, config, lane.handler(), timeout)
                    .await
                    .map(crate::hosting::Connection::detach)
                    .map_err(|e| format!("{e:#}").into())
            })
        });
    }
    let server = builder.state_sealer(sealer()?).build();
    // The upstream's tools changing (or a restarted server's) is told.
    gateway.notify_through(&server);
    tracing::info!(upstream = %target.describe(), %revision, "gateway: upstream connected");
    let stop = CancellationToken::new();
    let supervisor = tokio::spawn(supervise(
        gateway.clone(),
        upstream,
        connection,
        stop.clone(),
    ));
    let served = match args.http {
        Some(addr) => {
            let mut options = args.limits.apply(
                HttpOptions::new()
                    .endpoint(ENDPOINT)
                    .origins(OriginPolicy::SameOrigin(args.allow_origins.clone())),
            );
            let auth = args.auth.authenticator().await?;
            let authenticated = auth.is_some();
            let metadata = args.auth.protect(&mut options, auth);
            let listener = bind(addr, options)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let listener = args.tls.apply(listener)?;
            let name = format!("{} (through frontdesk gateway)", target.describe());
            let routes =
                args.auth
                    .metadata_routes(&metadata, &listener.base_url(), ENDPOINT, &name);
            crate::output::note(&format!(
                "frontdesk gateway: MCP endpoint at {}",
                listener.endpoint_url()
            ));
            crate::output::note(&format!("  in front of {}", target.describe()));
            if !addr.ip().is_loopback() && !authenticated {
                crate::output::note(&format!(
                    "frontdesk gateway: WARNING: {addr} is reachable from other machines and \
                     no authentication is configured: anyone who can reach it can call every \
                     tool of the server. Add --auth-tokens FILE or --auth-jwks, or listen on \
                     127.0.0.1."
                ));
            }
            match routes {
                Some(routes) => listener.routes(routes).serve(server).await,
                None => listener.serve(server).await,
            }
        }
        None => {
            tracing::info!("gateway: speaking MCP on stdin and stdout");
            frontdesk::server::stdio::serve_stdio(server).await
        }
    };
    // The server is stopped with the gateway (its stdin closed, then killed
    // if it lingers).
    stop.cancel();
    let _ = supervisor.await;
    gateway.close_extra_connections().await;
    Ok(served?)
}
