//! The rows: one parser of outside input each, and its hostile input.
//! Areas, in the order of `docs/bounds.md`: the JSON-RPC classifier, the
//! form crate, URL review, the 2026-07-28 headers, the client's SSE parser,
//! the stdio line reader, `Server::handle`, the sealed state, URI templates,
//! JWT / JWKS, OAuth metadata.

use std::fmt::Write as _;
use std::time::SystemTime;

use frontdesk::fuzzing::hostile;
use frontdesk::server::Server;
use frontdesk::server::resource::{ResourceOutput, ResourceTemplateDef};
use frontdesk::state::{Binding, RequestDigest, StateSealer};
use frontdesk_form::FormSchema;
use frontdesk_url::UrlPolicy;
use frontdesk_wire::{JsonRpcMessage, Revision};
use serde_json::{Map, Value, json};

use super::bench_call::{self, Bench};
use super::{MIB, Prepared, Row};

/// Every row, in order.
pub fn all() -> Vec<Row> {
    vec![
        row("jsonrpc/deep-arrays", jsonrpc_deep_arrays),
        row("jsonrpc/deep-objects", jsonrpc_deep_objects),
        row("jsonrpc/many-keys", jsonrpc_many_keys),
        row("jsonrpc/duplicate-keys", jsonrpc_duplicate_keys),
        row("jsonrpc/long-escaped-string", jsonrpc_long_string),
        row("jsonrpc/long-number", jsonrpc_long_number),
        row("jsonrpc/batch", jsonrpc_batch),
        row("form/schema-many-fields", form_many_fields),
        row("form/schema-many-options", form_many_options),
        row("form/schema-hostile-patterns", form_hostile_patterns),
        row("form/answer-against-patterns", form_answer_patterns),
        row("form/answer-many-keys", form_answer_many_keys),
        row("url/review-over-length", url_over_length),
        row("url/review-long-host", url_long_host),
        row("url/review-long-path", url_long_path),
        row("headers/check-modern", headers_check_modern),
        row("headers/decode-value", headers_decode_value),
        row("headers/accept", headers_accept),
        row("sse/one-long-event", sse_one_long_event),
        row("sse/many-data-lines", sse_many_data_lines),
        row("sse/bare-cr-lines", sse_bare_cr_lines),
        row("stdio/one-long-line", stdio_one_long_line),
        row("stdio/over-long-line", stdio_over_long_line),
        row("stdio/empty-lines", stdio_empty_lines),
        row("handle/big-arguments", handle_big_arguments),
        row("handle/big-input-responses", handle_big_input_responses),
        row("handle/long-tool-name", handle_long_tool_name),
        row("handle/deep-arguments", handle_deep_arguments),
        row("handle/deep-unknown-member", handle_deep_unknown_member),
        row("handle/duplicate-members", handle_duplicate_members),
        row("state/open-over-bound", state_over_bound),
        row("state/open-within-raised-bound", state_raised_bound),
        row("resources/read-simple-variable", resources_simple_variable),
        row(
            "resources/read-reserved-variable",
            resources_reserved_variable,
        ),
        row("jwt/bearer-token", jwt_bearer_token),
        row("jwt/jwks-document", jwt_jwks_document),
        row("oauth/server-metadata", oauth_server_metadata),
        row("oauth/resource-metadata", oauth_resource_metadata),
        row("oauth/challenge-scopes", oauth_challenge_scopes),
    ]
}

fn row(name: &'static str, prepare: fn() -> Prepared) -> Row {
    Row { name, prepare }
}

/// `head`, then `unit` as often as it takes to reach 1 MiB, then `tail`.
fn fill(head: &str, unit: &str, tail: &str) -> String {
    let count = (MIB.saturating_sub(head.len() + tail.len())).div_ceil(unit.len().max(1));
    let mut out = String::with_capacity(head.len() + unit.len() * count + tail.len());
    out.push_str(head);
    for _ in 0..count {
        out.push_str(unit);
    }
    out.push_str(tail);
    out
}

