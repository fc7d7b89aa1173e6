//! `frontdesk serve`: the brightgrid demo server for other hosts, with durable
//! (or shared) state, persistent keys and, optionally, authentication.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use axum::Router;
use clap::{Args, ValueEnum};
use frontdesk::flows::{FlowStore, InMemoryFlowStore};
use frontdesk::http::archive::Archive;
use frontdesk::http::{HttpOptions, OriginPolicy, bind};
use frontdesk::server::{Server, ServerConfig};
use frontdesk::state::{InMemoryNonceStore, KEYS_ENV, NonceStore, StateSealer};
use frontdesk::stores::redis::{RedisEventArchive, RedisStore};
use frontdesk::stores::sqlite::{Durability, SqliteStore};
use frontdesk::tasks::TaskStore;
use frontdesk_demo::DemoOptions;
use frontdesk_demo::signin::SignIn;

use crate::front_auth::AuthArgs;
use crate::hosting::RevisionArg;

/// The MCP endpoint's path.
pub(crate) const ENDPOINT: &str = "/mcp";
/// The SQLite file inside the data directory.
const SQLITE_FILE: &str = "frontdesk.sqlite3";

/// Where flows and redeemed request states are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// A SQLite file in the data directory: survives restarts (one instance).
    Sqlite,
    /// Process memory: lost on restart; redeemed states can be replayed after one.
    Memory,
    /// Redis at --redis-url: shared by several instances, with the events
    /// of 2025-11-25 session streams (a broken stream can be resumed with
    /// `Last-Event-ID` on any instance; POSTs of a session still need the
    /// instance holding it).
    Redis,
}

/// What an answered SQLite write has survived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SqliteDurability {
    /// Each commit fsynced (`synchronous = FULL`): survives a power loss.
    Full,
    /// Each commit in the write-ahead log (`synchronous = NORMAL`, the
    /// default): survives the process being killed, not a power loss.
    Process,
}

/// Arguments of `frontdesk serve`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("transport").required(true).args(["stdio", "http"]))]
#[command(after_help = "\
Examples:
  frontdesk serve --stdio                       # for hosts that spawn the server
  frontdesk serve --http 127.0.0.1:8080         # Streamable HTTP at http://127.0.0.1:8080/mcp
  frontdesk serve --conformance-fixtures --http 127.0.0.1:3000   # for the official suite
  frontdesk serve --config /etc/frontdesk/serve.toml  # flags from a file (keys: http, store, …)
  frontdesk serve --http 127.0.0.1:8080 --auth-tokens tokens.txt # bearer tokens from a file
  frontdesk serve --http 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem  # HTTPS (kill -HUP reloads)
  frontdesk serve --http 0.0.0.0:8080 --store redis --redis-url redis://10.0.0.5:6379 \\
      --auth-jwks https://auth.example.com/jwks.json --auth-issuer https://auth.example.com \\
      --auth-audience https://mcp.example.com/mcp --public-url https://mcp.example.com

Request state is sealed with the keys in FRONTDESK_STATE_KEYS (`kid:key,…`, the first one
seals; make one with `frontdesk keys generate`). Unset: a development key that dies with
the process. Set but malformed: the server does not start.

