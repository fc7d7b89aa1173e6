//! Arbitrary JSON for property tests.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

/// A proptest strategy for arbitrary JSON values, biased towards a vocabulary.
///
/// Leaves are `null`, booleans, `i64` / `u64` / finite `f64` numbers and strings; objects
/// and arrays nest up to 4 levels, with up to 6 members each. Object keys are mostly
/// drawn from `keys` (each word as likely as a random `[a-z]{1,6}` key), string leaves
/// mostly from `words` (else random printable text), so a parser under test meets its
/// own keywords often enough to go deep. Either list may be empty.
pub fn arb_json(
    keys: &'static [&'static str],
    words: &'static [&'static str],
) -> BoxedStrategy<Value> {
    let text = biased(words, "\\PC{0,8}");
    let key = biased(keys, "[a-z]{1,6}");
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A word of `words` (each as likely as one random string), or a random string.
fn biased(words: &'static [&'static str], random: &'static str) -> BoxedStrategy<String> {
    if words.is_empty() {
        return random.boxed();
    }
    let weight = u32::try_from(words.len()).unwrap_or(u32::MAX);
    prop_oneof![
        weight => select(words).prop_map(str::to_owned),
        1 => random,
    ]
    .boxed()
}