/// `count` units made by `unit(i)`, joined with `sep`, until 1 MiB.
fn numbered(head: &str, sep: &str, tail: &str, unit: impl Fn(usize) -> String) -> String {
    let mut out = String::from(head);
    let mut i = 0;
    while out.len() + tail.len() < MIB {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&unit(i));
        i += 1;
    }
    out.push_str(tail);
    out
}

fn expect(what: bool, outcome: impl Into<String>, otherwise: &str) -> Result<String, String> {
    if what {
        Ok(outcome.into())
    } else {
        Err(otherwise.to_owned())
    }
}

// ---- JSON-RPC classification (frontdesk_wire::JsonRpcMessage::from_slice) ----

fn classify(input: String, want: &'static str) -> Prepared {
    Prepared::new(input.len(), move || {
        let outcome = match JsonRpcMessage::from_slice(input.as_bytes()) {
            Ok(JsonRpcMessage::Request(r)) => {
                format!("a request, {} bytes of method", r.method.len())
            }
            Ok(_) => "another message".to_owned(),
            Err(e) => format!("refused, {}", e.code().0),
        };
        expect(outcome.starts_with(want), outcome, want)
    })
}

const REQUEST_HEAD: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":"#;

fn jsonrpc_deep_arrays() -> Prepared {
    classify(fill(REQUEST_HEAD, "[", ""), "refused, -32700")
}

