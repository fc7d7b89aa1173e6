//! Load benchmark (issue 14): server CPU per completed call, against the
//! floor of a bare hyper echo server, in one run on loopback.
//!
//! ```text
//! cargo bench -p frontdesk-cli --bench load                 # C=16 and C=64, 3 rounds
//! cargo bench -p frontdesk-cli --bench load -- --smoke      # a few seconds, for CI
//! cargo bench -p frontdesk-cli --bench load -- --seconds 10 --concurrency 16
//! cargo bench -p frontdesk-cli --bench load -- --pin        # generator and servers on CPUs of their own
//! cargo bench -p frontdesk-cli --bench load -- --duration 600  # soak (issue 10)
//! cargo bench -p frontdesk-cli --bench load -- --store memory,sqlite,redis  # a row per store
//! cargo bench -p frontdesk-cli --bench load -- --gateway    # and through frontdesk gateway
//! cargo bench -p frontdesk-cli --bench load -- --baseline OLD  # each store's row again, served by OLD
//! cargo bench -p frontdesk-cli --bench load -- --rate 8000  # every server at 8,000 calls/s
//! ```
//!
//! `--gateway` (issue 26) adds the 2026-07-28 row through `frontdesk gateway
//! --http` in front of `frontdesk serve --stdio --revision 2025-11-25` (the
//! gateway turns each live question into an `input_required` round; up to
//! 8 upstream connections, its default): the CPU is the gateway's own, its
//! upstream processes' not counted.
//!
//! `--baseline PATH` runs a second `frontdesk serve` per store from another
//! build (a copy of `target/release/frontdesk` before a change) and gives
//! it a row of its own after each store's, labelled `baseline`: a change
//! is measured against the code it replaces in the same rounds, which
//! share the machine's state (the run-to-run spread is about ±10 %, the
//! spread between rows of one round much less).
//!
//! `--store` (issue 27) runs one `frontdesk serve --store S` per store
//! named and gives each its 2026-07-28 row (the 2025-11-25 and HTTP/2 rows
//! run against the first). `sqlite` keeps its file in a fresh temporary
//! data directory, with the default durability (`process`: each group
//! commit in the write-ahead log, not fsynced; `--sqlite-durability full`
//! for the other level); `redis` starts its own `redis-server` (from
//! `PATH`, without persistence) on a free loopback port and reports its
//! CPU per call next to frontdesk's. The HTTP/2 row (`--no-http2` drops it) is the same
//! 2026-07-28 call over h2c with prior knowledge, one HTTP/2 connection
//! per client.
//!
//! Two servers run as child processes so their CPU time is their own (read
//! from `/proc/<pid>/stat`): the echo floor (this binary with
//! `--echo-server`) and `frontdesk serve --conformance-fixtures --store
//! memory --http 127.0.0.1:0`, the default server configuration (state
//! sealed with XChaCha20-Poly1305, single use through the in-memory nonce
//! store). A load generator in this process keeps C keep-alive HTTP/1.1
//! connections busy in a closed loop:
//!
//! - echo: POST the first round's body, get it back (1 request);
//! - 2026-07-28: `bench_confirm` round 1 (`input_required`), then the retry
//!   with `inputResponses` and `requestState` (complete): 2 requests;
//! - 2025-11-25 over SSE: initialize, initialized, `tools/call` whose
//!   stream carries `elicitation/create`, the answer, the result on the
//!   stream, DELETE: 5 requests (two connections per client);
//! - rmcp, the official Rust SDK, serving the same `bench_confirm` on
//!   2026-07-28 (this binary with `--rmcp-server`, see [`rmcp_server`]): the
//!   same 2 requests, for the comparison row.
//!
//! Every reply is checked; one wrong reply fails the run. Each round warms
//! up, then measures for a fixed time: calls completed in that window,
//! their latency, and the server's CPU time over it. The ratio is the
//! server's CPU per call divided by (requests per call × the echo server's
//! CPU per request) of the same round; the table shows the median of the
//! rounds. Nothing here asserts a timing.
//!
//! "of it kernel" is the part of the server's CPU per call that was system
//! time (system calls, the loopback network stack, wake-ups), the rest
//! being its own code. The echo floor is mostly kernel time, a frontdesk
//! call mostly its own code: where a host runs one kind of work faster
//! relative to the other, the same build's ratio moves, and this column
//! says which part moved.
//!
//! By default the generator and the servers may all run on every CPU.
//! `--pin` runs the load generator on the first CPU and every server on the
//! second (see [`placement`]; the report reads the servers' CPUs back from
//! `/proc`): on a 2-core machine a server that shares its cores with the
//! generator also waits for it, and part of its latency's tail is that
//! wait, more for a server that leaves the generator more CPU.
//!
//! The clients spread their connections over the loopback addresses
//! `127.0.0.1` … `127.0.0.8`: the server caps open connections and requests
//! in flight per address (64 each by default), and the 2025-11-25 row at
//! C=64 holds 128 connections. Every cap stays at its default.
//!
//! `--rate R` offers every row R calls a second instead of the closed
//! loop's all it can serve (see [`pace`]): latencies compared at the same
//! load.
//!
//! `--duration S` is the soak benchmark instead (see [`soak`]): the
//! 2026-07-28 round trip at full speed for S seconds, counting errors and
//! sampling the server's RSS.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

