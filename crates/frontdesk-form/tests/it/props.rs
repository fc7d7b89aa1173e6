//! Property tests: generated forms and answers.
//!
//! - a generated valid answer always validates;
//! - a mutated answer reports exactly the field that was broken;
//! - lenient parsing never panics and re-serializes whatever object it was given;
//! - pattern translation and format checks never panic;
//! - `accept` (the one answer pipeline): accepted content always validates, undeclared
//!   keys never change the verdict, and it agrees with the server's and client's former
//!   pipelines wherever those agreed.

use frontdesk_form::{Defaults, ErrorCode, FormSchema, ValidationErrors, formats, pattern};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

#[derive(Debug, Clone)]
enum Spec {
    Text { min: u64, extra: u64 },
    Integer { min: i64, span: i64 },
    Number { min: f64, span: f64 },
    Bool,
    Select { n: usize, titled: bool },
    Multi { n: usize, min: u64, titled: bool },
}

fn spec() -> impl Strategy<Value = (Spec, bool)> {
    let s = prop_oneof![
        (0u64..4, 0u64..6).prop_map(|(min, extra)| Spec::Text { min, extra }),
        (-1000i64..1000, 0i64..50).prop_map(|(min, span)| Spec::Integer { min, span }),
        (-100.0f64..100.0, 0.0f64..10.0).prop_map(|(min, span)| Spec::Number { min, span }),
        Just(Spec::Bool),
        (1usize..6, any::<bool>()).prop_map(|(n, titled)| Spec::Select { n, titled }),
        (1usize..6, 0u64..2, any::<bool>()).prop_map(|(n, min, titled)| Spec::Multi {
            n,
            min,
            titled
        }),
    ];
    (s, any::<bool>())
}

fn options(n: usize, titled: bool) -> (Vec<Value>, Vec<String>) {
    let values: Vec<String> = (0..n).map(|i| format!("opt{i}")).collect();
    let list = if titled {
        values
            .iter()
            .map(|v| json!({"const": v, "title": format!("Option {v}")}))
            .collect()
    } else {
        values.iter().map(|v| json!(v)).collect()
    };
    (list, values)
}

fn property(spec: &Spec) -> Value {
    match spec {
        Spec::Text { min, extra } => {
            json!({"type": "string", "minLength": min, "maxLength": min + extra})
        }
        Spec::Integer { min, span } => {
            json!({"type": "integer", "minimum": min, "maximum": min + span})
        }
        Spec::Number { min, span } => {
            json!({"type": "number", "minimum": min, "maximum": min + span})
        }
        Spec::Bool => json!({"type": "boolean"}),
        Spec::Select { n, titled } => {
            let (list, _) = options(*n, *titled);
            if *titled {
                json!({"type": "string", "oneOf": list})
            } else {
                json!({"type": "string", "enum": list})
            }
        }
        Spec::Multi { n, min, titled } => {
            let (list, _) = options(*n, *titled);
            let items = if *titled {
                json!({"anyOf": list})
            } else {
                json!({"type": "string", "enum": list})
            };
            json!({"type": "array", "items": items, "minItems": min, "maxItems": n})
        }
    }
}

/// A valid value for `spec`, chosen by `seed`.
fn valid_value(spec: &Spec, seed: u64) -> Value {
    const CHARS: [char; 6] = ['a', 'é', '😀', '漢', ' ', 'Z'];
    match spec {
        Spec::Text { min, extra } => {
            let len = min + seed % (extra + 1);
            let s: String = (0..len)
                .map(|i| CHARS[((seed >> 3) as usize + i as usize) % CHARS.len()])
                .collect();
            json!(s)
        }
        Spec::Integer { min, span } => json!(min + (seed % (*span as u64 + 1)) as i64),
        Spec::Number { min, span } => json!(min + span * ((seed % 1000) as f64 / 1000.0)),
        Spec::Bool => json!(seed.is_multiple_of(2)),
        Spec::Select { n, .. } => json!(format!("opt{}", seed as usize % n)),
        Spec::Multi { n, min, .. } => {
            let k = *min as usize + (seed as usize % (n - *min as usize + 1));
            let start = (seed >> 8) as usize % n;
            let picked: Vec<String> = (0..k).map(|i| format!("opt{}", (start + i) % n)).collect();
            json!(picked)
        }
    }
}