fn jsonrpc_deep_objects() -> Prepared {
    classify(fill(REQUEST_HEAD, r#"{"a":"#, ""), "refused, -32700")
}

fn jsonrpc_many_keys() -> Prepared {
    let input = numbered(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"#,
        ",",
        "}}",
        |i| format!(r#""k{i}":{i}"#),
    );
    classify(input, "a request")
}

fn jsonrpc_duplicate_keys() -> Prepared {
    classify(
        fill(
            r#"{"jsonrpc":"2.0","method":"m","#,
            r#""id":1,"#,
            r#""id":2}"#,
        ),
        "a request",
    )
}

fn jsonrpc_long_string() -> Prepared {
    classify(
        fill(
            r#"{"jsonrpc":"2.0","id":1,"method":""#,
            r#"\u00e9\"\\\ud83d\ude00"#,
            r#""}"#,
        ),
        "a request",
    )
}

fn jsonrpc_long_number() -> Prepared {
    classify(
        fill(
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":0."#,
            "1",
            "e5}}",
        ),
        "a request",
    )
}

fn jsonrpc_batch() -> Prepared {
    let input = numbered("[", ",", "]", |i| {
        format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#)
    });
    classify(input, "refused, -32600")
}

// ---- the form crate: schema parse, answer validation ----

fn form_parse(
    input: String,
    check: fn(&frontdesk_form::ParsedForm) -> Result<String, String>,
) -> Prepared {
    Prepared::new(input.len(), move || {
        let value: Value = serde_json::from_str(&input).map_err(|e| e.to_string())?;
        match FormSchema::parse(&value) {
            Ok(parsed) => check(&parsed),
            Err(e) => Ok(format!("refused: {e}")),
        }
    })
}

fn form_many_fields() -> Prepared {
    let input = numbered(r#"{"type":"object","properties":{"#, ",", "}}", |i| {
        format!(r#""field{i}":{{"type":"string","title":"Field {i}"}}"#)
    });
    form_parse(input, |_| {
        Err("a schema over the field limit was accepted".into())
    })
}

fn form_many_options() -> Prepared {
    // 100 fields (the default limit) of up to 500 options with long titles.
    let mut props = Map::new();
    let title = "t".repeat(30);
    for f in 0..100 {
        let options: Vec<Value> = (0..500)
            .map(|o| json!({"const": format!("option-{o}"), "title": format!("{title}{o}")}))
            .collect();
        props.insert(format!("f{f}"), json!({"type": "string", "oneOf": options}));
    }
    let input = json!({"type": "object", "properties": props}).to_string();
    form_parse(input, |parsed| {
        Ok(format!("parsed, {} fields", parsed.schema.fields().len()))
    })
}

/// Patterns that cost a backtracking engine exponential time, or a compiler
/// a large program, each at the pattern length limit.
fn hostile_patterns() -> Vec<String> {
    vec![
        "(a+)+$".to_owned(),
        "^(a|a?)+\\1$".to_owned(),
        "(?=(a+))a*b\\1".to_owned(),
        "^(\\w+\\s?)*$".to_owned(),
        "(.*a){12}".to_owned(),
        "((a{1,100}){1,100}){1,100}".to_owned(),
        "(a|b|c|d|e|f|g|h|i|j)*".repeat(40),
        "[\\u0000-\\uffff]{1000}".to_owned(),
        format!("({})*x", "a?".repeat(400)),
        format!("^{}$", "(a*)*".repeat(150)),
    ]
}

fn form_hostile_patterns() -> Prepared {
    // 100 fields with the patterns above, padded to 1 MiB with descriptions.
    let patterns = hostile_patterns();
    let mut props = Map::new();
    let description = "d".repeat(MIB / 100);
    for f in 0..100 {
        props.insert(
            format!("f{f}"),
            json!({
                "type": "string",
                "pattern": patterns[f % patterns.len()],
                "description": description,
            }),
        );
    }
    let input = json!({"type": "object", "properties": props}).to_string();
    form_parse(input, |parsed| {
        Ok(format!(
            "parsed, {} fields, {} diagnostics",
            parsed.schema.fields().len(),
            parsed.diagnostics.len()
        ))
    })
}

fn form_answer_patterns() -> Prepared {
    // 16 string fields with hostile patterns, each answered with the longest
    // string an answer may hold: a near-match that makes a backtracker retry.
    let patterns = hostile_patterns();
    let mut props = Map::new();
    let mut content = Map::new();
    let longest = frontdesk_form::Limits::DEFAULT.max_answer_string_bytes;
    for f in 0..16 {
        let key = format!("f{f}");
        props.insert(
            key.clone(),
            json!({"type": "string", "pattern": patterns[f % patterns.len()]}),
        );
        content.insert(key, Value::String(format!("{}!", "a".repeat(longest - 1))));
    }
    let schema = json!({"type": "object", "properties": props});
    let form = FormSchema::parse(&schema)
        .expect("the schema parses")
        .schema;
    let bytes = content
        .values()
        .filter_map(Value::as_str)
        .map(str::len)
        .sum();
    Prepared::new(bytes, move || {
        Ok(match form.validate(&content) {
            Ok(()) => "accepted".to_owned(),
            Err(e) => format!("refused, {} problems", e.len()),
        })
    })
}

fn form_answer_many_keys() -> Prepared {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let form = FormSchema::parse(&schema)
        .expect("the schema parses")
        .schema;
    let input = numbered(r#"{"name":"x","#, ",", "}", |i| {
        format!(r#""extra{i}":[{i}]"#)
    });
    Prepared::new(input.len(), move || {
        let content: Map<String, Value> =
            serde_json::from_str(&input).map_err(|e| e.to_string())?;
        let valid = form.validate(&content).is_ok();
        let accepted = form
            .accept(content, frontdesk_form::Defaults::Leave)
            .map_err(|e| format!("not accepted: {e:?}"))?;
        Ok(format!(
            "valid: {valid}, {} keys dropped",
            accepted.dropped().len()
        ))
    })
}

// ---- URL review (frontdesk_url::review) ----

fn url_review(input: String, policy: UrlPolicy) -> Prepared {
    Prepared::new(input.len(), move || {
        let review = frontdesk_url::review(&input, &policy);
        let _ = review.plain_text();
        Ok(format!(
            "{:?}, {} findings",
            review.verdict(),
            review.findings().len()
        ))
    })
}

fn url_over_length() -> Prepared {
    url_review(
        fill("https://", "\u{202e}a%00\u{200b}.", "/"),
        UrlPolicy::default(),
    )
}

fn url_long_host() -> Prepared {
    // Mixed-script labels (Cyrillic а, Latin), punycode, zero-width joiners.
    url_review(
        fill(
            "https://",
            "\u{430}pple-xn--80ak6aa92e.\u{200d}g\u{43e}\u{43e}gle.",
            "com/",
        ),
        UrlPolicy::default().max_url_length(4 * MIB),
    )
}

fn url_long_path() -> Prepared {
    url_review(
        fill(
            "https://example.com/",
            "%E2%80%AE\u{202e}../%2e%2e/",
            "?q=1#f",
        ),
        UrlPolicy::default().max_url_length(4 * MIB),
    )
}

// ---- the 2026-07-28 mirrored headers (frontdesk::http::headers) ----

fn headers_check_modern() -> Prepared {
    use axum::http::{HeaderMap, HeaderValue};
    use frontdesk::http::headers::{METHOD, NAME, PROTOCOL_VERSION, check_modern};
    use frontdesk_wire::header::encode_value;
    // A tool name of non-ASCII text: the header carries it base64-encoded.
    let name = "é".repeat(MIB * 3 / 8);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "_meta": bench_call::meta()}});
    let mut headers = HeaderMap::new();
    headers.insert(PROTOCOL_VERSION, HeaderValue::from_static("2026-07-28"));
    headers.insert(METHOD, HeaderValue::from_static("tools/call"));
    let encoded = encode_value(&name);
    let bytes = encoded.len();
    headers.insert(
        NAME,
        HeaderValue::from_str(&encoded).expect("a visible ASCII header"),
    );
    let body = Bench::new()
        .server
        .parse_message_as(body.to_string().as_bytes(), Revision::V2026_07_28)
        .expect("a readable body");
    Prepared::new(bytes, move || {
        check_modern(&headers, &body).map_err(|e| format!("refused: {e}"))?;
        Ok("the headers match the body".to_owned())
    })
}

