//! Memory per pending 2025-11-25 elicitation (issue 10; DESIGN.md budget:
//! ≤ 16 KiB at 10,000 pending, no lost answers).
//!
//! ```text
//! cargo bench -p frontdesk-cli --bench pending                       # 1,000 and 10,000
//! cargo bench -p frontdesk-cli --bench pending -- --counts 2000
//! cargo bench -p frontdesk-cli --bench pending -- --http 2           # HTTP/2 rows only
//! cargo bench -p frontdesk-cli --bench pending -- --server serve     # frontdesk serve's rows only
//! cargo bench -p frontdesk-cli --bench pending -- --server gateway   # through frontdesk gateway
//! ```
//!
//! Each count runs over HTTP/1.1 (each pending call holds a connection of
//! its own) and over HTTP/2 with prior knowledge (issue 27: the calls share
//! connections, [`STREAMS_PER_CONNECTION`] streams each, as a client with
//! many pending questions would hold them).
//!
//! For each count N, a fresh server runs as a child process, one of three
//! (`--server library,serve,gateway`, all by default), each serving the
//! demo (`book_return`, whose first question is the typed `ReturnForm`) on
//! 127.0.0.1:
//! - `library`: this binary with `--serve`, the library's Streamable HTTP
//!   transport with the default server configuration and the system
//!   allocator: what an application built on the library starts from;
//! - `serve`: `frontdesk serve --http 127.0.0.1:0` as the README starts it
//!   (its SQLite store in a fresh data directory, its allocator), what a
//!   person running the command gets;
//! - `gateway`: `frontdesk gateway --http 127.0.0.1:0` in front of
//!   `frontdesk serve --stdio --revision 2026-07-28` (memory store, no
//!   question limit): the gateway turns each `input_required` round of the
//!   server into a live question of the 2025-11-25 client, so the calls
//!   wait in the gateway (`--max-calls` raised as the caps below), and the
//!   server holds nothing between rounds. The RSS is the gateway's and its
//!   server's together.
//!
//! Each with the HTTP caps one address would hit raised to 30,000
//! (`max_connections`, `max_connections_per_client`, `max_sessions`,
//! `max_sessions_per_client`; `frontdesk serve`'s flags of those names):
//! every client here is 127.0.0.1, and each pending call holds its
//! connection on HTTP/1.1.
//!
//! The measurement, all on loopback and bounded by N:
//! 1. warm-up: 200 sessions each get their question and answer it (so the
//!    allocator and runtime have grown to their working size);
//! 2. the server's RSS (`VmRSS` of `/proc/<pid>/status`) is read;
//! 3. N sessions are opened as a 2025-11-25 client does (`initialize`,
//!    `notifications/initialized`, `tools/call` of `book_return`), each on
//!    its own keep-alive connection, until the call's SSE stream carries
//!    its `elicitation/create`; every stream stays open, so each of the N
//!    sessions has one question waiting and one live POST stream;
//! 4. the RSS is read again: (RSS after − RSS before) / N is the figure;
//! 5. every question is answered (the form, then the confirmation it leads
//!    to), and every call must end in its booking: an answer lost fails the
//!    run.
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use support::{
    ACCEPT, Conn, Http, JSON, ServerProcess, Sse, TempDir, answer, initialize, initialized,
    legacy_call, result_text,
};

/// Sessions the warm-up runs through a whole call.
const WARM_UP: usize = 200;
/// Sessions opened at once.
const PARALLEL: usize = 64;
/// Connections the answers are sent on.
const ANSWERERS: usize = 16;
/// The HTTP caps raised for one address holding every session.
const CAP: usize = 30_000;
/// Pending calls sharing one HTTP/2 connection (hyper's server allows 200).
const STREAMS_PER_CONNECTION: usize = 100;

