//! Round trips: answers generated from the derived schema's own field descriptions are
//! valid, and every valid answer reads back into the struct, value for value.

use std::collections::BTreeSet;

use frontdesk_form::{
    Field, FieldKind, Form, FormEnum, FormSchema, MultiSelectField, NumberField, StringFormat,
    TextField,
};
use proptest::prelude::*;
use proptest::sample::subsequence;
use serde_json::{Map, Value, json};

use crate::forms::{Empty, EveryKind, Plain, Reason};

fn text(t: &TextField) -> BoxedStrategy<Value> {
    let s: BoxedStrategy<String> = match (t.format, &t.pattern) {
        (Some(StringFormat::Email), _) => "[a-z]{1,8}@[a-z]{1,8}\\.example".boxed(),
        (Some(StringFormat::Uri), _) => "https://[a-z]{1,8}\\.example/[a-z0-9]{0,6}".boxed(),
        (Some(StringFormat::Date), _) => date().boxed(),
        (Some(StringFormat::DateTime), _) => (date(), 0u8..24, 0u8..60, 0u8..60, any::<bool>())
            .prop_map(|(d, h, m, s, z)| {
                let off = if z { "Z" } else { "+05:30" };
                format!("{d}T{h:02}:{m:02}:{s:02}{off}")
            })
            .boxed(),
        (_, Some(p)) => {
            let src = p.as_str().trim_start_matches('^').trim_end_matches('$');
            proptest::string::string_regex(src)
                .expect("test patterns are simple regexes")
                .boxed()
        }
        _ => {
            let lo = t.min_length.unwrap_or(0) as usize;
            let hi = t.max_length.map_or(lo + 12, |m| m as usize);
            proptest::collection::vec(any::<char>(), lo..=hi)
                .prop_map(|cs| cs.into_iter().collect())
                .boxed()
        }
    };
    s.prop_map(Value::from).boxed()
}

