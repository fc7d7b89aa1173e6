//! The plain-text display and the parts a renderer highlights.

use frontdesk_url::{HostKind, UrlPolicy, review};

#[test]
fn ordinary_link() {
    let r = review(
        "https://login.example.com/connect?x=1",
        &UrlPolicy::default(),
    );
    assert_eq!(
        r.plain_text(),
        "URL:      https://login.example.com/connect?x=1\n\
         Domain:   example.com\n\
         Verdict:  allowed - open it only if you expected it\n"
    );
    assert_eq!(
        r.highlight_parts(),
        Some(("https://login.", "example.com", "/connect?x=1"))
    );
    assert_eq!(r.scheme(), Some("https"));
    assert_eq!(r.path(), Some("/connect"));
    assert_eq!(r.port(), None);
}

#[test]
fn homograph_link() {
    let r = review("https://аррӏе.com/login", &UrlPolicy::default());
    let text = r.plain_text();
    assert!(text.starts_with(
        "URL:      https://xn--80ak6aa92e.com/login\n\
         Domain:   xn--80ak6aa92e.com\n\
         Reads as: аррӏе.com\n\
         Verdict:  refused - this link will not be opened\n"
    ));
    assert!(text.contains("! refusal: "), "{text}");
    assert!(text.contains("apple.com"), "{text}");
    println!("{text}");
}

#[test]
fn ip_and_port() {
    let r = review("https://3232235777:8443/", &UrlPolicy::default());
    assert_eq!(r.host_kind(), Some(HostKind::Ipv4));
    let text = r.plain_text();
    assert!(
        text.contains("Address:  192.168.1.1 (IP address)\n"),
        "{text}"
    );
    assert!(text.contains("Port:     8443\n"), "{text}");
    assert!(text.contains("3232235777"), "{text}");
}

#[test]
fn unparseable_input_is_escaped() {
    let r = review("https://exa\u{202E}mple.com/", &UrlPolicy::default());
    assert_eq!(r.url(), None);
    let text = r.plain_text();
    assert!(
        text.starts_with("Input:    https://exa\\u{202E}mple.com/ (not a usable URL)\n"),
        "{text}"
    );
    assert!(!text.contains('\u{202E}'));
}

#[test]
fn highlight_with_trailing_dot_and_port() {
    let r = review("https://a.b.example.co.uk.:8443/x", &UrlPolicy::default());
    assert_eq!(
        r.highlight_parts(),
        Some(("https://a.b.", "example.co.uk", ".:8443/x"))
    );
}
