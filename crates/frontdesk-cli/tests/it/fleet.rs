//! Issue 28: three `frontdesk serve` instances behind a real HAProxy
//! (Debian's, started here), sharing one `redis-server`. 2026-07-28 calls
//! (no stickiness) and 2025-11-25 sessions (sticky by `Mcp-Session-Id`) run
//! while one instance is drained with SIGTERM and another killed with
//! SIGKILL. The figures are printed (`fleet |` lines); asserted: no
//! 2025-11-25 call is lost silently, the drain fails no 2026-07-28 call and
//! tells waiting people why, and the last instance serves everyone after.
//! Tasks (the Tasks extension, kept in Redis) started on every instance
//! before the drain are read through the balancer after the kill: each is
//! found, the finished ones with their result, the long ones still working
//! or failed with the reason.
//!
//! Needs `haproxy` on the PATH (or `FRONTDESK_HAPROXY`) and
//! `FRONTDESK_REDIS_URL`; skipped with a note without them, failed instead
//! with `FRONTDESK_REQUIRE_HAPROXY=1`. CI runs it in a step of its own.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::wire::Revision;
use serde_json::{Value, json};

use crate::serve_restart::{Serve, generate_key, http, messages, meta};
use crate::support::modern_post;
use frontdesk_testkit::redis_url;

const CALL_AGAIN: &str =
    "The server is shutting down before the question was answered; call the tool again.";

/// The HAProxy binary, or `None` (skip) when there is none.
fn haproxy_binary() -> Option<PathBuf> {
    let found = std::env::var_os("FRONTDESK_HAPROXY")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .chain([PathBuf::from("/usr/sbin")])
                    .map(|dir| dir.join("haproxy"))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() {
        assert!(
            std::env::var("FRONTDESK_REQUIRE_HAPROXY").as_deref() != Ok("1"),
            "FRONTDESK_REQUIRE_HAPROXY=1 but no haproxy was found"
        );
        eprintln!("note: haproxy not found; the fleet test is skipped");
    }
    found
}

