//! The server targets: a fixture server, states from real first rounds, and
//! scripts of messages run through `Server::parse_message` and
//! `Server::handle` the way the stdio transport runs them.
//!
//! # Scripts
//!
//! One message per line. Before a line is read, `@S<n>@` becomes the sealed
//! `requestState` of [`seeds`]`()[n]`, `@S<n>!<k>@` the same state with its
//! character `k` (modulo its length) changed, and `@R@` the `requestState`
//! of the latest `input_required` result of this script. Lines starting with `@`
//! and a letter are directives:
//!
//! - `@principal NAME` / `@anonymous`: who the following messages come from;
//! - `@rev 2025` / `@rev 2026` / `@rev auto`: the revision the transport
//!   forces (`Server::parse_message_as`), or none;
//! - `@complete`: complete every URL flow whose connect token was seen in
//!   the output so far, responses included (what the server's own sign-in
//!   page does);
//! - `@wait`: let every call in flight finish before the next line.
//!
//! Requests that may wait on a person (`tools/call`, `prompts/get`,
//! `resources/read`) run concurrently, everything else in order, as on
//! stdio; the server's own `elicitation/create` requests on a session are
//! numbered `fd-1`, `fd-2`, … so a script can answer them.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use frontdesk_wire::{
    CreateMessageRequestParams, JsonRpcMessage, MessageErrorKind, RawMessage, Revision,
    SamplingMessage,
};
use serde_json::{Map, Value, json};
use tokio::task::JoinSet;

use crate::server::prompt::{PromptDef, PromptOutput};
use crate::server::question::InputRequest;
use crate::server::transport::{Handled, Incoming, OutboundSink, RequestInfo, Session};
use crate::server::{
    Answer, Question, Server, ServerConfig, ToolContext, ToolDef, ToolError, ToolOutput,
};
use crate::state::{Keyring, StateKey, StateSealer};
use frontdesk_form::FormSchema;
use frontdesk_wire::{LoggingLevel, Role};

use super::{VIRTUAL_BUDGET, current_thread};

/// Largest message the fixture server reads: small, so the fuzzer reaches
/// the over-size path.
const MAX_MESSAGE: usize = 3000;

