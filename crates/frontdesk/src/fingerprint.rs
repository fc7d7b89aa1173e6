//! What a log line may say about an id that is a credential (a 2025-11-25
//! session id, a task id: on an anonymous server whoever has one uses the
//! session or the task): a short fingerprint that lets lines about the same
//! id be found together, from which the id cannot be recovered.

use std::fmt;

use sha2::{Digest, Sha256};

/// The first 8 hex digits of the SHA-256 of an id, for log lines
/// (`session = %fingerprint(sid)`). The same id gives the same fingerprint
/// everywhere, the client's log and the server's alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint([u8; 4]);

/// The fingerprint of `id`.
pub(crate) fn fingerprint(id: &str) -> Fingerprint {
    let digest = Sha256::digest(id.as_bytes());
    Fingerprint([digest[0], digest[1], digest[2], digest[3]])
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_hex_digits_of_sha256() {
        // SHA-256("abc") = ba7816bf...
        assert_eq!(fingerprint("abc").to_string(), "ba7816bf");
        assert_eq!(fingerprint("abc"), fingerprint("abc"));
        assert_ne!(fingerprint("abc"), fingerprint("abd"));
    }
}
