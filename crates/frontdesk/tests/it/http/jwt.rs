//! The JWT authenticator as MCP's authorization spec has a resource server
//! behave: a good token passes with its `sub` as the principal; an expired
//! one, one for another audience or from another issuer, one with a bad
//! signature (or an HMAC "signature" made with the public key), and none at
//! all are `401` with a `WWW-Authenticate` challenge naming the
//! protected-resource metadata, which is served at the well-known path.
//! Keys come from a JWKS file or a JWKS URL (refetched for a new key).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator, JwtConfig};
use frontdesk::http::auth::metadata::ProtectedResource;
use frontdesk::http::{self, HttpOptions};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::support::http::{MODERN, modern_call};

const ISSUER: &str = "https://auth.test.example";

/// An ES256 key pair: its signing key and its public JWK.
struct KeyPair {
    signing: EncodingKey,
    jwk: Value,
}

fn key_pair(kid: &str) -> KeyPair {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let point = pair.public_key_raw();
    assert_eq!(point.len(), 65);
    KeyPair {
        signing: EncodingKey::from_ec_der(&pair.serialize_der()),
        jwk: json!({"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])}),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn sign(key: &KeyPair, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, &key.signing).unwrap()
}

fn claims(audience: &str) -> Value {
    json!({"iss": ISSUER, "aud": audience, "sub": "user-7", "iat": now(), "exp": now() + 300})
}

async fn whoami(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("you are {}", cx.principal())))
}

struct Running {
    mcp: String,
    audience: String,
    metadata_url: String,
    base: String,
    _stop: oneshot::Sender<()>,
}

/// This server's public URL (what tokens name as audience); the test reaches
/// it on loopback, as behind a proxy.
const PUBLIC: &str = "https://mcp.test.example";

/// A server whose endpoint checks JWTs from `jwks`, with the metadata
/// document mounted as `frontdesk serve` mounts it.
async fn start(jwks: JwksSource) -> Running {
    let audience = format!("{PUBLIC}/mcp");
    let metadata_url = ProtectedResource::metadata_url(PUBLIC, "/mcp");
    let config = JwtConfig::new(jwks, ISSUER, &audience).resource_metadata(&metadata_url);
    let auth = JwtAuthenticator::new(config).await.unwrap();
    let listener = http::bind(
        "127.0.0.1:0".parse().unwrap(),
        HttpOptions::new().authenticator(auth),
    )
    .await
    .unwrap();
    let (base, mcp) = (listener.base_url(), listener.endpoint_url());
    let server = Server::builder("jwt-test", "1")
        .tool(ToolDef::new("whoami", "Who is calling", whoami))
        .build();
    let metadata = ProtectedResource::new(audience.clone()).authorization_server(ISSUER);
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(
        listener
            .routes(metadata.router("/mcp"))
            .serve_with_shutdown(server, async {
                let _ = rx.await;
            }),
    );
    Running {
        mcp,
        audience,
        metadata_url,
        base,
        _stop: tx,
    }
}

async fn call(s: &Running, token: Option<&str>) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(&s.mcp)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    req.body(modern_call(1, "whoami", json!({})).to_string())
        .send()
        .await
        .unwrap()
}

/// A `401` whose challenge names the metadata; its `error_description`.
async fn refused(s: &Running, token: Option<&str>) -> String {
    let r = call(s, token).await;
    assert_eq!(r.status(), 401, "{token:?}");
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{}\"", s.metadata_url)),
        "{challenge}"
    );
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32600);
    challenge
}

fn jwks_file(keys: &[&Value]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("jwks");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.json", frontdesk::flows::FlowId::random()));
    std::fs::write(&path, json!({"keys": keys}).to_string()).unwrap();
    path
}

