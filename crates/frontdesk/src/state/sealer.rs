//! Sealing and opening request-state tokens.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::aead::inout::InOutBuf;
use chacha20poly1305::{Tag, XNonce};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use zeroize::Zeroizing;

use super::binding::Binding;
use super::keyring::{KeyConfigError, Keyring, StateKey};
use crate::clock::unix_secs;

/// Version prefix of every token, and the first thing bound as associated data.
const VERSION: &str = "fd1";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// Plaintext header: issued-at (u64 BE), expiry (u64 BE), state id (16 bytes).
const HEADER_LEN: usize = 8 + 8 + 16;

/// Every reason a token fails to open, in one error that does not say which.
///
/// Tampered, truncated, badly encoded, oversize, sealed with an unknown key,
/// expired, presented by another principal or on another request: the caller
/// learns only that the state is not acceptable. The reason is logged at debug
/// level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("request state is invalid or expired")]
pub struct StateRejected;

/// Sealing failed; these are the server's own mistakes, not the client's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The token would exceed the configured size bound.
    #[error("sealed state would be {size} bytes, over the limit of {limit}")]
    TooLarge {
        /// Size the token would have.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The time-to-live is zero, or pushes the expiry past what can be represented.
    #[error("invalid time-to-live for request state")]
    InvalidTtl,
    /// The payload could not be serialized.
    #[error("request state payload could not be serialized: {0}")]
    Payload(#[from] serde_json::Error),
    /// The cipher refused the input (only for absurd lengths).
    #[error("request state could not be encrypted")]
    Encrypt,
}

/// The hash of maps keyed by [`StateId`]: fast and keyed per process. Ids are
/// random bytes the server drew, and only an authenticated state's id reaches
/// such a map, so SipHash's resistance to chosen keys buys nothing there.
pub(crate) type IdHasher = foldhash::fast::RandomState;

/// A random 128-bit identifier of one sealed state, for single-use redemption.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId([u8; 16]);

impl StateId {
    /// A fresh random id.
    pub fn random() -> Self {
        let mut b = [0u8; 16];
        rand::fill(&mut b[..]);
        Self(b)
    }

    /// A fresh id that sorts by when it was made: the milliseconds since the
    /// epoch in its first 48 bits, 80 random bits after them (the layout of
    /// a UUIDv7). A store keeping ids in a B-tree (the SQLite store's primary
    /// key) then inserts each next to the last instead of on a random page:
    /// a batch of redemptions touches a page or two, not one per id. The id
    /// travels only inside the sealed state, so the time it holds is no
    /// more visible than the issue time beside it.
    pub fn ordered(now: SystemTime) -> Self {
        let millis = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut b = [0u8; 16];
        b[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
        rand::fill(&mut b[6..]);
        Self(b)
    }

    /// An id from its 16 bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The 16 bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl std::fmt::Display for StateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(self.0))
    }
}

impl std::fmt::Debug for StateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateId({self})")
    }
}

/// A state that opened: it is authentic, unexpired, and bound to the caller's
/// principal and request. Its payload is a JSON value, or the type given to
/// [`StateSealer::open_as`].
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedState<P = Value> {
    payload: P,
    state_id: StateId,
    issued_at: u64,
    expires_at: u64,
    kid: String,
}

impl<P> OpenedState<P> {
    /// The payload given to [`StateSealer::seal`].
    pub fn payload(&self) -> &P {
        &self.payload
    }

    /// Take the payload.
    pub fn into_payload(self) -> P {
        self.payload
    }

    /// The state's unique id (redeem it for single use).
    pub fn state_id(&self) -> StateId {
        self.state_id
    }

    /// When it was sealed, in unix seconds.
    pub fn issued_at(&self) -> u64 {
        self.issued_at
    }

    /// When it stops opening, in unix seconds (exclusive).
    pub fn expires_at(&self) -> u64 {
        self.expires_at
    }

    /// Id of the key that sealed it; not the current key after a rotation.
    pub fn kid(&self) -> &str {
        &self.kid
    }
}

/// Seals and opens `requestState` tokens with a [`Keyring`].
///
/// Cheap to share behind an `Arc`; holds no mutable state.
#[derive(Debug, Clone)]
pub struct StateSealer {
    keys: Keyring,
    max_token_bytes: usize,
}

impl StateSealer {
    /// Default bound on token length, in bytes, in both directions.
    pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;

    /// A sealer using `keys`, with the default size bound.
    pub fn new(keys: Keyring) -> Self {
        Self {
            keys,
            max_token_bytes: Self::DEFAULT_MAX_TOKEN_BYTES,
        }
    }