/// `_meta` of a 2026-07-28 request with these capabilities.
fn meta(caps: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

fn sealer() -> StateSealer {
    static SEALER: OnceLock<StateSealer> = OnceLock::new();
    SEALER
        .get_or_init(|| {
            let key = StateKey::new("fuzz", [0x5a; 32]).expect("a 32-byte key is a key");
            StateSealer::new(Keyring::new(key))
        })
        .clone()
}

/// The fixture server (a fresh one each time: fresh nonce and flow stores,
/// the same sealing key).
fn fixture() -> Server {
    let config = ServerConfig::new()
        .human_wait(Duration::from_secs(60))
        .keepalive_interval(Duration::from_secs(20))
        .url_hold(Duration::from_secs(2))
        .state_ttl(Duration::from_secs(30 * 24 * 3600))
        .max_message_bytes(MAX_MESSAGE);
    Server::builder("fuzz-fixture", "0.0.0")
        .instructions("A fixture for the fuzz targets.")
        .config(config)
        .state_sealer(sealer())
        .tool(ToolDef::raw(
            "book",
            "Two forms in a row",
            json!({"type": "object", "properties": {"order": {"type": "string"}}}),
            book,
        ))
        .tool(ToolDef::raw(
            "signin",
            "A URL question",
            json!({"type": "object"}),
            |cx: ToolContext, _| async move {
                let q = Question::url("Sign in to continue.", |t| {
                    format!("https://example.com/signin?token={}", t.connect_token)
                });
                Ok(match cx.ask(q.key("signin")).await? {
                    Answer::Accepted(()) => ToolOutput::text("signed in"),
                    Answer::Declined => ToolOutput::text("declined"),
                    Answer::Cancelled => ToolOutput::text("cancelled"),
                })
            },
        ))
        .tool(ToolDef::raw(
            "gate",
            "URL elicitation required",
            json!({"type": "object"}),
            |cx: ToolContext, _| async move {
                Err::<ToolOutput, ToolError>(
                    cx.url_elicitation_required("Sign in first.", |t| {
                        format!("https://example.com/gate?token={}", t.connect_token)
                    })
                    .await,
                )
            },
        ))
        .tool(ToolDef::raw(
            "multi",
            "A form, a sampling request and roots in one round",
            json!({"type": "object"}),
            |cx: ToolContext, _| async move {
                let answers = cx
                    .ask_all(vec![
                        (
                            "name".into(),
                            InputRequest::form("Your name?", name_form()?),
                        ),
                        (
                            "sample".into(),
                            InputRequest::sampling(CreateMessageRequestParams::new(
                                vec![SamplingMessage::user("hi")],
                                10,
                            )),
                        ),
                        ("roots".into(), InputRequest::roots()),
                    ])
                    .await?;
                Ok(ToolOutput::structured(Value::Array(answers)))
            },
        ))
        .tool(ToolDef::raw(
            "reserve",
            "A step run once, then a form",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            |cx: ToolContext, args| async move {
                let n = args.get("n").and_then(Value::as_u64).unwrap_or(1);
                let ticket: u64 = cx.once("reserve", || async move { Ok(n * 7) }).await?;
                let q = Question::schema(format!("Ticket {ticket}: your name?"), name_form()?);
                Ok(match cx.ask(q.key("name")).await? {
                    Answer::Accepted(m) => ToolOutput::structured(Value::Object(m)),
                    _ => ToolOutput::text("no name"),
                })
            },
        ))
        .tool(ToolDef::raw(
            "echo",
            "No question",
            json!({"type": "object"}),
            |_: ToolContext, args| async move { Ok(ToolOutput::structured(Value::Object(args))) },
        ))
        .prompt(
            PromptDef::new(
                "greet",
                "A prompt that asks",
                |cx: ToolContext, _| async move {
                    let q = Question::schema("Who is it for?", name_form()?);
                    let name = match cx.ask(q.key("name")).await? {
                        Answer::Accepted(m) => m.get("name").cloned().unwrap_or(Value::Null),
                        _ => Value::Null,
                    };
                    Ok(PromptOutput::new().text(Role::User, format!("Greet {name}")))
                },
            )
            .argument("tone", "How", false),
        )
        .build()
}

async fn book(cx: ToolContext, args: Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let order = args
        .get("order")
        .and_then(Value::as_str)
        .unwrap_or("none")
        .to_string();
    cx.progress("asking for the details");
    cx.log(LoggingLevel::Info, json!({"order": order}));
    let q = Question::schema(format!("Return of order {order}"), details_form()?);
    let details = match cx.ask(q.key("details")).await? {
        Answer::Accepted(m) => m,
        Answer::Declined => return Ok(ToolOutput::text("declined")),
        Answer::Cancelled => return Ok(ToolOutput::text("cancelled")),
    };
    let confirm = FormSchema::builder()
        .boolean("ok", |f| f.title("Book it").default(true).required())
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))?;
    match cx
        .ask(Question::schema("Confirm?", confirm).key("confirm"))
        .await?
    {
        Answer::Accepted(c) if c.get("ok") == Some(&Value::Bool(true)) => {
            Ok(ToolOutput::text("booked").with_structured(Value::Object(details)))
        }
        _ => Ok(ToolOutput::text("not confirmed")),
    }
}

fn details_form() -> Result<FormSchema, ToolError> {
    FormSchema::builder()
        .select("reason", |f| {
            f.option("damaged", "It arrived damaged")
                .option("wrong_item", "Wrong item")
                .required()
        })
        .integer("boxes", |f| f.range(1, 3).default(1))
        .string("date", |f| f.date().required())
        .string("email", |f| f.email())
        .string("code", |f| f.pattern("^[A-Z]{2}-[0-9]{1,4}$"))
        .string("notes", |f| f.max_length(40))
        .number("weight", |f| f.range(0.5, 30.0))
        .boolean("gift", |f| f.default(false))
        .multi_select("tags", |f| {
            f.options(["fragile", "heavy", "urgent"]).max_items(2)
        })
        .string("link", |f| f.uri())
        .string("when", |f| f.date_time())
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))
}

