//! Flows, redeemed states and task records in one SQLite file: durable
//! across restarts of one instance.
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
//!     .nonce_store(Some(store.clone()))
//!     .task_store(store)
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
//! owner-only, `0700`, so nobody else can even list it).
//!
//! # How it is fast and durable at once
//!
//! - **One writer, group commit.** Every write goes to one thread holding the
//!   only writing connection. It commits what arrived while its previous
//!   commit ran in one transaction, and answers each write only after that
//!   transaction committed: a redemption that was answered `true` is on disk,
//!   so a state redeemed before a crash stays redeemed after it, and a
//!   hundred redemptions arriving together cost one commit. With
//!   [`Durability::Process`] redemptions skip the thread: they are batched
//!   and committed on the async runtime with the same writer (no commit
//!   there waits for an `fsync`), the thread checkpointing the log (see
//!   the `batch` module).
//! - **Durability level.** The file is in WAL mode with
//!   [`Durability::Process`] by default (`synchronous = NORMAL`): a commit
//!   is in the write-ahead log before its writes are answered, so an
//!   answered redemption survives a crash of the process (`SIGKILL`, a
//!   panic, the OOM killer: the log is in the operating system's cache and
//!   reaches the disk without the process), but the last commits before
//!   the operating system itself goes down (a power loss, a kernel panic)
//!   may be lost: a state answered in the last moments before such a crash
//!   could be replayed once after it. [`Durability::Full`]
//!   (`synchronous = FULL`) `fsync`s the log at every commit (one `fsync`
//!   per group commit) so that an answered redemption survives that too;
//!   it costs each batch the disk's flush latency (on the load benchmark's
//!   virtual disk, also about a tenth of the server's CPU per call).
//! - **Checkpoints that hold commits up briefly.** With
//!   [`Durability::Process`] the writer thread checkpoints the log every
//!   thousand commits, holding the writer so that the log starts over. It
//!   first syncs the log without the writer (the `fsync` of every frame
//!   since the last checkpoint, tens of milliseconds on the load
//!   benchmark's virtual disk), so commits wait only for the copy and two
//!   short `fsync`s (a few milliseconds there; about 2 ms when it
//!   checkpointed every 300 commits, and 19 ms before it synced the log
//!   first). It then starts the log over itself (one page committed): the
//!   first commit of a log that starts over `fsync`s its header, which
//!   would otherwise stop a runtime thread.
//! - **Prepared statements.** Every statement is prepared once per
//!   connection and reused.
//! - **Reads never wait for the writer.** Lookups run on their own
//!   connections (WAL readers see the last commit and take no write lock),
//!   on tokio's blocking pool.
//! - **Expiry in batches, off the request path.** Lookups ignore expired
//!   rows, so deleting them is housekeeping: the writer deletes up to a
//!   thousand per table about once a second, when its queue is empty (or
//!   between batches under constant load), in a transaction of its own.
//!
//! Completion events are delivered within this
//! process; several processes on one file are not a supported way to scale
//! out (use Redis).
//!
//! Tasks: a finished task stays readable after a restart; a task that was
//! running when the process stopped is reported `failed` once its lease
//! has run out (see [`crate::tasks`]).

mod batch;
mod flows;
mod nonces;
#[cfg(unix)]
mod private;
mod schema;
mod shares;
mod tasks;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, mpsc as std_mpsc};
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::clock::{Clock, SystemClock};
use crate::flows::FlowEvent;
use crate::state::InMemoryNonceStore;
use crate::store::StoreError;
use batch::Batches;
use shares::Limits;
use writer::{Deliver, Job, Writer};

/// Reading connections kept open for reuse (more may be open at once; the
/// extra ones are closed after use).
const IDLE_READERS: usize = 4;

/// What an answered write has survived (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Durability {
    /// `synchronous = FULL`: each commit is `fsync`ed; an answered write
    /// survives a crash of the machine (a power loss) too.
    Full,
    /// `synchronous = NORMAL` (the default): an answered write is in the
    /// write-ahead log, so it survives a crash of the process (`SIGKILL`),
    /// not necessarily of the operating system.
    #[default]
    Process,
}

