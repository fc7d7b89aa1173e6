//! Golden files: the builder's wire JSON, checked byte for byte and against the official
//! `schema.json` of both protocol revisions.
//!
//! Set `UPDATE_GOLDEN=1` to rewrite the golden file after an intended change.

use frontdesk_form::{FormSchema, StringFormat};
use frontdesk_testkit::{REVISIONS, Schema};
use serde_json::{Value, json};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/every_kind.json");

fn read_golden() -> Value {
    frontdesk_testkit::read_json(std::path::Path::new(GOLDEN))
}

fn every_kind() -> FormSchema {
    FormSchema::builder()
        .title("Workspace")
        .description("Settings for your new workspace")
        .string("displayName", |f| {
            f.title("Display name")
                .description("Shown to your team")
                .min_length(3)
                .max_length(50)
                .default("octocat")
                .required()
        })
        .string("email", |f| f.title("Email").email().required())
        .string("birthday", |f| f.title("Birthday").date())
        .string("meeting", |f| f.title("First meeting").date_time())
        .string("homepage", |f| f.format(StringFormat::Uri))
        .string("zip", |f| f.title("ZIP code").pattern(r"^\d{5}$"))
        .integer("seats", |f| {
            f.title("Seats").range(1, 100).default(5).required()
        })
        .number("budget", |f| f.title("Budget").minimum(0).default(12.5))
        .boolean("newsletter", |f| f.title("Subscribe").default(false))
        .select("region", |f| {
            f.title("Region")
                .options(["eu", "us", "apac"])
                .default("eu")
        })
        .select("color", |f| {
            f.title("Color")
                .option("#FF0000", "Red")
                .option("#00FF00", "Green")
                .default("#FF0000")
        })
        .select("legacySize", |f| {
            f.option("s", "Small")
                .option("m", "Medium")
                .option("l", "Large")
                .legacy()
        })
        .multi_select("tags", |f| {
            f.title("Tags")
                .options(["alpha", "beta", "gamma"])
                .min_items(1)
                .max_items(2)
                .default(["alpha"])
        })
        .multi_select("palette", |f| {
            f.option("#FF0000", "Red")
                .option("#0000FF", "Blue")
                .default(["#0000FF"])
        })
        .build()
        .expect("the every-kind form builds")
}

fn form_params(schema: &FormSchema) -> Value {
    json!({
        "mode": "form",
        "message": "Configure your workspace",
        "requestedSchema": schema.to_json(),
    })
}

#[test]
fn builder_output_matches_golden_file() {
    let params = form_params(&every_kind());
    let text = serde_json::to_string_pretty(&params).expect("serializes") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(GOLDEN, &text).expect("golden file written");
    }
    let golden = std::fs::read_to_string(GOLDEN)
        .unwrap_or_else(|e| panic!("cannot read {GOLDEN}: {e}; run with UPDATE_GOLDEN=1"));
    assert_eq!(
        text, golden,
        "builder output changed; inspect and run with UPDATE_GOLDEN=1"
    );
}

#[test]
fn golden_file_validates_against_both_official_schemas() {
    let golden = read_golden();
    for revision in REVISIONS {
        let schema = Schema::load(revision);
        schema.assert_valid("ElicitRequestFormParams", &golden, "golden form params");
        // The validator really checks: a nested object is rejected.
        let mut bad = golden.clone();
        bad["requestedSchema"]["properties"]["nested"] = json!({"type": "object"});
        assert!(
            !schema.is_valid("ElicitRequestFormParams", &bad),
            "a nested object must not validate under {revision}"
        );
    }
}

#[test]
fn golden_file_parses_cleanly_and_round_trips() {
    let golden = read_golden();
    let parsed = FormSchema::parse(&golden["requestedSchema"]).expect("parses");
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    assert_eq!(parsed.schema.to_json(), golden["requestedSchema"]);
    assert_eq!(parsed.schema.fields().len(), 14);
}

#[test]
fn an_accepted_answer_validates_against_elicit_result() {
    let form = every_kind();
    // Integers only: the official typing of ElicitResult.content rejects floats.
    let content = json!({
        "displayName": "octocat", "email": "octo@example.com", "birthday": "2024-02-29",
        "meeting": "2026-11-29T10:00:00Z", "homepage": "https://example.com",
        "zip": "12345", "seats": 5, "budget": 12, "newsletter": true, "region": "us",
        "color": "#00FF00", "legacySize": "m", "tags": ["alpha", "beta"], "palette": []
    });
    form.validate_value(&content)
        .expect("the answer is valid for our form");
    let result = json!({"action": "accept", "content": content});
    for revision in REVISIONS {
        Schema::load(revision).assert_valid("ElicitResult", &result, "the accepted answer");
    }
}

/// The full example of ELICITATION.md §3.4 (our digest of the elicitation
/// specification), carried verbatim by `frontdesk-testkit`.
fn spec_example() -> Value {
    frontdesk_testkit::elicitation_form_example()
}

#[test]
fn spec_example_parses_without_diagnostics_and_reserializes_identically() {
    let example = spec_example();
    let schema_json = &example["requestedSchema"];
    let parsed = FormSchema::parse(schema_json).expect("parses");
    assert!(parsed.is_clean(), "{:?}", parsed.diagnostics);
    assert!(parsed.schema.is_fully_supported());
    assert_eq!(
        serde_json::to_string(&parsed.schema).expect("serializes"),
        serde_json::to_string(schema_json).expect("serializes"),
    );
    let keys: Vec<&str> = parsed.schema.fields().iter().map(|f| f.key()).collect();
    assert_eq!(
        keys,
        [
            "displayName",
            "email",
            "birthday",
            "homepage",
            "seats",
            "budget",
            "newsletter",
            "region",
            "color",
            "tags",
            "palette",
            "legacySize"
        ]
    );
    // And the example validates against both official schemas.
    for revision in REVISIONS {
        Schema::load(revision).assert_valid("ElicitRequestFormParams", &example, "§3.4 example");
    }
}

#[test]
fn builder_reproduces_the_spec_example() {
    let example = spec_example();
    let form = FormSchema::builder()
        .string("displayName", |f| {
            f.title("Display name")
                .min_length(3)
                .max_length(50)
                .default("octocat")
                .required()
        })
        .string("email", |f| f.title("Email").email().required())
        .string("birthday", |f| f.date())
        .string("homepage", |f| f.uri())
        .integer("seats", |f| {
            f.title("Seats").range(1, 100).default(5).required()
        })
        .number("budget", |f| f.minimum(0).default(12.5))
        .boolean("newsletter", |f| f.title("Subscribe").default(false))
        .select("region", |f| {
            f.title("Region")
                .options(["eu", "us", "apac"])
                .default("eu")
        })
        .select("color", |f| {
            f.title("Color")
                .option("#FF0000", "Red")
                .option("#00FF00", "Green")
                .default("#FF0000")
        })
        .multi_select("tags", |f| {
            f.title("Tags")
                .min_items(1)
                .max_items(2)
                .options(["alpha", "beta", "gamma"])
                .default(["alpha"])
        })
        .multi_select("palette", |f| {
            f.option("#FF0000", "Red")
                .option("#0000FF", "Blue")
                .default(["#0000FF"])
        })
        .select("legacySize", |f| {
            f.option("s", "Small")
                .option("m", "Medium")
                .option("l", "Large")
                .legacy()
        })
        .build()
        .expect("builds");
    assert_eq!(form.to_json(), example["requestedSchema"]);
}