Logs go to stderr (RUST_LOG=debug for more); stdout is the stdio transport.")]
pub struct ServeArgs {
    /// Read flags from this TOML file: each key is a flag's long name,
    /// kebab-case (`http = "127.0.0.1:8080"`, `data-dir = "/var/lib/frontdesk"`,
    /// `allow-origin = ["…"]`, `stdio = true`, `redemptions-per-client = 500`);
    /// relative paths are from the working directory, as on the command line.
    /// The command line and the environment override the file; an unknown
    /// key, a wrong type or a bad value stops the server, naming the line.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Speak MCP over stdin/stdout (newline-delimited JSON): for hosts that
    /// start the server themselves.
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve Streamable HTTP on this address, e.g. `127.0.0.1:8080` or
    /// `localhost:8080` (both protocol revisions on one endpoint, `/mcp`).
    #[arg(long, value_name = "ADDR", value_parser = listen_address)]
    http: Option<SocketAddr>,
    /// Also serve the official conformance suite's fixture tools and prompt.
    #[arg(long)]
    conformance_fixtures: bool,
    /// Where URL flows and redeemed request states are kept.
    #[arg(long, value_enum, default_value = "sqlite")]
    store: StoreKind,
    /// Most redeemed request states remembered per client (every store);
    /// past it the client's earliest are forgotten and its states issued
    /// before them refused (other clients are not affected).
    #[arg(long, value_name = "N", default_value_t = InMemoryNonceStore::DEFAULT_MAX_PER_OWNER)]
    redemptions_per_client: usize,
    /// Directory of the SQLite store (created owner-only when missing; an
    /// existing one must be yours and not writable by others). Default: the
    /// platform's data directory (`$XDG_DATA_HOME/frontdesk`, else
    /// `~/.local/share/frontdesk` on Linux), never the working directory.
    #[arg(long, value_name = "DIR", env = "FRONTDESK_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Redis URL for `--store redis` (`redis://host:port[/db]`, `rediss://` for TLS).
    #[arg(long, value_name = "URL", env = "FRONTDESK_REDIS_URL")]
    redis_url: Option<String>,
    /// Prefix of every Redis key and channel (one per deployment sharing a Redis).
    #[arg(long, value_name = "PREFIX", default_value = "frontdesk:")]
    redis_prefix: String,
    #[command(flatten)]
    auth: AuthArgs,
    /// Who the person is on --stdio (state and URL flows are bound to it).
    #[arg(long, value_name = "NAME", conflicts_with = "http")]
    principal: Option<String>,
    /// The URL browsers and clients reach this server at (links, metadata),
    /// when not the bound address (behind a proxy or load balancer).
    #[arg(long, value_name = "URL", requires = "http")]
    public_url: Option<String>,
    #[command(flatten)]
    tls: crate::tls_args::TlsArgs,
    #[command(flatten)]
    limits: crate::listen_limits::ListenLimitArgs,
    /// With `--store sqlite` or `redis`: seconds a running task's record
    /// says this instance runs it (renewed every third of that). A task
    /// whose instance stopped is reported `failed` once its lease has run
    /// out; longer rides out longer store outages.
    #[arg(long, value_name = "SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    task_lease: u64,
    /// With `--store sqlite`: `process` (the default) answers a write once
    /// it is in the write-ahead log: it survives the process being killed
    /// (SIGKILL, a panic), but a power loss or kernel crash may lose the
    /// last commits, so a state answered just before one could be replayed
    /// once after it. `full` answers a write once it is fsynced: it survives
    /// a power loss too, at the cost of one fsync per group commit.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "process")]
    sqlite_durability: SqliteDurability,
    /// Also accept browser requests from this origin (repeatable), e.g.
    /// `http://localhost:6274` for MCP Inspector's page connecting directly.
    /// By default only the server's own origin (its address, or --public-url).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origins: Vec<String>,
    /// Serve Prometheus metrics at `http://ADDR/metrics` (a listener of its
    /// own, not authenticated: keep it on a private address), e.g.
    /// `127.0.0.1:9090`.
    #[arg(long, value_name = "ADDR", value_parser = listen_address)]
    metrics: Option<SocketAddr>,
    /// Export traces over OTLP/HTTP (protobuf) to the collector at this base
    /// URL (`/v1/traces` is added), e.g. `http://127.0.0.1:4318`: a span per
    /// request with the MCP attributes, a span for each wait for a person,
    /// the rounds of a 2026-07-28 call as one trace. No answer or token is
    /// exported.
    #[arg(long, value_name = "URL", env = "OTEL_EXPORTER_OTLP_ENDPOINT", value_parser = collector_url)]
    otlp_endpoint: Option<String>,
    /// Serve one revision only, as a server written for it would (the other
    /// gets the unsupported-version error): for testing clients and gateways
    /// against single-revision servers. By default both are served.
    #[arg(long, value_enum, value_name = "REVISION")]
    revision: Option<RevisionArg>,
}

impl ServeArgs {
    /// The OTLP collector traces go to, if any.
    pub(crate) fn otlp_endpoint(&self) -> Option<&str> {
        self.otlp_endpoint.as_deref()
    }
}

/// `--otlp-endpoint URL`: an `http` or `https` URL.
fn collector_url(text: &str) -> Result<String, String> {
    match reqwest::Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            Ok(text.to_string())
        }
        _ => Err(format!(
            "`{text}` is not a collector's URL: give its http or https base URL, like \
             http://127.0.0.1:4318"
        )),
    }
}