/// A running HAProxy in front of `backends`; stopped when dropped.
struct Haproxy {
    child: Child,
    url: String,
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Haproxy {
    fn start(binary: &PathBuf, backends: &[String]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, addr)| {
                format!("  server s{i} {addr} check inter 300ms fall 1 rise 2 on-marked-down shutdown-sessions\n")
            })
            .collect();
        // Round robin; 2025-11-25 sessions stick to the instance that made
        // them (by Mcp-Session-Id); an instance is taken out when /readyz
        // fails; a request whose connection was refused or closed before a
        // response goes to another instance.
        let config = format!(
            "global\n  maxconn 2000\n\
             defaults\n  mode http\n  timeout connect 1s\n  timeout client 60s\n  timeout server 60s\n\
             \x20 retries 2\n  option redispatch\n  retry-on conn-failure empty-response\n\
             frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend fleet\n\
             backend fleet\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n\
             \x20 stick-table type string len 128 size 10k expire 30m\n\
             \x20 stick on req.hdr(mcp-session-id)\n  stick store-response res.hdr(mcp-session-id)\n\
             {servers}"
        );
        let dir = crate::serve_restart::temp_dir("haproxy");
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config).unwrap();
        let child = Command::new(binary)
            .arg("-db")
            .arg("-f")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("haproxy starts");
        Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Wait until HAProxy answers `/readyz` through an instance.
    async fn ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let r = http().get(format!("{}/readyz", self.url)).send().await;
            if r.is_ok_and(|r| r.status() == 200) {
                return;
            }
            assert!(Instant::now() < deadline, "haproxy never became ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// What happened to the calls, for the figures and the assertions.
#[derive(Default)]
struct Tally {
    modern_done: usize,
    /// When and why each failed 2026-07-28 call failed.
    modern_failed: Vec<(Duration, String)>,
    legacy_booked: usize,
    legacy_told_why: usize,
    legacy_connection_lost: Vec<String>,
    legacy_silent: usize,
}

/// One 2026-07-28 request through the balancer, sent again (as a client
/// would) when the balancer or the network failed it; the response message
/// or why it failed.
async fn modern(url: &str, params: Value) -> Result<Value, String> {
    let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    body["params"]["_meta"] = meta();
    let mut last = String::new();
    for _ in 0..5 {
        let sent = modern_post(
            &http(),
            &format!("{url}/mcp"),
            "tools/call",
            "book_return",
            &body,
        )
        .send()
        .await;
        match sent {
            Ok(r) if r.status().is_success() || r.status() == 400 => {
                if let Some(m) = messages(r).await.pop() {
                    return Ok(m);
                }
                last = "an empty response".into();
            }
            Ok(r) => last = format!("HTTP {}", r.status()),
            Err(e) => last = format!("transport: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(last)
}

/// One 2026-07-28 request of `method` about `name` (a tool, or a task),
/// declaring the Tasks extension, through the balancer: the response message.
async fn task_rpc(url: &str, method: &str, name: &str, mut params: Value) -> Result<Value, String> {
    params["_meta"] = frontdesk_testkit::TestClient::new("fleet-tasks", "1")
        .capabilities(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
        .meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let r = modern_post(&http(), &format!("{url}/mcp"), method, name, &body)
        .send()
        .await
        .map_err(|e| format!("transport: {e}"))?;
    messages(r)
        .await
        .pop()
        .ok_or_else(|| "an empty response".to_string())
}

/// Start `slow_compute` for `seconds` as a task: its id.
async fn start_task(url: &str, seconds: f64) -> String {
    let v = task_rpc(
        url,
        "tools/call",
        "slow_compute",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds}}),
    )
    .await
    .expect("a task starts");
    assert_eq!(v["result"]["resultType"], "task", "{v}");
    v["result"]["taskId"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// One whole `book_return` on 2026-07-28: three requests.
async fn modern_booking(url: &str) -> Result<(), String> {
    let args = json!({"order_id": "F-1"});
    let mut params = json!({"name": "book_return", "arguments": args});
    let answers = [
        json!({"return": {"action": "accept", "content": {"reason": "damaged", "boxes": 1,
            "pickup_date": "2026-12-11", "contact_email": "fleet@example.com"}}}),
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}}),
    ];
    for answer in answers {
        let v = modern(url, params.clone()).await?;
        let Some(state) = v["result"]["requestState"].as_str() else {
            return Err(format!("no input_required: {v}"));
        };
        params["requestState"] = json!(state);
        params["inputResponses"] = answer;
    }
    let v = modern(url, params).await?;
    if v["result"]["structuredContent"]["status"] == "booked" {
        Ok(())
    } else if let Some(message) = v["error"]["message"].as_str() {
        Err(format!("error {}: {message}", v["error"]["code"]))
    } else {
        Err(format!("not booked: {v}"))
    }
}

/// A person who takes `delay` to answer each question of `book_return`.
struct Slow {
    delay: Duration,
    answers: Mutex<VecDeque<Value>>,
}

impl Slow {
    fn new(delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            delay,
            answers: Mutex::default(),
        })
    }
}

impl ElicitationHandler for Slow {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() || request.message.starts_with("Tell us") {
            *answers = VecDeque::from([
                json!({"reason": "damaged", "pickup_date": "2026-12-11",
                    "contact_email": "fleet@example.com"}),
                json!({"confirm": true}),
            ]);
        }
        let answer = answers.pop_front();
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            match answer {
                Some(Value::Object(content)) => ElicitationResponse::Accept(content),
                _ => ElicitationResponse::Cancel,
            }
        })
    }
}

