//! What the load benchmark and the pending-memory measurement share: server
//! child processes (their CPU time and memory read from `/proc`), one
//! keep-alive HTTP/1.1 (or HTTP/2 with prior knowledge) client connection on
//! hyper, an SSE reader, and the
//! bodies of the calls both revisions make.
//!
//! Loopback only: every address here is `127.0.0.1`.

#![allow(dead_code)] // each benchmark uses part of it

use std::io::{BufRead, BufReader, Write as _};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::sync::{LazyLock, mpsc};
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use bytes::Bytes;
use frontdesk_testkit::TestClient;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::{http1, http2};
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tokio::net::{TcpSocket, TcpStream};

/// Loopback source addresses a load spreads its connections over
/// (`127.0.0.1` … `127.0.0.8`).
pub const SOURCES: u8 = 8;

/// The loopback source address of client `index`.
pub fn source_of(index: u64) -> IpAddr {
    #[allow(clippy::cast_possible_truncation)]
    let last = 1 + (index % u64::from(SOURCES)) as u8;
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// The MCP endpoint's path on every server these benchmarks start.
pub const ENDPOINT: &str = "/mcp";

/// `PATH serve --http 127.0.0.1:0`, with none of the environment's
/// settings of `frontdesk serve` (log filter, data directory, Redis URL,
/// state keys): its defaults, as the README starts it; add flags, then
/// spawn it as a [`ServerProcess`].
pub fn frontdesk_serve(path: &str) -> Command {
    let mut command = Command::new(path);
    command
        .args(["serve", "--http", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .env_remove("FRONTDESK_DATA_DIR")
        .env_remove("FRONTDESK_REDIS_URL")
        .env_remove("FRONTDESK_STATE_KEYS");
    command
}

/// `frontdesk gateway --http 127.0.0.1:0` from the build at `path`, with no
/// question limit (the load is the point; the default is 60 a minute) and
/// only the gateway's endpoint line on stderr (the upstream's own log, its
/// sign-in page's address, would be read as the endpoint). The caller adds
/// its flags, then `--` and the upstream command.
pub fn frontdesk_gateway(path: &str) -> Command {
    let mut command = Command::new(path);
    command
        .args(["gateway", "--http", "127.0.0.1:0"])
        .args(["--questions-per-minute", "0"])
        .env("RUST_LOG", "warn")
        .env_remove("FRONTDESK_DATA_DIR")
        .env_remove("FRONTDESK_STATE_KEYS");
    command
}

/// Start `command`, from a thread pinned to `cpu` when one is given.
pub fn start(command: &mut Command, cpu: Option<core_affinity::CoreId>) -> std::io::Result<Child> {
    let Some(cpu) = cpu else {
        return command.spawn();
    };
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                if !core_affinity::set_for_current(cpu) {
                    return Err(std::io::Error::other(format!(
                        "cannot pin to CPU {}",
                        cpu.id
                    )));
                }
                command.spawn()
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the starting thread panicked")))
    })
}

/// The CPUs process `pid` may run on (`Cpus_allowed_list` in
/// `/proc/<pid>/status`, e.g. `1` or `0-1`).
pub fn cpus_allowed(pid: u32) -> anyhow::Result<String> {
    status_field(pid, "Cpus_allowed_list")
}

/// The value of the line `NAME:` of `/proc/<pid>/status`, trimmed.
fn status_field(pid: u32, name: &str) -> anyhow::Result<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("cannot read /proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| anyhow!("no {name} in /proc/{pid}/status"))
}

/// A server running as a child process, so that its CPU time and memory are
/// its own. Killed when dropped.
pub struct ServerProcess {
    child: Child,
    addr: SocketAddr,
    name: String,
}

impl ServerProcess {
    /// Start `command` and wait (up to 30 s) for the first line on its stderr
    /// that names `http://ADDR`; the rest of stderr is drained (and dropped)
    /// so the server never blocks on a full pipe.
    pub fn spawn(name: &str, command: Command) -> anyhow::Result<Self> {
        Self::spawn_on(name, command, None)
    }

    /// [`spawn`](Self::spawn), with the child's CPU affinity set to `cpu`
    /// alone when one is given: the child is started from a thread pinned
    /// to `cpu`, and a process inherits the affinity of the thread that
    /// starts it (so do the threads it starts in turn).
    pub fn spawn_on(
        name: &str,
        mut command: Command,
        cpu: Option<core_affinity::CoreId>,
    ) -> anyhow::Result<Self> {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = start(&mut command, cpu).with_context(|| format!("cannot start {name}"))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| anyhow!("{name}: no stderr"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            let mut early = Vec::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let Some(sender) = &tx else { continue };
                match address_in(&line) {
                    Some(addr) => {
                        let _ = sender.send(Ok(addr));
                        tx = None;
                    }
                    None => early.push(line),
                }
            }
            if let Some(sender) = tx {
                let _ = sender.send(Err(early.join("\n")));
            }
        });
        let mut server = Self {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            name: name.to_string(),
        };
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Ok(addr)) => server.addr = addr,
            Ok(Err(output)) => bail!("{name} exited before listening:\n{output}"),
            Err(_) => bail!("{name} did not say where it listens within 30 s"),
        }
        Ok(server)
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time used so far (user + system, all threads), in clock ticks,
    /// from `/proc/<pid>/stat`.
    pub fn cpu_ticks(&self) -> anyhow::Result<u64> {
        cpu_ticks_of(self.pid()).with_context(|| self.name.clone())
    }

    /// [`cpu_ticks`](Self::cpu_ticks), user and system time apart.
    pub fn cpu_split(&self) -> anyhow::Result<CpuTicks> {
        cpu_split_of(self.pid()).with_context(|| self.name.clone())
    }

    /// Resident set size now, in KiB, from `/proc/<pid>/status`.
    pub fn rss_kib(&self) -> anyhow::Result<u64> {
        rss_kib_of(self.pid()).with_context(|| self.name.clone())
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `ADDR` of the first `http://ADDR/…` in `line`.
fn address_in(line: &str) -> Option<SocketAddr> {
    let start = line.find("http://")? + "http://".len();
    let rest = &line[start..];
    let end = rest.find(['/', ' ']).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 when that fails, as on
/// every Linux this runs on).
pub fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .filter(|&t| t > 0)
        .unwrap_or(100)
}

/// One keep-alive HTTP/1.1 connection.
pub struct Conn {
    send: Sender,
    host: String,
}

/// Which HTTP a [`Conn`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Http {
    /// HTTP/1.1 keep-alive: one request at a time.
    One,
    /// HTTP/2 with prior knowledge (h2c): requests may overlap.
    Two,
}

