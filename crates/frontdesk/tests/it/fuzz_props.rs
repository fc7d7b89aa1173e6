//! The fuzz targets on stable: every function in `frontdesk::fuzzing` run on
//! its committed seed corpus (`fuzz/corpus/<target>/`), on the inputs the
//! fuzzer found (`fuzz/artifacts-found/<target>/`), on proptest mutations of
//! the seeds, and on structured inputs built for each target. Each function
//! panics when its invariant breaks (see the table in its module docs), so a
//! test here fails exactly when the fuzz target would.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use frontdesk::fuzzing::{self, TARGETS};
use proptest::prelude::*;
use serde_json::{Value, json};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `fuzz/<folder>/<target>/`, sorted (none when it is missing).
fn files(folder: &str, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz_dir().join(folder).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    files("corpus", target)
        .into_iter()
        .map(|(_, d)| d)
        .collect()
}

/// How long one input may take in a debug build: generous, since the point
/// is "bounded", not a benchmark (the fuzz runs use `-timeout`).
const PER_INPUT: Duration = Duration::from_secs(10);

fn run(target: &str, data: &[u8]) {
    let f = fuzzing::target(target).unwrap();
    let start = Instant::now();
    f(data);
    let took = start.elapsed();
    assert!(
        took < PER_INPUT,
        "{target} took {took:?} on {:?}",
        String::from_utf8_lossy(data)
    );
}

#[test]
fn every_target_has_a_seed_corpus_and_passes_it() {
    for target in TARGETS.iter().map(|t| t.name) {
        let corpus = files("corpus", target);
        assert!(corpus.len() >= 15, "{target}: {} seeds", corpus.len());
        for (name, data) in corpus {
            eprintln!("{target}/{name}");
            run(target, &data);
        }
    }
}

/// Every input the fuzzer found that once failed (see fuzz/README.md)
/// passes now.
#[test]
fn found_inputs_pass() {
    for target in TARGETS.iter().map(|t| t.name) {
        for (name, data) in files("artifacts-found", target) {
            eprintln!("{target}/{name}");
            run(target, &data);
        }
    }
}

#[test]
fn seeded_states_come_from_real_rounds() {
    let seeds = fuzzing::seeds();
    assert_eq!(seeds.len(), 6);
    assert_eq!(seeds[0].keys, ["details"]);
    assert_eq!(seeds[1].keys, ["confirm"]);
    assert_eq!(seeds[3].keys, ["name", "sample", "roots"]);
    assert_ne!(seeds[0].state, seeds[1].state);
}

