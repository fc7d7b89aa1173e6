//! OAuth 2.1 bearer access tokens as JWTs, checked the way MCP's
//! authorization spec has a resource server check them: the signature
//! against a key of the authorization server's JWKS (a file, or an URL
//! fetched at start and again when a token names an unknown key: at most
//! once per 30 s, one fetch at a time, in the background, so a token naming
//! a known key never waits for it and one naming an unknown key waits at
//! most 2 s), the issuer,
//! the audience (this server's canonical URI, RFC 8707), and the expiry (and
//! `nbf` when present), with a small leeway. The principal is the `sub` claim.
//!
//! Only asymmetric algorithms are accepted (RS*, PS*, ES256, ES384, EdDSA);
//! a key's own `alg`, when its JWK names one, is the only algorithm it
//! verifies, so a token cannot pick a weaker one (no `none`, no HMAC with a
//! public key). Every refusal is a `401` whose challenge names the
//! protected-resource metadata; a token without a required scope is a `403`.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use frontdesk::http::HttpOptions;
//! use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator, JwtConfig};
//!
//! let config = JwtConfig::new(
//!     JwksSource::parse("https://auth.example.com/.well-known/jwks.json"),
//!     "https://auth.example.com",
//!     "https://mcp.example.com/mcp",
//! )
//! .resource_metadata("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
//! let options = HttpOptions::new().authenticator(JwtAuthenticator::new(config).await?);
//! # let _ = options; Ok(()) }
//! ```

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use tokio::sync::watch;

use super::{Authenticate, Unauthorized, bearer_token};
use crate::BoxFuture;

/// Largest JWKS document read, in bytes.
const MAX_JWKS_BYTES: usize = 256 * 1024;
/// A token naming an unknown key refetches a JWKS URL at most this often.
const REFRESH_EVERY: Duration = Duration::from_secs(30);
/// How long a request naming an unknown key waits for the refetch in flight
/// (the fetch itself may take up to the client's 10 s timeout, in the
/// background).
const REFRESH_WAIT: Duration = Duration::from_secs(2);

/// Where the authorization server's keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwksSource {
    /// A JWKS JSON file, read once at start.
    File(PathBuf),
    /// A JWKS URL (`https`, or `http` on loopback), fetched at start and
    /// again when a token names a key it does not hold.
    Url(String),
    /// Keys given directly.
    Keys(JwkSet),
}

impl JwksSource {
    /// An `http://` or `https://` argument is an URL, anything else a file.
    pub fn parse(arg: &str) -> Self {
        if arg.starts_with("https://") || arg.starts_with("http://") {
            Self::Url(arg.to_owned())
        } else {
            Self::File(PathBuf::from(arg))
        }
    }
}

/// What a [`JwtAuthenticator`] checks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JwtConfig {
    /// Where the keys are.
    pub jwks: JwksSource,
    /// The one accepted `iss`.
    pub issuer: String,
    /// The one accepted `aud` (this server's canonical URI).
    pub audience: String,
    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub leeway: Duration,
    /// Scopes every token must carry (`scope`, space-separated, or `scp`).
    pub required_scopes: Vec<String>,
    /// The protected-resource metadata URL named in challenges.
    pub resource_metadata: Option<String>,
}

impl JwtConfig {
    /// Check tokens from `issuer` for `audience`, signed by a key of `jwks`.
    pub fn new(jwks: JwksSource, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            jwks,
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: Duration::from_secs(60),
            required_scopes: Vec::new(),
            resource_metadata: None,
        }
    }

    /// Name this metadata URL in every challenge.
    pub fn resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Require `scope` on every token.
    pub fn require_scope(mut self, scope: impl Into<String>) -> Self {
        self.required_scopes.push(scope.into());
        self
    }

    /// Set the allowed clock skew.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
}

/// The keys could not be loaded, or the configuration is unusable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwtConfigError {
    /// The JWKS file could not be read.
    #[error("cannot read JWKS file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The JWKS URL could not be fetched.
    #[error("cannot fetch JWKS from {url}: {reason}")]
    Fetch {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The document is not a JWKS.
    #[error("not a JWKS document: {0}")]
    Parse(crate::Reason),
    /// No key of the set is usable for signatures (asymmetric, supported).
    #[error("the JWKS has no usable signing key")]
    NoKeys,
    /// Issuer or audience is empty, or the URL is plain `http` off loopback.
    #[error("invalid JWT configuration: {0}")]
    Invalid(crate::Reason),
}

