//! Benchmark: validating a 10-field answer (budget: ≤ 2 µs in release).

use criterion::{Criterion, criterion_group, criterion_main};
use frontdesk_form::FormSchema;
use serde_json::json;
use std::hint::black_box;

fn ten_field_form() -> FormSchema {
    FormSchema::builder()
        .string("name", |f| {
            f.title("Name").min_length(1).max_length(50).required()
        })
        .string("email", |f| f.title("Email").email().required())
        .string("homepage", |f| f.uri())
        .string("birthday", |f| f.date())
        .string("zip", |f| f.pattern(r"^\d{5}$"))
        .integer("seats", |f| f.title("Seats").range(1, 100).required())
        .number("budget", |f| f.minimum(0))
        .boolean("newsletter", |f| f.default(false))
        .select("color", |f| {
            f.option("#FF0000", "Red").option("#00FF00", "Green")
        })
        .multi_select("tags", |f| {
            f.options(["alpha", "beta", "gamma"]).max_items(2)
        })
        .build()
        .expect("benchmark form builds")
}

fn bench(c: &mut Criterion) {
    let form = ten_field_form();
    let answer = json!({
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "homepage": "https://example.com/ada",
        "birthday": "1815-12-10",
        "zip": "12345",
        "seats": 3,
        "budget": 12.5,
        "newsletter": true,
        "color": "#00FF00",
        "tags": ["alpha", "gamma"]
    });
    let content = answer.as_object().expect("object").clone();
    assert!(form.validate(&content).is_ok());
    c.bench_function("validate 10-field answer", |b| {
        b.iter(|| black_box(&form).validate(black_box(&content)))
    });
    let bad = json!({
        "name": "", "email": "nope", "homepage": "/rel", "birthday": "2023-02-29",
        "zip": "1234", "seats": 0, "budget": -1, "newsletter": "yes",
        "color": "blue", "tags": ["alpha", "alpha", "delta"]
    });
    let bad = bad.as_object().expect("object").clone();
    c.bench_function("validate 10-field answer, 10+ errors", |b| {
        b.iter(|| black_box(&form).validate(black_box(&bad)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