fn headers_decode_value() -> Prepared {
    use frontdesk_wire::header::decode_value;
    // A sentinel that is base64 until its last byte.
    let input = fill("=?base64?", "QUJD", "!?=");
    Prepared::new(input.len(), move || {
        expect(
            decode_value(input.as_bytes()).is_none(),
            "refused",
            "a broken sentinel decoded",
        )
    })
}

fn headers_accept() -> Prepared {
    use frontdesk::http::headers::accepts;
    let input = fill("", "text/x-a;q=0.5;level=1, */*;q=0, ", "text/plain");
    Prepared::new(input.len(), move || {
        expect(
            !accepts(&input, "text/event-stream"),
            "text/event-stream not accepted",
            "q=0 accepted",
        )
    })
}

// ---- the client's SSE parser ----

/// The client's event bound on an HTTP response (`transport_http`'s `MAX_BODY`).
const CLIENT_SSE_LIMIT: usize = 16 * MIB;

fn sse(input: String, chunk: usize, want: usize) -> Prepared {
    Prepared::new(input.len(), move || {
        let events = hostile::sse_events(input.as_bytes(), CLIENT_SSE_LIMIT, chunk);
        expect(
            events == want,
            format!("{events} events"),
            &format!("wanted {want} events, got {events}"),
        )
    })
}

fn sse_one_long_event() -> Prepared {
    sse(fill("data: ", "x", "\n\n"), 7, 1)
}

fn sse_many_data_lines() -> Prepared {
    sse(fill("", "data:a\n", "\n"), 1024, 1)
}

fn sse_bare_cr_lines() -> Prepared {
    sse(fill("", "data:\r\r", ""), 4096, MIB.div_ceil(7))
}

// ---- the stdio server's line reader ----

