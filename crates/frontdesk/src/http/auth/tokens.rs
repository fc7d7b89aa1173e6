//! A static token file: fixed bearer tokens, each naming its principal. For
//! development and tests; production uses `jwt::JwtAuthenticator` (feature `jwt`)
//! or an authenticator of its own.
//!
//! The file has one `PRINCIPAL TOKEN` pair per line (separated by spaces or
//! tabs); blank lines and lines starting with `#` are ignored:
//!
//! ```text
//! # frontdesk serve --auth-tokens tokens.txt
//! alice  9f2c1e7a5b3d4c6e8f0a1b2c3d4e5f60
//! bob    0a1b2c3d4e5f60718293a4b5c6d7e8f9
//! ```
//!
//! ```
//! use frontdesk::http::auth::tokens::StaticTokens;
//!
//! let tokens = StaticTokens::parse("alice 9f2c1e7a5b3d4c6e8f0a1b2c3d4e5f60\n")?;
//! assert_eq!(tokens.principal_of("9f2c1e7a5b3d4c6e8f0a1b2c3d4e5f60"), Some("alice"));
//! assert_eq!(tokens.principal_of("guess"), None);
//! # Ok::<(), frontdesk::http::auth::tokens::TokenFileError>(())
//! ```

use std::collections::HashMap;
use std::path::Path;

use axum::http::HeaderMap;
use sha2::{Digest, Sha256};

use super::{Authenticate, Unauthorized, bearer_token};
use crate::BoxFuture;

/// Shortest token accepted: a token file is a password file.
pub const MIN_TOKEN_LEN: usize = 16;

/// The token file could not be used. Messages never include a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenFileError {
    /// The file could not be read.
    #[error("cannot read token file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not `PRINCIPAL TOKEN`.
    #[error("token file line {line}: expected `PRINCIPAL TOKEN`")]
    Malformed {
        /// One-based line number.
        line: usize,
    },
    /// A token is shorter than [`MIN_TOKEN_LEN`].
    #[error("token file line {line}: the token is shorter than {MIN_TOKEN_LEN} characters")]
    ShortToken {
        /// One-based line number.
        line: usize,
    },
    /// The same token appears twice.
    #[error("token file line {line}: the token is already used on an earlier line")]
    DuplicateToken {
        /// One-based line number.
        line: usize,
    },
    /// The file names no token at all.
    #[error("the token file has no tokens")]
    Empty,
}

/// Bearer tokens from a file, each mapped to its principal.
///
/// Tokens are kept only as SHA-256 digests, and a request's token is hashed
/// before it is looked up, so lookups do not compare secrets byte by byte.
#[derive(Clone)]
pub struct StaticTokens {
    by_digest: HashMap<[u8; 32], String>,
    resource_metadata: Option<String>,
}

impl std::fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticTokens")
            .field("tokens", &self.by_digest.len())
            .finish_non_exhaustive()
    }
}

impl StaticTokens {
    /// Parse the file's text (format in the [module docs](self)).
    pub fn parse(text: &str) -> Result<Self, TokenFileError> {
        let mut by_digest = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let mut parts = content.split_whitespace();
            let (Some(principal), Some(token), None) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(TokenFileError::Malformed { line });
            };
            if token.len() < MIN_TOKEN_LEN {
                return Err(TokenFileError::ShortToken { line });
            }
            if by_digest
                .insert(digest(token), principal.to_owned())
                .is_some()
            {
                return Err(TokenFileError::DuplicateToken { line });
            }
        }
        if by_digest.is_empty() {
            return Err(TokenFileError::Empty);
        }
        Ok(Self {
            by_digest,
            resource_metadata: None,
        })
    }

    /// Read and parse the file at `path`.
    pub fn from_file(path: &Path) -> Result<Self, TokenFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| TokenFileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Name this protected-resource metadata URL in every `401` challenge.
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// The principal whose token this is.
    pub fn principal_of(&self, token: &str) -> Option<&str> {
        self.by_digest.get(&digest(token)).map(String::as_str)
    }

    /// How many tokens the file holds.
    pub fn len(&self) -> usize {
        self.by_digest.len()
    }

    /// Whether it holds none (never true for a parsed file).
    pub fn is_empty(&self) -> bool {
        self.by_digest.is_empty()
    }

    fn check(&self, headers: &HeaderMap) -> Result<Option<String>, Unauthorized> {
        let metadata = self.resource_metadata.as_deref();
        let token = bearer_token(headers)
            .map_err(|e| e.resource_metadata(metadata))?
            .ok_or_else(|| Unauthorized::missing_token(metadata))?;
        match self.principal_of(token) {
            Some(p) => Ok(Some(p.to_owned())),
            None => Err(
                Unauthorized::bearer("invalid_token", "the access token is not valid")
                    .resource_metadata(metadata),
            ),
        }
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Authenticate for StaticTokens {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
        let result = self.check(headers);
        Box::pin(async move { result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaa1";
    const B: &str = "bbbbbbbbbbbbbbbb2";

    #[test]
    fn reads_pairs_comments_and_blank_lines() {
        let t = StaticTokens::parse(&format!("# dev\n\nalice {A}\n\tbob\t{B}  \n")).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.principal_of(A), Some("alice"));
        assert_eq!(t.principal_of(B), Some("bob"));
        assert!(!format!("{t:?}").contains(A));
    }

    #[test]
    fn refuses_bad_files_without_echoing_tokens() {
        for (text, want) in [
            (format!("alice {A}\nbob"), "line 2: expected"),
            (format!("alice {A} extra"), "line 1: expected"),
            ("alice short".to_owned(), "shorter than 16"),
            (
                format!("alice {A}\nbob {A}"),
                "line 2: the token is already used",
            ),
            ("# nothing\n".to_owned(), "no tokens"),
        ] {
            let e = StaticTokens::parse(&text).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
            assert!(!e.contains(A));
        }
    }
}