enum Sender {
    One(http1::SendRequest<Full<Bytes>>),
    Two(http2::SendRequest<Full<Bytes>>),
}

impl Conn {
    /// Connect to `addr`.
    pub async fn open(addr: SocketAddr) -> anyhow::Result<Self> {
        Self::open_from(addr, None, Http::One).await
    }

    /// Connect to `addr` from the loopback address `source` (any port), or
    /// from the system's choice when `None`. The server's per-address caps
    /// (open connections, requests in flight) count by source address, so a
    /// load of many connections spreads over several `127.0.0.x`.
    pub async fn open_from(
        addr: SocketAddr,
        source: Option<IpAddr>,
        http: Http,
    ) -> anyhow::Result<Self> {
        let stream = match source {
            None => TcpStream::connect(addr).await,
            Some(ip) => {
                let socket = TcpSocket::new_v4()?;
                socket.bind(SocketAddr::new(ip, 0))?;
                socket.connect(addr).await
            }
        }
        .with_context(|| format!("cannot connect to {addr} (from {source:?})"))?;
        stream.set_nodelay(true)?;
        let send = match http {
            Http::One => {
                let (send, connection) = http1::handshake(TokioIo::new(stream))
                    .await
                    .context("HTTP/1.1 handshake")?;
                tokio::spawn(async move {
                    let _ = connection.await;
                });
                Sender::One(send)
            }
            Http::Two => {
                let (send, connection) =
                    http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                        .await
                        .context("HTTP/2 handshake")?;
                tokio::spawn(async move {
                    let _ = connection.await;
                });
                Sender::Two(send)
            }
        };
        Ok(Self {
            send,
            host: addr.to_string(),
        })
    }

    /// Another handle on the same HTTP/2 connection (its requests share it);
    /// `None` on HTTP/1.1, which carries one request at a time.
    pub fn share(&self) -> Option<Self> {
        match &self.send {
            Sender::One(_) => None,
            Sender::Two(send) => Some(Self {
                send: Sender::Two(send.clone()),
                host: self.host.clone(),
            }),
        }
    }