/// `ServerConfig`'s default message bound, which the stdio server reads lines up to.
const STDIO_LIMIT: usize = 4 * MIB;
/// tokio's default `BufReader` capacity.
const STDIO_BUFFER: usize = 8 * 1024;

fn stdio(input: String, limit: usize, want: (usize, usize)) -> Prepared {
    Prepared::new(input.len(), move || {
        let got = hostile::stdio_lines(input.as_bytes(), limit, STDIO_BUFFER);
        expect(
            got == want,
            format!("{} lines, {} too long", got.0, got.1),
            &format!("wanted {want:?}, got {got:?}"),
        )
    })
}

fn stdio_one_long_line() -> Prepared {
    stdio(fill("", "x", ""), STDIO_LIMIT, (1, 0))
}

fn stdio_over_long_line() -> Prepared {
    stdio(fill("", "x", "\n"), 64 * 1024, (0, 1))
}

fn stdio_empty_lines() -> Prepared {
    stdio(fill("", "\n", ""), STDIO_LIMIT, (MIB, 0))
}

// ---- Server::handle on a big message (2026-07-28, no session) ----

/// The `bench_confirm` server, with a simple and a reserved URI template.
fn server() -> Server {
    let read = |_cx, _req| async move { Ok(ResourceOutput::text("found")) };
    let simple = ResourceTemplateDef::new("test://template/{id}/data", "simple", read)
        .expect("a valid template");
    let reserved = ResourceTemplateDef::new("file:///{+path}.txt", "reserved", read)
        .expect("a valid template");
    frontdesk_demo::fixtures::bench::register(Server::builder("hostile", "0"))
        .resource_template(simple)
        .resource_template(reserved)
        .build()
}

fn bench() -> Bench {
    let mut b = Bench::new();
    b.server = server();
    b
}

/// Parse, handle and write `body`; the response's error code or `result`.
fn handle(b: Bench, body: Vec<u8>, want: &'static str) -> Prepared {
    Prepared::new(body.len(), move || {
        let response = match b.server.parse_message_as(&body, Revision::V2026_07_28) {
            Ok(message) => b.handle(message).response_value(),
            Err(error) => Some(error),
        };
        let response = response.ok_or("no response")?;
        let outcome = match (response.get("result"), response.pointer("/error/code")) {
            (Some(result), _) => match result.get("resultType").and_then(Value::as_str) {
                Some(kind) => format!("result {kind}"),
                None => "result".to_owned(),
            },
            (None, Some(code)) => format!("error {code}"),
            _ => "neither result nor error".to_owned(),
        };
        expect(outcome.starts_with(want), outcome, want)
    })
}

fn call(params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        .to_string()
        .into_bytes()
}

fn handle_big_arguments() -> Prepared {
    let mut arguments = Map::from_iter([("n".to_owned(), json!(7))]);
    let mut i = 0;
    while arguments.len() * 24 < MIB {
        arguments.insert(format!("extra{i}"), json!([i, "x"]));
        i += 1;
    }
    let body =
        call(json!({"name": "bench_confirm", "arguments": arguments, "_meta": bench_call::meta()}));
    handle(bench(), body, "result")
}

fn handle_big_input_responses() -> Prepared {
    let b = bench();
    let state = b.state();
    let mut responses = Map::from_iter([(
        "confirm".to_owned(),
        json!({"action": "accept", "content": {"ok": true}}),
    )]);
    let mut i = 0;
    while responses.len() * 60 < MIB {
        responses.insert(
            format!("unasked{i}"),
            json!({"action": "accept", "content": {"ok": true}}),
        );
        i += 1;
    }
    let body = call(json!({"name": "bench_confirm", "arguments": {"n": 7},
        "_meta": bench_call::meta(), "inputResponses": responses, "requestState": state}));
    handle(b, body, "")
}

fn handle_long_tool_name() -> Prepared {
    let body = call(json!({"name": "t".repeat(MIB), "arguments": {}, "_meta": bench_call::meta()}));
    handle(bench(), body, "error")
}