fn name_form() -> Result<FormSchema, ToolError> {
    FormSchema::builder()
        .string("name", |f| f.min_length(1).max_length(20).required())
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))
}

/// A sealed `requestState` from a real round of the fixture, and the call
/// it belongs to (a retry must repeat the method, name and arguments).
#[derive(Debug, Clone)]
pub struct Seed {
    /// `tools/call` or `prompts/get`.
    pub method: &'static str,
    /// The tool or prompt.
    pub name: &'static str,
    /// The call's arguments.
    pub arguments: Value,
    /// The client capabilities it declared.
    pub capabilities: Value,
    /// The keys of the questions the state waits for.
    pub keys: Vec<String>,
    /// The sealed state.
    pub state: String,
}

impl Seed {
    /// The params of a retry of this call.
    pub fn retry_params(&self, responses: Value) -> Value {
        json!({
            "name": self.name,
            "arguments": self.arguments,
            "_meta": meta(&self.capabilities),
            "requestState": self.state,
            "inputResponses": responses,
        })
    }
}

/// The states the placeholders `@S<n>@` stand for, made once per process:
/// `book` after round 1 (S0) and round 2 (S1), `signin` (S2), `multi` (S3),
/// `reserve` (S4), the prompt `greet` (S5).
pub fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(make_seeds)
}

fn make_seeds() -> Vec<Seed> {
    let form = json!({"elicitation": {}});
    let all = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}});
    let details = json!({"details": {"action": "accept", "content": {
        "reason": "damaged", "date": "2026-12-01", "boxes": 2}}});
    let plan: [(&str, &str, Value, &Value, Option<Value>); 6] = [
        ("tools/call", "book", json!({"order": "A1"}), &form, None),
        (
            "tools/call",
            "book",
            json!({"order": "A1"}),
            &form,
            Some(details),
        ),
        ("tools/call", "signin", json!({}), &all, None),
        ("tools/call", "multi", json!({}), &all, None),
        ("tools/call", "reserve", json!({"n": 3}), &form, None),
        ("prompts/get", "greet", json!({}), &form, None),
    ];
    let runtime = current_thread(true);
    let mut seeds: Vec<Seed> = Vec::new();
    for (method, name, arguments, caps, answers) in plan {
        let mut params = json!({"name": name, "arguments": arguments, "_meta": meta(caps)});
        if let Some(answers) = answers {
            let previous = seeds.last().expect("a second round follows a first");
            params["requestState"] = json!(previous.state);
            params["inputResponses"] = answers;
        }
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let server = fixture();
        let handled = runtime.block_on(async {
            server
                .handle(
                    None,
                    parsed(&server, &request),
                    &OutboundSink::discard(),
                    &RequestInfo::default(),
                )
                .await
        });
        let result = handled
            .response_value()
            .and_then(|r| r.get("result").cloned())
            .unwrap_or(Value::Null);
        let (Some(state), Some(requests)) = (
            result["requestState"].as_str(),
            result["inputRequests"].as_object(),
        ) else {
            panic!("the fixture's {name} did not ask: {result}");
        };
        seeds.push(Seed {
            method,
            name,
            arguments: arguments.clone(),
            capabilities: caps.clone(),
            keys: requests.keys().cloned().collect(),
            state: state.to_string(),
        });
    }
    seeds
}

/// A message built as a value, read as a transport reads its bytes.
fn parsed(server: &Server, message: &Value) -> Incoming {
    server
        .parse_message(message.to_string().as_bytes())
        .expect("a JSON value of the size the fixture takes reads")
}

