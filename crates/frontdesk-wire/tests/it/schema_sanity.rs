//! The schema helper really validates: invalid instances are rejected, formats
//! are asserted, and both revisions load.

// Test helpers may unwrap too (clippy.toml allows it only inside #[test] fns).
#![allow(clippy::unwrap_used)]

use serde_json::json;

#[test]
fn the_validator_rejects_what_it_should() {
    for revision in ["2025-11-25", "2026-07-28"] {
        let schema = frontdesk_testkit::Schema::load(revision);
        assert!(
            schema
                .errors("ElicitResult", &json!({"action": "accept"}))
                .is_empty()
        );
        assert!(
            !schema
                .errors("ElicitResult", &json!({"action": "maybe"}))
                .is_empty()
        );
        assert!(!schema.errors("ElicitResult", &json!({})).is_empty());
        // Missing url.
        assert!(
            !schema
                .errors(
                    "ElicitRequestURLParams",
                    &json!({"mode": "url", "message": "m"})
                )
                .is_empty()
        );
        // `format: uri` is asserted.
        let bad_url =
            json!({"mode": "url", "message": "m", "url": "not a uri", "elicitationId": "e"});
        assert!(
            !schema.errors("ElicitRequestURLParams", &bad_url).is_empty(),
            "{revision}"
        );
        assert!(!schema.errors("RequestId", &json!(null)).is_empty());
        assert!(!schema.errors("RequestId", &json!(1.5)).is_empty());
    }
}
