//! `frontdesk gateway` as built, in front of `frontdesk serve --stdio` (the
//! demo's `book_return`: a form, then a confirmation), reached by a frontdesk
//! `Client` answering from a script: on stdio with each revision, and over
//! Streamable HTTP.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse,
    HandlerModes, ServerStderr,
};
use frontdesk::wire::Revision;
use serde_json::{Value, json};

use crate::support::{BIN, Running};

/// Answers `book_return`'s two questions; records the messages shown.
#[derive(Default)]
struct Person {
    answers: Mutex<VecDeque<ElicitationResponse>>,
    seen: Mutex<Vec<String>>,
}

impl Person {
    fn booking() -> Arc<Self> {
        let form = json!({"reason": "wrong_item", "pickup_date": "2026-12-11",
            "contact_email": "bo@example.com"});
        let confirm = json!({"confirm": true});
        Arc::new(Self {
            answers: Mutex::new(
                [form, confirm]
                    .into_iter()
                    .map(|v| match v {
                        Value::Object(m) => ElicitationResponse::Accept(m),
                        _ => unreachable!(),
                    })
                    .collect(),
            ),
            seen: Mutex::default(),
        })
    }
}

impl ElicitationHandler for Person {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        assert!(matches!(request.kind, ElicitationKind::Form { .. }));
        self.seen.lock().unwrap().push(request.message.clone());
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(ElicitationResponse::Cancel);
        Box::pin(async move { answer })
    }
}

/// The upstream: the built demo server on stdio, in memory.
/// The MCP endpoint a `frontdesk gateway --http` says it listens at.
pub(crate) fn endpoint_of(gateway: &Running) -> String {
    gateway
        .first(Duration::from_secs(30), |line| {
            line.strip_prefix("frontdesk gateway: MCP endpoint at ")
                .map(str::to_string)
        })
        .expect("the gateway listens")
}

fn upstream() -> Vec<&'static str> {
    vec![BIN, "serve", "--stdio", "--store", "memory"]
}

async fn book(client: &Client, person: &Person) {
    let result = client
        .call_tool("book_return", json!({"order_id": "B-7"}))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content.as_ref().unwrap()["status"],
        "booked"
    );
    assert_eq!(
        result.structured_content.as_ref().unwrap()["reason"],
        "wrong_item"
    );
    assert_eq!(
        *person.seen.lock().unwrap(),
        [
            "Tell us about the return of order B-7",
            "Book a pickup of 1 box(es) on 2026-12-11 for order B-7?"
        ]
    );
}

#[tokio::test]
async fn on_stdio_with_each_revision() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let mut command = tokio::process::Command::new(BIN);
        command
            .args(["gateway", "--stdio", "--"])
            .args(upstream())
            .env("RUST_LOG", "warn");
        let mut config = ClientConfig::default().protocol(revision);
        config.server_stderr = ServerStderr::Inherit;
        let person = Person::booking();
        let client = Client::connect_stdio(command, config, Arc::clone(&person) as _)
            .await
            .unwrap();
        assert_eq!(client.revision(), revision);
        assert_eq!(client.server_info().name, "brightgrid");
        let tools: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(tools, ["book_return", "connect_store_account"]);
        book(&client, &person).await;
        client.close().await;
    }
}

#[tokio::test]
async fn over_http_with_the_servers_stderr_in_the_log() {
    let mut command = std::process::Command::new(BIN);
    command
        .args(["gateway", "--http", "127.0.0.1:0", "--"])
        .args(upstream())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    let gateway = Running::spawn(command);
    // The upstream's own log lines (it logs at start) come before the
    // gateway listens, in the gateway's log.
    let mut relayed = false;
    let mcp = gateway
        .first(Duration::from_secs(30), |line| {
            relayed |= line.contains("frontdesk::server_stderr")
                && line.contains("frontdesk::serve: speaking MCP on stdin and stdout");
            line.strip_prefix("frontdesk gateway: MCP endpoint at ")
                .map(str::to_string)
        })
        .expect("the gateway listens");
    assert!(relayed, "the server's stderr reaches the gateway's log");
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let person = Person::booking();
        let client = Client::connect_http(
            &mcp,
            ClientConfig::default().protocol(revision),
            Arc::clone(&person) as _,
        )
        .await
        .unwrap();
        book(&client, &person).await;
        client.close().await;
        // One audit line per question: who, which tool, the mode, the
        // question, the outcome, the time taken; never the answer.
        for question in [
            "Tell us about the return of order B-7",
            "Book a pickup of 1 box(es) on 2026-12-11 for order B-7?",
        ] {
            let audited = gateway.first(Duration::from_secs(5), |line| {
                let mine = line.contains("frontdesk_gateway::audit: elicitation")
                    && line.contains(&format!("question={question:?}"));
                mine.then(|| line.to_string())
            });
            let line = audited.expect("an audit line");
            for part in [
                "server=brightgrid",
                "tool=\"book_return\"",
                "mode=\"form\"",
                "outcome=\"accept\"",
                "took_ms=",
            ] {
                assert!(line.contains(part), "{part} in {line}");
            }
            assert!(
                !line.contains("bo@example.com"),
                "an answer in the log: {line}"
            );
        }
    }
}

