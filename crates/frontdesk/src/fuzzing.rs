//! The entry points that take bytes from the wire, as functions of `&[u8]`
//! that panic when an invariant breaks: what the cargo-fuzz targets in
//! `fuzz/` call (one line each) and what `tests/it/fuzz_props.rs` calls as
//! proptests on stable, so `cargo test` covers the same code.
//!
//! Behind the `fuzzing` feature, off by default, hidden from the docs: this
//! is test machinery, not an API. Unlike the library, it panics on purpose
//! (that is how a fuzzer sees a broken invariant); it never panics on input
//! the library handles as it should.
//!
//! | Target | Drives | Invariant besides "no panic, bounded time" |
//! | --- | --- | --- |
//! | [`classify`] | `JsonRpcMessage::from_slice` | errors carry -32700/-32600/-32602 and the id; accepted messages round-trip |
//! | [`schema`] | `FormSchema::parse`, `validate`, `accept`, field descriptions | accepted content validates, and is a fixed point of `accept` |
//! | [`url_review`] | `frontdesk_url::review` | the verdict follows the findings; what may be opened is ASCII and reviews to itself; no raw controls in messages |
//! | [`headers`] | `http::headers::check_modern`, the header codec | accepts exactly what an independent reading of the rules accepts; matching headers always pass |
//! | [`sse`] | the client's SSE parser | the same events however the bytes are split; no event above the bound |
//! | [`stdio_lines`] | the stdio server's bounded line reader | the lines an independent split finds; never more than the bound held |
//! | [`handle_legacy`], [`handle_modern`] | `Server::parse_message` + `Server::handle`, a script of messages | every bad message gets the error the classifier names, every request a response with its id, and the server keeps answering |
//! | [`input_responses`] | a 2026-07-28 retry with a valid `requestState` and fuzzed `inputResponses` | a result or `-32602`, never another error; replaying it is refused or gets the same kind of result; over the message limit once written, refused whole with `-32600` |
//! | [`client_messages`] | the client on a stdio connection, a server's lines | every request gets exactly one reply with its id, every malformed one with an id an error; the client keeps answering |
//! | [`uri_template`] | the resource template matcher, a template and a URI | on short inputs what the old (backtracking) matcher answered; the captured values lie end to end between the literals |
//!
//! The server targets run on a fresh fixture server per input (the tools,
//! the sealing key and the seeded states are made once per process), so an
//! input that fails fails again on its own. They run on a current-thread
//! runtime with paused time: waits for a person elapse at once, and a script
//! that is still running after a virtual day is a hang, reported as a panic.

mod client;
pub mod hostile;
mod server;
mod uri_template;

use std::time::Duration;

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use frontdesk_form::{Defaults, FormSchema};
use frontdesk_url::{Severity, UrlPolicy, Verdict};
use frontdesk_wire::header::{decode_value, encode_value};
use frontdesk_wire::{JsonRpcMessage, MessageError, MessageErrorKind, RawMessage, meta_key};
use serde_json::{Map, Value};

use crate::client::sse::SseParser;
use crate::server::stdio::{LineRead, read_line_bounded};

pub use client::client_messages;
pub use server::{handle_legacy, handle_modern, input_responses, seeds};
pub use uri_template::{uri_template, uri_template_matches};

/// One fuzz target: the name of its cargo-fuzz binary and corpus folder,
/// and the function it calls.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// `fuzz/fuzz_targets/<name>.rs`, `fuzz/corpus/<name>/`.
    pub name: &'static str,
    /// The function of `&[u8]`.
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "classify",
        run: classify,
    },
    Target {
        name: "schema",
        run: schema,
    },
    Target {
        name: "url_review",
        run: url_review,
    },
    Target {
        name: "headers",
        run: headers,
    },
    Target {
        name: "sse",
        run: sse,
    },
    Target {
        name: "stdio_lines",
        run: stdio_lines,
    },
    Target {
        name: "handle_legacy",
        run: handle_legacy,
    },
    Target {
        name: "handle_modern",
        run: handle_modern,
    },
    Target {
        name: "input_responses",
        run: input_responses,
    },
    Target {
        name: "uri_template",
        run: uri_template,
    },
    Target {
        name: "client_messages",
        run: client_messages,
    },
];

