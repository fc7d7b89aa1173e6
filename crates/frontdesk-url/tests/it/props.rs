//! No panic on any string, and invariants that hold for every review.

use frontdesk_url::{Severity, UrlPolicy, UrlReview, Verdict, review};
use proptest::prelude::*;

fn check_invariants(r: &UrlReview) {
    let worst = r.findings().iter().map(|f| f.severity).max();
    let want = match worst {
        Some(Severity::Refusal) => Verdict::Refused,
        Some(Severity::Warning) => Verdict::AllowedWithWarnings,
        _ => Verdict::Allowed,
    };
    assert_eq!(r.verdict(), want);
    if let Some(url) = r.url() {
        assert!(url.is_ascii(), "opened URL must be ASCII: {url:?}");
    }
    assert_eq!(r.consented().is_some(), r.may_open() && r.url().is_some());
    let _ = r.plain_text();
    if let Some((a, b, c)) = r.highlight_parts() {
        assert_eq!(Some(format!("{a}{b}{c}").as_str()), r.url());
        assert_eq!(Some(b), r.registrable_domain());
    }
    for f in r.findings() {
        assert!(
            !f.message.chars().any(|c| matches!(c,
                '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}')
                || (c.is_control() && c != '\n')),
            "finding message has raw controls: {:?}",
            f.message
        );
    }
}

fn policies() -> [UrlPolicy; 2] {
    [
        UrlPolicy::default(),
        UrlPolicy::strict()
            .allow_scheme("myapp")
            .trust_domain("example.com")
            .max_url_length(64),
    ]
}

/// Characters that make URL parsing and the checks interesting.
fn tricky() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "A",
        "0",
        "1",
        ".",
        "..",
        "-",
        "@",
        ":",
        "/",
        "\\",
        "%",
        "%2e",
        "%41",
        "?",
        "#",
        "[",
        "]",
        "::1",
        "xn--",
        "xn--80ak6aa92e",
        "а",
        "р",
        "ӏ",
        "ο",
        "α",
        "ｅ",
        "．",
        "。",
        "\u{AD}",
        "\u{200B}",
        "\u{200D}",
        "\u{202E}",
        "\u{2066}",
        "\u{E0041}",
        "\u{FEFF}",
        " ",
        "\t",
        "\n",
        "\0",
        "ß",
        "ı",
        "Ⅼ",
        "ⅼ",
        "ع",
        "א",
        "日",
        "0x",
        "0300",
        "4294967296",
        "com",
        "localhost",
        "paypal",
        "google",
        "apple",
        "https:",
        "http:",
        "//",
        "javascript:",
    ]);
    prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

const TEMPLATES: &[&str] = &[
    "https://{}/x",
    "https://a.com/{}",
    "https://{}.com",
    "http://{}:8080/",
    "https://{}@example.com/",
    "{}://example.com",
    "https://example.com:{}/",
    "https://[{}]/",
    "{}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_any_string(s in any::<String>()) {
        for p in policies() {
            check_invariants(&review(&s, &p));
        }
    }

    #[test]
    fn never_panics_in_templates(s in any::<String>(), t in 0..TEMPLATES.len()) {
        let input = TEMPLATES[t].replace("{}", &s);
        for p in policies() {
            check_invariants(&review(&input, &p));
        }
    }

    #[test]
    fn never_panics_on_tricky_pieces(s in tricky(), t in 0..TEMPLATES.len()) {
        let input = TEMPLATES[t].replace("{}", &s);
        for p in policies() {
            check_invariants(&review(&input, &p));
        }
    }
}
