//! What the fuzz target `url_review` checks beyond `props.rs`
//! (`frontdesk::fuzzing`): the URL a review lets be opened is stable, so
//! reviewing it again (as a host does before opening) opens the same URL
//! under the same registrable domain.

use frontdesk_url::{UrlPolicy, review};
use proptest::prelude::*;

fn policies() -> [UrlPolicy; 3] {
    [
        UrlPolicy::default(),
        UrlPolicy::strict(),
        UrlPolicy::strict()
            .allow_scheme("myapp")
            .trust_domain("example.com")
            .max_url_length(64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_url_to_open_reviews_to_itself(
        scheme in prop::sample::select(vec!["https", "http", "myapp", "HTTPS"]),
        host in "[a-zA-Z0-9.\u{430}\u{3bf}-]{0,12}|\\[::1\\]|127\\.0\\.0\\.1",
        port in prop::option::of(0u32..70000),
        path in "[a-zA-Z0-9/%.?#=&é ]{0,16}",
    ) {
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        let input = format!("{scheme}://{host}{port}/{path}");
        for policy in policies() {
            let first = review(&input, &policy);
            // (A refused review may still show the parsed URL, e.g. one that
            // percent-encoding made longer than the bound; only what may be
            // opened has to be stable.)
            if let (true, Some(url)) = (first.may_open(), first.url()) {
                let second = review(url, &policy);
                prop_assert_eq!(second.url(), Some(url), "{:?}", input);
                prop_assert!(second.may_open(), "{:?}", input);
                prop_assert_eq!(second.registrable_domain(), first.registrable_domain());
            }
        }
    }
}