/// Which server holds the pending calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// The library's HTTP transport in this binary (`--serve`).
    Library,
    /// `frontdesk serve` with its default store and flags, caps raised.
    Serve,
    /// `frontdesk gateway --http` in front of a 2026-07-28 `frontdesk serve
    /// --stdio`, caps raised.
    Gateway,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Self::Library => "library",
            Self::Serve => "frontdesk serve",
            Self::Gateway => "frontdesk gateway (+ its server)",
        }
    }

    /// Start it, with the data directory `frontdesk serve` keeps its SQLite
    /// file in (to be dropped after the server).
    fn spawn(self) -> anyhow::Result<(Option<TempDir>, ServerProcess)> {
        let (command, data) = match self {
            Self::Library => {
                let me = std::env::current_exe().context("this benchmark's own path")?;
                let mut command = Command::new(me);
                command.arg("--serve");
                (command, None)
            }
            Self::Serve => {
                let data = TempDir::new("frontdesk-pending-serve")?;
                let mut command = support::frontdesk_serve(env!("CARGO_BIN_EXE_frontdesk"));
                command.arg("--data-dir").arg(data.path());
                raise_caps(&mut command);
                (command, Some(data))
            }
            Self::Gateway => {
                let frontdesk = env!("CARGO_BIN_EXE_frontdesk");
                let mut command = support::frontdesk_gateway(frontdesk);
                raise_caps(&mut command);
                // Every pending call is a call in progress through it.
                command.args(["--max-calls", &CAP.to_string()]);
                command
                    .args(["--", frontdesk, "serve", "--stdio", "--store", "memory"])
                    .args(["--revision", "2026-07-28"]);
                (command, None)
            }
        };
        Ok((data, ServerProcess::spawn(self.name(), command)?))
    }
}

/// Raise the caps one address would hit to [`CAP`] (`frontdesk serve`'s
/// and `frontdesk gateway`'s flags).
fn raise_caps(command: &mut Command) {
    let cap = CAP.to_string();
    for flag in [
        "--max-connections",
        "--max-connections-per-client",
        "--max-sessions",
        "--max-sessions-per-client",
    ] {
        command.args([flag, &cap]);
    }
}