/// The target called `name`, if there is one.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|t| t.name == name).map(|t| t.run)
}

/// The JSON-RPC classifier on one message's bytes, and the classifier of
/// messages where they lie, which must agree with it.
pub fn classify(data: &[u8]) {
    let is_json = serde_json::from_slice::<Value>(data).is_ok();
    let classified = JsonRpcMessage::from_slice(data);
    same_as_raw(&classified, RawMessage::from_slice(data));
    match classified {
        Err(e) => {
            assert_eq!(e.kind() == MessageErrorKind::Parse, !is_json, "{e}");
            let code = e.code().0;
            assert!(matches!(code, -32700 | -32600 | -32602), "code {code}");
            let response = JsonRpcMessage::from(e.to_error_response()).to_value();
            let Ok(JsonRpcMessage::Error(back)) = JsonRpcMessage::from_value(response) else {
                panic!("the error response to {e} does not classify as an error");
            };
            assert_eq!(back.error.code, e.code());
            assert_eq!(back.id.as_ref(), e.id());
        }
        Ok(message) => {
            assert!(is_json);
            let value = message.to_value();
            let again = JsonRpcMessage::from_value(value.clone());
            assert_eq!(again.as_ref().ok(), Some(&message), "{value}");
            let line = message.to_line().expect("a classified message serializes");
            assert!(!line.contains('\n'), "{line:?}");
            let reread = JsonRpcMessage::from_slice(line.as_bytes());
            assert_eq!(reread.ok().as_ref(), Some(&message));
            match &message {
                JsonRpcMessage::Request(r) => {
                    assert_eq!(message.id(), Some(&r.id));
                    assert_eq!(message.method(), Some(r.method.as_str()));
                }
                JsonRpcMessage::Notification(n) => {
                    assert_eq!(message.id(), None);
                    assert_eq!(message.method(), Some(n.method.as_str()));
                }
                JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {
                    assert_eq!(message.method(), None);
                }
            }
        }
    }
}

/// `RawMessage` accepts and refuses what `JsonRpcMessage` does, with the
/// same errors; it may accept a message only a full read refuses (its
/// `params` or `result` text is checked as JSON syntax only).
fn same_as_raw(
    value: &Result<JsonRpcMessage, MessageError>,
    raw: Result<RawMessage<'_>, MessageError>,
) {
    let text = |raw: Option<&serde_json::value::RawValue>| {
        raw.map(|r| serde_json::from_str::<Map<String, Value>>(r.get()).expect("an object"))
    };
    match (value, raw) {
        (Err(e), Err(r)) => assert_eq!(e, &r),
        (Err(e), Ok(r)) => assert_eq!(e.kind(), MessageErrorKind::Parse, "{r:?} for {e}"),
        (Ok(m), Err(r)) => panic!("{m:?} refused as {r}"),
        (Ok(m), Ok(r)) => {
            assert_eq!(m.id(), r.id());
            assert_eq!(m.method(), r.method());
            match (m, r) {
                (JsonRpcMessage::Request(m), RawMessage::Request { params, .. }) => {
                    assert_eq!(m.params, text(params));
                }
                (JsonRpcMessage::Notification(m), RawMessage::Notification { params, .. }) => {
                    assert_eq!(m.params, text(params));
                }
                (JsonRpcMessage::Response(m), RawMessage::Response { result, .. }) => {
                    assert_eq!(Some(&m.result), text(Some(result)).as_ref());
                }
                (
                    JsonRpcMessage::Error(m),
                    RawMessage::Error {
                        error, id_member, ..
                    },
                ) => {
                    assert_eq!(m.error, error);
                    assert!(id_member || m.id.is_none());
                }
                (m, r) => panic!("{m:?} read as {r:?}"),
            }
        }
    }
}