    /// A sealer whose keyring is parsed from `spec` (see [`Keyring::parse`]).
    pub fn from_spec(spec: &str) -> Result<Self, KeyConfigError> {
        Keyring::parse(spec).map(Self::new)
    }

    /// A sealer whose keyring comes from environment variable `var`, e.g.
    /// `FRONTDESK_STATE_KEYS="k2:<base64>,k1:<base64>"` (first key seals).
    pub fn from_env(var: &str) -> Result<Self, KeyConfigError> {
        Keyring::from_env(var).map(Self::new)
    }

    /// Like [`from_env`](Self::from_env), but falls back to
    /// [`development`](Self::development) when `var` is unset or empty. A set
    /// but invalid value is still an error.
    pub fn from_env_or_development(var: &str) -> Result<Self, KeyConfigError> {
        match Keyring::from_env(var) {
            Ok(keys) => Ok(Self::new(keys)),
            Err(KeyConfigError::Missing { .. }) => Ok(Self::development()),
            Err(e) => Err(e),
        }
    }

    /// A sealer with a fresh random key, for development. Says so in the log:
    /// states sealed with it do not survive a restart and are not shared
    /// between instances.
    pub fn development() -> Self {
        let key = StateKey::generate_development();
        tracing::warn!(
            kid = key.kid(),
            "request state is sealed with a development key generated at start-up; \
             sealed states will not survive a restart or be accepted by other \
             instances. Configure FRONTDESK_STATE_KEYS for production."
        );
        Self::new(Keyring::new(key))
    }

    /// Set the bound on token length (both sealing and opening).
    pub fn with_max_token_bytes(mut self, limit: usize) -> Self {
        self.max_token_bytes = limit;
        self
    }

    /// The bound on token length.
    pub fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// The keyring.
    pub fn keyring(&self) -> &Keyring {
        &self.keys
    }

    /// Seal `payload` for `binding`, valid for `ttl` from now (rounded up to
    /// whole seconds).
    ///
    /// The payload is anything that serializes to JSON: a [`Value`], or a
    /// type of the caller's own (written straight into the sealed buffer).
    pub fn seal<P: Serialize + ?Sized>(
        &self,
        binding: &Binding,
        payload: &P,
        ttl: Duration,
    ) -> Result<String, SealError> {
        self.seal_at(binding, payload, ttl, SystemTime::now())
    }

    /// Seal as if the time were `now`.
    pub fn seal_at<P: Serialize + ?Sized>(
        &self,
        binding: &Binding,
        payload: &P,
        ttl: Duration,
        now: SystemTime,
    ) -> Result<String, SealError> {
        let ttl_secs = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
        if ttl_secs == 0 {
            return Err(SealError::InvalidTtl);
        }
        let issued_at = unix_secs(now);
        let expires_at = issued_at
            .checked_add(ttl_secs)
            .ok_or(SealError::InvalidTtl)?;
        let key = self.keys.current();

        // One buffer: nonce || header || payload JSON, encrypted in place after
        // the nonce, then the tag appended.
        let mut nonce = [0u8; NONCE_LEN];
        rand::fill(&mut nonce[..]);
        let mut sealed = Vec::with_capacity(NONCE_LEN + HEADER_LEN + 256 + TAG_LEN);
        sealed.extend_from_slice(&nonce);
        sealed.extend_from_slice(&issued_at.to_be_bytes());
        sealed.extend_from_slice(&expires_at.to_be_bytes());
        sealed.extend_from_slice(StateId::ordered(now).as_bytes());
        let written = serde_json::to_writer(&mut sealed, payload);
        // Wipe the plaintext on every way out, errors included (best effort:
        // a reallocation while writing may leave a copy in freed memory).
        let mut sealed = Zeroizing::new(sealed);
        written?;

        let size = VERSION.len() + 1 + key.kid().len() + 1 + base64_len(sealed.len() + TAG_LEN);
        if size > self.max_token_bytes {
            return Err(SealError::TooLarge {
                size,
                limit: self.max_token_bytes,
            });
        }

        let aad = associated_data(key.kid(), binding);
        let tag = key
            .cipher()
            .encrypt_inout_detached(
                &XNonce::from(nonce),
                &aad,
                InOutBuf::from(&mut sealed[NONCE_LEN..]),
            )
            .map_err(|_| SealError::Encrypt)?;
        sealed.extend_from_slice(&tag);

        let mut token = String::with_capacity(size);
        token.push_str(VERSION);
        token.push('.');
        token.push_str(key.kid());
        token.push('.');
        URL_SAFE_NO_PAD.encode_string(&sealed, &mut token);
        Ok(token)
    }