/// Every response of a script so far, shared with the calls in flight.
#[derive(Clone, Default)]
struct Transcript(Arc<Mutex<Vec<Value>>>);

impl Transcript {
    fn push(&self, handled: &Handled) {
        if let Some(r) = handled.response_value() {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(r);
        }
    }

    fn all(&self) -> Vec<Value> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The `requestState` of the latest `input_required` result.
    fn last_state(&self) -> Option<String> {
        self.all()
            .iter()
            .rev()
            .find_map(|r| r["result"]["requestState"].as_str().map(str::to_string))
    }
}

/// `line` with the state placeholders replaced.
fn substitute(line: &[u8], transcript: &Transcript) -> Vec<u8> {
    let line = match (super::find(line, b"@R@"), transcript.last_state()) {
        (Some(_), Some(state)) => replace_all(line, b"@R@", state.as_bytes()),
        _ => line.to_vec(),
    };
    let mut out = Vec::with_capacity(line.len());
    let mut rest = &line[..];
    while let Some(at) = super::find(rest, b"@S") {
        out.extend_from_slice(&rest[..at]);
        let tail = &rest[at + 2..];
        match placeholder(tail) {
            Some((state, used)) => {
                out.extend_from_slice(state.as_bytes());
                rest = &tail[used..];
            }
            None => {
                out.extend_from_slice(b"@S");
                rest = tail;
            }
        }
    }
    out.extend_from_slice(rest);
    out
}