/// The resident set of `server`, in KiB, with that of the processes it
/// started (the gateway's server) for [`Server::Gateway`].
fn rss_kib(kind: Server, server: &ServerProcess) -> anyhow::Result<u64> {
    let own = server.rss_kib()?;
    if kind != Server::Gateway {
        return Ok(own);
    }
    let children = support::children_of(server.pid())?;
    ensure!(!children.is_empty(), "the gateway has no server running");
    let mut total = own;
    for child in children {
        total += support::rss_kib_of(child)?;
    }
    Ok(total)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pending: tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = if args.iter().any(|a| a == "--serve") {
        runtime.block_on(serve())
    } else {
        parse(&args).and_then(|choice| runtime.block_on(measure_all(&choice)))
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pending: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What to measure: every count, over every HTTP version, on every server.
struct Choice {
    counts: Vec<usize>,
    https: Vec<Http>,
    servers: Vec<Server>,
}

fn parse(args: &[String]) -> anyhow::Result<Choice> {
    let mut counts = vec![1_000, 10_000];
    let mut https = vec![Http::One, Http::Two];
    let mut servers = vec![Server::Library, Server::Serve, Server::Gateway];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bench" => {}
            "--counts" => {
                counts = it
                    .next()
                    .context("--counts needs a value")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            "--http" => {
                https = it
                    .next()
                    .context("--http needs a value")?
                    .split(',')
                    .map(|v| match v {
                        "1" => Ok(Http::One),
                        "2" => Ok(Http::Two),
                        other => Err(anyhow::anyhow!("--http takes 1, 2 or 1,2, not {other:?}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--server" => {
                servers = it
                    .next()
                    .context("--server needs a value")?
                    .split(',')
                    .map(|v| match v {
                        "library" => Ok(Server::Library),
                        "serve" => Ok(Server::Serve),
                        "gateway" => Ok(Server::Gateway),
                        other => Err(anyhow::anyhow!(
                            "--server takes library, serve, gateway or a list of them, not \
                             {other:?}"
                        )),
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => {
                bail!(
                    "unknown argument {other:?}; usage: pending [--counts N,N…] [--http 1,2] \
                     [--server library,serve,gateway]"
                )
            }
        }
    }
    if counts.iter().any(|&n| n == 0 || n > 20_000) {
        bail!("counts must be between 1 and 20,000");
    }
    if https.is_empty() {
        bail!("--http needs 1, 2 or both");
    }
    if servers.is_empty() {
        bail!("--server needs library, serve, gateway or a list of them");
    }
    Ok(Choice {
        counts,
        https,
        servers,
    })
}

/// The server child: the demo on the library's HTTP transport, caps raised.
async fn serve() -> anyhow::Result<()> {
    use frontdesk::http::{HttpOptions, bind};
    let options = HttpOptions::new()
        .max_connections(CAP)
        .max_connections_per_client(CAP)
        .max_sessions(CAP)
        .max_sessions_per_client(CAP);
    let listener = bind(SocketAddr::from(([127, 0, 0, 1], 0)), options).await?;
    let base = listener.base_url();
    let builder = frontdesk::server::Server::builder("brightgrid", "0");
    let server =
        frontdesk_demo::register(builder, &base, &frontdesk_demo::DemoOptions::default()).build();
    eprintln!("pending-memory server at {}", listener.endpoint_url());
    listener.serve(server).await?;
    Ok(())
}

async fn measure_all(choice: &Choice) -> anyhow::Result<()> {
    println!(
        "memory per pending 2025-11-25 elicitation: book_return's ReturnForm, one session and \
         open POST stream each (HTTP/1.1: a connection each; HTTP/2: {STREAMS_PER_CONNECTION} \
         per connection), server RSS from /proc/<pid>/status"
    );
    println!(
        "| server | pending | HTTP | RSS before (KiB) | RSS with pending (KiB) | KiB per pending \
         | answered |"
    );
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
    for &server in &choice.servers {
        for &n in &choice.counts {
            for &http in &choice.https {
                let m = measure(server, n, http).await?;
                let name = match http {
                    Http::One => "1.1",
                    Http::Two => "2 (h2c)",
                };
                println!(
                    "| {} | {n} | {name} | {} | {} | {:.1} | {}/{n} |",
                    server.name(),
                    m.before,
                    m.pending,
                    m.per_pending,
                    m.answered
                );
            }
        }
    }
    Ok(())
}

struct Figures {
    before: u64,
    pending: u64,
    per_pending: f64,
    answered: usize,
}

async fn measure(kind: Server, n: usize, http: Http) -> anyhow::Result<Figures> {
    // Declared first, dropped last: the directory outlives the server.
    let (_data, server) = kind.spawn()?;
    let addr = server.addr();

    let warm = open_all(addr, WARM_UP, http).await?;
    let answered = answer_all(addr, warm, http).await?;
    ensure!(
        answered == WARM_UP,
        "warm-up: {answered}/{WARM_UP} answered"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib(kind, &server)?;

    let calls = open_all(addr, n, http).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pending = rss_kib(kind, &server)?;
    #[allow(clippy::cast_precision_loss)]
    let per_pending = pending.saturating_sub(before) as f64 / n as f64;

    let answered = answer_all(addr, calls, http).await?;
    ensure!(answered == n, "{} of {n} answers lost", n - answered);
    Ok(Figures {
        before,
        pending,
        per_pending,
        answered,
    })
}

/// One call waiting for its answer: its connection (busy with the stream),
/// the stream, the session, the question's id and which order it is for.
struct Pending {
    _conn: Conn,
    stream: Sse,
    session: String,
    question: Value,
    order: String,
}

/// Open `n` sessions, each with its call waiting on a question.
async fn open_all(addr: SocketAddr, n: usize, http: Http) -> anyhow::Result<Vec<Pending>> {
    let gate = Arc::new(Semaphore::new(PARALLEL));
    let mut shared = Vec::new();
    if http == Http::Two {
        for _ in 0..n.div_ceil(STREAMS_PER_CONNECTION) {
            shared.push(Conn::open_from(addr, None, Http::Two).await?);
        }
    }
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let gate = Arc::clone(&gate);
        let conn = shared.get(i / STREAMS_PER_CONNECTION).and_then(Conn::share);
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await?;
            let conn = match conn {
                Some(c) => c,
                None => Conn::open(addr).await?,
            };
            open_one(conn, i).await
        }));
    }
    let mut calls = Vec::with_capacity(n);
    for t in tasks {
        calls.push(t.await.context("a client panicked")??);
    }
    Ok(calls)
}

fn session_headers(session: &str) -> [(&str, &str); 4] {
    [
        ACCEPT,
        JSON,
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

async fn open_one(mut conn: Conn, i: usize) -> anyhow::Result<Pending> {
    let (status, headers, body) = conn.post(&[ACCEPT, JSON], initialize(1)).await?;
    ensure!(status == StatusCode::OK, "initialize answered {status}");
    let session = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .with_context(|| format!("no session: {}", String::from_utf8_lossy(&body)))?;
    let (status, _, _) = conn.post(&session_headers(&session), initialized()).await?;
    ensure!(
        status == StatusCode::ACCEPTED,
        "initialized answered {status}"
    );
    let order = format!("A{i}");
    let call = legacy_call(2, "book_return", json!({"order_id": order}));
    let response = conn
        .send(Method::POST, &session_headers(&session), call)
        .await?;
    ensure!(
        response.status() == StatusCode::OK,
        "tools/call answered {}",
        response.status()
    );
    let mut stream = Sse::new(response);
    let question = next_question(&mut stream).await?;
    Ok(Pending {
        _conn: conn,
        stream,
        session,
        question,
        order,
    })
}

/// The id of the next `elicitation/create` on `stream`.
async fn next_question(stream: &mut Sse) -> anyhow::Result<Value> {
    loop {
        let Some(m) = stream.next_message().await? else {
            bail!("the stream ended before a question");
        };
        if m["method"] == "elicitation/create" {
            return Ok(m["id"].clone());
        }
    }
}

/// Answer every call (the form, then the confirmation), on a few
/// connections; how many ended in their booking.
async fn answer_all(addr: SocketAddr, calls: Vec<Pending>, http: Http) -> anyhow::Result<usize> {
    let mut shares: Vec<Vec<Pending>> = (0..ANSWERERS).map(|_| Vec::new()).collect();
    for (i, call) in calls.into_iter().enumerate() {
        shares[i % ANSWERERS].push(call);
    }
    let mut tasks = Vec::new();
    for share in shares {
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open_from(addr, None, http).await?;
            let mut booked = 0;
            for call in share {
                booked += usize::from(finish(&mut conn, call).await?);
            }
            anyhow::Ok(booked)
        }));
    }
    let mut booked = 0;
    for t in tasks {
        booked += t.await.context("an answerer panicked")??;
    }
    Ok(booked)
}

/// Answer one call's questions; whether it ended in its booking.
async fn finish(conn: &mut Conn, mut call: Pending) -> anyhow::Result<bool> {
    let headers = session_headers(&call.session);
    let form = json!({"action": "accept", "content": {
        "reason": "wrong_item", "boxes": 2, "pickup_date": "2026-12-01",
        "contact_email": "ana@example.com"
    }});
    let (status, _, _) = conn.post(&headers, answer(&call.question, form)).await?;
    ensure!(status == StatusCode::ACCEPTED, "the answer got {status}");
    let confirm = next_question(&mut call.stream).await?;
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let (status, _, _) = conn.post(&headers, answer(&confirm, yes)).await?;
    ensure!(
        status == StatusCode::ACCEPTED,
        "the confirmation got {status}"
    );
    loop {
        let Some(m) = call.stream.next_message().await? else {
            return Ok(false);
        };
        if m["id"] == 2 {
            let expected = format!("Return booked for order {}", call.order);
            return Ok(result_text(&m).is_some_and(|t| t.starts_with(&expected)));
        }
    }
}