    /// Open `token` for `binding` at time `now`.
    ///
    /// Every failure is the same [`StateRejected`]; the reason is logged at debug
    /// level. Never panics, whatever the input.
    pub fn open(
        &self,
        token: &str,
        binding: &Binding,
        now: SystemTime,
    ) -> Result<OpenedState, StateRejected> {
        self.open_as(token, binding, now)
    }

    /// [`open`](Self::open), reading the payload as `P` straight from the
    /// decrypted bytes; a payload that is not a `P` is rejected like any
    /// other bad state.
    pub fn open_as<P: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding,
        now: SystemTime,
    ) -> Result<OpenedState<P>, StateRejected> {
        self.open_for_reason(token, binding, now)
            .map_err(|_| StateRejected)
    }

    /// [`open_as`](Self::open_as) with the reason of a refusal (`expired`,
    /// `unauthentic`, `unknown_key`, `malformed`, `oversize`), for the
    /// request-state metrics (a sign-in cookie sealed by the same sealer is
    /// not a request state).
    pub(crate) fn open_for_reason<P: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding,
        now: SystemTime,
    ) -> Result<OpenedState<P>, &'static str> {
        self.try_open(token, binding, unix_secs(now))
            .inspect_err(|reason| tracing::debug!(reason, "request state rejected"))
    }

    fn try_open<P: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding,
        now: u64,
    ) -> Result<OpenedState<P>, &'static str> {
        if token.len() > self.max_token_bytes {
            return Err("oversize");
        }
        let rest = token
            .strip_prefix(VERSION)
            .and_then(|r| r.strip_prefix('.'))
            .ok_or("unknown version")?;
        let (kid, data) = rest.split_once('.').ok_or("malformed")?;
        let key = self.keys.get(kid).ok_or("unknown key id")?;
        // Decrypted in place; wiped on every way out.
        let mut sealed = Zeroizing::new(URL_SAFE_NO_PAD.decode(data).map_err(|_| "bad base64")?);
        if sealed.len() < NONCE_LEN + HEADER_LEN + TAG_LEN {
            return Err("truncated");
        }
        let (nonce, rest) = sealed.split_at_mut(NONCE_LEN);
        let (ciphertext, tag) = rest.split_at_mut(rest.len() - TAG_LEN);
        let nonce: [u8; NONCE_LEN] = (&*nonce).try_into().map_err(|_| "truncated")?;
        let tag = Tag::try_from(&*tag).map_err(|_| "truncated")?;
        let aad = associated_data(kid, binding);
        key.cipher()
            .decrypt_inout_detached(
                &XNonce::from(nonce),
                &aad,
                InOutBuf::from(&mut *ciphertext),
                &tag,
            )
            .map_err(|_| "authentication failed (tampered, other key, principal or request)")?;
        let plaintext: &[u8] = ciphertext;
        let (header, body) = plaintext.split_at_checked(HEADER_LEN).ok_or("truncated")?;
        let issued_at = read_u64(&header[0..8]).ok_or("truncated")?;
        let expires_at = read_u64(&header[8..16]).ok_or("truncated")?;
        let id: [u8; 16] = header[16..32].try_into().map_err(|_| "truncated")?;
        if now >= expires_at {
            return Err("expired");
        }
        // Checked as UTF-8 once, then read as text: reading bytes checks
        // each string of the payload on its own, dozens a state.
        let body = std::str::from_utf8(body).map_err(|_| "bad payload")?;
        let payload: P = serde_json::from_str(body).map_err(|_| "bad payload")?;
        Ok(OpenedState {
            payload,
            state_id: StateId(id),
            issued_at,
            expires_at,
            kid: kid.to_owned(),
        })
    }
}

/// Associated data: version, key id, principal and request digest, each
/// length-prefixed so no two bindings share an encoding.
fn associated_data(kid: &str, binding: &Binding) -> Vec<u8> {
    let principal = binding.principal().as_bytes();
    let mut aad = Vec::with_capacity(VERSION.len() + kid.len() + principal.len() + 32 + 24);
    for part in [VERSION.as_bytes(), kid.as_bytes(), principal] {
        aad.extend_from_slice(&(part.len() as u64).to_be_bytes());
        aad.extend_from_slice(part);
    }
    aad.extend_from_slice(binding.request().as_bytes());
    aad
}

fn read_u64(bytes: &[u8]) -> Option<u64> {
    bytes.try_into().ok().map(u64::from_be_bytes)
}

/// Length of unpadded base64 for `n` bytes.
fn base64_len(n: usize) -> usize {
    (n * 4).div_ceil(3)
}