impl Durability {
    fn pragma(self) -> &'static str {
        match self {
            Self::Full => "FULL",
            Self::Process => "NORMAL",
        }
    }
}

/// A [`FlowStore`](crate::flows::FlowStore),
/// [`NonceStore`](crate::state::NonceStore) and
/// [`TaskStore`](crate::tasks::TaskStore) in one SQLite file.
pub struct SqliteStore {
    /// The writer's queue; `None` only while dropping.
    queue: Option<mpsc::Sender<Job>>,
    /// Redemptions committed on the runtime ([`Durability::Process`]).
    batches: Option<Arc<Batches>>,
    writer: Option<JoinHandle<()>>,
    readers: Arc<Mutex<Vec<Connection>>>,
    events: broadcast::Sender<FlowEvent>,
    clock: Arc<dyn Clock>,
    path: PathBuf,
    limits: Limits,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(crate::Reason::new(format!("sqlite: {e}")))
}

/// The error of a write whose answer never came (the writer stopped).
fn not_committed() -> StoreError {
    StoreError::Backend(
        "sqlite: the write was not committed (the store is closing or failed)".into(),
    )
}

/// A connection to `path` with the settings every connection of the store
/// shares.
fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(backend)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(backend)?;
    conn.set_prepared_statement_cache_capacity(32);
    Ok(conn)
}

