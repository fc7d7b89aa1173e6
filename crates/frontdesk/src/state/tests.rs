//! Tests of sealing and opening: round trips, every rejection, rotation, expiry,
//! tampering, size bounds, and arbitrary input.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

const K1: &str = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const K2: &str = "k2:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1-f4CBgoM";
const T0: u64 = 1_800_000_000;

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn sealer() -> StateSealer {
    StateSealer::from_spec(K1).unwrap()
}

fn args() -> Value {
    json!({"city": "Oslo", "nights": 2})
}

fn binding() -> Binding {
    Binding::new(
        "user-1",
        RequestDigest::new("tools/call", Some("book"), Some(&args())),
    )
}

fn payload() -> Value {
    json!({
        "answers": {
            "dates": {"q": "3f9a1c2b", "action": "accept", "content": {"from": "2026-12-01", "to": "2026-12-03"}},
            "room": {"q": "77e0a4d1", "action": "accept", "content": {"type": "double", "breakfast": true}}
        },
        "round": 2
    })
}

fn seal(s: &StateSealer) -> String {
    s.seal_at(&binding(), &payload(), Duration::from_secs(300), at(T0))
        .unwrap()
}

#[test]
fn round_trip() {
    let s = sealer();
    let token = seal(&s);
    assert!(token.starts_with("fd1.k1."));
    let opened = s.open(&token, &binding(), at(T0 + 10)).unwrap();
    assert_eq!(opened.payload(), &payload());
    assert_eq!(opened.issued_at(), T0);
    assert_eq!(opened.expires_at(), T0 + 300);
    assert_eq!(opened.kid(), "k1");
    assert_eq!(opened.clone().into_payload(), payload());
}

#[test]
fn tokens_are_fresh_and_opaque() {
    let s = sealer();
    let (a, b) = (seal(&s), seal(&s));
    assert_ne!(a, b, "random nonce per seal");
    let ia = s.open(&a, &binding(), at(T0)).unwrap().state_id();
    let ib = s.open(&b, &binding(), at(T0)).unwrap().state_id();
    assert_ne!(ia, ib, "unique state id per seal");
    assert!(!a.contains("Oslo") && !a.contains("double"));
    assert!(
        a.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"._-".contains(&c))
    );
}