/// A requestedSchema and an answer: the JSON values in `data`, one after the
/// other (the schema, then the content; a missing content is `{}`).
pub fn schema(data: &[u8]) {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let Some(Ok(schema_json)) = values.next() else {
        return;
    };
    let content = match values.next() {
        Some(Ok(Value::Object(m))) => m,
        Some(Ok(other)) => Map::from_iter([("value".to_string(), other)]),
        _ => Map::new(),
    };
    let Ok(parsed) = FormSchema::parse(&schema_json) else {
        return;
    };
    let form = parsed.schema;
    // What the form says it is reads back as the same form.
    let written = form.to_json();
    let reparsed = FormSchema::parse(&written).expect("a parsed form's JSON parses again");
    assert_eq!(reparsed.schema.to_json(), written);

    let _ = form.validate(&content);
    let _ = form.validate_value(&Value::Object(content.clone()));
    for defaults in [Defaults::Apply, Defaults::Leave] {
        if let Ok(accepted) = form.accept(content.clone(), defaults) {
            assert!(form.validate(accepted.content()).is_ok(), "{accepted:?}");
            let again = form
                .accept(accepted.content().clone(), defaults)
                .expect("accepted content is accepted again");
            assert_eq!(again.content(), accepted.content());
            assert!(again.dropped().is_empty());
            for key in accepted.dropped() {
                assert!(
                    form.field(key).is_none(),
                    "{key} was dropped but is a field"
                );
            }
        }
    }
    // What a host does with each field: describe it, show the answer, read
    // typed input.
    for field in form.fields() {
        let _ = field.widget();
        let _ = field.constraints();
        let _ = field.default_input();
        if let Some(value) = content.get(field.key()) {
            let _ = field.input_text(value);
            let _ = field.display_value(value);
            if let Value::String(typed) = value
                && let Ok(Some(read)) = field.parse_input(typed)
            {
                let one = Map::from_iter([(field.key().to_string(), read)]);
                let _ = form.validate(&one);
            }
        }
    }
    let _ = FormSchema::parse(&form.with_defaults_from(&content).to_json());
}

/// A URL to review: the first byte picks the policy, the rest is the URL.
pub fn url_review(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let policy = match pick % 3 {
        0 => UrlPolicy::default(),
        1 => UrlPolicy::strict(),
        _ => UrlPolicy::strict()
            .allow_scheme("myapp")
            .trust_domain("example.com")
            .max_url_length(64),
    };
    let input = String::from_utf8_lossy(rest);
    let review = frontdesk_url::review(&input, &policy);
    let worst = review.findings().iter().map(|f| f.severity).max();
    let verdict = match worst {
        Some(Severity::Refusal) => Verdict::Refused,
        Some(Severity::Warning) => Verdict::AllowedWithWarnings,
        _ => Verdict::Allowed,
    };
    assert_eq!(review.verdict(), verdict);
    if let Some(url) = review.url() {
        assert!(url.is_ascii(), "{url:?}");
    }
    assert_eq!(
        review.consented().is_some(),
        review.may_open() && review.url().is_some()
    );
    if let Some((a, b, c)) = review.highlight_parts() {
        assert_eq!(Some(format!("{a}{b}{c}").as_str()), review.url());
    }
    let _ = review.plain_text();
    for f in review.findings() {
        assert!(!has_raw_controls(&f.message), "{:?}", f.message);
    }
    // What may be opened reviews to itself (a host reviews it again before
    // opening it).
    if let (true, Some(url)) = (review.may_open(), review.url()) {
        let again = frontdesk_url::review(url, &policy);
        assert_eq!(again.url(), Some(url));
        assert!(again.may_open(), "{url:?} may be opened, then not");
        assert_eq!(again.registrable_domain(), review.registrable_domain());
    }
    assert!(
        !has_raw_controls(review.input_preview()),
        "{:?}",
        review.input_preview()
    );
}