fn replace_all(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = super::find(rest, needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// `<n>@` or `<n>!<k>@` at the start of `tail`: the state and the bytes used.
fn placeholder(tail: &[u8]) -> Option<(String, usize)> {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let n_len = digits(tail);
    let index: usize = std::str::from_utf8(&tail[..n_len]).ok()?.parse().ok()?;
    let seed = seeds().get(index)?;
    let mut used = n_len;
    let mut state = seed.state.clone();
    if tail.get(used) == Some(&b'!') {
        let k_len = digits(&tail[used + 1..]);
        let k: usize = std::str::from_utf8(&tail[used + 1..used + 1 + k_len])
            .ok()?
            .parse()
            .ok()?;
        used += 1 + k_len;
        let mut bytes = state.into_bytes();
        let at = k % bytes.len().max(1);
        if let Some(b) = bytes.get_mut(at) {
            *b = if *b == b'A' { b'B' } else { b'A' };
        }
        state = String::from_utf8(bytes).ok()?;
    }
    (tail.get(used) == Some(&b'@')).then_some((state, used + 1))
}

/// A script on a session, as over stdio (2025-11-25 traffic, and
/// 2026-07-28 requests with a session to cancel them).
pub fn handle_legacy(data: &[u8]) {
    run_script(data, true);
}

/// A script without a session, as over 2026-07-28 HTTP.
pub fn handle_modern(data: &[u8]) {
    run_script(data, false);
}

/// What the classifier made of a message, to check its outcome against.
#[derive(Debug)]
enum Expect {
    Rejected {
        code: i64,
        id: Value,
        kind: MessageErrorKind,
    },
    Request {
        id: Value,
        method: String,
    },
    Silent,
}

fn expect(line: &[u8]) -> Expect {
    // What the server reads the line as: the wire crate's classifier of
    // messages where they lie (the `classify` target checks it against
    // the value classifier).
    match RawMessage::from_slice(line) {
        // The server answers every shape problem with -32600, non-object
        // `params` included (`RpcError::rejected`), unlike the wire crate's
        // own suggestion of -32602 for those.
        Err(e) => Expect::Rejected {
            code: if e.kind() == MessageErrorKind::Parse {
                -32700
            } else {
                -32600
            },
            id: e.id().map_or(Value::Null, |id| json!(id)),
            kind: e.kind(),
        },
        Ok(RawMessage::Request { id, method, .. }) => Expect::Request {
            id: json!(id),
            method: method.into_owned(),
        },
        Ok(_) => Expect::Silent,
    }
}

/// The error codes a request may get from the fixture. `-32603` is not one:
/// nothing a client sends should make the fixture fail internally. `-32700`
/// is: params whose JSON only a full read refuses (a number out of `f64`
/// range, nesting past the recursion limit) are refused when read.
const REQUEST_ERRORS: [i64; 9] = [
    -32600, -32601, -32602, -32002, -32042, -32020, -32021, -32022, -32700,
];

/// `FRONTDESK_FUZZ_TRACE=1` prints every message and its outcome to stderr
/// (for writing seeds that reach what they mean to).
fn tracing_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FRONTDESK_FUZZ_TRACE").is_some())
}

fn check(expect: &Expect, handled: &Handled, has_session: bool, line: &[u8]) {
    let shown = String::from_utf8_lossy(line);
    if tracing_on() {
        let response = handled.response.as_ref().map(|r| r.get());
        eprintln!("> {shown}\n< {}", response.unwrap_or("(none)"));
    }
    let response = handled.response_value();
    match expect {
        Expect::Rejected { code, id, kind } => match &response {
            None => assert!(
                has_session
                    && matches!(
                        kind,
                        MessageErrorKind::InvalidResult | MessageErrorKind::InvalidError
                    ),
                "no response to the malformed {shown}"
            ),
            Some(r) => {
                assert_eq!(r["error"]["code"], json!(code), "{shown} -> {r}");
                assert_eq!(&r["id"], id, "{shown} -> {r}");
                assert_eq!(r["jsonrpc"], "2.0");
                assert!(handled.failure.is_some(), "{shown}");
            }
        },
        Expect::Request { id, method } => {
            let Some(r) = &response else {
                assert!(has_session, "no response to {shown} without a session");
                return;
            };
            let classified = JsonRpcMessage::from_value(r.clone());
            assert!(
                matches!(
                    classified,
                    Ok(JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_))
                ),
                "{shown} -> {r}"
            );
            assert_eq!(&r["id"], id, "{shown} -> {r}");
            assert!(handled.revision.is_some(), "{shown}");
            if let Some(code) = r["error"]["code"].as_i64() {
                // A 2025-11-25 prompt that could not ask (no capability, no
                // answer in time) has no `isError` result to say so: the
                // runtime answers -32603 with the reason (`Target::execution_error`).
                let prompt_failed = code == -32603
                    && method == "prompts/get"
                    && handled.revision == Some(Revision::V2025_11_25);
                assert!(
                    REQUEST_ERRORS.contains(&code) || prompt_failed,
                    "{shown} -> {r}"
                );
                assert!(handled.failure.is_some(), "{shown}");
            } else {
                assert!(handled.failure.is_none(), "{shown} -> {r}");
                if handled.revision == Some(Revision::V2026_07_28)
                    && matches!(method.as_str(), "tools/call" | "prompts/get")
                {
                    let kind = r["result"]["resultType"].as_str();
                    assert!(
                        matches!(kind, Some("complete" | "input_required")),
                        "{shown} -> {r}"
                    );
                }
            }
        }
        Expect::Silent => {
            assert_eq!(response, None, "{shown}");
            assert_eq!(handled.failure, None, "{shown}");
        }
    }
}

/// What a script runs with.
struct Run {
    server: Server,
    session: Option<Arc<Session>>,
    sink: OutboundSink,
    info: RequestInfo,
    /// The revision the transport says, if any (`@rev`).
    revision: Option<Revision>,
    transcript: Transcript,
}

