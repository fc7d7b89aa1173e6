//! Sealing keys: one current key for sealing, older keys kept for opening.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use chacha20poly1305::{KeyInit, XChaCha20Poly1305};
use zeroize::{Zeroize, Zeroizing};

/// Longest key id accepted.
const MAX_KID_LEN: usize = 32;

/// A configured key set was unusable. Messages never include key material.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyConfigError {
    /// The environment variable is not set (or empty).
    #[error("environment variable {variable} is not set")]
    Missing {
        /// The variable's name.
        variable: String,
    },
    /// The key list has no entries.
    #[error("no keys configured")]
    Empty,
    /// A key id is empty, too long, or uses characters other than `A-Z a-z 0-9 _ -`.
    #[error("invalid key id {kid:?}: use 1 to 32 of A-Z a-z 0-9 _ -")]
    InvalidKid {
        /// The key id.
        kid: String,
    },
    /// The same key id appears twice.
    #[error("duplicate key id {kid:?}")]
    DuplicateKid {
        /// The key id.
        kid: String,
    },
    /// An entry is not of the form `kid:key`.
    #[error("key entry {index} is not of the form kid:key")]
    Malformed {
        /// Zero-based position of the entry in the list.
        index: usize,
    },
    /// A key is not 32 bytes of hex or base64.
    #[error("key {kid:?} is not 32 bytes as 64 hex digits or base64")]
    BadKey {
        /// The key id of the entry.
        kid: String,
    },
}

impl KeyConfigError {
    /// Who must act to get past it: always the operator (the sealing keys are theirs).
    pub fn party(&self) -> crate::Party {
        crate::Party::Operator
    }
}

crate::errors::party_predicates!(KeyConfigError);

/// One 256-bit sealing key and its id.
///
/// The key bytes are wiped when the key is dropped; `Debug` shows only the id.
#[derive(Clone)]
pub struct StateKey {
    kid: String,
    cipher: XChaCha20Poly1305,
}

impl StateKey {
    /// A key from its id and 32 key bytes.
    pub fn new(kid: impl Into<String>, key: [u8; 32]) -> Result<Self, KeyConfigError> {
        let mut key = Zeroizing::new(key);
        let kid = kid.into();
        if !valid_kid(&kid) {
            return Err(KeyConfigError::InvalidKid { kid });
        }
        let cipher = XChaCha20Poly1305::new(&(*key).into());
        key.zeroize();
        Ok(Self { kid, cipher })
    }

    /// A fresh random key with the given id.
    pub fn generate(kid: impl Into<String>) -> Result<Self, KeyConfigError> {
        let mut key = Zeroizing::new([0u8; 32]);
        rand::fill(&mut key[..]);
        Self::new(kid, *key)
    }

    /// A fresh random key as one `kid:key` entry of `FRONTDESK_STATE_KEYS`
    /// (the key as unpadded URL-safe base64, so the entry needs no quoting in
    /// a shell or an env file). What `frontdesk keys generate` prints.
    ///
    /// ```
    /// use frontdesk::state::{Keyring, StateKey};
    ///
    /// let entry = StateKey::generate_entry("k2")?;
    /// assert!(entry.starts_with("k2:"));
    /// assert_eq!(Keyring::parse(&entry)?.current_kid(), "k2");
    /// # Ok::<(), frontdesk::state::KeyConfigError>(())
    /// ```
    pub fn generate_entry(kid: &str) -> Result<Zeroizing<String>, KeyConfigError> {
        if !valid_kid(kid) {
            return Err(KeyConfigError::InvalidKid {
                kid: kid.to_owned(),
            });
        }
        let mut key = Zeroizing::new([0u8; 32]);
        rand::fill(&mut key[..]);
        let mut entry = Zeroizing::new(String::with_capacity(kid.len() + 44));
        entry.push_str(kid);
        entry.push(':');
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode_string(&key[..], &mut entry);
        Ok(entry)
    }

    /// A random key with a random `dev-…` id; infallible because the id is
    /// always valid.
    pub(crate) fn generate_development() -> Self {
        let mut key = Zeroizing::new([0u8; 32]);
        rand::fill(&mut key[..]);
        let mut tag = [0u8; 4];
        rand::fill(&mut tag[..]);
        let kid = format!("dev-{:08x}", u32::from_be_bytes(tag));
        let cipher = XChaCha20Poly1305::new(&(*key).into());
        Self { kid, cipher }
    }

    /// Parse one `kid:key` entry, the key as 64 hex digits or base64 (standard or
    /// URL-safe alphabet, padding optional).
    pub fn parse(entry: &str) -> Result<Self, KeyConfigError> {
        let (kid, key) = entry
            .trim()
            .split_once(':')
            .ok_or(KeyConfigError::Malformed { index: 0 })?;
        let kid = kid.trim();
        if !valid_kid(kid) {
            return Err(KeyConfigError::InvalidKid {
                kid: kid.to_owned(),
            });
        }
        let bytes = decode_key(key.trim()).ok_or_else(|| KeyConfigError::BadKey {
            kid: kid.to_owned(),
        })?;
        Self::new(kid, *bytes)
    }