/// `--http ADDR`: an IP address and port, or `localhost:PORT` (loopback).
pub(crate) fn listen_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Some(port) = text
        .strip_prefix("localhost:")
        .and_then(|p| p.parse::<u16>().ok())
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "`{text}` is not an address to listen on: give an IP address and a port, like \
         127.0.0.1:8080 or localhost:8080 (this machine only) or 0.0.0.0:8080 (every interface)"
    ))
}

/// The default data directory: the platform's data directory for frontdesk.
fn default_data_dir() -> anyhow::Result<PathBuf> {
    directories::ProjectDirs::from("", "", "frontdesk")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .context(
            "cannot find a data directory for the SQLite store (no home directory?): \
             give one with --data-dir DIR or FRONTDESK_DATA_DIR",
        )
}

/// Run `frontdesk serve` until the transport closes, Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> ExitCode {
    crate::run::block_on("serve", serve(args))
}

/// The stores, as the server holds them.
struct Stores {
    flows: Arc<dyn FlowStore>,
    nonces: Arc<dyn NonceStore>,
    /// Task records (none in memory: tasks then live in the process only).
    tasks: Option<Arc<dyn TaskStore>>,
    /// Where 2025-11-25 session events are archived (with `--store redis`).
    archive: Option<Archive>,
}

async fn open_stores(args: &ServeArgs) -> anyhow::Result<Stores> {
    Ok(match args.store {
        StoreKind::Memory => Stores {
            flows: Arc::new(InMemoryFlowStore::new()),
            nonces: Arc::new(
                InMemoryNonceStore::new().with_max_per_owner(args.redemptions_per_client),
            ),
            tasks: None,
            archive: None,
        },
        StoreKind::Sqlite => {
            let dir = match &args.data_dir {
                Some(dir) => dir.clone(),
                None => default_data_dir()?,
            };
            let file = sqlite_file(&dir)?;
            // The whole path: a relative one says nothing in a host's log.
            let file = std::path::absolute(&file).unwrap_or(file);
            let store = Arc::new(
                SqliteStore::open_with(
                    &file,
                    match args.sqlite_durability {
                        SqliteDurability::Full => Durability::Full,
                        SqliteDurability::Process => Durability::Process,
                    },
                )
                .with_context(|| format!("cannot open {}", file.display()))?
                .with_max_per_owner(args.redemptions_per_client),
            );
            let durability = match args.sqlite_durability {
                SqliteDurability::Full => "full",
                SqliteDurability::Process => "process",
            };
            tracing::info!(
                file = %file.display(),
                durability = %durability,
                "flows, redeemed states and tasks in SQLite"
            );
            Stores {
                flows: store.clone(),
                nonces: store.clone(),
                tasks: Some(store),
                archive: None,
            }
        }
        StoreKind::Redis => {
            let Some(url) = &args.redis_url else {
                bail!("--store redis needs --redis-url (or FRONTDESK_REDIS_URL)");
            };
            let store = Arc::new(
                RedisStore::connect(url, &args.redis_prefix)
                    .await
                    .context("cannot connect to Redis")?
                    .with_max_per_owner(args.redemptions_per_client),
            );
            let events = RedisEventArchive::connect(url, &args.redis_prefix)
                .await
                .context("cannot connect to Redis")?;
            tracing::info!(
                prefix = %args.redis_prefix,
                "flows, redeemed states, tasks and 2025-11-25 session events in Redis"
            );
            Stores {
                flows: store.clone(),
                nonces: store.clone(),
                tasks: Some(store),
                archive: Some(Archive::new(Arc::new(events))),
            }
        }
    })
}

/// The SQLite file in `dir`, creating `dir` (owner-only, whatever the umask)
/// when missing; the store checks an existing one (this user's, not writable
/// by others).
fn sqlite_file(dir: &Path) -> anyhow::Result<PathBuf> {
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(dir)
            .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    }
    Ok(dir.join(SQLITE_FILE))
}

pub(crate) fn sealer() -> anyhow::Result<StateSealer> {
    StateSealer::from_env_or_development(KEYS_ENV).map_err(|e| {
        anyhow::anyhow!(
            "{KEYS_ENV} is set but not usable: {e}. Expected `kid:key,kid:key,…` (the first key \
             seals); `frontdesk keys generate` prints a new entry"
        )
    })
}