#[tokio::test]
async fn tokens_are_checked_like_a_resource_server() {
    let good = key_pair("k1");
    let s = start(JwksSource::File(jwks_file(&[&good.jwk]))).await;

    // Good: the principal is the token's subject.
    let r = call(&s, Some(&sign(&good, "k1", &claims(&s.audience)))).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "you are user-7");

    // No token: a challenge with no error code, only where to learn more.
    let c = refused(&s, None).await;
    assert_eq!(
        c,
        format!("Bearer resource_metadata=\"{}\"", s.metadata_url)
    );

    let mut expired = claims(&s.audience);
    expired["exp"] = json!(now() - 120); // past the 60 s leeway
    let c = refused(&s, Some(&sign(&good, "k1", &expired))).await;
    assert!(
        c.contains("error=\"invalid_token\"") && c.contains("expired"),
        "{c}"
    );

    let c = refused(
        &s,
        Some(&sign(&good, "k1", &claims("https://other.example/mcp"))),
    )
    .await;
    assert!(c.contains("not meant for this server"), "{c}");

    let mut foreign = claims(&s.audience);
    foreign["iss"] = json!("https://evil.example");
    let c = refused(&s, Some(&sign(&good, "k1", &foreign))).await;
    assert!(c.contains("unknown issuer"), "{c}");

    // Signed by another key that claims to be k1.
    let impostor = key_pair("k1");
    let c = refused(&s, Some(&sign(&impostor, "k1", &claims(&s.audience)))).await;
    assert!(c.contains("invalid_token"), "{c}");

    // Tampered payload, original signature.
    let token = sign(&good, "k1", &claims(&s.audience));
    let parts: Vec<&str> = token.split('.').collect();
    let mut other = claims(&s.audience);
    other["sub"] = json!("admin");
    let forged = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(other.to_string()),
        parts[2]
    );
    refused(&s, Some(&forged)).await;

    // Algorithm confusion: HS256 "signed" with the public key's bytes.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("k1".into());
    let hmac = jsonwebtoken::encode(
        &header,
        &claims(&s.audience),
        &EncodingKey::from_secret(good.jwk.to_string().as_bytes()).unwrap(),
    )
    .unwrap();
    let c = refused(&s, Some(&hmac)).await;
    assert!(c.contains("not signed by a known key"), "{c}");

    // No subject, not yet valid, not a JWT, not a bearer token.
    let mut nosub = claims(&s.audience);
    nosub.as_object_mut().unwrap().remove("sub");
    refused(&s, Some(&sign(&good, "k1", &nosub))).await;
    let mut early = claims(&s.audience);
    early["nbf"] = json!(now() + 600);
    refused(&s, Some(&sign(&good, "k1", &early))).await;
    refused(&s, Some("not-a-jwt")).await;
}