fn run_script(data: &[u8], with_session: bool) {
    // Made before the script's runtime starts: they run rounds of their own.
    let _ = seeds();
    let server = fixture();
    let session = with_session.then(|| server.session());
    let (sink, mut outbound) = OutboundSink::channel();
    let mut run = Run {
        server,
        session,
        sink,
        info: RequestInfo::default(),
        revision: None,
        transcript: Transcript::default(),
    };
    let runtime = current_thread(true);
    runtime.block_on(async {
        let script = async {
            let mut calls = JoinSet::new();
            let mut seen = Vec::new();
            for line in data.split(|b| *b == b'\n') {
                step(&mut run, line, &mut calls, &mut outbound, &mut seen).await;
            }
            finish(&mut calls).await;
            drain(&mut outbound, &mut seen);
            probe(&run).await;
        };
        if tokio::time::timeout(VIRTUAL_BUDGET, script).await.is_err() {
            panic!("the script was still running after a virtual day");
        }
    });
    if let Some(s) = &run.session {
        s.close();
    }
}

async fn step(
    run: &mut Run,
    line: &[u8],
    calls: &mut JoinSet<()>,
    outbound: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    seen: &mut Vec<Value>,
) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.first() == Some(&b'@') && line.get(1).is_some_and(u8::is_ascii_alphabetic) {
        directive(run, line, calls, outbound, seen).await;
        return;
    }
    let line = substitute(line, &run.transcript);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let read = match run.revision {
        Some(revision) => run.server.parse_message_as(&line, revision),
        None => run.server.parse_message(&line),
    };
    let message = match read {
        Ok(m) => m,
        Err(response) => {
            let code = if line.len() > MAX_MESSAGE {
                -32600
            } else {
                -32700
            };
            assert_eq!(response["error"]["code"], json!(code), "{response}");
            assert_eq!(response["id"], Value::Null);
            return;
        }
    };
    let expected = expect(&line);
    let slow = matches!(&expected, Expect::Request { method, .. }
        if matches!(method.as_str(), "tools/call" | "prompts/get" | "resources/read"));
    if slow {
        let server = run.server.clone();
        let session = run.session.clone();
        let sink = run.sink.clone();
        let info = run.info.clone();
        let transcript = run.transcript.clone();
        calls.spawn(async move {
            let handled = server.handle(session.as_ref(), message, &sink, &info).await;
            check(&expected, &handled, session.is_some(), &line);
            transcript.push(&handled);
        });
    } else {
        let handled = run
            .server
            .handle(run.session.as_ref(), message, &run.sink, &run.info)
            .await;
        check(&expected, &handled, run.session.is_some(), &line);
        run.transcript.push(&handled);
    }
    // Let the calls in flight run up to their next wait (e.g. their
    // question sent), as they would between two lines on stdio.
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
    while let Some(done) = calls.try_join_next() {
        rethrow(done);
    }
    drain(outbound, seen);
}

async fn directive(
    run: &mut Run,
    line: &[u8],
    calls: &mut JoinSet<()>,
    outbound: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    seen: &mut Vec<Value>,
) {
    let text = String::from_utf8_lossy(&line[1..]);
    let (word, arg) = text.split_once(' ').unwrap_or((&text, ""));
    match word {
        "principal" => run.info.principal = Some(arg.to_string()),
        "anonymous" => run.info.principal = None,
        "rev" => {
            run.revision = match arg {
                "2025" => Some(Revision::V2025_11_25),
                "2026" => Some(Revision::V2026_07_28),
                _ => None,
            }
        }
        "complete" => {
            drain(outbound, seen);
            let mut all = seen.clone();
            all.extend(run.transcript.all());
            for token in tokens(&all) {
                let _ = run.server.complete_flow(&token, None).await;
            }
        }
        "wait" => {
            finish(calls).await;
            drain(outbound, seen);
        }
        _ => {}
    }
}

/// The connect tokens in URLs the server sent so far.
fn tokens(seen: &[Value]) -> Vec<String> {
    let text: String = seen.iter().map(Value::to_string).collect();
    text.split("token=")
        .skip(1)
        .map(|t| {
            t.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                .collect()
        })
        .collect()
}

/// Every message pushed to the sink is JSON-RPC; keep them for `@complete`.
fn drain(outbound: &mut tokio::sync::mpsc::UnboundedReceiver<Value>, seen: &mut Vec<Value>) {
    while let Ok(m) = outbound.try_recv() {
        if tracing_on() {
            eprintln!("<< {m}");
        }
        let classified = JsonRpcMessage::from_value(m.clone());
        assert!(classified.is_ok(), "the server sent {m}");
        seen.push(m);
    }
}