/// A value that breaks `spec` (wrong type or out of range), chosen by `seed`.
fn broken_value(spec: &Spec, seed: u64) -> Value {
    let wrong_type = seed.is_multiple_of(2);
    match spec {
        Spec::Text { min, extra } if !wrong_type => json!("x".repeat((min + extra + 1) as usize)),
        Spec::Text { .. } => json!(3),
        Spec::Integer { min, .. } if !wrong_type => json!(min - 1),
        Spec::Integer { min, .. } => json!(min.to_string()),
        Spec::Number { min, span } if !wrong_type => json!(min + span + 0.5),
        Spec::Number { .. } => json!(true),
        Spec::Bool => json!("true"),
        Spec::Select { .. } if !wrong_type => json!("nope"),
        Spec::Select { .. } => json!(["opt0"]),
        Spec::Multi { n, .. } if !wrong_type => json!(vec!["opt0"; n + 1]),
        Spec::Multi { .. } => json!("opt0"),
    }
}

fn form(specs: &[(Spec, bool)]) -> (FormSchema, Vec<String>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut keys = Vec::new();
    for (i, (s, req)) in specs.iter().enumerate() {
        let key = format!("field{i}");
        props.insert(key.clone(), property(s));
        if *req {
            required.push(json!(key));
        }
        keys.push(key);
    }
    let schema = json!({"type": "object", "properties": props, "required": required});
    let parsed = FormSchema::parse(&schema).expect("generated schema parses");
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    (parsed.schema, keys)
}

fn valid_answer(specs: &[(Spec, bool)], keys: &[String], seeds: &[u64]) -> Map<String, Value> {
    let mut answer = Map::new();
    for (i, (s, req)) in specs.iter().enumerate() {
        let seed = seeds[i % seeds.len()];
        // Optional fields are sometimes left out.
        if *req || !seed.is_multiple_of(3) {
            answer.insert(keys[i].clone(), valid_value(s, seed));
        }
    }
    answer
}

/// Like [`form`], with a valid default on some fields (chosen by `seeds`), required or not.
fn form_with_defaults(specs: &[(Spec, bool)], seeds: &[u64]) -> (FormSchema, Vec<String>) {
    let (plain, keys) = form(specs);
    let mut schema = plain.to_json();
    for (i, (s, _)) in specs.iter().enumerate() {
        let seed = seeds[i % seeds.len()];
        if seed % 4 < 2 {
            schema["properties"][&keys[i]]["default"] = valid_value(s, seed.rotate_left(17));
        }
    }
    let parsed = FormSchema::parse(&schema).expect("generated schema parses");
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    (parsed.schema, keys)
}

/// Content to judge: per field, by `plan`, a valid value, a broken one, an arbitrary
/// one, a valid integer sent as a whole float, or nothing.
fn content_for(
    specs: &[(Spec, bool)],
    keys: &[String],
    plan: &[(u8, u64)],
    arbitrary: &[Value],
) -> Map<String, Value> {
    let mut content = Map::new();
    for (i, (s, _)) in specs.iter().enumerate() {
        let (how, seed) = plan[i % plan.len()];
        let value = match how {
            0 => continue,
            1 => valid_value(s, seed),
            2 => broken_value(s, seed),
            3 => arbitrary[i % arbitrary.len()].clone(),
            _ => match (s, valid_value(s, seed)) {
                (Spec::Integer { .. }, Value::Number(n)) => json!(n.as_f64().unwrap_or(0.0)),
                (_, v) => v,
            },
        };
        content.insert(keys[i].clone(), value);
    }
    content
}

/// `content` with `extras` spliced in among its keys (each before the key at its index).
fn with_extras(
    content: &Map<String, Value>,
    extras: &[(usize, String, Value)],
) -> Map<String, Value> {
    let mut out = Map::new();
    let len = content.len();
    for (i, (k, v)) in content.iter().enumerate() {
        for (_, ek, ev) in extras.iter().filter(|(at, _, _)| at % (len + 1) == i) {
            out.entry(ek.clone()).or_insert_with(|| ev.clone());
        }
        out.insert(k.clone(), v.clone());
    }
    for (_, ek, ev) in extras.iter().filter(|(at, _, _)| at % (len + 1) == len) {
        out.entry(ek.clone()).or_insert_with(|| ev.clone());
    }
    out
}

type Verdict = Result<Map<String, Value>, ValidationErrors>;

fn verdict(schema: &FormSchema, content: Map<String, Value>, defaults: Defaults) -> Verdict {
    schema.accept(content, defaults).map(|a| a.into_content())
}

/// The server's pipeline before `accept`: drop undeclared keys, normalize, validate,
/// then apply defaults.
fn former_server(schema: &FormSchema, content: &Map<String, Value>) -> Verdict {
    let mut clean: Map<String, Value> = content
        .iter()
        .filter(|(k, _)| schema.field(k).is_some())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    schema.normalize(&mut clean);
    schema.validate(&clean)?;
    schema.apply_defaults(&mut clean);
    Ok(clean)
}

