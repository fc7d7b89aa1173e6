//! `frontdesk serve` as an operator runs it: real processes on loopback,
//! killed and started again on the same data directory and keys.
//!
//! - With `FRONTDESK_STATE_KEYS` and the SQLite store, a 2026-07-28 call
//!   started before a restart completes after it, a URL flow survives, and a
//!   state redeemed before the restart is refused after it (the replay).
//! - Key rotation through the CLI: `frontdesk keys generate`, the new key
//!   first seals, the old one still opens until it is removed.
//! - A malformed key list stops the server instead of falling back.
//! - Two instances sharing one `redis-server` (at `FRONTDESK_REDIS_URL`;
//!   skipped with a note without it, failed with `FRONTDESK_REQUIRE_REDIS=1`):
//!   round 1 on one and the retry on the other, a redeemed state refused on
//!   both, and a 2025-11-25 URL flow completed through the other instance's
//!   page notifying the session on the first.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use frontdesk_testkit::{TestClient, sse_data, take_sse_data};

use crate::support::{BIN, Running, modern_post};
use serde_json::{Value, json};

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-0123456789ab";

/// A fresh directory under the target dir.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("serve-restart")
        .join(format!("{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `frontdesk keys generate`: one new `kid:key` entry.
pub(crate) fn generate_key(kid: &str) -> String {
    let out = Command::new(BIN)
        .args(["keys", "generate", "--kid", kid])
        .output()
        .unwrap();
    assert!(out.status.success());
    let entry = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(entry.starts_with(&format!("{kid}:")), "{entry}");
    entry
}

/// One running `frontdesk serve --http 127.0.0.1:0`; killed when dropped.
pub(crate) struct Serve {
    pub(crate) process: Running,
    pub(crate) base: String,
    pub(crate) mcp: String,
    /// The `/metrics` URL, when started with `--metrics`.
    pub(crate) metrics: Option<String>,
}

impl Serve {
    /// Start with `keys` as `FRONTDESK_STATE_KEYS` and `args` added.
    pub(crate) fn start(keys: &str, args: &[&str]) -> Self {
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .env("FRONTDESK_STATE_KEYS", keys)
            .env("RUST_LOG", "warn")
            .env_remove("FRONTDESK_DATA_DIR")
            .stdin(Stdio::null());
        let process = Running::spawn(command);
        let mut metrics = None;
        let started = process.first(Duration::from_secs(30), |line| {
            if let Some(url) = line.strip_prefix("frontdesk: metrics at ") {
                metrics = Some(url.to_string());
                None
            } else if let Some(url) = line.strip_prefix("frontdesk: MCP endpoint at ") {
                Some(Ok(url.to_string()))
            } else if line.starts_with("frontdesk serve:") {
                Some(Err(line.to_string()))
            } else {
                None
            }
        });
        let mcp = match started {
            Some(Ok(url)) => url,
            Some(Err(line)) => panic!("serve failed: {line}"),
            None => panic!("serve did not start within 30 s"),
        };
        let base = mcp.trim_end_matches("/mcp").to_string();
        Self {
            process,
            base,
            mcp,
            metrics,
        }
    }

    /// Kill the process (no graceful shutdown: what was committed must hold).
    pub(crate) fn kill(self) {
        self.process.kill();
    }
}

pub(crate) fn http() -> reqwest::Client {
    // reqwest is built with provider-less rustls in this workspace.
    frontdesk::client::install_default_tls_provider();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The JSON-RPC messages of a response, JSON or SSE.
pub(crate) async fn messages(r: reqwest::Response) -> Vec<Value> {
    let sse = r
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let text = r.text().await.unwrap();
    if !sse {
        return vec![serde_json::from_str(&text).unwrap()];
    }
    sse_data(&text)
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// Who the test client is.
fn test_client() -> TestClient {
    TestClient::new("serve-restart", "1")
}

pub(crate) fn meta() -> Value {
    test_client().meta()
}

/// A 2026-07-28 `tools/call` of `tool` on `s`, optionally a retry; the response.
pub(crate) async fn call(
    s: &Serve,
    token: Option<&str>,
    tool: &str,
    args: Value,
    retry: Option<(Value, &str)>,
) -> Value {
    let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": meta()}});
    if let Some((responses, state)) = retry {
        body["params"]["inputResponses"] = responses;
        body["params"]["requestState"] = json!(state);
    }
    let mut req = modern_post(&http(), &s.mcp, "tools/call", tool, &body);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let r = req.send().await.unwrap();
    messages(r).await.pop().unwrap()
}

pub(crate) fn state_of(v: &Value) -> String {
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
    v["result"]["requestState"].as_str().unwrap().to_string()
}

pub(crate) fn refused(v: &Value) {
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState is invalid or expired"),
        "{v}"
    );
}

pub(crate) fn return_answer() -> Value {
    json!({"return": {"action": "accept", "content": {"reason": "damaged", "boxes": 2,
        "pickup_date": "2026-12-01", "contact_email": "ann@example.com"}}})
}

pub(crate) fn confirm_answer() -> Value {
    json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
}

pub(crate) fn order() -> Value {
    json!({"order_id": "A-1"})
}

pub(crate) fn booked(v: &Value) {
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    assert_eq!(v["result"]["structuredContent"]["status"], "booked", "{v}");
}

/// POST the sign-in page of `s` as a browser on that page would.
async fn sign_in(s: &Serve, form: &[(&str, &str)]) -> (u16, String) {
    let r = http()
        .post(format!("{}/signin", s.base))
        .header("origin", &s.base)
        .form(form)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn token_of(url: &str) -> String {
    url.split("token=").nth(1).unwrap().to_string()
}

#[tokio::test]
async fn a_call_survives_a_restart_and_a_redeemed_state_stays_redeemed() {
    let keys = generate_key("k1");
    let dir = temp_dir("restart");
    let data = ["--data-dir", dir.to_str().unwrap()];

    let first = Serve::start(&keys, &data);
    let s1 = state_of(&call(&first, None, "book_return", order(), None).await);
    let s2 = state_of(
        &call(
            &first,
            None,
            "book_return",
            order(),
            Some((return_answer(), &s1)),
        )
        .await,
    );
    // A URL flow is started too, and left pending.
    let v = call(&first, None, "connect_store_account", json!({}), None).await;
    let url = v["result"]["inputRequests"]["signin"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let s_url = state_of(&v);
    first.kill();

    let second = Serve::start(&keys, &data);
    // The replay of the state redeemed before the restart: refused.
    refused(
        &call(
            &second,
            None,
            "book_return",
            order(),
            Some((return_answer(), &s1)),
        )
        .await,
    );
    // The call in flight continues.
    booked(
        &call(
            &second,
            None,
            "book_return",
            order(),
            Some((confirm_answer(), &s2)),
        )
        .await,
    );
    // The URL flow survived: completed on the new process's page, the retry sees it.
    let (status, html) = sign_in(&second, &[("token", &token_of(&url))]).await;
    assert_eq!(status, 200, "{html}");
    let v = call(
        &second,
        None,
        "connect_store_account",
        json!({}),
        Some((json!({"signin": {"action": "accept"}}), &s_url)),
    )
    .await;
    assert_eq!(
        v["result"]["content"][0]["text"], "Your store account is connected.",
        "{v}"
    );
    assert!(dir.join("frontdesk.sqlite3").exists());
}

#[tokio::test]
async fn key_rotation_new_key_seals_old_key_opens_until_removed() {
    let k1 = generate_key("k1");
    let k2 = generate_key("k2");
    assert_ne!(k1[3..], k2[3..], "keys are random");
    let dir = temp_dir("rotation");
    let data = ["--data-dir", dir.to_str().unwrap()];

    let old = Serve::start(&k1, &data);
    let a = state_of(&call(&old, None, "book_return", order(), None).await);
    let b = state_of(&call(&old, None, "book_return", order(), None).await);
    assert!(a.starts_with("fd1.k1."), "{a}");
    old.kill();

    // Rotated: k2 seals, k1 still opens.
    let rotated = Serve::start(&format!("{k2},{k1}"), &data);
    let a2 = state_of(
        &call(
            &rotated,
            None,
            "book_return",
            order(),
            Some((return_answer(), &a)),
        )
        .await,
    );
    assert!(a2.starts_with("fd1.k2."), "{a2}");
    rotated.kill();

    // k1 removed: its states no longer open; k2's still do.
    let only_new = Serve::start(&k2, &data);
    refused(
        &call(
            &only_new,
            None,
            "book_return",
            order(),
            Some((return_answer(), &b)),
        )
        .await,
    );
    booked(
        &call(
            &only_new,
            None,
            "book_return",
            order(),
            Some((confirm_answer(), &a2)),
        )
        .await,
    );
}

#[test]
fn malformed_keys_stop_the_server() {
    let dir = temp_dir("malformed");
    for bad in ["k1:tooshort", "nocolon", "bad kid:AAAA", ","] {
        let out = Command::new(BIN)
            .args(["serve", "--http", "127.0.0.1:0", "--data-dir"])
            .arg(&dir)
            .env("FRONTDESK_STATE_KEYS", bad)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bad}: {stderr}");
        assert!(
            stderr.contains("FRONTDESK_STATE_KEYS is set but not usable"),
            "{bad}: {stderr}"
        );
        assert!(stderr.contains("frontdesk keys generate"), "{stderr}");
        assert!(!stderr.contains("MCP endpoint at"), "{stderr}");
        assert!(
            !stderr.contains("tooshort"),
            "no key material echoed: {stderr}"
        );
    }
}

#[test]
fn keys_generate_prints_a_fresh_entry() {
    let out = Command::new(BIN)
        .args(["keys", "generate"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let entry = String::from_utf8(out.stdout).unwrap();
    let (kid, key) = entry.trim().split_once(':').unwrap();
    assert!(kid.starts_with('k') && kid.len() > 1, "{kid}");
    assert_eq!(key.len(), 43, "32 bytes, unpadded base64url: {key}");
    assert!(
        key.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    assert_ne!(generate_key("a"), generate_key("a"));
}

// ---- two instances, one Redis ----

fn redis_url() -> Option<String> {
    frontdesk_testkit::redis_url("two-instance test")
}

/// Two instances on one Redis, same keys, same token file.
fn two_instances(url: &str, name: &str) -> (Serve, Serve) {
    let keys = generate_key("k1");
    let dir = temp_dir(name);
    let tokens = dir.join("tokens.txt");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let prefix = format!("{name}-{}:", dir.file_name().unwrap().to_str().unwrap());
    let args = [
        "--store",
        "redis",
        "--redis-url",
        url,
        "--redis-prefix",
        &prefix,
        "--auth-tokens",
        tokens.to_str().unwrap(),
    ];
    (Serve::start(&keys, &args), Serve::start(&keys, &args))
}

#[tokio::test]
async fn two_instances_share_calls_and_redemptions() {
    let Some(url) = redis_url() else { return };
    let (a, b) = two_instances(&url, "share");
    let s1 = state_of(&call(&a, Some(ALICE), "book_return", order(), None).await);
    // Round 2 on the other instance.
    let s2 = state_of(
        &call(
            &b,
            Some(ALICE),
            "book_return",
            order(),
            Some((return_answer(), &s1)),
        )
        .await,
    );
    // The redeemed state is refused by the other instance; the instance that
    // redeemed it repeats its reply to the same retry for a while (a resend
    // after a dropped connection), without running the round again.
    refused(
        &call(
            &a,
            Some(ALICE),
            "book_return",
            order(),
            Some((return_answer(), &s1)),
        )
        .await,
    );
    let resent = call(
        &b,
        Some(ALICE),
        "book_return",
        order(),
        Some((return_answer(), &s1)),
    )
    .await;
    assert_eq!(state_of(&resent), s2);
    // Another principal's token does not open Alice's state either.
    refused(
        &call(
            &a,
            Some(BOB),
            "book_return",
            order(),
            Some((confirm_answer(), &s2)),
        )
        .await,
    );
    booked(
        &call(
            &a,
            Some(ALICE),
            "book_return",
            order(),
            Some((confirm_answer(), &s2)),
        )
        .await,
    );
}

/// A 2025-11-25 POST on session `sid` of `s`, as Alice.
fn legacy(s: &Serve, sid: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    crate::support::legacy_post(&http(), &s.mcp, sid, body)
        .header("authorization", format!("Bearer {ALICE}"))
}

/// Reads one SSE response message by message.
struct Events {
    response: reqwest::Response,
    buf: String,
}

impl Events {
    async fn next(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Some(data) = take_sse_data(&mut self.buf) {
                    return serde_json::from_str(&data).unwrap();
                }
                let chunk = self.response.chunk().await.unwrap().expect("stream ended");
                self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
            }
        })
        .await
        .expect("no SSE message within 20 s")
    }
}

#[tokio::test]
async fn a_url_flow_completed_on_the_other_instance_notifies_the_session() {
    let Some(url) = redis_url() else { return };
    let (a, b) = two_instances(&url, "notify");
    let init = test_client().initialize(json!(0));
    let r = legacy(&a, None, &init).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let r = legacy(&a, Some(&sid), &frontdesk_testkit::initialized())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "connect_store_account", "arguments": {}}});
    let r = legacy(&a, Some(&sid), &call).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let mut events = Events {
        response: r,
        buf: String::new(),
    };
    let ask = events.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["mode"], "url");
    let elicitation_id = ask["params"]["elicitationId"].as_str().unwrap().to_string();
    let link = ask["params"]["url"].as_str().unwrap().to_string();
    let r = legacy(
        &a,
        Some(&sid),
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept"}}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 202);

    // The person finishes on the other instance's page (load-balanced);
    // Bob, who got the link forwarded, is refused there first.
    let token = token_of(&link);
    let (status, html) = sign_in(&b, &[("token", &token), ("access_token", BOB)]).await;
    assert_eq!(status, 403, "{html}");
    let (status, html) = sign_in(&b, &[("token", &token), ("access_token", ALICE)]).await;
    assert_eq!(status, 200, "{html}");

    // Instance A hears it over Redis and tells the session.
    let done = events.next().await;
    assert_eq!(
        done["method"], "notifications/elicitation/complete",
        "{done}"
    );
    assert_eq!(done["params"]["elicitationId"], elicitation_id);
    let result = loop {
        let m = events.next().await;
        if m.get("id") == Some(&json!(1)) {
            break m;
        }
    };
    assert_eq!(
        result["result"]["content"][0]["text"], "Your store account is connected.",
        "{result}"
    );
}
