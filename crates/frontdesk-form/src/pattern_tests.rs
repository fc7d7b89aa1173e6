use super::*;

fn m(pattern: &str, text: &str) -> bool {
    let p = Pattern::new(pattern, &Limits::default())
        .unwrap_or_else(|e| panic!("{pattern} should compile: {e}"));
    p.is_match(text).expect("within the work limit")
}

#[test]
fn translation_of_shorthands() {
    assert_eq!(translate(r"\d").unwrap(), "[0-9]");
    assert_eq!(translate(r"\D").unwrap(), "[^0-9]");
    assert_eq!(translate(r"\w").unwrap(), "[A-Za-z0-9_]");
    assert_eq!(translate(r"^a$").unwrap(), r"\Aa\z");
    assert_eq!(translate(r"\/").unwrap(), r"\x{2F}");
    assert_eq!(translate(r"a{,3}").unwrap(), r"a\x{7B}\x{2C}3\x{7D}");
    assert_eq!(translate(r"a{2,3}").unwrap(), "a{2,3}");
    assert_eq!(translate(r"[^]").unwrap(), r"[\x{0}-\x{10FFFF}]");
    assert_eq!(translate(r"[]").unwrap(), "(?!)");
}

#[test]
fn digits_and_words_are_ascii() {
    assert!(m(r"^\d{5}$", "12345"));
    assert!(!m(r"^\d{5}$", "١٢٣٤٥"));
    assert!(m(r"^\D+$", "١٢٣"));
    assert!(m(r"^\w+$", "abc_09"));
    assert!(!m(r"^\w+$", "é"));
    assert!(m(r"^\W$", "é"));
    assert!(m(r"^[\w-]+$", "a-b_c"));
    assert!(!m(r"^[^\d]$", "5"));
    assert!(m(r"^[^\D]$", "5"));
    assert!(!m(r"^[^\D]$", "x"));
}

#[test]
fn ecma_whitespace() {
    for ws in [
        "\t", "\u{B}", "\u{C}", " ", "\u{A0}", "\u{FEFF}", "\u{2028}", "\u{3000}",
    ] {
        assert!(m(r"^\s$", ws), "{ws:?} is ECMA whitespace");
    }
    assert!(!m(r"^\s$", "\u{85}"), "NEL is not ECMA whitespace");
    assert!(m(r"^\S$", "\u{85}"));
}

#[test]
fn dot_excludes_line_terminators_only() {
    assert!(m(r"^.$", "é"));
    assert!(m(r"^.$", "😀"));
    for lt in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        assert!(!m(r"^.$", lt));
    }
    assert!(m(r"^[^]$", "\n"));
    assert!(!m(r"a[]", "a"));
}

#[test]
fn anchors_are_whole_input() {
    assert!(!m(r"^b", "a\nb"));
    assert!(!m(r"a$", "a\nb"));
    assert!(!m(r"^abc$", "abc\n"));
    assert!(m(r"b", "abc"), "patterns are not anchored");
}

#[test]
fn word_boundary_is_ascii() {
    assert!(m(r"\bfoo\b", "éfoo"));
    assert!(!m(r"\bfoo\b", "afoo"));
    assert!(m(r"a\Bb", "ab"));
    assert!(m(r"^[\b]$", "\u{8}"));
}

#[test]
fn annex_b_literals_and_escapes() {
    assert!(m(r"^a{,3}$", "a{,3}"));
    assert!(m(r"^{$", "{"));
    assert!(m(r"^a}$", "a}"));
    assert!(m(r"^]$", "]"));
    assert!(m(r"^https:\/\/x$", "https://x"));
    assert!(m(r"^\.\*\+\?\(\)\[\]\{\}\|\^\$\\$", r".*+?()[]{}|^$\"));
    assert!(m(r"^[.*+?()|{}$^]+$", "(|)"));
    assert!(m(r"^[a\-z]+$", "-"));
    assert!(!m(r"^[a\-z]+$", "b"));
    assert!(m(r"^[-a]$", "-"));
    assert!(m(r"^[a-]$", "-"));
    assert!(m(r"^[&&~~]$", "&"));
}

#[test]
fn code_point_escapes() {
    assert!(m(r"^\x41\u0042\u{43}$", "ABC"));
    assert!(m(r"^\uD83D\uDE00$", "😀"));
    assert!(m(r"^\u{1F600}$", "😀"));
    assert!(m(r"^\cJ$", "\n"));
    assert!(m(r"^\0$", "\0"));
    assert!(m(r"^[\u0041-\u005A]+$", "XYZ"));
    assert!(matches!(translate(r"\uD83D"), Err(PatternError::Syntax(_))));
}

#[test]
fn groups_backrefs_lookaround() {
    assert!(m(r"^(a)\1$", "aa"));
    assert!(m(r"^(?<x>ab)\k<x>$", "abab"));
    assert!(m(r"(?<=a)b", "ab"));
    assert!(!m(r"(?<!a)b", "ab"));
    assert!(m(r"^(?:a|b)+$", "abba"));
    assert!(m(r"^a(?=b)", "ab"));
    assert!(m(r"^\p{L}+$", "Ωmega"));
    assert!(m(r"^\P{L}+$", "123"));
    assert!(m(r"^[\p{Lu}]+$", "ÀB"));
}

#[test]
fn untranslatable_patterns_are_errors() {
    for bad in [
        r"(",
        r")",
        r"[a",
        r"\",
        r"(?i)a",
        r"[z-a]",
        r"\q",
        r"a{3,2}",
        r"\k<1>",
        r"(?P<x>a)",
    ] {
        assert!(
            Pattern::new(bad, &Limits::default()).is_err(),
            "{bad} should be rejected"
        );
    }
}

#[test]
fn limits_are_enforced() {
    let limits = Limits {
        max_pattern_len: 5,
        ..Limits::default()
    };
    assert_eq!(
        Pattern::new("abcdef", &limits).unwrap_err(),
        PatternError::TooLong { len: 6, max: 5 }
    );
    // A pattern whose compiled form is huge.
    let big = Pattern::new(r"(\w{1000}){1000}", &Limits::default());
    assert!(matches!(
        big,
        Err(PatternError::Syntax(_)) | Err(PatternError::Compile(_))
    ));
}

#[test]
fn hostile_pattern_stops_with_an_error() {
    let p = Pattern::new(r"^(?=a)(a|aa)+\1b$", &Limits::default()).unwrap();
    let text = "a".repeat(40) + "!";
    let started = std::time::Instant::now();
    assert_eq!(p.is_match(&text), Err(PatternWorkExceeded));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // Without backreferences the linear engine answers at once.
    let p = Pattern::new(r"^(a+)+$", &Limits::default()).unwrap();
    assert_eq!(p.is_match(&text), Ok(false));
}

#[test]
fn source_is_kept_verbatim() {
    let p = Pattern::new(r"^[A-Za-z]+$", &Limits::default()).unwrap();
    assert_eq!(p.as_str(), r"^[A-Za-z]+$");
}