/// `--url`: the gateway on stdio in front of `frontdesk serve --http` (a
/// stdio-only host reaching a remote server), on each upstream revision.
#[tokio::test]
async fn on_stdio_in_front_of_a_url() {
    use crate::serve_restart::{Serve, generate_key, temp_dir};
    let serve = Serve::start(&generate_key("gw"), &["--store", "memory"]);
    let tokens = temp_dir("gateway-url").join("tokens.json");
    let tokens = tokens.to_str().unwrap().to_string();
    for upstream in ["2025-11-25", "2026-07-28"] {
        for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
            let mut command = tokio::process::Command::new(BIN);
            command
                .args(["gateway", "--stdio", "--url", &serve.mcp])
                .args(["--upstream-protocol", upstream, "--token-file", &tokens])
                .env("RUST_LOG", "warn");
            let person = Person::booking();
            let client = Client::connect_stdio(
                command,
                ClientConfig::default().protocol(revision),
                Arc::clone(&person) as _,
            )
            .await
            .unwrap();
            book(&client, &person).await;
            client.close().await;
        }
    }
}

/// A stdio server that ends is started again, and calls reach the new one.
/// (The server here is a shell that writes its pid, then becomes
/// `frontdesk serve`: the test ends it by that pid.)
#[tokio::test]
async fn a_server_that_ends_is_started_again() {
    let dir = crate::serve_restart::temp_dir("gateway-restart");
    let pidfile = dir.join("pid");
    let script = format!(
        "echo $$ > '{}'; exec '{BIN}' serve --stdio --store memory",
        pidfile.display()
    );
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["gateway", "--stdio", "--", "sh", "-c", &script])
        .env("RUST_LOG", "warn");
    let person = Person::booking();
    let client = Client::connect_stdio(
        command,
        ClientConfig::default().protocol(Revision::V2026_07_28),
        Arc::clone(&person) as _,
    )
    .await
    .unwrap();
    let read_pid = || {
        std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .to_string()
    };
    let first = read_pid();
    // As a crash: SIGKILL.
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &first])
        .status()
        .unwrap();
    assert!(killed.success());
    // Started again after the first back-off (0.5 s): a new pid.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while read_pid() == first {
        assert!(std::time::Instant::now() < deadline, "not started again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Attached once it answered its tools: a call goes through.
    let mut booked = None;
    while booked.is_none() {
        assert!(std::time::Instant::now() < deadline, "no call went through");
        if let Ok(result) = client
            .call_tool("book_return", json!({"order_id": "B-7"}))
            .await
        {
            booked = Some(result);
        } else {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    assert_eq!(
        booked.unwrap().structured_content.unwrap()["status"],
        "booked"
    );
    client.close().await;
}

/// Signs in on every URL question (on the demo's loopback page, as a
/// person in a browser), then says so; records the URL questions shown.
#[derive(Default)]
struct SignsIn {
    seen: Mutex<Vec<(String, Option<String>)>>,
}

impl ElicitationHandler for SignsIn {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        let ElicitationKind::Url {
            review,
            elicitation_id,
        } = &request.kind
        else {
            panic!("only the sign-in is asked");
        };
        let url = review.url().expect("a URL that may be opened").to_string();
        self.seen
            .lock()
            .unwrap()
            .push((url.clone(), elicitation_id.clone()));
        Box::pin(async move {
            tokio::task::spawn_blocking(move || crate::support::sign_in(&url))
                .await
                .unwrap();
            ElicitationResponse::Accept(serde_json::Map::new())
        })
    }
}

/// The demo's URL sign-in through the gateway as built, on stdio in front
/// of `frontdesk serve --stdio`: each upstream revision × each client
/// revision; the person signs in on the upstream's own page.
#[tokio::test]
async fn a_url_sign_in_through_the_built_gateway() {
    for upstream_revision in ["2025-11-25", "2026-07-28"] {
        for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
            let mut command = tokio::process::Command::new(BIN);
            command
                .args([
                    "gateway",
                    "--stdio",
                    "--upstream-protocol",
                    upstream_revision,
                ])
                .arg("--")
                .args(upstream())
                .env("RUST_LOG", "warn");
            let person = Arc::new(SignsIn::default());
            let client = Client::connect_stdio(
                command,
                ClientConfig::default().protocol(revision),
                Arc::clone(&person) as _,
            )
            .await
            .unwrap();
            let result = client
                .call_tool("connect_store_account", json!({}))
                .await
                .unwrap();
            assert_eq!(
                result.content[0].as_text(),
                Some("Your store account is connected."),
                "{upstream_revision} → {revision}"
            );
            let seen = person.seen.lock().unwrap().clone();
            assert_eq!(seen.len(), 1, "{upstream_revision} → {revision}");
            assert!(seen[0].0.starts_with("http://127.0.0.1:"), "{seen:?}");
            assert_eq!(
                seen[0].1.is_some(),
                revision == Revision::V2025_11_25,
                "an elicitationId on 2025-11-25 only"
            );
            client.close().await;
        }
    }
}