fn date() -> impl Strategy<Value = String> {
    (1u16..=9999, 1u8..=12, 1u8..=28).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

fn number(n: &NumberField) -> BoxedStrategy<Value> {
    let lo = n.minimum.unwrap_or(-1e12);
    let hi = n.maximum.unwrap_or(1e12);
    if n.integer {
        let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
        prop_oneof![
            Just(Value::from(lo)),
            Just(Value::from(hi)),
            (lo..=hi).prop_map(Value::from),
            // A whole float, as some clients send: normalize() makes it an integer.
            (lo.max(-1000)..=hi.min(1000)).prop_map(|i| json!(i as f64)),
        ]
        .boxed()
    } else {
        prop_oneof![
            Just(json!(lo)),
            Just(json!(hi)),
            (lo..=hi).prop_map(|f| json!(f)),
        ]
        .boxed()
    }
}

fn multi(m: &MultiSelectField) -> BoxedStrategy<Value> {
    let values: Vec<String> = m.options.iter().map(|o| o.value.clone()).collect();
    let lo = m.min_items.unwrap_or(0) as usize;
    let hi = m
        .max_items
        .map_or(values.len(), |h| (h as usize).min(values.len()));
    subsequence(values, lo..=hi)
        .prop_shuffle()
        .prop_map(|v| Value::Array(v.into_iter().map(Value::from).collect()))
        .boxed()
}

fn value(field: &Field) -> BoxedStrategy<Value> {
    match field.kind() {
        FieldKind::Text(t) => text(t),
        FieldKind::Number(n) => number(n),
        FieldKind::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        FieldKind::Select(s) => proptest::sample::select(
            s.options
                .iter()
                .map(|o| o.value.clone())
                .collect::<Vec<_>>(),
        )
        .prop_map(Value::from)
        .boxed(),
        FieldKind::MultiSelect(m) => multi(m),
        other => panic!("a derived form has no {other:?} field"),
    }
}

/// Valid answers of a schema: each field answered, or (when optional) left out.
fn answers(schema: &FormSchema) -> BoxedStrategy<Map<String, Value>> {
    let mut s: BoxedStrategy<Map<String, Value>> = Just(Map::new()).boxed();
    for f in schema.fields() {
        let key = f.key().to_owned();
        let v = if f.is_required() {
            value(f).prop_map(Some).boxed()
        } else {
            proptest::option::of(value(f)).boxed()
        };
        s = (s, v)
            .prop_map(move |(mut m, v)| {
                if let Some(v) = v {
                    m.insert(key.clone(), v);
                }
                m
            })
            .boxed();
    }
    s
}

/// The content a typed value stands for, to compare with what was answered.
fn content_of(v: &EveryKind) -> Map<String, Value> {
    fn opt<T: Into<Value> + Clone>(m: &mut Map<String, Value>, k: &str, v: &Option<T>) {
        if let Some(v) = v {
            m.insert(k.into(), v.clone().into());
        }
    }
    fn list<'a, E: FormEnum + 'a>(items: impl IntoIterator<Item = &'a E>) -> Value {
        Value::Array(items.into_iter().map(|e| Value::from(e.value())).collect())
    }
    let mut m = Map::new();
    m.insert("reason".into(), v.reason.value().into());
    m.insert("region".into(), v.region.value().into());
    m.insert("numberOfBoxes".into(), v.number_of_boxes.into());
    m.insert("weightKg".into(), v.weight_kg.into());
    opt(&mut m, "temperature", &v.temperature.map(f64::from));
    m.insert("ratio".into(), f64::from(v.ratio).into());
    opt(&mut m, "parcelCount", &v.parcel_count);
    m.insert("orderNumber".into(), v.order_number.into());
    opt(&mut m, "trackingId", &v.tracking_id);
    m.insert("offset".into(), v.offset.into());
    m.insert("insured".into(), v.insured.into());
    m.insert("notify".into(), v.notify.into());
    m.insert("displayName".into(), v.display_name.clone().into());
    opt(&mut m, "order_ref", &v.order_reference);
    opt(&mut m, "backupEmail", &v.backup_email);
    m.insert("email".into(), v.email.as_str().into());
    opt(
        &mut m,
        "homepage",
        &v.homepage.as_ref().map(|u| u.to_string()),
    );
    m.insert("pickupDate".into(), v.pickup_date.as_str().into());
    opt(
        &mut m,
        "pickupWindow",
        &v.pickup_window.as_ref().map(|d| d.to_string()),
    );
    m.insert("colors".into(), list(&v.colors));
    if let Some(r) = &v.regions {
        m.insert("regions".into(), list(r));
    }
    m.insert("reasons".into(), list(&v.reasons));
    m
}

/// Sets do not keep the answer's order, and `f32` fields keep `f32` precision.
fn comparable(mut m: Map<String, Value>) -> Map<String, Value> {
    for k in ["regions", "reasons"] {
        if let Some(Value::Array(a)) = m.get_mut(k) {
            let set: BTreeSet<String> = a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            *a = set.into_iter().map(Value::from).collect();
        }
    }
    for k in ["temperature", "ratio"] {
        if let Some(v) = m.get_mut(k) {
            *v = json!(f64::from(v.as_f64().unwrap_or(0.0) as f32));
        }
    }
    for k in ["weightKg"] {
        if let Some(v) = m.get_mut(k) {
            *v = json!(v.as_f64().unwrap_or(0.0));
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_valid_answer_reads_back(content in answers(&EveryKind::schema())) {
        let schema = EveryKind::schema();
        let mut expected = content.clone();
        schema.normalize(&mut expected);
        prop_assert!(schema.validate(&expected).is_ok(), "generated answer invalid: {:?}", schema.validate(&expected));
        schema.apply_defaults(&mut expected);

        let typed = EveryKind::from_answer(content.clone());
        prop_assert!(typed.is_ok(), "{:?}", typed);
        let typed = typed.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!(comparable(content_of(&typed)), comparable(expected.clone()));

        // from_content alone, on normalized and completed content, agrees.
        let again = EveryKind::from_content(expected);
        prop_assert_eq!(again.ok(), Some(typed));
    }

    #[test]
    fn plain_answers_read_back(content in answers(&Plain::schema())) {
        let p = Plain::from_answer(content.clone());
        prop_assert!(p.is_ok(), "{:?}", p);
        let p = p.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!(Some(&Value::from(p.r#type.clone())), content.get("type"));
        prop_assert_eq!(p.count as f64, content["count"].as_f64().unwrap_or(-1.0));
        prop_assert_eq!(p.flag, content.get("flag").and_then(Value::as_bool));
    }
}

#[test]
fn missing_optional_fields_take_defaults() {
    let content = json!({
        "reason": "damaged", "weightKg": 2.5, "ratio": 0.5, "orderNumber": 12,
        "offset": -3, "insured": false, "notify": true, "email": "a@b.example",
        "pickupDate": "2026-03-01", "reasons": ["unwanted"]
    });
    let v = EveryKind::from_answer(content.as_object().cloned().unwrap_or_default())
        .expect("valid answer");
    assert_eq!(v.number_of_boxes, 1);
    assert_eq!(v.display_name, "octocat");
    assert_eq!(v.region.value(), "eu");
    assert_eq!(
        v.colors.iter().map(|c| c.value()).collect::<Vec<_>>(),
        ["#0000FF"]
    );
    assert_eq!(
        v.reasons.into_iter().collect::<Vec<_>>(),
        [Reason::NotNeeded]
    );
    assert_eq!(v.temperature, None);
    assert_eq!(v.pickup_date.day(), 1);
}

#[test]
fn invalid_answers_are_reported_not_panicked() {
    let bad = json!({ "reason": "lost", "numberOfBoxes": 9 });
    let err =
        EveryKind::from_answer(bad.as_object().cloned().unwrap_or_default()).expect_err("invalid");
    assert!(err.problems.len() >= 3, "{err}");
    assert!(
        err.to_string()
            .contains("Number of boxes must be between 1 and 3"),
        "{err}"
    );
    // from_content on unvalidated content fails with a sentence, never a panic.
    let err = Plain::from_content(json!({"type": 3}).as_object().cloned().unwrap_or_default())
        .expect_err("wrong type");
    assert_eq!(err.to_string(), "field \"type\": expected text");
    let err = Plain::from_content(Map::new()).expect_err("missing");
    assert_eq!(err.to_string(), "field \"type\": is required");
    let err = Plain::from_content(
        json!({"type": "x", "count": -1})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    )
    .expect_err("negative usize");
    assert_eq!(
        err.to_string(),
        "field \"count\": expected a whole number in range"
    );
    assert!(Empty::from_answer(Map::new()).is_ok());
}

#[test]
fn form_enum_contract() {
    assert_eq!(
        Reason::OPTIONS,
        &[
            ("damaged", Some("It arrived damaged")),
            ("wrong_item", Some("Wrong item")),
            ("unwanted", Some("No longer needed")),
        ]
    );
    for (v, _) in Reason::OPTIONS {
        let r = Reason::from_value(v).expect("every option reads back");
        assert_eq!(r.value(), *v);
    }
    assert_eq!(Reason::WrongItem.title(), Some("Wrong item"));
    assert_eq!(Reason::from_value("Damaged"), None);
}
