//! What every abuse row needs: a `frontdesk serve --http` process on
//! loopback (its memory read from `/proc`), clients bound to a chosen
//! loopback address (the attacker on 127.0.0.2, the well-behaved client on
//! 127.0.0.1, so the server tells them apart as anonymous clients do), the
//! well-behaved client's loop, and the printed figures.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use frontdesk_testkit::{TestClient, sse_data};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::support::BIN;

pub const MODERN: &str = "2026-07-28";
pub const LEGACY: &str = "2025-11-25";
pub const ATTACKER: &str = "127.0.0.2";
pub const GOOD: &str = "127.0.0.1";

/// How big the attacks are: the counts with `FRONTDESK_ABUSE=full`,
/// a tenth or less otherwise (the short run CI does).
pub fn scale(full: usize, short: usize) -> usize {
    if std::env::var("FRONTDESK_ABUSE").is_ok_and(|v| v == "full") {
        full
    } else {
        short
    }
}

/// Where the target keeps URL flows and redeemed states (`--store`).
pub enum Store {
    /// `--store memory`.
    Memory,
    /// `--store sqlite` in a fresh data directory under the target
    /// directory (removed with the target).
    Sqlite(PathBuf),
    /// `--store redis` at this URL, under a prefix of its own.
    Redis { url: String, prefix: String },
}

impl Store {
    /// A SQLite store in a fresh directory.
    pub fn sqlite() -> Self {
        Self::Sqlite(
            PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join("abuse")
                .join(unique()),
        )
    }

    /// The Redis at `FRONTDESK_REDIS_URL`, under a fresh prefix; `None`
    /// (with a note) when it is unset, unless `FRONTDESK_REQUIRE_REDIS=1`.
    pub fn redis(what: &str) -> Option<Self> {
        frontdesk_testkit::redis_url(what).map(|url| Self::Redis {
            url,
            prefix: format!("abuse-{}:", unique()),
        })
    }

    /// `memory`, `sqlite` or `redis`, as `--store` says it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Sqlite(_) => "sqlite",
            Self::Redis { .. } => "redis",
        }
    }

    /// The flags of `frontdesk serve` for this store.
    fn args(&self) -> Vec<String> {
        let mut args = vec!["--store".to_string(), self.name().to_string()];
        match self {
            Self::Memory => {}
            Self::Sqlite(dir) => {
                args.extend(["--data-dir".to_string(), dir.display().to_string()]);
            }
            Self::Redis { url, prefix } => args.extend([
                "--redis-url".to_string(),
                url.clone(),
                "--redis-prefix".to_string(),
                prefix.clone(),
            ]),
        }
        args
    }
}

/// A name no other run uses: the process id and the time.
fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{}-{nanos}", std::process::id())
}

/// One `frontdesk serve --conformance-fixtures --http 127.0.0.1:0` with a
/// store (`--store memory` unless a row says otherwise).
pub struct Target {
    child: Child,
    store: Store,
    pub mcp: String,
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Store::Sqlite(dir) = &self.store {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Target {
    /// Start the server with `--store memory` and `args` added, under the
    /// usual limit of 1,024 open files.
    pub fn start(args: &[&str]) -> Self {
        Self::start_with(Store::Memory, args)
    }

    /// Start the server with `store` and `args` added, under the usual limit
    /// of 1,024 open files.
    pub fn start_with(store: Store, args: &[&str]) -> Self {
        let mut child = Command::new("sh")
            .args(["-c", "ulimit -n 1024 && exec \"$0\" \"$@\"", BIN])
            .args(["serve", "--conformance-fixtures", "--http", "127.0.0.1:0"])
            .args(store.args())
            .args(args)
            .env("RUST_LOG", "error")
            .env_remove("FRONTDESK_STATE_KEYS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("frontdesk serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("frontdesk: MCP endpoint at ") {
                    let _ = tx.send(url.to_string());
                }
            }
        });
        let mcp = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("serve prints its endpoint within 30 s");
        Self { child, store, mcp }
    }

    /// The server's resident memory, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// `host:port` of the endpoint.
    pub fn authority(&self) -> String {
        self.mcp
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    }
}

/// An HTTP client whose connections come from `ip`.
pub fn client_from(ip: &str) -> reqwest::Client {
    frontdesk::client::install_default_tls_provider();
    let ip: IpAddr = ip.parse().expect("a loopback address");
    reqwest::Client::builder()
        .local_address(ip)
        .timeout(Duration::from_secs(20))
        .pool_max_idle_per_host(16)
        .build()
        .expect("an HTTP client")
}

/// The `_meta` of a 2026-07-28 request.
pub fn meta() -> Value {
    test_client().meta()
}

/// Who the well-behaved client and the attackers say they are.
pub fn test_client() -> TestClient {
    TestClient::new("abuse", "1")
}

/// A 2026-07-28 `tools/call` of `tool`, optionally a retry.
pub fn modern_call(tool: &str, args: Value, retry: Option<(Value, &str)>) -> Value {
    let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": meta()}});
    if let Some((responses, state)) = retry {
        if !responses.is_null() {
            body["params"]["inputResponses"] = responses;
        }
        body["params"]["requestState"] = json!(state);
    }
    body
}

/// A status and the last JSON-RPC message of the response (JSON or SSE).
pub struct Reply {
    pub status: u16,
    pub message: Value,
    pub session: Option<String>,
}