/// `--http` with `--auth-tokens`: a request without a token, or with a
/// wrong one, is `401` with a bearer challenge and never reaches the server;
/// with a token the call runs, and its state is bound to that principal
/// (another's token cannot retry it).
#[tokio::test]
async fn over_http_only_with_a_token_and_the_state_bound_to_its_principal() {
    use crate::serve_restart::{http, messages, meta, return_answer, temp_dir};
    let dir = temp_dir("gateway-auth");
    let tokens = dir.join("tokens.txt");
    std::fs::write(
        &tokens,
        "alice gw-alice-token-0123456789\nbob gw-bob-token-0123456789\n",
    )
    .unwrap();
    let mut command = std::process::Command::new(BIN);
    command
        .args(["gateway", "--http", "127.0.0.1:0", "--auth-tokens"])
        .arg(&tokens)
        .arg("--")
        .args(upstream())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    let gateway = Running::spawn(command);
    let mcp = endpoint_of(&gateway);
    let post = |token: Option<&str>, retry: Option<(Value, String)>| {
        let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "book_return", "arguments": {"order_id": "G-1"}, "_meta": meta()}});
        if let Some((responses, state)) = retry {
            body["params"]["inputResponses"] = responses;
            body["params"]["requestState"] = json!(state);
        }
        let mut req = http()
            .post(&mcp)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "book_return");
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        req.body(body.to_string()).send()
    };
    for token in [None, Some("not-a-token")] {
        let r = post(token, None).await.unwrap();
        assert_eq!(r.status(), 401, "{token:?}");
        let challenge = r.headers()["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    let first = messages(post(Some("gw-alice-token-0123456789"), None).await.unwrap())
        .await
        .pop()
        .unwrap();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let stolen = messages(
        post(
            Some("gw-bob-token-0123456789"),
            Some((return_answer(), state.clone())),
        )
        .await
        .unwrap(),
    )
    .await
    .pop()
    .unwrap();
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    let second = messages(
        post(
            Some("gw-alice-token-0123456789"),
            Some((return_answer(), state)),
        )
        .await
        .unwrap(),
    )
    .await
    .pop()
    .unwrap();
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert_eq!(
        second["result"]["inputRequests"]
            .as_object()
            .map(|m| m.keys().count()),
        Some(1),
        "the confirmation: {second}"
    );
}

/// `--tls-cert` / `--tls-key` on the gateway, as on `frontdesk serve`: the
/// endpoint is HTTPS, and a client trusting the certificate books through it.
#[tokio::test]
async fn over_https_with_a_certificate() {
    let dir = crate::serve_restart::temp_dir("gateway-tls");
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let mut command = std::process::Command::new(BIN);
    command
        .args(["gateway", "--http", "127.0.0.1:0", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .arg("--")
        .args(upstream())
        .stdin(Stdio::null());
    let gateway = Running::spawn(command);
    let mcp = endpoint_of(&gateway);
    assert!(mcp.starts_with("https://127.0.0.1:"), "{mcp}");
    let person = Person::booking();
    let mut config = ClientConfig::default().protocol(Revision::V2026_07_28);
    config.extra_root_certificates = vec![made.cert.der().to_vec()];
    let client = Client::connect_http(&mcp, config, Arc::clone(&person) as _)
        .await
        .unwrap();
    book(&client, &person).await;
    client.close().await;
}
