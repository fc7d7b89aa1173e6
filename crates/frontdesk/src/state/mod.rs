//! Sealed `requestState`: what a 2026-07-28 server hands the client between rounds.
//!
//! The client echoes `requestState` byte for byte, so the server can keep answers
//! from earlier rounds in it instead of in memory. The spec says to treat it as
//! attacker-controlled (MRTR A.4): this module encrypts and authenticates it.
//!
//! - **AEAD**: XChaCha20-Poly1305, a fresh random 192-bit nonce per token.
//! - **Key rotation**: every token names the key id (`kid`) it was sealed with;
//!   a [`Keyring`] seals with its current key and opens with any key it holds.
//! - **Expiry**: issued-at and expiry travel inside the ciphertext.
//! - **Binding**: the authenticated principal and a digest of the originating
//!   request (method, name, canonical arguments) are bound as associated data,
//!   so the token opens only for the same principal retrying the same request.
//! - **One fixed error**: every failure to open is [`StateRejected`]; the reason
//!   goes to the debug log only.
//! - **Size bound**: tokens longer than the configured limit are refused in
//!   both directions.
//! - **Single use**: each token carries a random [`StateId`]; redeem it through
//!   a [`NonceStore`] (see [`open_single_use`]) when a state must be consumed at
//!   most once.
//!
//! Token format: `fd1.<kid>.<base64url(nonce || ciphertext)>`.
//!
//! ```
//! use frontdesk::state::{Binding, RequestDigest, StateSealer};
//! use serde_json::json;
//! use std::time::{Duration, SystemTime};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sealer = StateSealer::from_spec("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")?;
//! let request = RequestDigest::new("tools/call", Some("book"), Some(&json!({"city": "Oslo"})));
//! let binding = Binding::new("user-42", request);
//! let token = sealer.seal(&binding, &json!({"answers": {"date": "2026-12-01"}}), Duration::from_secs(600))?;
//! let opened = sealer.open(&token, &binding, SystemTime::now())?;
//! assert_eq!(opened.payload()["answers"]["date"], "2026-12-01");
//! # Ok(())
//! # }
//! ```

pub(crate) mod binding;
mod keyring;
mod nonce;
mod sealer;
mod shared_reply;
#[cfg(test)]
mod tests;

pub use binding::{Binding, RequestDigest};
pub use keyring::{KeyConfigError, Keyring, StateKey};
pub use nonce::{InMemoryNonceStore, NonceStore, RedeemError, Redemption, open_single_use};
pub(crate) use sealer::IdHasher;
pub use sealer::{OpenedState, SealError, StateId, StateRejected, StateSealer};
pub use shared_reply::SharedReply;

/// The environment variable the keyring is read from by convention:
/// `kid:key,kid:key,…`, current key first (see [`Keyring::parse`]).
pub const KEYS_ENV: &str = "FRONTDESK_STATE_KEYS";