/// POST a 2026-07-28 request to `mcp`.
pub async fn post_modern(http: &reqwest::Client, mcp: &str, body: &Value) -> Result<Reply, String> {
    let method = body["method"].as_str().unwrap_or_default();
    let name = body["params"]["name"].as_str().unwrap_or_default();
    let request = http
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string());
    read(request).await
}

/// POST a 2025-11-25 message (in `session`, when given).
pub async fn post_legacy(
    http: &reqwest::Client,
    mcp: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<Reply, String> {
    let mut request = http
        .post(mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LEGACY);
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    read(request.body(body.to_string())).await
}

async fn read(request: reqwest::RequestBuilder) -> Result<Reply, String> {
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let sse = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let text = response.text().await.map_err(|e| e.to_string())?;
    let message = if sse {
        sse_data(&text)
            .rev()
            .find_map(|d| serde_json::from_str(d).ok())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    Ok(Reply {
        status,
        message,
        session,
    })
}

/// A 2025-11-25 `initialize` (and `notifications/initialized`): the session id.
pub async fn initialize(http: &reqwest::Client, mcp: &str) -> Result<Reply, String> {
    let init = test_client().initialize(json!(0));
    let reply = post_legacy(http, mcp, None, &init).await?;
    if let Some(session) = &reply.session {
        post_legacy(http, mcp, Some(session), &frontdesk_testkit::initialized()).await?;
    }
    Ok(reply)
}

/// What the well-behaved client saw while an attack ran.
#[derive(Debug, Default)]
pub struct GoodReport {
    pub ok: usize,
    pub failures: Vec<String>,
    pub latencies_ms: Vec<f64>,
}

impl GoodReport {
    fn percentile(&self, p: f64) -> f64 {
        let mut v = self.latencies_ms.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        let i = ((v.len() - 1) as f64 * p).round() as usize;
        v[i]
    }
}

/// The well-behaved client: from 127.0.0.1, over and over until stopped, a
/// complete 2026-07-28 form round trip (`bench_confirm`) and a 2025-11-25
/// session (initialize, `tools/list`, DELETE).
pub struct GoodClient {
    stop: Arc<AtomicBool>,
    task: JoinHandle<GoodReport>,
}

impl GoodClient {
    pub fn start(mcp: &str) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let mcp = mcp.to_string();
        let task = tokio::spawn(async move {
            let http = client_from(GOOD);
            let mut report = GoodReport::default();
            let mut n = 0i64;
            while !flag.load(Ordering::SeqCst) {
                n += 1;
                let started = Instant::now();
                match good_round(&http, &mcp, n).await {
                    Ok(()) => {
                        report.ok += 1;
                        report
                            .latencies_ms
                            .push(started.elapsed().as_secs_f64() * 1000.0);
                    }
                    Err(e) => report.failures.push(e),
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            report
        });
        Self { stop, task }
    }

    /// Stop and report.
    pub async fn finish(self) -> GoodReport {
        self.stop.store(true, Ordering::SeqCst);
        self.task.await.unwrap_or_default()
    }
}

async fn good_round(http: &reqwest::Client, mcp: &str, n: i64) -> Result<(), String> {
    let first = post_modern(
        http,
        mcp,
        &modern_call("bench_confirm", json!({"n": n}), None),
    )
    .await?;
    let state = first.message["result"]["requestState"]
        .as_str()
        .ok_or_else(|| format!("2026 round 1: {} {}", first.status, first.message))?
        .to_string();
    let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let done = post_modern(
        http,
        mcp,
        &modern_call("bench_confirm", json!({"n": n}), Some((answer, &state))),
    )
    .await?;
    let text = &done.message["result"]["content"][0]["text"];
    if text != &json!(format!("confirmed {n}")) {
        return Err(format!("2026 round 2: {} {}", done.status, done.message));
    }
    let init = initialize(http, mcp).await?;
    let session = init
        .session
        .ok_or_else(|| format!("2025 initialize: {} {}", init.status, init.message))?;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let listed = post_legacy(http, mcp, Some(&session), &list).await?;
    if listed.message["result"]["tools"].as_array().is_none() {
        return Err(format!(
            "2025 tools/list: {} {}",
            listed.status, listed.message
        ));
    }
    http.delete(mcp)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// Counts of what the attacker got back, by label.
#[derive(Debug, Default)]
pub struct Tally(pub BTreeMap<String, usize>);

impl Tally {
    pub fn add(&mut self, label: impl Into<String>) {
        *self.0.entry(label.into()).or_default() += 1;
    }

    pub fn get(&self, label: &str) -> usize {
        self.0.get(label).copied().unwrap_or(0)
    }
}

/// Print one row's figures, and check the well-behaved client was served
/// throughout.
pub fn report(
    row: &str,
    attack: &str,
    took: Duration,
    tally: &Tally,
    rss: (u64, u64),
    good: &GoodReport,
) {
    let outcomes: Vec<String> = tally.0.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    eprintln!(
        "abuse | {row} | {attack} in {:.1} s | attacker got {} | server RSS {} → {} KiB | good client: {} ok, {} failed, p50 {:.1} ms, p99 {:.1} ms",
        took.as_secs_f64(),
        outcomes.join(", "),
        rss.0,
        rss.1,
        good.ok,
        good.failures.len(),
        good.percentile(0.5),
        good.percentile(0.99),
    );
    assert!(
        good.failures.is_empty(),
        "{row}: the well-behaved client failed: {:?}",
        &good.failures[..good.failures.len().min(5)]
    );
    assert!(
        good.ok > 0,
        "{row}: the well-behaved client completed nothing"
    );
}