/// Arguments nested past the recursion limit: the typed read refuses
/// them, and so does the read of the params as an object (`-32700`).
fn handle_deep_arguments() -> Prepared {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{},"name":"bench_confirm","arguments":{{"a":"#,
        bench_call::meta()
    );
    let depth = MIB / 2;
    let body = format!("{head}{}{}}}}}}}", "[".repeat(depth), "]".repeat(depth));
    handle(bench(), body.into_bytes(), "error -32700")
}

/// A member nobody reads, nested 1 MiB deep: skipped where it lies.
fn handle_deep_unknown_member() -> Prepared {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{},"name":"bench_confirm","arguments":{{"n":7}},"x":"#,
        bench_call::meta()
    );
    let depth = MIB / 2;
    let body = format!("{head}{}{}}}}}", "[".repeat(depth), "]".repeat(depth));
    handle(bench(), body.into_bytes(), "result")
}

/// The same member given again and again: the typed read refuses a member
/// given twice, the params are read as an object (the last one counts).
fn handle_duplicate_members() -> Prepared {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{},"#,
        bench_call::meta()
    );
    let body = fill(
        &head,
        r#""name":"bench_confirm","#,
        r#""arguments":{"n":7}}}"#,
    );
    handle(bench(), body.into_bytes(), "result")
}

// ---- the sealed request state (StateSealer::open) ----

const KEY_SPEC: &str = "hostile:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn open(sealer: StateSealer, token: String) -> Prepared {
    let binding = Binding::new("someone", RequestDigest::new("tools/call", Some("t"), None));
    Prepared::new(token.len(), move || {
        expect(
            sealer.open(&token, &binding, SystemTime::now()).is_err(),
            "rejected",
            "a forged state opened",
        )
    })
}

fn state_over_bound() -> Prepared {
    let sealer = StateSealer::from_spec(KEY_SPEC).expect("a valid key");
    open(sealer, fill("fd1.hostile.", "A", ""))
}

fn state_raised_bound() -> Prepared {
    // A server that raised the bound: the whole token is decoded and
    // decrypted before its tag fails.
    let sealer = StateSealer::from_spec(KEY_SPEC)
        .expect("a valid key")
        .with_max_token_bytes(2 * MIB);
    open(sealer, fill("fd1.hostile.", "A", ""))
}

// ---- resources/read: URI template matching ----

fn read(uri: String) -> Prepared {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": {"uri": uri, "_meta": bench_call::meta()}})
    .to_string()
    .into_bytes();
    handle(bench(), body, "error")
}

fn resources_simple_variable() -> Prepared {
    // No `/` after the variable: every end position is tried.
    read(fill("test://template/", "a", ""))
}

fn resources_reserved_variable() -> Prepared {
    read(fill("file:///", "a/", ""))
}

// ---- JWT bearer tokens and the JWKS (feature `jwt`) ----

/// RFC 8037's Ed25519 example public key.
const ED25519_X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";

fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn jwt_config(
    jwks: frontdesk::http::auth::jwt::JwksSource,
) -> frontdesk::http::auth::jwt::JwtConfig {
    frontdesk::http::auth::jwt::JwtConfig::new(
        jwks,
        "https://issuer.example",
        "https://mcp.example/mcp",
    )
}