async fn serve(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(file) = &args.config {
        tracing::info!(file = %file.display(), "flags from a config file");
    }
    if let Some(addr) = args.metrics {
        let bound = crate::metrics_endpoint::start(addr).await?;
        crate::output::note(&format!("frontdesk: metrics at http://{bound}/metrics"));
    }
    let sealer = sealer()?;
    let stores = open_stores(args).await?;
    let auth = args.auth.authenticator().await?;
    let demo = DemoOptions {
        conformance_fixtures: args.conformance_fixtures,
    };
    let build = |base: &str| {
        let mut builder = Server::builder("brightgrid", env!("CARGO_PKG_VERSION"))
            .state_sealer(sealer.clone())
            .flow_store(Arc::clone(&stores.flows))
            .nonce_store(Some(Arc::clone(&stores.nonces)));
        if let Some(tasks) = &stores.tasks {
            builder = builder
                .task_store(Arc::clone(tasks))
                .config(ServerConfig::new().task_lease(Duration::from_secs(args.task_lease)));
        }
        let builder = match args.revision {
            Some(only) => builder.only_revision(only.revision()),
            None => builder,
        };
        let server = frontdesk_demo::register(builder, base, &demo).build();
        let mut page = SignIn::new(server.clone())
            .cookie_sealer(sealer.clone())
            .secure_cookies(base.starts_with("https://"))
            .served_at(base);
        if let Some(a) = &auth {
            page = page.authenticator(Arc::clone(a));
        }
        (server, page.router())
    };
    match args.http {
        // One listener serves the MCP endpoint, the sign-in page and, with
        // JWT authentication, the protected-resource metadata.
        Some(addr) => {
            let mut options = args.limits.apply(
                HttpOptions::new()
                    .endpoint(ENDPOINT)
                    .origins(OriginPolicy::SameOrigin(args.allow_origins.clone())),
            );
            if let Some(base) = &args.public_url {
                options = options.public_base_url(base.trim_end_matches('/'));
            }
            if let Some(archive) = &stores.archive {
                options = options.event_archive(archive.clone());
            }
            let metadata = args.auth.protect(&mut options, auth.clone());
            let listener = bind(addr, options)
                .await
                .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
            let listener = args.tls.apply(listener)?;
            let base = listener.base_url();
            let (server, page) = build(&base);
            let mut routes: Router = page;
            if let Some(resource) =
                args.auth
                    .metadata_routes(&metadata, &base, ENDPOINT, "brightgrid (frontdesk demo)")
            {
                routes = routes.merge(resource);
            }
            banner(args, addr, &listener.endpoint_url(), auth.is_some());
            Ok(listener.routes(routes).serve(server).await?)
        }
        None => {
            // The sign-in page on its own loopback listener, with the HTTP
            // server's bounds (connections, header and body times and sizes,
            // `Host`).
            let page_listener = bind(([127, 0, 0, 1], 0).into(), HttpOptions::new())
                .await
                .context("cannot listen on 127.0.0.1 for the sign-in page")?;
            let base = page_listener.base_url();
            let (server, page) = build(&base);
            tokio::spawn(async move {
                let serving = page_listener
                    .routes(page)
                    .serve_routes_with_shutdown(std::future::pending());
                if let Err(e) = serving.await {
                    tracing::error!(error = %e, "sign-in page stopped");
                }
            });
            tracing::info!(%base, "sign-in page listening");
            tracing::info!(
                "speaking MCP on stdin and stdout: a host starts this command itself \
                 (e.g. `frontdesk connect -- frontdesk serve --stdio`)"
            );
            Ok(frontdesk::server::stdio::serve_stdio_as(server, args.principal.clone()).await?)
        }
    }
}

/// What `serve --http` says when it is up: where the endpoint is, how to connect
/// a client to it, and, plainly, when anyone who can reach it may use it.
fn banner(args: &ServeArgs, addr: SocketAddr, endpoint: &str, authenticated: bool) {
    let note = crate::output::note;
    note(&format!("frontdesk: MCP endpoint at {endpoint}"));
    note(&format!(
        "  connect a client: `frontdesk connect --url {endpoint}`, or add it to your \
         MCP client as a Streamable HTTP server with this URL"
    ));
    if !args.allow_origins.is_empty() {
        note(&format!(
            "  browser pages also allowed from: {}",
            args.allow_origins.join(", ")
        ));
    }
    if !addr.ip().is_loopback() && !authenticated {
        note(&format!(
            "frontdesk serve: WARNING: {addr} is reachable from other machines and no \
             authentication is configured: anyone who can reach it can call every tool. \
             Add --auth-tokens FILE or --auth-jwks, or listen on 127.0.0.1."
        ));
    }
}