#[tokio::test]
async fn the_metadata_document_is_served_at_the_well_known_paths() {
    let key = key_pair("k1");
    let s = start(JwksSource::File(jwks_file(&[&key.jwk]))).await;
    assert!(
        s.metadata_url
            .ends_with("/.well-known/oauth-protected-resource/mcp")
    );
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let url = format!("{}{path}", s.base);
        let r = reqwest::get(&url).await.unwrap();
        assert_eq!(r.status(), 200, "{url}");
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let doc: Value = r.json().await.unwrap();
        assert_eq!(doc["resource"], s.audience);
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn a_jwks_url_is_fetched_again_for_a_new_key() {
    let first = key_pair("k1");
    let second = key_pair("k2");
    let published = Arc::new(Mutex::new(json!({"keys": [first.jwk]})));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks_url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    let doc = Arc::clone(&published);
    let app = Router::new().route(
        "/jwks.json",
        get(move || {
            let doc = doc.lock().unwrap().clone();
            async move { axum::Json(doc) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });

    let s = start(JwksSource::Url(jwks_url)).await;
    assert_eq!(
        call(&s, Some(&sign(&first, "k1", &claims(&s.audience))))
            .await
            .status(),
        200
    );
    // The authorization server rotates: k2 appears in the set.
    let k2 = sign(&second, "k2", &claims(&s.audience));
    *published.lock().unwrap() = json!({"keys": [first.jwk, second.jwk]});
    assert_eq!(call(&s, Some(&k2)).await.status(), 200);
    // A key that is nowhere stays refused.
    let third = key_pair("k3");
    refused(&s, Some(&sign(&third, "k3", &claims(&s.audience)))).await;
}

#[tokio::test]
async fn a_bad_key_source_fails_at_start() {
    let missing = JwksSource::File(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such.json"));
    let err = JwtAuthenticator::new(JwtConfig::new(missing, ISSUER, "https://x/mcp"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("cannot read JWKS file"), "{err}");
    // Only symmetric keys: nothing to verify with.
    let secret = json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"});
    let err = JwtAuthenticator::new(JwtConfig::new(
        JwksSource::File(jwks_file(&[&secret])),
        ISSUER,
        "https://x/mcp",
    ))
    .await
    .unwrap_err();
    assert!(err.to_string().contains("no usable signing key"), "{err}");
    let err = JwtAuthenticator::new(JwtConfig::new(
        JwksSource::parse("http://auth.example/jwks.json"),
        ISSUER,
        "https://x/mcp",
    ))
    .await
    .unwrap_err();
    assert!(err.to_string().contains("must be https"), "{err}");
}

/// A JWKS endpoint that answers the fetch at start at once and holds every
/// later one until `release` turns true; `fetches` counts them.
async fn held_jwks(
    doc: Arc<Mutex<Value>>,
    release: tokio::sync::watch::Receiver<bool>,
    fetches: Arc<std::sync::atomic::AtomicUsize>,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    let app = Router::new().route(
        "/jwks.json",
        get(move || {
            let (doc, mut release, fetches) = (doc.clone(), release.clone(), fetches.clone());
            async move {
                if fetches.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
                    let _ = release.wait_for(|r| *r).await;
                }
                let doc = doc.lock().unwrap().clone();
                axum::Json(doc)
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// Issue 24, row 17: a refetch of the JWKS for an unknown key used to hold
/// the authenticator's lock while it fetched, so every other request naming
/// an unknown key waited for the fetch (up to its 10 s timeout). Now a
/// request naming a known key never waits, one naming an unknown key during
/// a refetch is answered within a short bound, and a burst of unknown keys
/// refetches once.
#[tokio::test]
async fn a_slow_jwks_refetch_holds_up_no_other_request() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    let (known, rotated) = (key_pair("k1"), key_pair("k2"));
    let (release, held) = tokio::sync::watch::channel(false);
    let fetches = Arc::new(AtomicUsize::new(0));
    let doc = Arc::new(Mutex::new(json!({"keys": [known.jwk]})));
    let url = held_jwks(Arc::clone(&doc), held, Arc::clone(&fetches)).await;
    let s = Arc::new(start(JwksSource::Url(url)).await);
    assert_eq!(fetches.load(Ordering::SeqCst), 1, "fetched once at start");
    // The authorization server rotates: k2 appears in the set.
    *doc.lock().unwrap() = json!({"keys": [known.jwk, rotated.jwk]});

    // k2 is not known yet: this request starts a refetch, which hangs.
    let first = {
        let s = Arc::clone(&s);
        let token = sign(&rotated, "k2", &claims(&s.audience));
        tokio::spawn(async move { call(&s, Some(&token)).await.status().as_u16() })
    };
    for _ in 0..100 {
        if fetches.load(Ordering::SeqCst) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 2, "the refetch started");

    // While the refetch hangs: a known key passes, another unknown key is
    // refused, neither waiting for the fetch (whose client timeout is 10 s).
    let k1 = sign(&known, "k1", &claims(&s.audience));
    let passed = tokio::time::timeout(Duration::from_secs(6), call(&s, Some(&k1))).await;
    assert_eq!(passed.map(|r| r.status().as_u16()).ok(), Some(200));
    let stranger = key_pair("k3");
    let k3 = sign(&stranger, "k3", &claims(&s.audience));
    let answered = tokio::time::timeout(Duration::from_secs(6), refused(&s, Some(&k3))).await;
    assert!(
        answered.is_ok(),
        "a request naming an unknown key waited for the refetch"
    );
    let first = tokio::time::timeout(Duration::from_secs(6), first).await;
    assert_eq!(
        first.ok().and_then(Result::ok),
        Some(401),
        "the request that started the refetch waits a bounded time"
    );

    // The refetch finishes in the background: k2 is known from then on.
    release.send_replace(true);
    let k2 = sign(&rotated, "k2", &claims(&s.audience));
    let mut status = 0;
    for _ in 0..100 {
        status = call(&s, Some(&k2)).await.status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 200, "the refetched key is used");
    // Unknown keys within the refetch interval do not fetch again.
    for _ in 0..5 {
        refused(&s, Some(&k3)).await;
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 2, "one refetch in all");
}