fn has_raw_controls(text: &str) -> bool {
    text.chars().any(|c| {
        matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}')
            || (c.is_control() && c != '\n')
    })
}

/// The 2026-07-28 header checks: `data` is header lines (`name: value`, raw
/// bytes) up to a blank line, then the JSON body.
pub fn headers(data: &[u8]) {
    let (head, body) = match find(data, b"\n\n") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &b""[..]),
    };
    let mut map = HeaderMap::new();
    for line in head.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let value = &line[colon + 1..];
        let value = value.strip_prefix(b" ").unwrap_or(value);
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(value),
        ) {
            map.append(n, v);
        }
        // The codec: whatever decodes encodes back to itself.
        if let Some(decoded) = decode_value(value) {
            let encoded = encode_value(&decoded);
            assert!(encoded.bytes().all(|b| (0x20..=0x7e).contains(&b)));
            assert_eq!(decode_value(encoded.as_bytes()), Some(decoded));
        }
    }
    let server = header_server();
    let (Ok(body), Ok(message)) = (
        serde_json::from_slice::<Value>(body),
        server.parse_message_as(body, frontdesk_wire::Revision::V2026_07_28),
    ) else {
        return;
    };
    let verdict = crate::http::headers::check_modern(&map, &message);
    let expected = headers_acceptable(&map, &body);
    assert_eq!(
        verdict.is_ok(),
        expected,
        "check_modern said {verdict:?} on {map:?} and {body}"
    );
    // The headers a correct client sends for this body always pass.
    if let Some(matching) = matching_headers(&body) {
        let verdict = crate::http::headers::check_modern(&matching, &message);
        assert!(verdict.is_ok(), "{verdict:?} on {matching:?} and {body}");
    }
}

/// A server to read the bodies of the `headers` target with.
fn header_server() -> &'static crate::server::Server {
    static SERVER: std::sync::OnceLock<crate::server::Server> = std::sync::OnceLock::new();
    SERVER.get_or_init(|| crate::server::Server::builder("headers", "0").build())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The rules of the mirrored headers, read independently of `check_modern`.
fn headers_acceptable(map: &HeaderMap, body: &Value) -> bool {
    use crate::http::headers::{METHOD, NAME, PROTOCOL_VERSION};
    let read = |name: &str| -> Result<Option<String>, ()> {
        let all: Vec<_> = map.get_all(name).iter().collect();
        match all.as_slice() {
            [] => Ok(None),
            [one] => decode_value(one.as_bytes()).map(Some).ok_or(()),
            _ => Err(()),
        }
    };
    let (Ok(version), Ok(method_header), Ok(name_header)) =
        (read(PROTOCOL_VERSION), read(METHOD), read(NAME))
    else {
        return false;
    };
    let Some(method) = body.get("method").and_then(Value::as_str) else {
        return true;
    };
    let Some(version) = version else {
        return false;
    };
    let meta_version = body
        .pointer("/params/_meta")
        .and_then(|m| m.get(meta_key::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    if meta_version.is_some_and(|v| v != version) {
        return false;
    }
    match method_header {
        Some(m) if m != method => return false,
        None if body.get("id").is_some() => return false,
        _ => {}
    }
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return true,
    };
    let body_name = body
        .get("params")
        .and_then(|p| p.get(key))
        .and_then(Value::as_str);
    matches!((name_header, body_name), (Some(h), Some(b)) if h == b)
}

/// The headers a correct client sends with `body`, when it can send any.
fn matching_headers(body: &Value) -> Option<HeaderMap> {
    use crate::http::headers::{METHOD, NAME, PROTOCOL_VERSION};
    let method = body.get("method")?.as_str()?;
    let version = match body
        .pointer("/params/_meta")
        .map(|m| m.get(meta_key::PROTOCOL_VERSION))
    {
        Some(Some(Value::String(v))) => v.clone(),
        Some(Some(_)) => return None,
        _ => "2026-07-28".to_string(),
    };
    let mut map = HeaderMap::new();
    let mut put = |name: &'static str, value: &str| -> Option<()> {
        map.insert(name, HeaderValue::from_str(&encode_value(value)).ok()?);
        Some(())
    };
    put(PROTOCOL_VERSION, &version)?;
    put(METHOD, method)?;
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(key) = key {
        put(NAME, body.get("params")?.get(key)?.as_str()?)?;
    }
    Some(map)
}

