//! Where the client keeps what an authorization gave it: the client
//! registration at the authorization server and the tokens, keyed by the
//! MCP server's endpoint URL.
//!
//! [`FileTokenStore`] keeps them in one JSON file readable by its owner only
//! (`0600`, in a directory created `0700`), replaced atomically on every
//! save. Nothing here prints or logs a token or a secret; their `Debug`
//! output is redacted.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::AuthError;

/// The client's registration at one authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// The issuer it is registered with (credentials are never sent to another).
    pub issuer: String,
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How it authenticates at the token endpoint: `none`,
    /// `client_secret_basic` or `client_secret_post`.
    pub auth_method: String,
    /// The redirect URI it registered (dynamic registration), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// Whether it was registered dynamically (and may be registered again).
    #[serde(default)]
    pub dynamic: bool,
}

impl fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("auth_method", &self.auth_method)
            .field("redirect_uri", &self.redirect_uri)
            .field("dynamic", &self.dynamic)
            .finish()
    }
}

/// Tokens for one MCP server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token sent as `Authorization: Bearer …`.
    pub access_token: String,
    /// The refresh token, when the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or, when the server did not say, requested).
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"…")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl Tokens {
    /// Whether the access token is known to have expired (with a margin).
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|at| now + 30 >= at)
    }
}

/// Everything kept for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StoredGrant {
    /// The registration used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<RegisteredClient>,
    /// The tokens it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// Keeps [`StoredGrant`]s by MCP endpoint URL.
pub trait TokenStore: Send + Sync {
    /// What is kept for `server`.
    fn load(&self, server: &str) -> Result<Option<StoredGrant>, AuthError>;
    /// Keep `grant` for `server` (replacing what was there).
    fn save(&self, server: &str, grant: &StoredGrant) -> Result<(), AuthError>;
    /// Forget `server`.
    fn remove(&self, server: &str) -> Result<(), AuthError>;
}

/// Keeps grants in memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    grants: Mutex<BTreeMap<String, StoredGrant>>,
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, server: &str) -> Result<Option<StoredGrant>, AuthError> {
        Ok(self.grants.lock().ok().and_then(|g| g.get(server).cloned()))
    }

    fn save(&self, server: &str, grant: &StoredGrant) -> Result<(), AuthError> {
        if let Ok(mut g) = self.grants.lock() {
            g.insert(server.to_owned(), grant.clone());
        }
        Ok(())
    }

    fn remove(&self, server: &str) -> Result<(), AuthError> {
        if let Ok(mut g) = self.grants.lock() {
            g.remove(server);
        }
        Ok(())
    }
}

/// Keeps grants in one JSON file only its owner can read or write.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_all(&self) -> Result<BTreeMap<String, StoredGrant>, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                AuthError::Store(crate::Reason::from(format!(
                    "{} is not a token file: {e}",
                    self.path.display()
                )))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(AuthError::Store(crate::Reason::from(format!(
                "cannot read {}: {e}",
                self.path.display()
            )))),
        }
    }

    fn write_all(&self, all: &BTreeMap<String, StoredGrant>) -> Result<(), AuthError> {
        let fail = |e: std::io::Error| {
            AuthError::Store(crate::Reason::from(format!(
                "cannot write {}: {e}",
                self.path.display()
            )))
        };
        let bytes =
            serde_json::to_vec_pretty(all).map_err(|e| AuthError::Store(crate::Reason::new(e)))?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(fail)?;
        }
        let tmp = self.path.with_extension("tmp");
        write_private(&tmp, &bytes).map_err(fail)?;
        std::fs::rename(&tmp, &self.path).map_err(fail)
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, server: &str) -> Result<Option<StoredGrant>, AuthError> {
        let _held = self.lock.lock();
        Ok(self.read_all()?.remove(server))
    }

    fn save(&self, server: &str, grant: &StoredGrant) -> Result<(), AuthError> {
        let _held = self.lock.lock();
        let mut all = self.read_all()?;
        all.insert(server.to_owned(), grant.clone());
        self.write_all(&all)
    }

    fn remove(&self, server: &str) -> Result<(), AuthError> {
        let _held = self.lock.lock();
        let mut all = self.read_all()?;
        if all.remove(server).is_some() {
            self.write_all(&all)?;
        }
        Ok(())
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Write `bytes` to a new file readable and writable by its owner only.
#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    // The mode above is filtered by the umask; make it exactly 0600.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant() -> StoredGrant {
        StoredGrant {
            client: Some(RegisteredClient {
                issuer: "https://as.example".into(),
                client_id: "c1".into(),
                client_secret: Some("s3cret".into()),
                auth_method: "client_secret_basic".into(),
                redirect_uri: None,
                dynamic: true,
            }),
            tokens: Some(Tokens {
                access_token: "at-123".into(),
                refresh_token: Some("rt-456".into()),
                expires_at: Some(10),
                scopes: vec!["mcp".into()],
            }),
        }
    }

    #[test]
    fn debug_output_never_shows_secrets() {
        let shown = format!("{:?}", grant());
        for secret in ["s3cret", "at-123", "rt-456"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_owner_only_and_keyed_by_server() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("fd-tokens-{}", std::process::id()));
        let store = FileTokenStore::new(dir.join("sub").join("tokens.json"));
        store
            .save("https://a.example/mcp", &grant())
            .expect("saved");
        store
            .save("https://b.example/mcp", &StoredGrant::default())
            .expect("saved");
        let mode = std::fs::metadata(store.path())
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(dir.join("sub"))
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        assert_eq!(
            store.load("https://a.example/mcp").expect("read"),
            Some(grant())
        );
        store.remove("https://a.example/mcp").expect("removed");
        assert_eq!(store.load("https://a.example/mcp").expect("read"), None);
        assert!(store.load("https://b.example/mcp").expect("read").is_some());
        let _ = std::fs::remove_dir_all(dir);
    }
}