/// The writing connection to `path`: in WAL mode, at `durability`, the
/// file at the current schema.
fn connect_writer(path: &Path, durability: Durability) -> Result<Connection, StoreError> {
    let conn = connect(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(backend)?;
    conn.pragma_update(None, "synchronous", durability.pragma())
        .map_err(backend)?;
    schema::prepare(&conn, path)?;
    Ok(conn)
}

impl SqliteStore {
    /// Default bound on redeemed states kept (about 100 bytes each on disk).
    pub const DEFAULT_MAX_ENTRIES: usize = 1_000_000;

    /// Open (or create) the store at `path`, [`Durability::Process`] (the
    /// default); its directory must exist, be this user's and not be
    /// writable by others (see the module docs).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, Durability::default())
    }

    /// [`open`](Self::open) with another [`Durability`].
    pub fn open_with(path: &Path, durability: Durability) -> Result<Self, StoreError> {
        #[cfg(unix)]
        private::prepare(path)?;
        let conn = connect_writer(path, durability)?;
        // The write-ahead log and its index hold the same data.
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            if side.exists() {
                restrict_permissions(&side);
            }
        }
        let events = broadcast::channel(1024).0;
        let (queue, jobs) = mpsc::channel(writer::QUEUE);
        let (started, running) = std_mpsc::channel();
        // Without `fsync` at each commit, redemptions are committed on the
        // runtime (see the `batch` module) and the thread checkpoints.
        let on_runtime = durability == Durability::Process;
        let writer = Arc::new(Mutex::new(Writer::new(conn, events.clone(), on_runtime)?));
        let batches =
            on_runtime.then(|| Arc::new(Batches::new(Arc::clone(&writer), queue.downgrade())));
        let thread = std::thread::Builder::new()
            .name("frontdesk-sqlite-writer".into())
            .spawn(move || writer::run(writer, jobs, started))
            .map_err(backend)?;
        running
            .recv()
            .map_err(|_| backend("the writer thread did not start"))?;
        Ok(Self {
            queue: Some(queue),
            batches,
            writer: Some(thread),
            readers: Arc::new(Mutex::new(Vec::new())),
            events,
            clock: Arc::new(SystemClock),
            path: path.to_owned(),
            limits: Limits {
                max_entries: Self::DEFAULT_MAX_ENTRIES as u64,
                max_per_owner: InMemoryNonceStore::DEFAULT_MAX_PER_OWNER as u64,
            },
        })
    }

    /// Set the share of one owner: most redeemed states kept per owner (at
    /// least 1; [`InMemoryNonceStore::DEFAULT_MAX_PER_OWNER`] by default).
    /// Past it the owner's earliest-issued one is forgotten and its floor
    /// rises over it (see [`InMemoryNonceStore`] for the rules).
    pub fn with_max_per_owner(mut self, max_per_owner: usize) -> Self {
        self.limits.max_per_owner = u64::try_from(max_per_owner.max(1)).unwrap_or(u64::MAX);
        self
    }

    /// Set the most redeemed states kept in all (at least 1;
    /// [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES) by default); past
    /// it the owner holding the most gives one up.
    pub fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.limits.max_entries = u64::try_from(max_entries.max(1)).unwrap_or(u64::MAX);
        self
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

    fn now(&self) -> i64 {
        super::secs(self.clock.now_unix())
    }

    /// Hand `job` to the writer.
    async fn submit(&self, job: Job) -> Result<(), StoreError> {
        let queue = self.queue.as_ref().ok_or_else(not_committed)?;
        queue.send(job).await.map_err(|_| not_committed())
    }

    /// Run `work` in the writer's next transaction, with the time now; its
    /// result once that transaction committed.
    async fn write<T, E>(
        &self,
        work: impl FnOnce(&Connection, i64) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<T, E>>();
        let work: writer::Work = Box::new(move |conn, now| {
            let result = work(conn, now);
            let deliver: Deliver = Box::new(move |failed| {
                let _ = reply.send(match failed {
                    Some(e) => Err(E::from(e)),
                    None => result,
                });
            });
            deliver
        });
        self.submit(Job::Work {
            now: self.now(),
            work,
        })
        .await
        .map_err(E::from)?;
        answer.await.map_err(|_| E::from(not_committed()))?
    }

    /// Run `read` on a reading connection on the blocking pool, with the
    /// time now. It sees the last commit and never waits for the writer.
    async fn read<T, E>(
        &self,
        read: impl FnOnce(&Connection, i64) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let readers = Arc::clone(&self.readers);
        let path = self.path.clone();
        let now = self.now();
        tokio::task::spawn_blocking(move || {
            let idle = readers.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let conn = match idle {
                Some(c) => c,
                None => {
                    let c = connect(&path)?;
                    // A reader never writes, whatever a bug might ask.
                    c.pragma_update(None, "query_only", true).map_err(backend)?;
                    c
                }
            };
            let result = read(&conn, now);
            let mut idle = readers.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.len() < IDLE_READERS {
                idle.push(conn);
            }
            result
        })
        .await
        .map_err(|e| E::from(backend(e)))?
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // Close the readers, then let the writer finish what is queued and
        // close last, so the log is checkpointed into the file.
        self.readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.batches = None;
        self.queue = None;
        if let Some(thread) = self.writer.take()
            && thread.join().is_err()
        {
            tracing::warn!("the SQLite writer thread panicked");
        }
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

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::state::{NonceStore, Redemption, StateId};

    /// Closing the store writes the owners' order it still listed in
    /// memory, so the next open has nothing to rebuild.
    #[test]
    fn closing_writes_the_owners_order() {
        let dir = std::env::temp_dir().join(format!("frontdesk-close-{}", StateId::random()));
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = dir.join("store.sqlite3");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let now = crate::clock::unix_secs(std::time::SystemTime::now());
        let store = SqliteStore::open(&path).unwrap();
        runtime.block_on(async {
            for _ in 0..3 {
                let r = Redemption::of_parts(StateId::random(), now, now + 60).owner("10.0.0.1");
                assert!(store.redeem_for(r).await.unwrap());
            }
        });
        drop(store);
        let conn = rusqlite::Connection::open(&path).unwrap();
        let ordered: i64 = conn
            .query_row("SELECT count(*) FROM owner_order", [], |r| r.get(0))
            .unwrap();
        drop(conn);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(ordered, 3);
    }
}
