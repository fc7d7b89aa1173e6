//! Services outside the repository that some tests use when the machine has them.

/// The Redis server the tests may use (`FRONTDESK_REDIS_URL`), or `None`: then the
/// caller skips `what` (said on stderr), unless `FRONTDESK_REQUIRE_REDIS=1`, which
/// makes a missing URL a failure (CI sets it where it starts a `redis-server`).
#[track_caller]
pub fn redis_url(what: &str) -> Option<String> {
    match std::env::var("FRONTDESK_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("FRONTDESK_REQUIRE_REDIS").as_deref() != Ok("1"),
                "FRONTDESK_REQUIRE_REDIS=1 but FRONTDESK_REDIS_URL is not set"
            );
            eprintln!("note: FRONTDESK_REDIS_URL is not set; {what} skipped");
            None
        }
    }
}