impl JwtConfigError {
    /// Who must act to get past it: always the operator (the key set and its configuration are theirs).
    pub fn party(&self) -> crate::Party {
        crate::Party::Operator
    }
}

crate::errors::party_predicates!(JwtConfigError);

/// One verification key.
struct Key {
    kid: Option<String>,
    algorithms: Vec<Algorithm>,
    key: DecodingKey,
}

/// The keys in use, replaced whole by a refetch.
type KeySet = Arc<RwLock<Arc<Vec<Key>>>>;

/// The refetches of a JWKS URL: when the latest started, and the one in
/// flight (its channel says, once it is over, whether the keys changed).
/// Held only to look and to start one, never across the fetch.
struct Refetches {
    last: Instant,
    in_flight: Option<watch::Receiver<Option<bool>>>,
}

/// Validates bearer JWTs; an [`Authenticate`] for
/// [`HttpOptions::authenticator`](crate::http::HttpOptions::authenticator).
pub struct JwtAuthenticator {
    config: JwtConfig,
    keys: KeySet,
    refetches: Arc<Mutex<Refetches>>,
    http: Option<reqwest::Client>,
}

impl std::fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.config.issuer)
            .field("audience", &self.config.audience)
            .field("jwks", &self.config.jwks)
            .finish_non_exhaustive()
    }
}

impl JwtAuthenticator {
    /// Load the keys now (a JWKS URL is fetched once), so a bad configuration
    /// stops the server at start rather than refusing every request.
    pub async fn new(config: JwtConfig) -> Result<Self, JwtConfigError> {
        if config.issuer.is_empty() || config.audience.is_empty() {
            return Err(JwtConfigError::Invalid(
                "issuer and audience must not be empty".into(),
            ));
        }
        let http = match &config.jwks {
            JwksSource::Url(url) => {
                check_url(url)?;
                crate::tls_default::install_default_tls_provider();
                Some(
                    reqwest::Client::builder()
                        .timeout(Duration::from_secs(10))
                        .redirect(reqwest::redirect::Policy::none())
                        .build()
                        .map_err(|e| JwtConfigError::Fetch {
                            url: url.clone(),
                            reason: e.to_string(),
                        })?,
                )
            }
            _ => None,
        };
        let auth = Self {
            keys: Arc::new(RwLock::new(Arc::new(Vec::new()))),
            // The load at start does not count: the first unknown key may
            // refetch at once, later ones every REFRESH_EVERY.
            refetches: Arc::new(Mutex::new(Refetches {
                last: Instant::now()
                    .checked_sub(REFRESH_EVERY)
                    .unwrap_or_else(Instant::now),
                in_flight: None,
            })),
            http,
            config,
        };
        let keys = auth.load().await?;
        replace_keys(&auth.keys, keys);
        Ok(auth)
    }

    /// The configuration.
    pub fn config(&self) -> &JwtConfig {
        &self.config
    }

