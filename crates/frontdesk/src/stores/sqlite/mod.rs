//! Flows and redeemed states in one SQLite file: durable across restarts of
//! one instance.
//!
//! ```no_run
//! use std::sync::Arc;
//! use frontdesk::server::Server;
//! use frontdesk::state::StateSealer;
//! use frontdesk::stores::sqlite::SqliteStore;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let store = Arc::new(SqliteStore::open(".frontdesk/frontdesk.sqlite3".as_ref())?);
//! let server = Server::builder("shop", "1.0.0")
//!     .state_sealer(StateSealer::from_env(frontdesk::state::KEYS_ENV)?)
//!     .flow_store(store.clone())
//!     .nonce_store(Some(store))
//!     .build();
//! # let _ = server; Ok(()) }
//! ```
//!
//! The file holds who started which flow, and connect-token hashes: it is
//! created owner-only (`0600`) before SQLite opens it, so it is never open to
//! others, not even for an instant, and SQLite gives its write-ahead log and
//! index the same mode. The directory must belong to the server's user and
//! not be writable by group or others, or [`SqliteStore::open`] refuses it:
//! whoever can write there could have put a database, a `-wal` file or a
//! symlink in it first, which changing its mode now would not undo (keep it
//! owner-only, `0700`, so nobody else can even list it). Work runs on tokio's blocking pool,
//! one statement at a time behind a mutex: SQLite serialises writers anyway,
//! and every operation is a single indexed statement or two. Expired rows are
//! deleted as the store is used. Completion events are delivered within this
//! process; several processes on one file are not a supported way to scale
//! out (use Redis).

mod flows;
mod nonces;
#[cfg(unix)]
mod private;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use tokio::sync::broadcast;

use crate::clock::{Clock, SystemClock};
use crate::flows::FlowEvent;
use crate::store::StoreError;

/// The schema; `user_version` says which one a file has.
const SCHEMA_VERSION: i64 = 1;
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS flows (
    id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    purpose TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flows_by_expiry ON flows (expires_at);
CREATE TABLE IF NOT EXISTS connect_tokens (
    hash BLOB PRIMARY KEY,
    flow_id TEXT NOT NULL,
    principal TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS connect_tokens_by_expiry ON connect_tokens (expires_at);
CREATE TABLE IF NOT EXISTS redeemed_states (
    id BLOB PRIMARY KEY,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS redeemed_states_by_expiry ON redeemed_states (expires_at);
";

/// A [`FlowStore`](crate::flows::FlowStore) and
/// [`NonceStore`](crate::state::NonceStore) in one SQLite file.
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    events: broadcast::Sender<FlowEvent>,
    clock: Arc<dyn Clock>,
    path: PathBuf,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("sqlite: {e}"))
}

impl SqliteStore {
    /// Open (or create) the store at `path`; its directory must exist, be
    /// this user's and not be writable by others (see the module docs).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        #[cfg(unix)]
        private::prepare(path)?;
        let conn = Connection::open(path).map_err(backend)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(backend)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(backend)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(backend)?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(backend)?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Backend(format!(
                "sqlite: {} has schema version {version}, newer than this frontdesk ({SCHEMA_VERSION})",
                path.display()
            )));
        }
        conn.execute_batch(SCHEMA).map_err(backend)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(backend)?;
        // The write-ahead log and its index hold the same data.
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            if side.exists() {
                restrict_permissions(&side);
            }
        }
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            events: broadcast::channel(1024).0,
            clock: Arc::new(SystemClock),
            path: path.to_owned(),
        })
    }

    /// Use `clock` for expiries (tests).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `work` on the connection on the blocking pool, with the time now.
    async fn run<T, E>(
        &self,
        work: impl FnOnce(&Connection, i64) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        let now = super::secs(self.clock.now_unix());
        tokio::task::spawn_blocking(move || {
            // A panic while holding the lock leaves SQLite consistent
            // (statements are atomic); keep using the connection.
            let conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            work(&conn, now)
        })
        .await
        .map_err(|e| E::from(backend(e)))?
    }
}

#[cfg(unix)]
fn restrict_permissions(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
        tracing::warn!(path = %path.display(), error = %e, "could not make the store owner-only");
    }
}

#[cfg(not(unix))]
fn restrict_permissions(_: &Path) {}
