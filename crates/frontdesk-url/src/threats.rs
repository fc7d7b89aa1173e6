//! The threats chapter: each URL trick this crate handles, what it reports, and
//! where the table test (`tests/data/urls.tsv`) covers it.
//!
//! **How severities are chosen.** A *refusal* means the link cannot be opened safely
//! at all (it runs code, it is unencrypted, it cannot be read) or it deceives in a
//! way an honest display cannot undo (userinfo reads as a host, bidi controls reorder
//! what is shown, a lookalike of a well-known domain reads as that domain). A
//! *warning* means the display shows the truth but something is unusual or looks
//! deceptive: the person reads it and decides. *Info* is context.
//!
//! | Trick | Example | Code(s) | Severity |
//! | --- | --- | --- | --- |
//! | script scheme | `javascript:alert(1)`, `data:…`, `file:…`, `blob:…` | `disallowed_scheme` | refusal, even if a policy allows it |
//! | other scheme | `ftp:`, `wss:`, `myapp:` | `disallowed_scheme` (or `development_scheme` if allowed by policy) | refusal (warning) |
//! | plain http | `http://example.com/` | `insecure_http` | refusal |
//! | local development | `http://localhost:8080/` | `loopback_http` | warning (refusal under [`UrlPolicy::strict`](crate::UrlPolicy::strict)) |
//! | userinfo | `https://good.com@evil.com/`, `https://@evil.com/` | `userinfo` | refusal |
//! | backslash | `https://evil.com\@good.com/` | `backslash` | warning |
//! | whole-script homograph | `https://аррӏе.com/` (Cyrillic) | `idn`, `latin_lookalike`, `lookalike_domain` | refusal |
//! | mixed-script homograph | `https://pаypal.com/`, `https://gοοgle.com/` (Greek ο) | `+ mixed_script` | refusal |
//! | ASCII lookalike | `https://paypa1.com/`, `https://rnicrosoft.com/`, `paypal.corn` | `lookalike_domain` | refusal |
//! | lookalike TLD | `https://apple.соm/` | `lookalike_domain` | refusal |
//! | brand as subdomain | `https://paypal.com.account-verify.example/` | `brand_in_subdomain` | warning |
//! | plain IDN | `https://münchen.de/` | `idn` | warning |
//! | right-to-left label | `https://مثال.example/` | `rtl_label` | warning |
//! | compatibility mapping | `https://paypaⅼ.com/` (U+217C → `l`) | `host_normalized` | warning |
//! | fullwidth / ideographic dot | `https://ｅｘａｍｐｌｅ.com/`, `example。com` | `fullwidth_chars`, `host_normalized` | warning |
//! | percent-encoded host | `https://%65xample.com/` | `encoded_host`, `host_normalized` | warning |
//! | invisible characters | soft hyphen, zero-width space, tag characters | `invisible_chars` | warning |
//! | bidi controls | U+202E, U+2066–U+2069, U+200F anywhere | `bidi_control` | refusal |
//! | tabs, newlines, spaces | `https://exa<TAB>mple.com/` | `control_chars` (`surrounding_whitespace` at the ends) | warning (info) |
//! | IP host | `https://192.168.1.1/`, `https://[2001:db8::1]/` | `ip_address_host` | warning (info on loopback) |
//! | disguised IPv4 | `https://3232235777/`, `0300.0250.0.1`, `0xc0a80101`, `127.1` | `obfuscated_ip` | warning |
//! | unusual port | `https://example.com:8443/` | `non_default_port` | warning (info on loopback) |
//! | over-long URL or host | > [`DEFAULT_MAX_URL_LENGTH`](crate::DEFAULT_MAX_URL_LENGTH) bytes; a label > 63 or a host > 253 | `url_too_long`, `host_too_long` | refusal |
//! | garbage | `not a url`, `https://`, `https://exa..mple.com/` | `malformed` | refusal |
//!
//! Trusting a domain ([`UrlPolicy::trust_domain`](crate::UrlPolicy::trust_domain))
//! lowers `idn`, `mixed_script`, `latin_lookalike`, `rtl_label`,
//! `brand_in_subdomain` and `non_default_port` to info, and adds `trusted_domain`.
//! It never lifts a refusal.
//!
//! **Not covered.** Lookalikes of domains outside [`KNOWN_DOMAINS`](crate::KNOWN_DOMAINS)
//! are only caught as `idn`/`mixed_script`/`latin_lookalike`; brand names inside a
//! label (`paypal-login.example`) are not flagged; nothing here knows whether a
//! domain is malicious (no reputation lookups: no I/O).
