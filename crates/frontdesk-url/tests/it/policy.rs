//! Policy knobs and the stable names.

use frontdesk_url::{FindingCode, Severity, UrlPolicy, Verdict, review};

#[test]
fn default_policy_is_safe() {
    let p = UrlPolicy::default();
    assert!(p.loopback_http_allowed());
    assert!(p.extra_schemes().is_empty());
    assert!(p.trusted_domains().is_empty());
    assert_eq!(review("http://example.com", &p).verdict(), Verdict::Refused);
    assert_eq!(
        review("http://localhost:1/", &UrlPolicy::strict()).verdict(),
        Verdict::Refused
    );
}

#[test]
fn dangerous_schemes_stay_refused() {
    let mut p = UrlPolicy::default();
    for s in frontdesk_url::NEVER_ALLOWED_SCHEMES {
        p = p.allow_scheme(s);
    }
    for url in [
        "javascript:alert(1)",
        "data:,x",
        "file:///etc/passwd",
        "blob:x",
    ] {
        assert!(review(url, &p).has(FindingCode::DisallowedScheme), "{url}");
    }
}

#[test]
fn trust_covers_subdomains_and_unicode_forms() {
    let p = UrlPolicy::default()
        .trust_domain("Example.COM.")
        .trust_domain("münchen.de");
    assert_eq!(p.trusted_domains(), ["example.com", "xn--mnchen-3ya.de"]);
    assert!(p.is_trusted("login.example.com"));
    assert!(p.is_trusted("xn--mnchen-3ya.de"));
    assert!(!p.is_trusted("evilexample.com"));
    assert!(!p.is_trusted("example.com.evil.io"));
}

#[test]
fn trust_lowers_warnings_to_info() {
    let p = UrlPolicy::default().trust_domain("münchen.de");
    let r = review("https://münchen.de/", &p);
    assert_eq!(r.verdict(), Verdict::Allowed);
    let idn = r.findings().iter().find(|f| f.code == FindingCode::Idn);
    assert_eq!(idn.map(|f| f.severity), Some(Severity::Info));
}

#[test]
fn codes_have_stable_names() {
    for &code in FindingCode::ALL {
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
        assert_eq!(code.as_str().parse::<FindingCode>(), Ok(code));
        assert_eq!(serde_json::from_str::<FindingCode>(&json).unwrap(), code);
    }
    assert_eq!(
        serde_json::to_string(&Severity::Refusal).unwrap(),
        "\"refusal\""
    );
    assert_eq!(
        serde_json::to_string(&Verdict::AllowedWithWarnings).unwrap(),
        "\"allowed_with_warnings\""
    );
}

#[test]
fn review_serializes_for_renderers() {
    let r = review("https://аррӏе.com/login", &UrlPolicy::default());
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["verdict"], "refused");
    assert_eq!(v["host"], "xn--80ak6aa92e.com");
    assert_eq!(v["host_unicode"], "аррӏе.com");
    assert_eq!(v["registrable_domain"], "xn--80ak6aa92e.com");
}