async fn finish(calls: &mut JoinSet<()>) {
    while let Some(done) = calls.join_next().await {
        rethrow(done);
    }
}

fn rethrow(done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done
        && e.is_panic()
    {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// After any script the server still answers: a ping on the session, a
/// discovery without one.
async fn probe(run: &Run) {
    let info = RequestInfo::default();
    let sink = OutboundSink::discard();
    let ping = json!({"jsonrpc": "2.0", "id": "probe", "method": "ping"});
    if let Some(session) = &run.session {
        let h = run
            .server
            .handle(Some(session), parsed(&run.server, &ping), &sink, &info)
            .await;
        assert_eq!(
            h.response_value(),
            Some(json!({"jsonrpc": "2.0", "id": "probe", "result": {}}))
        );
    }
    let discover = json!({"jsonrpc": "2.0", "id": "probe", "method": "server/discover",
        "params": {"_meta": meta(&json!({}))}});
    let h = run
        .server
        .handle(None, parsed(&run.server, &discover), &sink, &info)
        .await;
    let result = h
        .response_value()
        .map(|r| r["result"]["resultType"].clone());
    assert_eq!(result, Some(json!("complete")));
}

/// A retry of a seeded call with a valid state and fuzzed `inputResponses`:
/// the first byte picks the seed, the rest is the `inputResponses` JSON (or,
/// when it is not JSON, a string).
pub fn input_responses(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let seeds = seeds();
    let seed = &seeds[usize::from(pick) % seeds.len()];
    let responses = serde_json::from_slice::<Value>(rest)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(rest).into_owned()));
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": seed.method,
        "params": seed.retry_params(responses)});
    let server = fixture();
    let written = request.to_string();
    if written.len() > MAX_MESSAGE {
        // Written out, the fuzzer's bytes can grow up to sixfold (a NUL
        // byte is `\u0000`): over the fixture's limit the request is refused
        // as a whole before any handler runs, as a transport refuses it.
        let refused = server.parse_message(written.as_bytes()).err();
        assert_eq!(
            refused.map(|e| e["error"]["code"].clone()),
            Some(json!(-32600)),
            "a request over the limit is refused as invalid"
        );
        return;
    }
    let runtime = current_thread(true);
    runtime.block_on(async {
        let script = async {
            let info = RequestInfo::default();
            let sink = OutboundSink::discard();
            let first = server
                .handle(None, parsed(&server, &request), &sink, &info)
                .await;
            let first_kind = retry_outcome(&first);
            let again = server
                .handle(None, parsed(&server, &request), &sink, &info)
                .await;
            let again_kind = retry_outcome(&again);
            assert!(
                again_kind == "-32602" || again_kind == first_kind,
                "replayed: {first_kind} then {again_kind}"
            );
        };
        if tokio::time::timeout(VIRTUAL_BUDGET, script).await.is_err() {
            panic!("the retry was still running after a virtual day");
        }
    });
}

/// A retry's outcome: its `resultType`, or its error code (only `-32602`).
fn retry_outcome(h: &Handled) -> String {
    let Some(r) = &h.response_value() else {
        panic!("a retry got no response");
    };
    assert_eq!(r["id"], 1, "{r}");
    if let Some(code) = r["error"]["code"].as_i64() {
        assert_eq!(code, -32602, "{r}");
        return code.to_string();
    }
    let result = &r["result"];
    match result["resultType"].as_str() {
        Some("complete") => "complete".into(),
        Some("input_required") => {
            assert!(result["requestState"].is_string(), "{r}");
            assert!(
                result["inputRequests"]
                    .as_object()
                    .is_some_and(|m| !m.is_empty()),
                "{r}"
            );
            "input_required".into()
        }
        other => panic!("a retry's resultType is {other:?}: {r}"),
    }
}