    /// Send a request with `headers` and `body`; the response's body is not
    /// read yet.
    pub async fn send(
        &mut self,
        method: Method,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> anyhow::Result<Response<Incoming>> {
        let mut request = Request::builder().method(method);
        request = match self.send {
            Sender::One(_) => request.uri(ENDPOINT).header("host", &self.host),
            // The host goes as `:authority`, from the URI.
            Sender::Two(_) => request.uri(format!("http://{}{ENDPOINT}", self.host)),
        };
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body))?;
        match &mut self.send {
            Sender::One(send) => {
                send.ready().await.context("connection closed")?;
                send.send_request(request).await.context("request failed")
            }
            Sender::Two(send) => {
                send.ready().await.context("connection closed")?;
                send.send_request(request).await.context("request failed")
            }
        }
    }

    /// A POST of a JSON body, read whole: status, headers, body.
    pub async fn post(
        &mut self,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> anyhow::Result<(StatusCode, HeaderMap, Bytes)> {
        let response = self.send(Method::POST, headers, body).await?;
        read_whole(response).await
    }
}

/// Status, headers and the whole body of `response`.
pub async fn read_whole(
    response: Response<Incoming>,
) -> anyhow::Result<(StatusCode, HeaderMap, Bytes)> {
    let (parts, body) = response.into_parts();
    let body = body.collect().await.context("reading a body")?.to_bytes();
    Ok((parts.status, parts.headers, body))
}

/// The `data:` of each event of an SSE response, as it arrives.
pub struct Sse {
    body: Incoming,
    buf: Vec<u8>,
}

impl Sse {
    /// Read `response` as an event stream.
    pub fn new(response: Response<Incoming>) -> Self {
        Self {
            body: response.into_body(),
            buf: Vec::new(),
        }
    }

    /// The next event with data, parsed as JSON; `None` at the end of the
    /// stream. Comments and events with empty data (priming) are skipped.
    pub async fn next_message(&mut self) -> anyhow::Result<Option<Value>> {
        loop {
            if let Some(end) = find(&self.buf, b"\n\n") {
                let event: Vec<u8> = self.buf.drain(..end + 2).collect();
                let text = std::str::from_utf8(&event).context("SSE event is not UTF-8")?;
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                let data = data.join("\n");
                if data.is_empty() {
                    continue;
                }
                return Ok(Some(
                    serde_json::from_str(&data).context("SSE data is not JSON")?,
                ));
            }
            match self.body.frame().await {
                None => return Ok(None),
                Some(frame) => {
                    if let Ok(chunk) = frame.context("reading an SSE stream")?.into_data() {
                        self.buf.extend_from_slice(&chunk);
                    }
                }
            }
        }
    }