/// The client's pipeline before `accept`: normalize, defaults if configured, validate
/// (undeclared keys rejected).
fn former_client(schema: &FormSchema, content: &Map<String, Value>, apply: bool) -> Verdict {
    let mut content = content.clone();
    schema.normalize(&mut content);
    if apply {
        schema.apply_defaults(&mut content);
    }
    schema.validate(&content)?;
    Ok(content)
}

fn defaults(apply: bool) -> Defaults {
    if apply {
        Defaults::Apply
    } else {
        Defaults::Leave
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn accepted_content_always_validates(
        specs in prop::collection::vec(spec(), 0..10),
        seeds in prop::collection::vec(any::<u64>(), 1..10),
        plan in prop::collection::vec((0u8..5, any::<u64>()), 1..10),
        arbitrary in prop::collection::vec(arb_json(), 1..4),
        extras in prop::collection::vec((any::<usize>(), "x_[a-z]{1,3}", arb_json()), 0..4),
        apply in any::<bool>(),
    ) {
        let (schema, keys) = form_with_defaults(&specs, &seeds);
        let content = with_extras(&content_for(&specs, &keys, &plan, &arbitrary), &extras);
        let undeclared: Vec<String> =
            content.keys().filter(|k| schema.field(k).is_none()).cloned().collect();
        match schema.accept(content.clone(), defaults(apply)) {
            Ok(accepted) => {
                prop_assert!(schema.validate(accepted.content()).is_ok(), "{:?}", accepted);
                prop_assert_eq!(accepted.dropped(), undeclared.as_slice());
                for field in schema.fields() {
                    let filled = apply && !field.is_required() && field.default_value().is_some();
                    if filled || content.contains_key(field.key()) {
                        prop_assert!(accepted.content().contains_key(field.key()), "{}", field.key());
                    } else {
                        prop_assert!(!accepted.content().contains_key(field.key()), "{}", field.key());
                    }
                }
            }
            Err(errors) => {
                prop_assert!(errors.errors().iter().all(|e| e.code != ErrorCode::UnknownField));
                prop_assert!(errors.errors().iter().all(|e| e.field.as_deref().is_some_and(|k| schema.field(k).is_some())));
            }
        }
    }

    #[test]
    fn undeclared_keys_never_change_the_verdict(
        specs in prop::collection::vec(spec(), 0..10),
        seeds in prop::collection::vec(any::<u64>(), 1..10),
        plan in prop::collection::vec((0u8..5, any::<u64>()), 1..10),
        arbitrary in prop::collection::vec(arb_json(), 1..4),
        extras in prop::collection::vec((any::<usize>(), "x_[a-z]{1,3}", arb_json()), 1..5),
        apply in any::<bool>(),
    ) {
        let (schema, keys) = form_with_defaults(&specs, &seeds);
        let plain = content_for(&specs, &keys, &plan, &arbitrary);
        let noisy = with_extras(&plain, &extras);
        prop_assert!(noisy.len() > plain.len());
        let without = schema.accept(plain.clone(), defaults(apply));
        prop_assert!(without.as_ref().map_or(true, |a| a.dropped().is_empty()));
        prop_assert_eq!(
            without.map(|a| a.into_content()),
            verdict(&schema, noisy, defaults(apply))
        );
    }

    #[test]
    fn accept_agrees_with_the_former_pipelines_where_they_agreed(
        specs in prop::collection::vec(spec(), 0..10),
        seeds in prop::collection::vec(any::<u64>(), 1..10),
        plan in prop::collection::vec((0u8..5, any::<u64>()), 1..10),
        arbitrary in prop::collection::vec(arb_json(), 1..4),
        extras in prop::collection::vec((any::<usize>(), "x_[a-z]{1,3}", arb_json()), 0..3),
        apply in any::<bool>(),
    ) {
        let (schema, keys) = form_with_defaults(&specs, &seeds);
        let plain = content_for(&specs, &keys, &plan, &arbitrary);
        let noisy = with_extras(&plain, &extras);
        // The server always applied defaults and dropped undeclared keys.
        prop_assert_eq!(verdict(&schema, noisy.clone(), Defaults::Apply), former_server(&schema, &noisy));
        // The client agreed on answers without undeclared keys …
        prop_assert_eq!(verdict(&schema, plain.clone(), defaults(apply)), former_client(&schema, &plain, apply));
        // … and rejected any answer with one, which `accept` judges on its declared keys.
        if noisy.len() > plain.len() {
            prop_assert!(former_client(&schema, &noisy, apply).is_err());
        }
    }

    #[test]
    fn generated_valid_answer_validates(
        specs in prop::collection::vec(spec(), 0..12),
        seeds in prop::collection::vec(any::<u64>(), 1..12),
    ) {
        let (schema, keys) = form(&specs);
        let answer = valid_answer(&specs, &keys, &seeds);
        let result = schema.validate(&answer);
        prop_assert!(result.is_ok(), "{:?} for {:?}", result, Value::Object(answer));
    }

    #[test]
    fn mutated_answer_reports_the_broken_field(
        specs in prop::collection::vec(spec(), 1..12),
        seeds in prop::collection::vec(any::<u64>(), 1..12),
        pick in any::<prop::sample::Index>(),
        how in any::<u64>(),
    ) {
        let (schema, keys) = form(&specs);
        let mut answer = valid_answer(&specs, &keys, &seeds);
        let i = pick.index(specs.len());
        let (spec, required) = &specs[i];
        let key = &keys[i];
        let expect_code = if *required && how % 5 == 0 {
            answer.remove(key);
            Some("required")
        } else if how % 7 == 0 {
            answer.insert(format!("{key}_extra"), json!(1));
            Some("unknown_field")
        } else {
            answer.insert(key.clone(), broken_value(spec, how));
            None
        };
        let errors = schema.validate(&answer).expect_err("a broken answer must be rejected");
        if expect_code == Some("unknown_field") {
            let extra_key = format!("{key}_extra");
            prop_assert!(errors.errors().iter().all(|e| e.field.as_deref() == Some(extra_key.as_str())));
        } else {
            prop_assert!(
                errors.errors().iter().all(|e| e.field.as_deref() == Some(key.as_str())),
                "{:?} should only name {}", errors, key
            );
        }
        if let Some(code) = expect_code {
            prop_assert_eq!(errors.errors()[0].code.as_str(), code);
        }
        prop_assert!(errors.errors().iter().all(|e| !e.message.is_empty()));
    }

    #[test]
    fn lenient_parse_never_panics_and_round_trips(value in arb_json()) {
        let schema = json!({"type": "object", "properties": {"a": value.clone(), "b": {"type": "string"}}});
        let parsed = FormSchema::parse(&schema).expect("an object with object properties parses");
        prop_assert_eq!(parsed.schema.to_json(), schema);
        prop_assert!(parsed.schema.field("b").is_some_and(|f| f.is_supported()));
        // Whatever was parsed can be validated against without panicking.
        let _ = parsed.schema.validate_value(&json!({"a": value, "b": "x"}));
        if let Ok(p) = FormSchema::parse(&json!({"type": "object", "properties": {"x": {"type": "string"}}, "extra": 1})) {
            prop_assert!(p.is_clean());
        }
    }

    #[test]
    fn top_level_parse_never_panics(value in arb_json()) {
        let _ = FormSchema::parse(&value);
    }

    #[test]
    fn pattern_translation_never_panics(src in ".{0,40}", text in ".{0,40}") {
        if let Ok(p) = pattern::Pattern::new(&src, &frontdesk_form::Limits::default()) {
            let _ = p.is_match(&text);
        }
    }

    #[test]
    fn ecma_syntax_soup_never_panics(src in r"[\\\[\]\(\)\{\}\^\$\.\|\?\*\+\-,:=!<>a-d0-9ukxcpPbBdDwWsS]{0,30}") {
        if let Ok(p) = pattern::Pattern::new(&src, &frontdesk_form::Limits::default()) {
            let _ = p.is_match("abc 123 é");
        }
    }

    #[test]
    fn format_checks_never_panic(s in "\\PC{0,40}") {
        let _ = formats::is_email(&s);
        let _ = formats::is_uri(&s);
        let _ = formats::is_date(&s);
        let _ = formats::is_date_time(&s);
    }

    #[test]
    fn generated_dates_follow_the_calendar(y in 0u32..10000, m in 1u32..13, d in 1u32..32) {
        let s = format!("{y:04}-{m:02}-{d:02}");
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let days = match m { 2 if leap => 29, 2 => 28, 4 | 6 | 9 | 11 => 30, _ => 31 };
        prop_assert_eq!(formats::is_date(&s), d <= days);
    }
}

/// Arbitrary JSON that often uses the schema subset's keywords and type names.
fn arb_json() -> impl Strategy<Value = Value> {
    frontdesk_testkit::arb_json(
        &[
            "type",
            "enum",
            "oneOf",
            "anyOf",
            "items",
            "const",
            "title",
            "default",
            "minLength",
            "maximum",
            "minItems",
            "format",
            "pattern",
            "enumNames",
        ],
        &[
            "string", "number", "integer", "boolean", "array", "object", "email",
        ],
    )
}