mod echo;
mod pace;
mod placement;
mod redis_server;
mod rmcp_server;
mod soak;
#[path = "../support/mod.rs"]
mod support;
mod workload;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use placement::Placement;
use redis_server::RedisServer;
use support::{Http, ServerProcess, clock_ticks_per_second, median, quantile};
use workload::{Client, Kind};

/// Where `frontdesk serve` keeps flows and redeemed states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Store {
    /// `--store memory`.
    Memory,
    /// `--store sqlite` in a fresh data directory.
    Sqlite,
    /// `--store redis` on the benchmark's own redis-server.
    Redis,
}

impl Store {
    fn parse(name: &str) -> anyhow::Result<Self> {
        Ok(match name {
            "memory" => Self::Memory,
            "sqlite" => Self::Sqlite,
            "redis" => Self::Redis,
            other => bail!("unknown store {other:?} (memory, sqlite or redis)"),
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Sqlite => "sqlite",
            Self::Redis => "redis",
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
struct Options {
    warmup: Duration,
    measure: Duration,
    rounds: usize,
    concurrency: Vec<usize>,
    legacy: bool,
    rmcp: bool,
    frontdesk: String,
    baseline: Option<String>,
    soak: Option<Duration>,
    pin: bool,
    stores: Vec<Store>,
    http2: bool,
    sqlite_durability: Option<String>,
    gateway: bool,
    /// Calls a second offered to each row (`None`: the closed loop).
    rate: Option<f64>,
}

const USAGE: &str = "usage: load [--smoke] [--seconds S] [--warmup S] [--rounds N] \
[--concurrency C,C…] [--store memory|sqlite|redis[,…]] [--no-legacy] [--no-rmcp] [--no-http2] \
[--sqlite-durability full|process] [--gateway] [--pin] [--rate CALLS_PER_S] \
[--frontdesk PATH] [--baseline PATH] [--duration S (soak)]";

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut o = Self {
            warmup: Duration::from_secs(1),
            measure: Duration::from_secs(5),
            rounds: 3,
            concurrency: vec![16, 64],
            legacy: true,
            rmcp: true,
            frontdesk: env!("CARGO_BIN_EXE_frontdesk").to_string(),
            baseline: None,
            soak: None,
            pin: false,
            stores: vec![Store::Memory],
            http2: true,
            sqlite_durability: None,
            gateway: false,
            rate: None,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
            match arg.as_str() {
                // `cargo bench` passes this to every benchmark.
                "--bench" => {}
                "--smoke" => {
                    o.warmup = Duration::from_millis(500);
                    o.measure = Duration::from_secs(1);
                    o.rounds = 1;
                    o.concurrency = vec![4];
                }
                "--seconds" => o.measure = Duration::from_secs_f64(value()?.parse()?),
                "--warmup" => o.warmup = Duration::from_secs_f64(value()?.parse()?),
                "--rounds" => o.rounds = value()?.parse()?,
                "--concurrency" => {
                    o.concurrency = value()?
                        .split(',')
                        .map(str::parse)
                        .collect::<Result<_, _>>()?;
                }
                "--no-legacy" => o.legacy = false,
                "--no-rmcp" => o.rmcp = false,
                "--no-http2" => o.http2 = false,
                "--gateway" => o.gateway = true,
                "--sqlite-durability" => o.sqlite_durability = Some(value()?.clone()),
                "--store" => {
                    o.stores = value()?
                        .split(',')
                        .map(Store::parse)
                        .collect::<Result<_, _>>()?;
                }
                "--pin" => o.pin = true,
                "--rate" => o.rate = Some(value()?.parse()?),
                "--duration" => o.soak = Some(Duration::from_secs_f64(value()?.parse()?)),
                "--frontdesk" => o.frontdesk = value()?.clone(),
                "--baseline" => o.baseline = Some(value()?.clone()),
                other => bail!("unknown argument {other:?}\n{USAGE}"),
            }
        }
        if o.rounds == 0 || o.concurrency.is_empty() || o.concurrency.contains(&0) {
            bail!("rounds and concurrency must be at least 1\n{USAGE}");
        }
        if o.rate.is_some_and(|r: f64| !r.is_finite() || r <= 0.0) {
            bail!("--rate must be a positive number of calls a second\n{USAGE}");
        }
        if o.stores.is_empty() {
            bail!("--store needs at least one store\n{USAGE}");
        }
        Ok(o)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--echo-server") {
        return serve_child("echo server", echo::serve());
    }
    if args.iter().any(|a| a == "--rmcp-server") {
        return serve_child("rmcp server", rmcp_server::serve());
    }
    let outcome = Options::parse(&args).and_then(|options| {
        let placement = if options.pin {
            Some(Placement::detect().context("--pin needs at least two CPUs")?)
        } else {
            None
        };
        if let Some(placement) = &placement {
            placement.pin_generator()?;
        }
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("tokio runtime")?
            .block_on(run(&options, placement))
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load benchmark failed: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Run one of the servers this binary can be (`--echo-server`,
/// `--rmcp-server`) as a child process of the benchmark, until it is
/// killed; a failure is printed as `NAME: error`.
fn serve_child(name: &str, serve: impl Future<Output = std::io::Result<()>>) -> ExitCode {
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .and_then(|runtime| runtime.block_on(serve));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One measured window of one workload.
#[derive(Debug, Clone, Copy)]
struct Measured {
    calls: usize,
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    cpu_us_per_call: f64,
    /// The part of `cpu_us_per_call` spent in the kernel (system time:
    /// system calls, the loopback network stack, wake-ups).
    kernel_us_per_call: f64,
    /// The redis-server's CPU per call, for a row on the Redis store.
    beside_cpu_us_per_call: Option<f64>,
}

async fn run(o: &Options, placement: Option<Placement>) -> anyhow::Result<()> {
    let servers_cpu = placement.map(|p| p.servers);
    if let Some(duration) = o.soak {
        let c = o.concurrency.first().copied().unwrap_or(16);
        return soak::run(&o.frontdesk, servers_cpu, duration, c).await;
    }
    let me = std::env::current_exe().context("this benchmark's own path")?;
    let mut echo_cmd = Command::new(&me);
    echo_cmd.arg("--echo-server");
    let echo = ServerProcess::spawn_on("echo server", echo_cmd, servers_cpu)?;
    let redis = if o.stores.contains(&Store::Redis) {
        Some(RedisServer::start(servers_cpu)?)
    } else {
        None
    };
    let data_dir = support::TempDir::new("frontdesk-load-sqlite")?;
    let mut servers = vec![echo];
    // Each store's server, then (with `--baseline`) each store's baseline.
    let builds =
        std::iter::once(("", &o.frontdesk)).chain(o.baseline.iter().map(|b| ("baseline", b)));
    for (build, path) in builds {
        for store in &o.stores {
            let store = match (store, &redis) {
                (Store::Redis, Some(r)) => StoreArgs::Redis(r.url()),
                (Store::Sqlite, _) => StoreArgs::Sqlite(
                    data_dir.path().join(format!("{}{build}", store.name())),
                    o.sqlite_durability.clone(),
                ),
                _ => StoreArgs::Memory,
            };
            servers.push(spawn_frontdesk(path, servers_cpu, &store)?);
        }
    }
    if o.rmcp {
        let mut rmcp_cmd = Command::new(&me);
        rmcp_cmd.arg("--rmcp-server");
        servers.push(ServerProcess::spawn_on(
            "rmcp server",
            rmcp_cmd,
            servers_cpu,
        )?);
    }
    if o.gateway {
        servers.push(spawn_gateway(&o.frontdesk, servers_cpu)?);
    }
    let ticks = clock_ticks_per_second();
    let rows = rows(o);
    let offered = o.rate.map_or_else(
        || "closed loop".to_owned(),
        |rate| format!("{rate} calls/s offered per row"),
    );
    println!(
        "load benchmark: loopback, {offered}; {} round(s), each {:.1} s \
         warm-up + {:.1} s measured per row; server CPU from /proc/<pid>/stat ({ticks} ticks/s)",
        o.rounds,
        o.warmup.as_secs_f64(),
        o.measure.as_secs_f64()
    );
    let paths = std::iter::once(&o.frontdesk).chain(&o.baseline);
    let stores = paths.flat_map(|path| o.stores.iter().map(move |store| (path, store)));
    for ((path, store), server) in stores.zip(&servers[1..]) {
        println!(
            "frontdesk --store {}: {path} (pid {})",
            store.name(),
            server.pid()
        );
    }
    println!("{}", placement_report(placement, &servers)?);
    // results[c][row][round]
    let mut results = vec![vec![Vec::new(); rows.len()]; o.concurrency.len()];
    for round in 0..o.rounds {
        for (ci, &c) in o.concurrency.iter().enumerate() {
            for (ri, row) in rows.iter().enumerate() {
                let server = &servers[row.server];
                let beside = redis.as_ref().filter(|_| row.store == Some(Store::Redis));
                let m = measure(row, server, beside, c, o, ticks).await?;
                let extra = m
                    .beside_cpu_us_per_call
                    .map(|us| format!("  (+ redis-server {us:.1} CPU-µs/call)"))
                    .unwrap_or_default();
                println!(
                    "  round {} C={c:<3} {:<36} {:>7} calls {:>9.0}/s  p50 {:>6.2} ms  p99 {:>6.2} ms  {:>7.1} CPU-µs/call ({:.1} kernel){extra}",
                    round + 1,
                    row.label,
                    m.calls,
                    m.per_second,
                    m.p50_ms,
                    m.p99_ms,
                    m.cpu_us_per_call,
                    m.kernel_us_per_call
                );
                results[ci][ri].push(m);
            }
        }
    }
    println!("\n{}", table(&rows, &o.concurrency, &results, o.rounds));
    Ok(())
}

/// One row of the table: a workload, over which HTTP, against which server
/// (an index into the servers: the echo floor first, then one frontdesk
/// per store, one baseline per store, then rmcp).
#[derive(Debug, Clone)]
struct Row {
    kind: Kind,
    http: Http,
    server: usize,
    store: Option<Store>,
    label: String,
}

/// The rows `o` asks for.
fn rows(o: &Options) -> Vec<Row> {
    let row = |kind: Kind, http: Http, server: usize, store: Option<&Store>| {
        let mut label = kind.label().to_string();
        if let Some(store) = store {
            label.push_str(&format!(" [{}]", store.name()));
        }
        if http == Http::Two {
            label.push_str(" h2c");
        }
        Row {
            kind,
            http,
            server,
            store: store.cloned(),
            label,
        }
    };
    let mut rows = vec![row(Kind::Echo, Http::One, 0, None)];
    let stores = o.stores.len();
    for (i, store) in o.stores.iter().enumerate() {
        rows.push(row(Kind::Modern, Http::One, 1 + i, Some(store)));
        if o.baseline.is_some() {
            let mut baseline = row(Kind::Modern, Http::One, 1 + stores + i, Some(store));
            baseline.label.push_str(" baseline");
            rows.push(baseline);
        }
    }
    // The servers after the stores' (and their baselines').
    let after = 1 + stores * (1 + usize::from(o.baseline.is_some()));
    let first = o.stores.first();
    if o.http2 {
        rows.push(row(Kind::Modern, Http::Two, 1, first));
    }
    if o.legacy {
        rows.push(row(Kind::Legacy, Http::One, 1, first));
    }
    if o.rmcp {
        rows.push(row(Kind::Rmcp, Http::One, after, None));
    }
    if o.gateway {
        let mut through = row(Kind::Modern, Http::One, after + usize::from(o.rmcp), None);
        through.label = "gateway 2026-07-28 → 2025-11-25".into();
        rows.push(through);
    }
    rows
}

/// `frontdesk gateway --http 127.0.0.1:0` in front of `frontdesk serve
/// --stdio --revision 2025-11-25` (memory store), as a child on `cpu` alone
/// when one is given; its upstreams are its own children.
fn spawn_gateway(path: &str, cpu: Option<core_affinity::CoreId>) -> anyhow::Result<ServerProcess> {
    let mut command = support::frontdesk_gateway(path);
    command
        .args(["--", path])
        .args([
            "serve",
            "--stdio",
            "--conformance-fixtures",
            "--store",
            "memory",
        ])
        .args(["--revision", "2025-11-25"]);
    ServerProcess::spawn_on("frontdesk gateway", command, cpu)
}

/// The placement line of the report: where the generator and the servers
/// run, read back from the kernel so the line cannot claim a pinning that
/// did not happen.
fn placement_report(
    placement: Option<Placement>,
    servers: &[ServerProcess],
) -> anyhow::Result<String> {
    let Some(placement) = placement else {
        let cpus = support::cpus_allowed(std::process::id())?;
        return Ok(format!(
            "placement: shared, the load generator and the servers may all run on CPUs {cpus}"
        ));
    };
    let want = placement.servers.id.to_string();
    for server in servers {
        let got = support::cpus_allowed(server.pid())?;
        if got != want {
            bail!(
                "a server (pid {}) runs on CPUs {got}, not {want}",
                server.pid()
            );
        }
    }
    Ok(format!("placement: {}", placement.describe()))
}

/// The `--store` arguments of one `frontdesk serve`.
pub enum StoreArgs {
    /// `--store memory`.
    Memory,
    /// `--store sqlite --data-dir DIR` (and `--sqlite-durability LEVEL`).
    Sqlite(std::path::PathBuf, Option<String>),
    /// `--store redis --redis-url URL` (with a prefix of its own).
    Redis(String),
}

/// `frontdesk serve --conformance-fixtures --store … --http 127.0.0.1:0`
/// as a child, otherwise with the default configuration, on `cpu` alone
/// when one is given.
pub fn spawn_frontdesk(
    path: &str,
    cpu: Option<core_affinity::CoreId>,
    store: &StoreArgs,
) -> anyhow::Result<ServerProcess> {
    let mut command = support::frontdesk_serve(path);
    command.arg("--conformance-fixtures");
    match store {
        StoreArgs::Memory => {
            command.args(["--store", "memory"]);
        }
        StoreArgs::Sqlite(dir, durability) => {
            command.args(["--store", "sqlite", "--data-dir"]).arg(dir);
            if let Some(level) = durability {
                command.args(["--sqlite-durability", level]);
            }
        }
        StoreArgs::Redis(url) => {
            let prefix = format!("frontdesk-load-{}:", std::process::id());
            command
                .args(["--store", "redis", "--redis-url", url])
                .args(["--redis-prefix", &prefix]);
        }
    }
    ServerProcess::spawn_on("frontdesk serve", command, cpu)
}

/// Run `row` against `server` with `c` clients: warm up, then measure
/// (and the CPU of `beside`, the redis-server the server uses, if any).
async fn measure(
    row: &Row,
    server: &ServerProcess,
    beside: Option<&RedisServer>,
    c: usize,
    o: &Options,
    ticks: u64,
) -> anyhow::Result<Measured> {
    let kind = row.kind;
    let stop = Arc::new(AtomicBool::new(false));
    let addr = server.addr();
    let workers: Vec<_> = (0..c)
        .map(|i| {
            let pace = o.rate.map(|rate| pace::Pace::new(rate, c, i));
            tokio::spawn(client(
                kind,
                row.http,
                addr,
                i as u64,
                pace,
                Arc::clone(&stop),
            ))
        })
        .collect();
    tokio::time::sleep(o.warmup).await;
    let beside_ticks = || beside.map(RedisServer::cpu_ticks).transpose();
    let (t0, cpu0, b0) = (Instant::now(), server.cpu_split()?, beside_ticks()?);
    tokio::time::sleep(o.measure).await;
    let (t1, cpu1, b1) = (Instant::now(), server.cpu_split()?, beside_ticks()?);
    stop.store(true, Ordering::SeqCst);
    let mut latencies = Vec::new();
    for w in workers {
        let samples = w.await.context("a client panicked")??;
        latencies.extend(
            samples
                .into_iter()
                .filter(|(done, _)| *done >= t0 && *done <= t1)
                .map(|(_, us)| us),
        );
    }
    latencies.sort_unstable();
    let calls = latencies.len();
    if calls == 0 {
        bail!("{}: no call completed in the window", row.label);
    }
    let window = (t1 - t0).as_secs_f64();
    let used = cpu1.since(cpu0);
    #[allow(clippy::cast_precision_loss)]
    let us = |t: u64| t as f64 * 1e6 / ticks as f64;
    #[allow(clippy::cast_precision_loss)]
    let n = calls as f64;
    #[allow(clippy::cast_precision_loss)]
    let beside_cpu_us_per_call = b0
        .zip(b1)
        .map(|(b0, b1)| (b1 - b0) as f64 * 1e6 / ticks as f64 / n);
    Ok(Measured {
        calls,
        per_second: n / window,
        p50_ms: f64::from(quantile(&latencies, 0.50)) / 1e3,
        p99_ms: f64::from(quantile(&latencies, 0.99)) / 1e3,
        cpu_us_per_call: us(used.total()) / n,
        kernel_us_per_call: us(used.system) / n,
        beside_cpu_us_per_call,
    })
}

/// One client until `stop`, in a closed loop or on `pace`'s schedule:
/// (when each call finished, its latency in µs).
async fn client(
    kind: Kind,
    http: Http,
    addr: SocketAddr,
    index: u64,
    mut pace: Option<pace::Pace>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Vec<(Instant, u32)>> {
    let mut client = Client::connect(kind, addr, index, http).await?;
    let mut samples = Vec::with_capacity(1 << 14);
    let mut n = index << 32;
    while !stop.load(Ordering::Relaxed) {
        if let Some(pace) = &mut pace {
            pace.wait().await;
        }
        let start = Instant::now();
        client
            .call(n)
            .await
            .with_context(|| format!("{} call {n}", kind.label()))?;
        let done = Instant::now();
        let us = u32::try_from((done - start).as_micros()).unwrap_or(u32::MAX);
        samples.push((done, us));
        n += 1;
    }
    Ok(samples)
}

/// The medians of the rounds, one row per workload and concurrency.
fn table(
    rows: &[Row],
    concurrency: &[usize],
    results: &[Vec<Vec<Measured>>],
    rounds: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "median of {rounds} round(s); × floor = server CPU per call / (requests per call × echo CPU per request)"
    );
    let _ = writeln!(
        out,
        "| server | C | calls/s | p50 ms | p99 ms | server CPU µs/call | of it kernel | HTTP req/call | × echo floor |"
    );
    let _ = writeln!(
        out,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for (ci, &c) in concurrency.iter().enumerate() {
        let floor = &results[ci][0];
        for (ri, row) in rows.iter().enumerate() {
            let kind = row.kind;
            let runs = &results[ci][ri];
            let pick =
                |f: fn(&Measured) -> f64| median(&mut runs.iter().map(f).collect::<Vec<_>>());
            let mut ratios: Vec<f64> = runs
                .iter()
                .zip(floor)
                .map(|(m, e)| m.cpu_us_per_call / (f64::from(kind.requests()) * e.cpu_us_per_call))
                .collect();
            let ratio = if kind == Kind::Echo {
                "1.0 (floor)".to_string()
            } else {
                format!("{:.2}×", median(&mut ratios))
            };
            let mut cpu = format!("{:.1}", pick(|m| m.cpu_us_per_call));
            let mut beside: Vec<f64> = runs
                .iter()
                .filter_map(|m| m.beside_cpu_us_per_call)
                .collect();
            if !beside.is_empty() {
                let _ = write!(cpu, " (+ {:.1} redis-server)", median(&mut beside));
            }
            let _ = writeln!(
                out,
                "| {} | {c} | {:.0} | {:.2} | {:.2} | {cpu} | {:.1} | {} | {ratio} |",
                row.label,
                pick(|m| m.per_second),
                pick(|m| m.p50_ms),
                pick(|m| m.p99_ms),
                pick(|m| m.kernel_us_per_call),
                kind.requests(),
            );
        }
    }
    out
}