    /// Read to the end of the stream (so the connection can be used again).
    pub async fn finish(mut self) -> anyhow::Result<()> {
        while self.body.frame().await.transpose()?.is_some() {}
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `Accept` of every POST (both revisions).
pub const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
/// `Content-Type` of every POST.
pub const JSON: (&str, &str) = ("content-type", "application/json");

/// The headers of a 2026-07-28 `tools/call` of `tool`.
pub fn modern_headers(tool: &str) -> [(&str, &str); 5] {
    [
        ACCEPT,
        JSON,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ]
}

/// The benchmarks' client: form elicitation only.
fn bench_client() -> TestClient {
    TestClient::new("frontdesk-bench", "0").capabilities(json!({"elicitation": {"form": {}}}))
}

/// The `_meta` of the benchmarks' client on every 2026-07-28 request
/// (revision, `clientInfo`, capabilities), as JSON text, made once.
static CLIENT_META: LazyLock<String> = LazyLock::new(|| bench_client().meta().to_string());

/// A 2026-07-28 `tools/call` of `tool` with the argument `n`; a retry when
/// `retry` gives the question's key, accepted with `{"ok": true}`, and the
/// `requestState`. Written as text around the client's `_meta` made once:
/// the load generator shares the server's CPUs, so what it spends on a
/// request is taken from the server being measured.
pub fn modern_call(id: u64, tool: &str, n: u64, retry: Option<(&str, &str)>) -> Bytes {
    let mut body = Vec::with_capacity(256 + retry.map_or(0, |(_, state)| state.len()));
    let _ = write!(
        body,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"#
    );
    json_string(&mut body, tool);
    let _ = write!(body, r#","arguments":{{"n":{n}}},"_meta":{}"#, *CLIENT_META);
    if let Some((key, state)) = retry {
        body.extend_from_slice(br#","inputResponses":{"#);
        json_string(&mut body, key);
        body.extend_from_slice(br#":{"action":"accept","content":{"ok":true}}},"requestState":"#);
        json_string(&mut body, state);
    }
    body.extend_from_slice(b"}}");
    Bytes::from(body)
}

/// `text` as a JSON string (quoted, escaped), appended to `out`.
fn json_string(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(out, text);
}

/// A 2025-11-25 `initialize` of a client with form elicitation.
pub fn initialize(id: u64) -> Bytes {
    body(&bench_client().initialize(json!(id)))
}

/// `notifications/initialized`.
pub fn initialized() -> Bytes {
    body(&frontdesk_testkit::initialized())
}

/// A 2025-11-25 `tools/call`.
pub fn legacy_call(id: u64, tool: &str, arguments: Value) -> Bytes {
    body(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}}))
}

/// The client's response to the server's request `id`.
pub fn answer(id: &Value, result: Value) -> Bytes {
    body(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn body(message: &Value) -> Bytes {
    Bytes::from(message.to_string())
}

/// The text of the first content block of a `tools/call` result message.
pub fn result_text(message: &Value) -> Option<&str> {
    message
        .get("result")?
        .get("content")?
        .get(0)?
        .get("text")?
        .as_str()
}

/// The median of `values` (sorted in place); 0 when empty.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The `q`-quantile (0..=1) of sorted `values`; 0 when empty.
pub fn quantile(sorted: &[u32], q: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A fresh directory under the system's temporary directory, owner-only,
/// removed when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    /// `$TMPDIR/NAME-<pid>-<n>`.
    pub fn new(name: &str) -> anyhow::Result<Self> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(Self(path))
    }

    /// Where it is.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// CPU time process `pid` used so far (user + system, all threads), in
/// clock ticks, from `/proc/<pid>/stat`.
pub fn cpu_ticks_of(pid: u32) -> anyhow::Result<u64> {
    cpu_split_of(pid).map(CpuTicks::total)
}

/// CPU time a process used so far (all threads), in clock ticks: in its
/// own code and in the kernel on its behalf.
#[derive(Clone, Copy, Debug)]
pub struct CpuTicks {
    /// User time (`utime`).
    pub user: u64,
    /// System time (`stime`): system calls, the network stack's work
    /// charged to the process.
    pub system: u64,
}

impl CpuTicks {
    /// User and system time together.
    pub fn total(self) -> u64 {
        self.user + self.system
    }

    /// The time from `earlier` to this reading.
    pub fn since(self, earlier: CpuTicks) -> CpuTicks {
        CpuTicks {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

/// [`cpu_ticks_of`], user and system time apart.
pub fn cpu_split_of(pid: u32) -> anyhow::Result<CpuTicks> {
    let fields = stat_fields(pid)?;
    // After ")": state is field 3, so utime (14) and stime (15) are at 11, 12.
    let tick = |i: usize| -> anyhow::Result<u64> {
        fields
            .get(i)
            .ok_or_else(|| anyhow!("short /proc stat"))?
            .parse::<u64>()
            .context("unreadable /proc stat field")
    };
    Ok(CpuTicks {
        user: tick(11)?,
        system: tick(12)?,
    })
}

/// The fields of `/proc/<pid>/stat` after the command name (which may hold
/// spaces; the fields after it are plain): the state (field 3) first.
fn stat_fields(pid: u32) -> anyhow::Result<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("cannot read /proc/{pid}/stat"))?;
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| anyhow!("unreadable /proc stat"))?;
    Ok(rest.split_whitespace().map(str::to_owned).collect())
}

/// Resident set size of process `pid` now, in KiB, from
/// `/proc/<pid>/status`.
pub fn rss_kib_of(pid: u32) -> anyhow::Result<u64> {
    let rss = status_field(pid, "VmRSS")?;
    rss.trim_end_matches("kB")
        .trim()
        .parse()
        .with_context(|| format!("unreadable VmRSS {rss:?} in /proc/{pid}/status"))
}

/// The processes whose parent is `pid` (from every `/proc/<n>/stat`: not
/// every kernel has `/proc/<pid>/task/<tid>/children`).
pub fn children_of(pid: u32) -> anyhow::Result<Vec<u32>> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").context("cannot list /proc")? {
        let Some(n) = entry
            .ok()
            .and_then(|e| e.file_name().to_str()?.parse::<u32>().ok())
        else {
            continue;
        };
        // A process that ended since the listing is not a child any more.
        let Ok(fields) = stat_fields(n) else { continue };
        // After ")": the parent's id (field 4) is the second.
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            children.push(n);
        }
    }
    Ok(children)
}
