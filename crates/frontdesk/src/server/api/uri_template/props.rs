//! The linear matcher answers exactly what the old one ([`reference`])
//! answered, on templates of the supported subset and short URIs over an
//! alphabet of the characters that matter: separators, `%` and hex digits,
//! escapes (whole, broken, overlong, of multibyte characters), multibyte
//! characters, and the template's own literals. `PROPTEST_CASES` sets the
//! number of cases (default 2,048).

use proptest::prelude::*;

use crate::server::api::uri_template::{UriTemplate, decode, reference};

/// Pieces of template literals (`{` and `}` cannot occur in one).
const LITERALS: &[&str] = &[
    "a", "b", "/", ".", "-", "x/", "ab", "aa", "aba", "é", "%", "%4", "%41", "?", "#", "+", "://",
];

/// Pieces of URIs.
const URI_PIECES: &[&str] = &[
    "a",
    "b",
    "/",
    "?",
    "#",
    "%",
    "4",
    "1",
    "C",
    "3",
    "A",
    "9",
    "e",
    "+",
    ".",
    "%41",
    "%2F",
    "%3f",
    "%C3%A9",
    "%c3%a9",
    "%C3",
    "%A9",
    "%E6%97%A5",
    "%E6%97",
    "%F0%9F%98%80",
    "%C0%AF",
    "%ED%A0%80",
    "%FF",
    "%+1",
    "%%",
    "%4",
    "é",
    "日",
    "😀",
];

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048)
}

fn literal() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(LITERALS), 1..3).prop_map(|p| p.concat())
}

fn uri_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(URI_PIECES).prop_map(str::to_string),
        1 => literal(),
    ]
}

/// A template's source: an optional leading literal, then up to three
/// variables (simple or reserved) each followed by a literal, the last one
/// optional.
fn template() -> impl Strategy<Value = String> {
    (
        prop::option::of(literal()),
        prop::collection::vec((any::<bool>(), literal()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(lead, vars, open_end)| {
            let mut source = lead.unwrap_or_default();
            let count = vars.len();
            for (i, (reserved, lit)) in vars.into_iter().enumerate() {
                source.push_str(if reserved { "{+" } else { "{" });
                source.push_str(&format!("v{i}}}"));
                if !(open_end && i + 1 == count) {
                    source.push_str(&lit);
                }
            }
            source
        })
}

/// A URI: pieces at random, or the template with its variables replaced by
/// pieces (so that many cases match, or nearly).
fn case() -> impl Strategy<Value = (String, String)> {
    template().prop_flat_map(|source| {
        let random = prop::collection::vec(uri_piece(), 0..12).prop_map(|p| p.concat());
        let filled = prop::collection::vec(prop::collection::vec(uri_piece(), 0..4), 4).prop_map({
            let source = source.clone();
            move |values| {
                let mut uri = source.clone();
                for (i, value) in values.iter().enumerate() {
                    let value = value.concat();
                    uri = uri
                        .replace(&format!("{{+v{i}}}"), &value)
                        .replace(&format!("{{v{i}}}"), &value);
                }
                uri
            }
        });
        (Just(source), prop_oneof![random, filled])
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn the_linear_matcher_answers_what_the_old_one_did((source, uri) in case()) {
        let template = UriTemplate::parse(&source).expect("the strategy builds supported templates");
        let linear = template.matches(&uri);
        prop_assert_eq!(&linear, &reference::matches(&template, &uri), "{} on {:?}", source, uri);
        // The captures lie end to end between the literals and decode to the values.
        if let Some(captures) = template.captures(&uri) {
            let values: Vec<_> = captures
                .iter()
                .map(|c| (c.name.to_string(), decode(&uri[c.range.clone()], c.reserved).unwrap()))
                .collect();
            prop_assert_eq!(Some(values), linear);
        }
    }
}