fn jwt_bearer_token() -> Prepared {
    use frontdesk::http::auth::Authenticate as _;
    use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator};
    let set = serde_json::from_value(json!({"keys": [
        {"kty": "OKP", "crv": "Ed25519", "x": ED25519_X, "kid": "k1"}
    ]}))
    .expect("a JWK set");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let auth = runtime
        .block_on(JwtAuthenticator::new(jwt_config(JwksSource::Keys(set))))
        .expect("the authenticator starts");
    // A header naming the key, padded; claims padded; a signature of zeros.
    let header = json!({"alg": "EdDSA", "kid": "k1", "typ": "JWT", "pad": "p".repeat(MIB / 3)});
    let claims = json!({"sub": "x", "iss": "https://issuer.example", "aud": "https://mcp.example/mcp",
        "exp": 4_000_000_000u64, "scope": "s ".repeat(MIB / 8)});
    let token = format!(
        "{}.{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(claims.to_string().as_bytes()),
        base64url(&[0; 64])
    );
    let bytes = token.len();
    let mut headers = axum::http::HeaderMap::new();
    headers.insert(
        "authorization",
        format!("Bearer {token}")
            .parse()
            .expect("a visible ASCII header"),
    );
    Prepared::new(bytes, move || {
        let verdict = runtime.block_on(auth.authenticate(&headers));
        expect(
            verdict.is_err(),
            "refused",
            "a token with a bad signature passed",
        )
    })
}

fn jwt_jwks_document() -> Prepared {
    use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator};
    // Keys of every shape: usable ones, unsupported types, broken ones.
    let document = numbered(r#"{"keys":["#, ",", "]}", |i| match i % 4 {
        0 => format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{ED25519_X}","kid":"k{i}"}}"#),
        1 => format!(r#"{{"kty":"oct","k":"c2VjcmV0","kid":"k{i}"}}"#),
        2 => format!(
            r#"{{"kty":"RSA","n":"{}","e":"AQAB","kid":"k{i}"}}"#,
            "A".repeat(64)
        ),
        _ => {
            format!(r#"{{"kty":"EC","crv":"P-521","x":"AA","y":"AA","kid":"k{i}","extra":[{i}]}}"#)
        }
    });
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-jwks.json");
    std::fs::write(&path, &document).expect("the JWKS file is written");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    Prepared::new(document.len(), move || {
        let auth = runtime.block_on(JwtAuthenticator::new(jwt_config(JwksSource::File(path))));
        expect(auth.is_ok(), "loaded", "the usable keys were not loaded")
    })
}

// ---- OAuth metadata and challenges (the client's discovery) ----

fn oauth_server_metadata() -> Prepared {
    let mut document = String::from(r#"{"issuer":"https://auth.example","#);
    let _ = write!(
        document,
        r#""authorization_endpoint":"https://auth.example/{}","token_endpoint":"https://auth.example/t","code_challenge_methods_supported":["S256"],"scopes_supported":["#,
        "a/".repeat(MIB / 8)
    );
    let mut i = 0;
    while document.len() < MIB {
        let _ = write!(document, r#""scope{i}","#);
        i += 1;
    }
    document.push_str(r#""offline_access"]}"#);
    Prepared::new(document.len(), move || {
        let passed = hostile::oauth_server_metadata(document.as_bytes())?;
        expect(
            passed == 3,
            format!("{passed} endpoints checked"),
            "wanted 3 endpoints",
        )
    })
}

fn oauth_resource_metadata() -> Prepared {
    let document = numbered(
        r#"{"resource":"https://mcp.example/mcp","authorization_servers":["#,
        ",",
        "]}",
        |i| format!(r#""https://as{i}.example/a%2F%2e%2e/{i}""#),
    );
    Prepared::new(document.len(), move || {
        let passed =
            hostile::oauth_resource_metadata(document.as_bytes(), "https://mcp.example/mcp")?;
        Ok(format!("{passed} servers checked"))
    })
}

fn oauth_challenge_scopes() -> Prepared {
    use frontdesk::client::auth::BearerChallenge;
    let mut value = String::from(r#"Basic realm="x", Bearer error="insufficient_scope", scope=""#);
    let mut i = 0;
    while value.len() < MIB {
        let _ = write!(value, "scope{i} ");
        i += 1;
    }
    value.push('"');
    Prepared::new(value.len(), move || {
        let challenge = BearerChallenge::from_headers([value.as_str()]).ok_or("no challenge")?;
        let scopes = challenge.scopes();
        expect(
            scopes.len() == i,
            format!("{} scopes", scopes.len()),
            "scopes lost",
        )
    })
}