/// Bound of the SSE parser in [`sse`], chosen by the first byte.
const SSE_LIMITS: [usize; 3] = [8, 64, 4096];

/// A Server-Sent Events stream: the first byte picks the event bound and
/// how the rest is split into chunks.
pub fn sse(data: &[u8]) {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    let limit = SSE_LIMITS[usize::from(pick) % SSE_LIMITS.len()];
    let chunk = 1 + usize::from(pick / 3) % 17;
    let whole = SseParser::new(limit).feed(stream);
    let mut parser = SseParser::new(limit);
    let chunked: Vec<_> = stream.chunks(chunk).flat_map(|c| parser.feed(c)).collect();
    assert_eq!(chunked, whole, "split into chunks of {chunk}");
    let mut parser = SseParser::new(limit);
    let bytewise: Vec<_> = stream
        .iter()
        .flat_map(|b| parser.feed(std::slice::from_ref(b)))
        .collect();
    assert_eq!(bytewise, whole, "fed byte by byte");
    for event in &whole {
        assert!(
            event.data.len() <= limit,
            "data of {} bytes",
            event.data.len()
        );
        assert!(!event.data.contains('\r'));
        if let Some(id) = &event.id {
            // The bound is on the bytes read; each byte that is not UTF-8
            // becomes U+FFFD (3 bytes) in the id.
            assert!(id.len() <= 3 * limit, "id of {} bytes", id.len());
            assert!(!id.contains(['\0', '\r', '\n']), "{id:?}");
        }
    }
}

/// The stdio server's line reader: the first byte picks the line bound, the
/// second the reader's buffer size, the rest is the input.
pub fn stdio_lines(data: &[u8]) {
    let [a, b, input @ ..] = data else {
        return;
    };
    let limit = 1 + usize::from(*a) % 64;
    let capacity = 1 + usize::from(*b) % 16;
    let expected = split_lines(input, limit);
    let runtime = current_thread(false);
    let got = runtime.block_on(async {
        let mut reader = tokio::io::BufReader::with_capacity(capacity, input);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        // One read per line, plus the end: more would be a loop.
        for _ in 0..=input.len() + 1 {
            buf.clear();
            let read = read_line_bounded(&mut reader, &mut buf, limit)
                .await
                .expect("reading a slice cannot fail");
            assert!(buf.len() <= limit + 2, "holds {} bytes", buf.len());
            assert!(
                buf.capacity() <= (2 * (limit + 2)).max(8),
                "capacity {} for a bound of {limit}",
                buf.capacity()
            );
            match read {
                LineRead::Eof => return got,
                LineRead::TooLong => got.push(None),
                LineRead::Line => got.push(Some(buf.clone())),
            }
        }
        panic!("the reader did not reach the end");
    });
    assert_eq!(got, expected, "bound {limit}, buffer {capacity}");
}

/// Lines as the reader should return them: each piece up to and with its
/// newline, `None` when longer than `limit + 2` bytes.
fn split_lines(input: &[u8], limit: usize) -> Vec<Option<Vec<u8>>> {
    input
        .split_inclusive(|b| *b == b'\n')
        .map(|line| (line.len() <= limit + 2).then(|| line.to_vec()))
        .collect()
}

/// A current-thread runtime, its clock paused when `paused`.
fn current_thread(paused: bool) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(paused)
        .build()
        .expect("a current-thread runtime builds")
}

/// How long a server script may run in virtual time before it is a hang.
const VIRTUAL_BUDGET: Duration = Duration::from_secs(24 * 3600);