    /// The key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub(crate) fn cipher(&self) -> &XChaCha20Poly1305 {
        &self.cipher
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

fn valid_kid(kid: &str) -> bool {
    !kid.is_empty()
        && kid.len() <= MAX_KID_LEN
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn decode_key(text: &str) -> Option<Zeroizing<[u8; 32]>> {
    let mut out = Zeroizing::new([0u8; 32]);
    if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        for (i, pair) in text.as_bytes().chunks_exact(2).enumerate() {
            out[i] = (hex_val(pair[0])? << 4) | hex_val(pair[1])?;
        }
        return Some(out);
    }
    // Accept both alphabets and optional padding: normalise to standard, no pad.
    let normalised: Zeroizing<String> = Zeroizing::new(
        text.trim_end_matches('=')
            .chars()
            .map(|c| match c {
                '-' => '+',
                '_' => '/',
                c => c,
            })
            .collect(),
    );
    let decoded = Zeroizing::new(STANDARD_NO_PAD.decode(normalised.as_bytes()).ok()?);
    if decoded.len() != 32 {
        return None;
    }
    out.copy_from_slice(&decoded);
    Some(out)
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The keys a [`StateSealer`](super::StateSealer) uses: the current key seals,
/// every key (current and older) opens.
///
/// Rotate by putting a new key first and keeping the old one until every state it
/// sealed has expired; then drop it.
#[derive(Clone, Debug)]
pub struct Keyring {
    current: StateKey,
    older: Vec<StateKey>,
}

impl Keyring {
    /// A keyring with only `current`.
    pub fn new(current: StateKey) -> Self {
        Self {
            current,
            older: Vec::new(),
        }
    }

    /// Add an older key, used only to open.
    pub fn with_old_key(mut self, key: StateKey) -> Result<Self, KeyConfigError> {
        if self.get(key.kid()).is_some() {
            return Err(KeyConfigError::DuplicateKid { kid: key.kid });
        }
        self.older.push(key);
        Ok(self)
    }

    /// Parse `kid:key,kid:key,…`; the first entry is the current key. Keys are 64
    /// hex digits or base64 of 32 bytes. Whitespace around entries is ignored.
    pub fn parse(spec: &str) -> Result<Self, KeyConfigError> {
        let mut entries = spec.split(',').map(str::trim).filter(|e| !e.is_empty());
        let first = entries.next().ok_or(KeyConfigError::Empty)?;
        let mut ring = Self::new(StateKey::parse(first).map_err(|e| at_index(e, 0))?);
        for (i, entry) in entries.enumerate() {
            let key = StateKey::parse(entry).map_err(|e| at_index(e, i + 1))?;
            ring = ring.with_old_key(key)?;
        }
        Ok(ring)
    }

    /// Parse the keyring from environment variable `var` (format of [`Keyring::parse`]).
    pub fn from_env(var: &str) -> Result<Self, KeyConfigError> {
        match std::env::var(var) {
            Ok(spec) if !spec.trim().is_empty() => {
                let spec = Zeroizing::new(spec);
                Self::parse(&spec)
            }
            _ => Err(KeyConfigError::Missing {
                variable: var.to_owned(),
            }),
        }
    }

    /// The id of the key that seals.
    pub fn current_kid(&self) -> &str {
        self.current.kid()
    }

    /// Every key id, current first.
    pub fn kids(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.current)
            .chain(&self.older)
            .map(StateKey::kid)
    }

    /// Remove an older key; returns whether it was there. The current key stays.
    pub fn remove_old_key(&mut self, kid: &str) -> bool {
        let before = self.older.len();
        self.older.retain(|k| k.kid() != kid);
        self.older.len() != before
    }

    pub(crate) fn current(&self) -> &StateKey {
        &self.current
    }

    pub(crate) fn get(&self, kid: &str) -> Option<&StateKey> {
        std::iter::once(&self.current)
            .chain(&self.older)
            .find(|k| k.kid() == kid)
    }
}

fn at_index(e: KeyConfigError, index: usize) -> KeyConfigError {
    match e {
        KeyConfigError::Malformed { .. } => KeyConfigError::Malformed { index },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const B64: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn parses_hex_and_both_base64_alphabets() {
        let ring = Keyring::parse(&format!(
            "new:{HEX}, old:{B64} ,older:{}",
            "_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-8"
        ))
        .unwrap();
        assert_eq!(ring.current_kid(), "new");
        assert_eq!(ring.kids().collect::<Vec<_>>(), ["new", "old", "older"]);
    }

    #[test]
    fn rejects_bad_entries_without_echoing_keys() {
        assert!(matches!(Keyring::parse(""), Err(KeyConfigError::Empty)));
        assert!(matches!(
            Keyring::parse(&format!("a:{HEX},nocolon")),
            Err(KeyConfigError::Malformed { index: 1 })
        ));
        assert!(matches!(
            Keyring::parse(&format!("bad.kid:{HEX}")),
            Err(KeyConfigError::InvalidKid { .. })
        ));
        let short = Keyring::parse("k:c2hvcnQ").unwrap_err();
        assert!(matches!(short, KeyConfigError::BadKey { .. }));
        assert!(!short.to_string().contains("c2hvcnQ"));
        assert!(matches!(
            Keyring::parse(&format!("k:{HEX},k:{B64}")),
            Err(KeyConfigError::DuplicateKid { .. })
        ));
    }

    #[test]
    fn debug_never_shows_key_material() {
        let ring = Keyring::parse(&format!("k:{HEX}")).unwrap();
        let dbg = format!("{ring:?}");
        assert!(dbg.contains("\"k\""));
        assert!(!dbg.contains("cipher"));
    }

    #[test]
    fn missing_env_var_is_reported() {
        assert!(matches!(
            Keyring::from_env("FRONTDESK_TEST_SURELY_UNSET_VAR"),
            Err(KeyConfigError::Missing { .. })
        ));
    }
}