#[test]
fn every_rejection_is_the_same_error() {
    let s = sealer();
    let token = seal(&s);
    let other_key = StateSealer::from_spec(K2).unwrap();
    let same_kid_other_key = StateSealer::from_spec(&K2.replacen("k2", "k1", 1)).unwrap();
    let other_principal = Binding::new("user-2", *binding().request());
    let anonymous = Binding::anonymous(*binding().request());
    let other_args = Binding::new(
        "user-1",
        RequestDigest::new("tools/call", Some("book"), Some(&json!({"city": "Bergen"}))),
    );
    let other_tool = Binding::new(
        "user-1",
        RequestDigest::new("tools/call", Some("cancel"), Some(&args())),
    );
    let other_method = Binding::new(
        "user-1",
        RequestDigest::new("prompts/get", Some("book"), Some(&args())),
    );
    let b = binding();
    let cases: Vec<(&str, Result<OpenedState, StateRejected>)> = vec![
        ("expired", s.open(&token, &b, at(T0 + 300))),
        ("long expired", s.open(&token, &b, at(T0 + 86_400))),
        ("other principal", s.open(&token, &other_principal, at(T0))),
        ("anonymous", s.open(&token, &anonymous, at(T0))),
        ("other arguments", s.open(&token, &other_args, at(T0))),
        ("other tool", s.open(&token, &other_tool, at(T0))),
        ("other method", s.open(&token, &other_method, at(T0))),
        ("unknown kid", other_key.open(&token, &b, at(T0))),
        (
            "same kid other key",
            same_kid_other_key.open(&token, &b, at(T0)),
        ),
        ("truncated", s.open(&token[..token.len() - 4], &b, at(T0))),
        ("header only", s.open("fd1.k1.", &b, at(T0))),
        ("empty", s.open("", &b, at(T0))),
        (
            "other version",
            s.open(&token.replacen("fd1", "fd2", 1), &b, at(T0)),
        ),
        ("bad base64", s.open(&format!("{token}!"), &b, at(T0))),
        ("padded", s.open(&format!("{token}="), &b, at(T0))),
        ("json", s.open(r#"{"answers":{}}"#, &b, at(T0))),
        ("oversize", s.open(&"A".repeat(20_000), &b, at(T0))),
        (
            "limit below token",
            sealer()
                .with_max_token_bytes(token.len() - 1)
                .open(&token, &b, at(T0)),
        ),
    ];
    for (name, result) in cases {
        assert_eq!(result, Err(StateRejected), "{name}");
    }
    assert_eq!(
        StateRejected.to_string(),
        "request state is invalid or expired"
    );
    // And the untouched token still opens.
    assert!(s.open(&token, &b, at(T0 + 299)).is_ok());
}

#[test]
fn expiry_follows_the_injected_clock() {
    let s = sealer();
    let token = s
        .seal_at(&binding(), &json!(1), Duration::from_millis(1500), at(T0))
        .unwrap();
    // 1.5 s rounds up to 2 s; valid at T0 and T0+1, gone at T0+2.
    assert!(s.open(&token, &binding(), at(T0)).is_ok());
    assert!(s.open(&token, &binding(), at(T0 + 1)).is_ok());
    assert_eq!(s.open(&token, &binding(), at(T0 + 2)), Err(StateRejected));
    assert!(matches!(
        s.seal_at(&binding(), &json!(1), Duration::ZERO, at(T0)),
        Err(SealError::InvalidTtl)
    ));
    assert!(matches!(
        s.seal_at(&binding(), &json!(1), Duration::from_secs(u64::MAX), at(T0)),
        Err(SealError::InvalidTtl)
    ));
}

#[test]
fn key_rotation() {
    let old = sealer();
    let token = seal(&old);

    // New key first, old key kept: old tokens open, new tokens use the new key.
    let mut rotated = StateSealer::from_spec(&format!("{K2},{K1}")).unwrap();
    assert_eq!(rotated.keyring().current_kid(), "k2");
    let opened = rotated.open(&token, &binding(), at(T0)).unwrap();
    assert_eq!(opened.kid(), "k1");
    let fresh = rotated
        .seal_at(&binding(), &payload(), Duration::from_secs(60), at(T0))
        .unwrap();
    assert!(fresh.starts_with("fd1.k2."));
    assert_eq!(old.open(&fresh, &binding(), at(T0)), Err(StateRejected));

    // Old key removed: its tokens stop opening; the current one still works.
    let mut keys = rotated.keyring().clone();
    assert!(keys.remove_old_key("k1"));
    assert!(
        !keys.remove_old_key("k2"),
        "the current key is never removed"
    );
    rotated = StateSealer::new(keys);
    assert_eq!(rotated.open(&token, &binding(), at(T0)), Err(StateRejected));
    assert!(rotated.open(&fresh, &binding(), at(T0)).is_ok());
}

#[test]
fn tampering_any_byte_is_rejected() {
    let s = sealer();
    let token = seal(&s);
    let b = binding();
    let bytes = token.as_bytes();
    for i in 0..bytes.len() {
        for replacement in [b'A', b'z', b'.', b'_'] {
            if bytes[i] == replacement {
                continue;
            }
            let mut t = bytes.to_vec();
            t[i] = replacement;
            let t = String::from_utf8(t).unwrap();
            assert_eq!(s.open(&t, &b, at(T0)), Err(StateRejected), "byte {i}");
        }
    }
    // Flipping bits of the decoded nonce, ciphertext and tag.
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let (prefix, data) = token.rsplit_once('.').unwrap();
    let raw = engine.decode(data).unwrap();
    for i in 0..raw.len() {
        let mut r = raw.clone();
        r[i] ^= 0x01;
        let t = format!("{prefix}.{}", engine.encode(&r));
        assert_eq!(s.open(&t, &b, at(T0)), Err(StateRejected), "raw byte {i}");
    }
}

#[test]
fn size_bounds() {
    let s = sealer().with_max_token_bytes(512);
    let small = s
        .seal_at(&binding(), &payload(), Duration::from_secs(60), at(T0))
        .unwrap();
    assert!(small.len() <= 512);
    let big = json!({"blob": "x".repeat(400)});
    match s.seal_at(&binding(), &big, Duration::from_secs(60), at(T0)) {
        Err(SealError::TooLarge { size, limit }) => {
            assert_eq!(limit, 512);
            assert!(size > 512);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // The predicted size is exact: a payload that just fits seals.
    let default = sealer();
    let just = json!("y".repeat(12_000));
    let token = default
        .seal_at(&binding(), &just, Duration::from_secs(60), at(T0))
        .unwrap();
    assert!(token.len() <= StateSealer::DEFAULT_MAX_TOKEN_BYTES);
    let exact = sealer().with_max_token_bytes(token.len());
    assert!(
        exact
            .seal_at(&binding(), &just, Duration::from_secs(60), at(T0))
            .is_ok()
    );
    let under = sealer().with_max_token_bytes(token.len() - 1);
    assert!(
        under
            .seal_at(&binding(), &just, Duration::from_secs(60), at(T0))
            .is_err()
    );
}

#[test]
fn development_sealer_works_and_differs_per_instance() {
    let a = StateSealer::development();
    let b = StateSealer::development();
    assert!(a.keyring().current_kid().starts_with("dev-"));
    let token = a
        .seal(&binding(), &payload(), Duration::from_secs(60))
        .unwrap();
    assert!(a.open(&token, &binding(), SystemTime::now()).is_ok());
    assert_eq!(
        b.open(&token, &binding(), SystemTime::now()),
        Err(StateRejected)
    );
}

#[test]
fn from_env_or_development_falls_back_only_when_unset() {
    let s = StateSealer::from_env_or_development("FRONTDESK_TEST_UNSET_STATE_KEYS").unwrap();
    assert!(s.keyring().current_kid().starts_with("dev-"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn open_never_panics_on_arbitrary_strings(token in ".{0,400}") {
        let s = sealer();
        prop_assert_eq!(s.open(&token, &binding(), at(T0)), Err(StateRejected));
    }

    #[test]
    fn open_never_panics_on_plausible_tokens(kid in "k1|k2|[a-z]{0,3}", data in "[A-Za-z0-9_-]{0,200}") {
        let s = sealer();
        let token = format!("fd1.{kid}.{data}");
        prop_assert_eq!(s.open(&token, &binding(), at(T0)), Err(StateRejected));
    }

    #[test]
    fn round_trips_arbitrary_payloads(text in ".{0,200}", n in any::<i64>(), principal in ".{0,40}") {
        let s = sealer();
        let b = Binding::new(principal, *binding().request());
        let p = json!({"text": text, "n": n});
        let token = s.seal_at(&b, &p, Duration::from_secs(5), at(T0)).unwrap();
        prop_assert_eq!(s.open(&token, &b, at(T0 + 4)).unwrap().into_payload(), p);
    }
}
