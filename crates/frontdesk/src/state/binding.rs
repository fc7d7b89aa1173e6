//! What a sealed state is bound to: a principal and a digest of the request.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// SHA-256 of the salient parts of the request that produced a state.
///
/// The digest covers the method, the request's name (tool or prompt name, or
/// resource URI) and its arguments in canonical JSON (object keys sorted at
/// every depth, no whitespace), so a retry that re-orders keys still matches.
/// Absent arguments hash like an empty object.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestDigest([u8; 32]);

impl RequestDigest {
    /// Digest of `method`, `name` and `arguments`.
    pub fn new(method: &str, name: Option<&str>, arguments: Option<&Value>) -> Self {
        let mut h = Sha256::new();
        h.update(b"frontdesk/request/v1\n");
        update_len_prefixed(&mut h, method.as_bytes());
        match name {
            None => h.update([0u8]),
            Some(n) => {
                h.update([1u8]);
                update_len_prefixed(&mut h, n.as_bytes());
            }
        }
        match arguments {
            None => h.update(b"{}"),
            Some(args) => h.update(canonical_json(args)),
        }
        Self(h.finalize().into())
    }

    /// A digest from raw bytes, e.g. one computed elsewhere and stored.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The 32 digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl std::fmt::Debug for RequestDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RequestDigest(")?;
        for b in &self.0[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…)")
    }
}

fn update_len_prefixed(h: &mut Sha256, bytes: &[u8]) {
    // u64 so no length can wrap; lengths make the encoding unambiguous.
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// Who may open a state, and for which request.
///
/// The principal is an opaque string: the authenticated subject (e.g. the `sub`
/// claim from MCP authorization), or `""` for an anonymous caller. Never build
/// it from identity claims the client makes about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    principal: String,
    request: RequestDigest,
}

impl Binding {
    /// A binding to `principal` and `request`.
    pub fn new(principal: impl Into<String>, request: RequestDigest) -> Self {
        Self {
            principal: principal.into(),
            request,
        }
    }

    /// A binding for an anonymous caller (principal `""`).
    pub fn anonymous(request: RequestDigest) -> Self {
        Self::new("", request)
    }

    /// The principal.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The request digest.
    pub fn request(&self) -> &RequestDigest {
        &self.request
    }
}

use frontdesk_form::canonical::canonical_json;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_digest() {
        let a: Value = serde_json::from_str(r#"{"city":"Oslo","when":{"from":1,"to":2}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"when":{"to":2,"from":1},"city":"Oslo"}"#).unwrap();
        assert_eq!(
            RequestDigest::new("tools/call", Some("book"), Some(&a)),
            RequestDigest::new("tools/call", Some("book"), Some(&b))
        );
    }

    #[test]
    fn every_part_changes_the_digest() {
        let args = json!({"city": "Oslo"});
        let base = RequestDigest::new("tools/call", Some("book"), Some(&args));
        assert_ne!(
            base,
            RequestDigest::new("prompts/get", Some("book"), Some(&args))
        );
        assert_ne!(
            base,
            RequestDigest::new("tools/call", Some("cancel"), Some(&args))
        );
        assert_ne!(base, RequestDigest::new("tools/call", None, Some(&args)));
        assert_ne!(
            base,
            RequestDigest::new("tools/call", Some("book"), Some(&json!({"city": "Bergen"})))
        );
        // Length prefixes keep method/name boundaries unambiguous.
        assert_ne!(
            RequestDigest::new("ab", Some("c"), None),
            RequestDigest::new("a", Some("bc"), None)
        );
    }

    #[test]
    fn absent_arguments_hash_like_an_empty_object() {
        assert_eq!(
            RequestDigest::new("tools/call", Some("t"), None),
            RequestDigest::new("tools/call", Some("t"), Some(&json!({})))
        );
    }
}