    async fn load(&self) -> Result<Vec<Key>, JwtConfigError> {
        let set = match &self.config.jwks {
            JwksSource::Keys(set) => set.clone(),
            JwksSource::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| JwtConfigError::Io {
                    path: path.display().to_string(),
                    source,
                })?;
                parse_set(text.as_bytes())?
            }
            JwksSource::Url(url) => {
                let http = self.http.as_ref().ok_or_else(|| JwtConfigError::Fetch {
                    url: url.clone(),
                    reason: "no HTTP client".into(),
                })?;
                return load_url(http, url).await;
            }
        };
        usable_keys(&set)
    }

    fn current_keys(&self) -> Arc<Vec<Key>> {
        match self.keys.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// A token names a key we do not hold: refetch a JWKS URL (at most every
    /// [`REFRESH_EVERY`], one fetch at a time, in a task of its own so that
    /// no caller holds anything across it) and wait up to [`REFRESH_WAIT`]
    /// for the fetch in flight; whether the keys changed.
    async fn refresh(&self) -> bool {
        let (JwksSource::Url(url), Some(http)) = (&self.config.jwks, &self.http) else {
            return false;
        };
        let mut outcome = {
            let mut refetches = self
                .refetches
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match &refetches.in_flight {
                Some(outcome) => outcome.clone(),
                None if refetches.last.elapsed() < REFRESH_EVERY => return false,
                None => {
                    refetches.last = Instant::now();
                    let (tell, outcome) = watch::channel(None);
                    refetches.in_flight = Some(outcome.clone());
                    tokio::spawn(refetch(
                        url.clone(),
                        http.clone(),
                        Arc::clone(&self.keys),
                        Arc::clone(&self.refetches),
                        tell,
                    ));
                    outcome
                }
            }
        };
        let finished = tokio::time::timeout(REFRESH_WAIT, outcome.wait_for(Option::is_some)).await;
        matches!(finished, Ok(Ok(changed)) if *changed == Some(true))
    }

    fn refuse(&self, description: &str) -> Unauthorized {
        Unauthorized::bearer("invalid_token", description)
            .resource_metadata(self.config.resource_metadata.as_deref())
    }

    async fn check(&self, headers: &HeaderMap) -> Result<Option<String>, Unauthorized> {
        let metadata = self.config.resource_metadata.as_deref();
        let token = bearer_token(headers)
            .map_err(|e| e.resource_metadata(metadata))?
            .ok_or_else(|| Unauthorized::missing_token(metadata))?;
        let header = jsonwebtoken::decode_header(token).map_err(|e| {
            tracing::info!(error = %e, "bearer token is not a JWT");
            self.refuse("the access token is not a valid JWT")
        })?;
        let mut keys = self.current_keys();
        if !has_candidate(&keys, &header) && self.refresh().await {
            keys = self.current_keys();
        }
        let candidates: Vec<&Key> = keys.iter().filter(|k| matches_key(k, &header)).collect();
        if candidates.is_empty() {
            tracing::info!(kid = ?header.kid, alg = ?header.alg, "no JWKS key for this token");
            return Err(self.refuse("the access token is not signed by a known key"));
        }
        let mut last_error = None;
        for key in candidates {
            match jsonwebtoken::decode::<Map<String, Value>>(
                token,
                &key.key,
                &self.validation(header.alg),
            ) {
                Ok(data) => return self.principal_of(&data.claims).map(Some),
                Err(e) => last_error = Some(e),
            }
        }
        let description = match last_error.as_ref().map(jsonwebtoken::errors::Error::kind) {
            Some(jsonwebtoken::errors::ErrorKind::ExpiredSignature) => "the access token expired",
            Some(jsonwebtoken::errors::ErrorKind::ImmatureSignature) => {
                "the access token is not valid yet"
            }
            Some(jsonwebtoken::errors::ErrorKind::InvalidAudience) => {
                "the access token is not meant for this server"
            }
            Some(jsonwebtoken::errors::ErrorKind::InvalidIssuer) => {
                "the access token is from an unknown issuer"
            }
            Some(jsonwebtoken::errors::ErrorKind::MissingRequiredClaim(_)) => {
                "the access token lacks a required claim"
            }
            _ => "the access token is not valid",
        };
        tracing::info!(error = ?last_error, "bearer token refused");
        Err(self.refuse(description))
    }

    fn validation(&self, alg: Algorithm) -> Validation {
        let mut v = Validation::new(alg);
        v.set_issuer(&[&self.config.issuer]);
        v.set_audience(&[&self.config.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        v.validate_nbf = true;
        v.leeway = self.config.leeway.as_secs();
        v
    }

    fn principal_of(&self, claims: &Map<String, Value>) -> Result<String, Unauthorized> {
        let sub = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.refuse("the access token names no subject"))?;
        let granted = scopes_of(claims);
        if let Some(missing) = self
            .config
            .required_scopes
            .iter()
            .find(|s| !granted.contains(&s.as_str()))
        {
            return Err(Unauthorized::insufficient_scope(missing)
                .resource_metadata(self.config.resource_metadata.as_deref()));
        }
        Ok(sub.to_owned())
    }
}

impl Authenticate for JwtAuthenticator {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
        Box::pin(self.check(headers))
    }
}

fn check_url(url: &str) -> Result<(), JwtConfigError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| JwtConfigError::Invalid(format!("JWKS URL {url:?}: {e}").into()))?;
    let host = parsed
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(JwtConfigError::Invalid(
            format!("JWKS URL {url:?} must be https (plain http only on loopback)").into(),
        )),
    }
}