/// A 2025-11-25 client calling `book_return` until `stop`, a new session
/// after each one that ended (as a host does when its server goes away).
async fn legacy_worker(url: String, stop: Arc<AtomicBool>, tally: Arc<Mutex<Tally>>) {
    let person = Slow::new(Duration::from_millis(400));
    while !stop.load(Ordering::SeqCst) {
        let connected = Client::connect_http(
            &format!("{url}/mcp"),
            ClientConfig::default().protocol(Revision::V2025_11_25),
            Arc::clone(&person) as _,
        )
        .await;
        let client = match connected {
            Ok(c) => c,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        while !stop.load(Ordering::SeqCst) {
            let call = client.call_tool("book_return", json!({"order_id": "S-1"}));
            let outcome = tokio::time::timeout(Duration::from_secs(20), call).await;
            let mut t = tally.lock().unwrap();
            match outcome {
                Ok(Ok(r)) if r.content.first().and_then(|c| c.as_text()) == Some(CALL_AGAIN) => {
                    t.legacy_told_why += 1;
                    break;
                }
                Ok(Ok(r))
                    if r.structured_content.as_ref().map(|c| &c["status"])
                        == Some(&json!("booked")) =>
                {
                    t.legacy_booked += 1;
                }
                Ok(Ok(r)) => {
                    t.legacy_connection_lost
                        .push(format!("unexpected result {r:?}"));
                    break;
                }
                Ok(Err(e)) => {
                    t.legacy_connection_lost.push(e.to_string());
                    break;
                }
                Err(_) => {
                    t.legacy_silent += 1;
                    break;
                }
            }
        }
        client.close().await;
    }
}

#[tokio::test]
async fn fleet_survives_a_drain_and_a_kill() {
    let Some(binary) = haproxy_binary() else {
        return;
    };
    let Some(redis) = redis_url("the fleet test") else {
        return;
    };
    let keys = generate_key("fleet");
    let prefix = format!("fleet-{}-{}:", std::process::id(), rand_suffix());
    let args = [
        "--store",
        "redis",
        "--redis-url",
        &redis,
        "--redis-prefix",
        &prefix,
        // `slow_compute`, a tool that runs as a task; a short lease, so a
        // killed instance's tasks read failed soon.
        "--conformance-fixtures",
        "--task-lease",
        "2",
    ];
    let mut instances: Vec<Serve> = (0..3).map(|_| Serve::start(&keys, &args)).collect();
    let backends: Vec<String> = instances
        .iter()
        .map(|s| s.base.trim_start_matches("http://").to_string())
        .collect();
    let balancer = Haproxy::start(&binary, &backends);
    balancer.ready().await;
    let url = balancer.url.clone();

    // Tasks on every instance (the balancer takes turns, so the 1st, 5th
    // and 9th land on three different ones): six that finish at once, three
    // that run for an hour.
    let mut quick_tasks = Vec::new();
    let mut long_tasks = Vec::new();
    for i in 0..9 {
        if i % 4 == 0 {
            long_tasks.push(start_task(&url, 3600.0).await);
        } else {
            quick_tasks.push(start_task(&url, 0.05).await);
        }
    }

    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut workers = Vec::new();
    for _ in 0..6 {
        let (url, stop, tally) = (url.clone(), Arc::clone(&stop), Arc::clone(&tally));
        workers.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let done = modern_booking(&url).await;
                let mut t = tally.lock().unwrap();
                match done {
                    Ok(()) => t.modern_done += 1,
                    Err(why) => t.modern_failed.push((started.elapsed(), why)),
                }
            }
        }));
    }
    for _ in 0..6 {
        let (url, stop, tally) = (url.clone(), Arc::clone(&stop), Arc::clone(&tally));
        workers.push(tokio::spawn(legacy_worker(url, stop, tally)));
    }

    tokio::time::sleep(Duration::from_secs(3)).await;
    let drained_at = started.elapsed();
    signal(&instances[1], "-TERM");
    let drained = instances[1].process.exited_within(Duration::from_secs(10));
    tokio::time::sleep(Duration::from_secs(3)).await;
    let killed_at = started.elapsed();
    signal(&instances[0], "-KILL");
    tokio::time::sleep(Duration::from_secs(3)).await;
    let before_stop = tally.lock().unwrap().modern_done;
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        tokio::time::timeout(Duration::from_secs(30), w)
            .await
            .expect("every worker ends")
            .expect("no worker panicked");
    }
    // The last instance still serves a whole call on its own.
    modern_booking(&url)
        .await
        .expect("the last instance serves");

    // Every task read through the balancer after the drain and the kill.
    let (mut completed, mut working, mut failed, mut unknown) = (0, 0, 0, Vec::new());
    for id in quick_tasks.iter().chain(&long_tasks) {
        let got = task_rpc(&url, "tasks/get", id, json!({"taskId": id})).await;
        match got.as_ref().map(|v| &v["result"]["status"]) {
            Ok(Value::String(status)) if status == "completed" => completed += 1,
            Ok(Value::String(status)) if status == "working" => working += 1,
            Ok(Value::String(status)) if status == "failed" => {
                let why = got.as_ref().map(|v| v["result"]["statusMessage"].clone());
                assert!(
                    why.as_ref().is_ok_and(|w| w
                        .as_str()
                        .is_some_and(|w| w.ends_with("call the tool again."))),
                    "a failed task says why: {got:?}"
                );
                failed += 1;
            }
            _ => unknown.push(format!("{id}: {got:?}")),
        }
    }
    eprintln!(
        "fleet | tasks: {} started before the drain; after the drain and the kill through the \
         balancer: {completed} completed, {working} still working, {failed} failed with the \
         reason, {} not found",
        quick_tasks.len() + long_tasks.len(),
        unknown.len()
    );
    assert!(unknown.is_empty(), "every task is readable: {unknown:?}");
    assert_eq!(
        completed,
        quick_tasks.len(),
        "the finished tasks keep their result"
    );

    let t = tally.lock().unwrap();
    let after_kill_done = t.modern_done - before_stop.min(t.modern_done);
    eprintln!(
        "fleet | 2026-07-28 calls: {} completed, {} failed",
        t.modern_done,
        t.modern_failed.len()
    );
    for (at, why) in &t.modern_failed {
        eprintln!("fleet |   failed at {:.1} s: {why}", at.as_secs_f64());
    }
    eprintln!(
        "fleet | 2025-11-25 calls: {} booked, {} told why (the drain), {} ended by a lost connection, {} lost silently",
        t.legacy_booked,
        t.legacy_told_why,
        t.legacy_connection_lost.len(),
        t.legacy_silent
    );
    for why in t.legacy_connection_lost.iter().take(5) {
        eprintln!("fleet |   connection lost: {why}");
    }
    eprintln!(
        "fleet | SIGTERM at {:.1} s (exited: {drained:?}), SIGKILL at {:.1} s",
        drained_at.as_secs_f64(),
        killed_at.as_secs_f64()
    );
    assert_eq!(t.legacy_silent, 0, "no 2025-11-25 call is lost silently");
    assert!(
        t.legacy_told_why >= 1,
        "the drain tells the people it interrupts why"
    );
    assert!(
        drained.is_some_and(|s| s.success()),
        "the drained instance exits cleanly: {drained:?}"
    );
    let lost_to_the_drain: Vec<_> = t
        .modern_failed
        .iter()
        .filter(|(at, _)| *at < killed_at)
        .collect();
    assert!(
        lost_to_the_drain.is_empty(),
        "the drain fails no 2026-07-28 call: {lost_to_the_drain:?}"
    );
    assert!(t.legacy_booked > 0 && t.modern_done > 0, "work was done");
    assert!(after_kill_done > 0, "calls complete after the kill");
    drop(balancer);
    instances.clear();
}

fn signal(serve: &Serve, which: &str) {
    let status = Command::new("kill")
        .args([which, &serve.process.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}
