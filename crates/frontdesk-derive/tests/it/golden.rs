//! Golden files: the derived schema, byte for byte, and valid against the official
//! `schema.json` of both protocol revisions. `UPDATE_GOLDEN=1` rewrites the files.

use frontdesk_form::{Form, FormSchema};
use frontdesk_testkit::{REVISIONS, Schema};
use serde_json::json;

use crate::forms::{Empty, EveryKind, Plain};

fn golden_path(name: &str) -> String {
    format!("{}/tests/golden/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

fn check_golden(name: &str, schema: &FormSchema) {
    let text = serde_json::to_string_pretty(schema).expect("serializable") + "\n";
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).expect("write golden");
    }
    let want = std::fs::read_to_string(&path).expect("golden file exists");
    assert_eq!(text, want, "{name}: derived schema differs from {path}");

    let params = json!({
        "mode": "form",
        "message": "Please answer",
        "requestedSchema": schema.to_json(),
    });
    for revision in REVISIONS {
        Schema::load(revision).assert_valid("ElicitRequestFormParams", &params, name);
    }
}

#[test]
fn every_kind_golden() {
    check_golden("every_kind", &EveryKind::schema());
}

#[test]
fn plain_golden() {
    check_golden("plain", &Plain::schema());
}

#[test]
fn empty_golden() {
    check_golden("empty", &Empty::schema());
}

/// The derive and a hand-written builder give the very same JSON.
#[test]
fn derive_equals_builder() {
    let hand = FormSchema::builder()
        .string("type", |f| f.required())
        .integer("count", |f| {
            f.range(0i64, 9_007_199_254_740_991i64).required()
        })
        .boolean("flag", |f| f)
        .build()
        .expect("valid");
    assert_eq!(
        serde_json::to_string(&Plain::schema()).expect("json"),
        serde_json::to_string(&hand).expect("json")
    );
}

#[test]
fn order_is_field_order_and_required_is_right() {
    let s = EveryKind::schema();
    let keys: Vec<&str> = s.fields().iter().map(|f| f.key()).collect();
    assert_eq!(
        keys,
        [
            "reason",
            "region",
            "numberOfBoxes",
            "weightKg",
            "temperature",
            "ratio",
            "parcelCount",
            "orderNumber",
            "trackingId",
            "offset",
            "insured",
            "notify",
            "displayName",
            "order_ref",
            "backupEmail",
            "email",
            "homepage",
            "pickupDate",
            "pickupWindow",
            "colors",
            "regions",
            "reasons",
        ]
    );
    assert_eq!(
        s.required(),
        [
            "reason",
            "weightKg",
            "ratio",
            "orderNumber",
            "offset",
            "insured",
            "notify",
            "email",
            "pickupDate",
            "reasons",
        ]
    );
    assert!(s.is_fully_supported());
    assert_eq!(s.title(), Some("Return a package"));
}

/// A return form (reason select, bounded integer with a default, required
/// date) written twice: with `#[derive(Form)]` and with the strict
/// `FormSchema::builder()`. The derive's schema must equal the builder's,
/// byte for byte, and an answer reads back into the struct with the default
/// applied. (A stand-alone form, not the demo's `ReturnForm`, which lives in
/// `frontdesk` and has more fields.)
#[test]
fn derive_output_equals_the_strict_builders_output_for_the_same_form() {
    use frontdesk_derive::{Form, FormEnum};

    #[derive(Debug, Clone, Copy, PartialEq, Eq, FormEnum)]
    #[form(rename_all = "snake_case")]
    enum ReturnReason {
        #[form(title = "It arrived damaged")]
        Damaged,
        #[form(title = "Wrong item")]
        WrongItem,
        #[form(title = "No longer needed")]
        NotNeeded,
    }

    #[derive(Debug, Form)]
    struct ReturnForm {
        #[form(title = "Reason")]
        reason: ReturnReason,
        #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
        boxes: i64,
        #[form(title = "Pickup date")]
        pickup_date: frontdesk_form::Date,
    }

    let hand = FormSchema::builder()
        .select("reason", |f| {
            f.title("Reason")
                .option("damaged", "It arrived damaged")
                .option("wrong_item", "Wrong item")
                .option("not_needed", "No longer needed")
                .required()
        })
        .integer("boxes", |f| {
            f.title("Number of boxes").range(1, 3).default(1)
        })
        .string("pickup_date", |f| f.title("Pickup date").date().required())
        .build()
        .expect("valid");
    assert_eq!(
        serde_json::to_string(&ReturnForm::schema()).expect("json"),
        serde_json::to_string(&hand).expect("json")
    );
    let answer = json!({ "reason": "wrong_item", "pickup_date": "2026-04-02" });
    let form = ReturnForm::from_answer(answer.as_object().cloned().unwrap_or_default())
        .expect("valid answer");
    assert_eq!(form.reason, ReturnReason::WrongItem);
    assert_eq!(form.boxes, 1);
    assert_eq!(form.pickup_date.as_str(), "2026-04-02");
}

/// Issue 9: a variant's doc comment used to become its title, silently turning the
/// field's `enum` into a titled `oneOf`. Titles come only from `#[form(title = "...")]`;
/// an enum whose variants have only doc comments is a plain `enum` (`items.enum` in a
/// multi-select), exactly as without the comments.
#[test]
fn variant_doc_comments_never_change_the_wire() {
    use frontdesk_derive::{Form, FormEnum};
    use frontdesk_form::FormEnum as _;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, FormEnum)]
    #[form(rename_all = "lowercase")]
    enum Size {
        /// Fits in a letterbox.
        Small,
        /// Needs a signature.
        ///
        /// Second paragraph.
        Large,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, FormEnum)]
    #[form(rename_all = "lowercase")]
    enum Bare {
        Small,
        Large,
    }

    #[allow(dead_code)] // only the schemas are under test
    #[derive(Debug, Form)]
    struct Parcel {
        size: Size,
        sizes: Vec<Size>,
    }

    #[allow(dead_code)]
    #[derive(Debug, Form)]
    struct BareParcel {
        size: Bare,
        sizes: Vec<Bare>,
    }

    assert_eq!(Size::OPTIONS, [("small", None), ("large", None)]);
    let schema = Parcel::schema().to_json();
    assert_eq!(
        schema["properties"],
        json!({
            "size": {"type": "string", "enum": ["small", "large"]},
            "sizes": {"type": "array", "items": {"type": "string", "enum": ["small", "large"]}}
        })
    );
    assert_eq!(schema, BareParcel::schema().to_json());
}