/// One refetch of `url`: the keys replaced when it gave usable ones, the old
/// ones kept otherwise; then the next refetch may start (after
/// [`REFRESH_EVERY`]).
async fn refetch(
    url: String,
    http: reqwest::Client,
    keys: KeySet,
    refetches: Arc<Mutex<Refetches>>,
    tell: watch::Sender<Option<bool>>,
) {
    let changed = match load_url(&http, &url).await {
        Ok(fresh) => {
            tracing::info!(keys = fresh.len(), "JWKS refreshed");
            replace_keys(&keys, fresh);
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "JWKS refresh failed; keeping the old keys");
            false
        }
    };
    refetches
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .in_flight = None;
    tell.send_replace(Some(changed));
}

fn replace_keys(set: &KeySet, keys: Vec<Key>) {
    let keys = Arc::new(keys);
    match set.write() {
        Ok(mut guard) => *guard = keys,
        Err(poisoned) => *poisoned.into_inner() = keys,
    }
}

/// The usable keys of the JWKS at `url`.
async fn load_url(http: &reqwest::Client, url: &str) -> Result<Vec<Key>, JwtConfigError> {
    usable_keys(&parse_set(&fetch(http, url).await?)?)
}

/// The JWKS document at `url`, at most [`MAX_JWKS_BYTES`].
async fn fetch(http: &reqwest::Client, url: &str) -> Result<Vec<u8>, JwtConfigError> {
    let failed = |reason: String| JwtConfigError::Fetch {
        url: url.to_owned(),
        reason,
    };
    let mut response = http
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.status().is_success() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(e.to_string()))? {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(failed(format!("larger than {MAX_JWKS_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The keys of `set` that verify signatures; none is an error.
fn usable_keys(set: &JwkSet) -> Result<Vec<Key>, JwtConfigError> {
    let keys: Vec<Key> = set.keys.iter().filter_map(usable_key).collect();
    if keys.is_empty() {
        return Err(JwtConfigError::NoKeys);
    }
    Ok(keys)
}

fn parse_set(bytes: &[u8]) -> Result<JwkSet, JwtConfigError> {
    // Parse keys one by one, so one unsupported key (another kty, a future
    // algorithm) does not make the whole set unreadable.
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| JwtConfigError::Parse(crate::Reason::new(e)))?;
    let keys = doc
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(|| JwtConfigError::Parse("no \"keys\" array".into()))?;
    Ok(JwkSet {
        keys: keys
            .iter()
            .filter_map(|k| match serde_json::from_value::<Jwk>(k.clone()) {
                Ok(jwk) => Some(jwk),
                Err(e) => {
                    tracing::warn!(error = %e, "JWKS key skipped");
                    None
                }
            })
            .collect(),
    })
}

/// The key, if it can verify signatures with an asymmetric algorithm.
fn usable_key(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    let family: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
            vec![Algorithm::EdDSA]
        }
        // Symmetric keys have no place in a public key set.
        _ => return None,
    };
    let algorithms = match jwk.common.key_algorithm.map(Algorithm::try_from) {
        None => family,
        Some(Ok(alg)) if family.contains(&alg) => vec![alg],
        Some(_) => return None,
    };
    let key = DecodingKey::from_jwk(jwk)
        .map_err(|e| tracing::warn!(error = %e, kid = ?jwk.common.key_id, "JWKS key skipped"))
        .ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        algorithms,
        key,
    })
}

fn matches_key(key: &Key, header: &jsonwebtoken::Header) -> bool {
    key.algorithms.contains(&header.alg)
        && match &header.kid {
            Some(kid) => key.kid.as_deref() == Some(kid.as_str()),
            None => true,
        }
}

fn has_candidate(keys: &[Key], header: &jsonwebtoken::Header) -> bool {
    keys.iter().any(|k| matches_key(k, header))
}

fn scopes_of(claims: &Map<String, Value>) -> Vec<&str> {
    let mut out: Vec<&str> = claims
        .get("scope")
        .and_then(Value::as_str)
        .map(|s| s.split_whitespace().collect())
        .unwrap_or_default();
    if let Some(list) = claims.get("scp").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(Value::as_str));
    }
    out
}