/// An input, shown as text when a case fails.
#[derive(Clone)]
struct Input(Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

/// A seed of `target` with a few byte-level edits, as a fuzzer makes them.
fn mutated(target: &'static str) -> impl Strategy<Value = Input> {
    let corpus = seeds(target);
    let edits = prop::collection::vec((0u8..5, any::<prop::sample::Index>(), any::<u8>()), 0..6);
    (prop::sample::select(corpus), edits).prop_map(|(mut data, edits)| {
        for (how, at, byte) in edits {
            let i = if data.is_empty() {
                0
            } else {
                at.index(data.len())
            };
            match how {
                0 if !data.is_empty() => data[i] ^= 1 << (byte % 8),
                1 => data.insert(i, byte),
                2 if !data.is_empty() => {
                    data.remove(i);
                }
                3 => {
                    // Interesting bytes for these formats.
                    let b =
                        [b'\n', b'"', b'{', b'}', b'\r', b':', b'@', b'0'][usize::from(byte % 8)];
                    data.insert(i, b);
                }
                _ => data.truncate(i),
            }
        }
        Input(data)
    })
}

macro_rules! mutation_props {
    ($($name:ident: $target:literal, $cases:expr;)*) => {$(
        proptest! {
            #![proptest_config(ProptestConfig::with_cases($cases))]
            #[test]
            fn $name(data in mutated($target)) {
                run($target, &data.0);
            }
        }
    )*};
}

mutation_props! {
    mutated_classify: "classify", 256;
    mutated_schema: "schema", 256;
    mutated_url_review: "url_review", 256;
    mutated_headers: "headers", 256;
    mutated_sse: "sse", 256;
    mutated_stdio_lines: "stdio_lines", 256;
    mutated_handle_legacy: "handle_legacy", 48;
    mutated_handle_modern: "handle_modern", 64;
    mutated_input_responses: "input_responses", 64;
    mutated_uri_template: "uri_template", 1024;
    mutated_client_messages: "client_messages", 64;
}

/// Mcp-* header lines, right or wrong, and a body they may mirror.
fn header_case() -> impl Strategy<Value = Vec<u8>> {
    let names = prop::sample::select(vec![
        "book",
        "Book",
        "",
        " book",
        "réservation",
        "=?base64?Ym9vaw==?=",
    ]);
    let methods = prop::sample::select(vec![
        "tools/call",
        "prompts/get",
        "resources/read",
        "tools/list",
        "notifications/x",
    ]);
    let versions = prop::sample::select(vec!["2026-07-28", "2025-11-25", "", " 2026-07-28"]);
    let header = (
        0u8..6,
        names.clone(),
        methods.clone(),
        versions.clone(),
        any::<bool>(),
    )
        .prop_map(|(which, name, method, version, encode)| {
            let (h, v) = match which {
                0 | 1 => ("mcp-protocol-version", version),
                2 | 3 => ("mcp-method", method),
                _ => ("mcp-name", name),
            };
            let v = if encode {
                frontdesk_wire::header::encode_value(v)
            } else {
                v.to_string()
            };
            format!("{h}: {v}")
        });
    (
        prop::collection::vec(header, 0..5),
        names,
        methods,
        prop::option::of(versions),
        any::<bool>(),
    )
        .prop_map(|(lines, name, method, version, with_id)| {
            let key = if method == "resources/read" {
                "uri"
            } else {
                "name"
            };
            let mut params = json!({key: name});
            if let Some(v) = version {
                params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": v});
            }
            let mut body = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if with_id {
                body["id"] = json!(1);
            }
            format!("{}\n\n{body}", lines.join("\n")).into_bytes()
        })
}

/// SSE lines of every kind, with every line ending.
fn sse_case() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        "data:[ a-z{}\"]{0,12}".prop_map(|s| s),
        "id: [0-9a-z-]{0,6}".prop_map(|s| s),
        "retry: [0-9]{0,6}".prop_map(|s| s),
        Just(": comment".to_string()),
        Just(String::new()),
        Just("data".to_string()),
        "[a-z]{1,5}: ?[a-z]{0,5}".prop_map(|s| s),
    ];
    let ending = prop::sample::select(vec!["\n", "\r\n", "\r"]);
    (any::<u8>(), prop::collection::vec((line, ending), 0..30)).prop_map(|(pick, lines)| {
        let mut out = vec![pick];
        for (l, e) in lines {
            out.extend_from_slice(l.as_bytes());
            out.extend_from_slice(e.as_bytes());
        }
        out
    })
}

/// JSON-RPC-shaped text: members drawn from the envelope's names and values.
fn message_case() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        Just(json!("2.0")),
        Just(json!(1)),
        Just(json!("fd-1")),
        Just(json!(null)),
        Just(json!(1.5)),
        Just(json!({})),
        Just(json!([])),
        Just(json!("ping")),
        Just(json!({"code": -32600, "message": "m"})),
        Just(json!({"name": "book", "arguments": {}})),
    ];
    let member = (
        prop::sample::select(vec![
            "jsonrpc", "id", "method", "params", "result", "error", "x",
        ]),
        value,
    );
    prop::collection::vec(member, 0..7).prop_map(|members| {
        let map: serde_json::Map<String, Value> = members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        serde_json::to_vec(&Value::Object(map)).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn headers_on_built_cases(data in header_case()) {
        run("headers", &data);
    }

    #[test]
    fn sse_on_built_streams(data in sse_case()) {
        run("sse", &data);
    }

    #[test]
    fn stdio_lines_on_any_bytes(
        a in any::<u8>(),
        b in any::<u8>(),
        body in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), any::<u8>()], 0..400),
    ) {
        let mut data = vec![a, b];
        data.extend(body);
        run("stdio_lines", &data);
    }

    #[test]
    fn classify_on_built_messages(data in message_case()) {
        run("classify", &data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any message of the envelope's shapes, on a session and without.
    #[test]
    fn handle_on_built_messages(messages in prop::collection::vec(message_case(), 1..6)) {
        let script = messages.join(&b'\n');
        run("handle_legacy", &script);
        run("handle_modern", &script);
    }
}

/// Triage: `FRONTDESK_FUZZ_REPLAY=<target>:<file>` runs one input (add
/// `FRONTDESK_FUZZ_TRACE=1` to see a server script's messages). Does
/// nothing when the variable is not set.
#[test]
fn replay_one_input() {
    let Ok(spec) = std::env::var("FRONTDESK_FUZZ_REPLAY") else {
        return;
    };
    let (target, file) = spec.split_once(':').expect("<target>:<file>");
    run(target, &std::fs::read(file).unwrap());
}
