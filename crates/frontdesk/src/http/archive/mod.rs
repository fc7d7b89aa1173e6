//! The event archive: a copy of every 2025-11-25 session event in a store
//! that several instances share, so a stream that broke can be resumed with
//! `Last-Event-ID` on another instance.
//!
//! With [`HttpOptions::event_archive`](super::HttpOptions::event_archive)
//! set, the instance holding a session hands each of its SSE events (the
//! session, the stream number, the event's number and its JSON data), the
//! mark that a stream ended, and a small record of the session (who may use
//! it, as an [`Owner`]) to a background writer, which writes them to an
//! [`EventArchive`] in batches. Responses never wait for the archive: the
//! writer's queue is bounded ([`Archive::queue`]) and, when it is full, an
//! event is dropped and counted ([`Archive::dropped`], the
//! `frontdesk_archive_dropped_total` metric), never the request slowed.
//!
//! A `GET` with `Mcp-Session-Id` and `Last-Event-ID` reaching an instance
//! that does not hold the session looks the session up in the archive. When
//! the archive knows it and the caller is its principal (an anonymous
//! session: anyone holding its id, as on the instance holding it), the
//! events after `Last-Event-ID` are replayed from the archive, then the
//! stream is followed there (blocking reads with a timeout, keep-alive
//! comments as usual) until its end mark. A session the archive does not
//! know, or another principal's, is `404 Session not found`, as without an
//! archive. The instance holding the session serves it as before.
//!
//! Each instance also says, every [`HEARTBEAT`], that it is alive
//! ([`EventArchive::heartbeat`]), and that it stopped when it shuts down
//! (after its last writes). A stream followed elsewhere ends when the
//! instance holding its session is no longer alive (killed, or stopped
//! with the stream unfinished): what it archived is replayed first, and a
//! resume with nothing left to replay is `404`, as the session is gone. So
//! a client never waits on a stream nobody will finish.
//!
//! # What still needs stickiness
//!
//! The archive carries events, not the session: the session itself (the
//! handler waiting for a person's answer, the call in flight) lives in the
//! memory of the instance that created it. So every **POST** of a
//! 2025-11-25 session (the answer to an `elicitation/create`, a new call, a
//! notification) must still reach that instance: route by `Mcp-Session-Id`
//! (a consistent hash, or a cookie) at the load balancer. A POST reaching
//! another instance gets `404 Session not found` and the client starts a new
//! session. What the archive adds is that a **broken stream** can be resumed
//! anywhere: when a client's connection to the instance breaks (the
//! instance is drained with SIGTERM, a proxy restarts, a network blip), the
//! events it missed — a question, the withdrawal of a question
//! (`notifications/cancelled`) and the "call again" result a drain sends —
//! reach it through any instance. An instance killed outright (SIGKILL)
//! loses its sessions: what it archived until then is still replayed, and
//! a stream followed elsewhere ends within [`HEARTBEAT_TTL`] of the kill
//! (the client learns its call is lost, as without an archive).
//!
//! The archive keeps a session's events until [`Keep::idle`] after its
//! last write, whether or not its instance still holds it: a session its
//! instance ended (idle, evicted for room, shut down) can be resumed until
//! then, replaying what its streams carried (their end marks included).
//! Only the client's `DELETE` makes the archive forget the session at once (a
//! resume is then `404`; its events expire with their keys).
//!
//! A resumed stream on another instance does not know whether the client
//! also reads the stream on the instance holding it (which refuses a second
//! reader with `409`); such a client gets the events twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::BoxFuture;
use crate::store::StoreError;

mod writer;

pub(crate) use writer::{Tap, Writer};

/// Who may use an archived session: anyone holding its id (an anonymous
/// session), or the principal whose SHA-256 digest it holds (the principal
/// itself is not stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner(String);

impl Owner {
    /// The owner of a session created by `principal` (`None`: anonymous).
    pub fn of(principal: Option<&str>) -> Self {
        match principal {
            None => Self("anonymous".to_owned()),
            Some(p) => {
                let digest = Sha256::digest(p.as_bytes());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                Self(format!("principal:{hex}"))
            }
        }
    }

    /// The owner as stored (`anonymous`, or `principal:` and 64 hex digits).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An owner read back from a store (what [`as_str`](Self::as_str) gave).
    pub fn from_stored(stored: impl Into<String>) -> Self {
        Self(stored.into())
    }
}

/// One thing to archive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Record {
    /// A session started: who may use it, and which instance holds it.
    Session {
        /// The session id (`Mcp-Session-Id`).
        session: Arc<str>,
        /// Who may use it.
        owner: Owner,
        /// The instance holding it (what it sends [`EventArchive::heartbeat`]s as).
        instance: Arc<str>,
    },
    /// One event of a stream (`Last-Event-ID` `<stream>-<seq>`).
    Event {
        /// The session id.
        session: Arc<str>,
        /// The stream number (0: the GET stream; POST streams from 1).
        stream: u64,
        /// The event's number in its stream (from 1, increasing).
        seq: u64,
        /// The event's data: one compact JSON message, or empty for a
        /// priming event.
        data: String,
    },
    /// A stream ended: no event follows; `seq` is the number the next event
    /// would have had.
    End {
        /// The session id.
        session: Arc<str>,
        /// The stream number.
        stream: u64,
        /// One past the stream's last event number.
        seq: u64,
    },
    /// The client ended the session (`DELETE`): forget who may use it.
    Forget {
        /// The session id.
        session: Arc<str>,
    },
}

/// How much an archive keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    /// Events per stream ([`HttpOptions::replay_buffer`](super::HttpOptions::replay_buffer)).
    pub events: usize,
    /// How long a session and its streams are kept after their last write
    /// ([`HttpOptions::session_idle`](super::HttpOptions::session_idle)).
    pub idle: Duration,
}

/// What an archive knows of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedSession {
    /// Who may use it.
    pub owner: Owner,
    /// The instance holding it.
    pub instance: String,
}

/// One archived item of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Archived {
    /// An event.
    Event {
        /// Its number in the stream.
        seq: u64,
        /// Its data (empty for a priming event).
        data: String,
    },
    /// The stream's end mark.
    End,
}

/// A shared store of 2025-11-25 session events (see the [module](self)).
/// Held as `Arc<dyn EventArchive>`; methods return [`BoxFuture`]s (see
/// [`crate::store`]).
pub trait EventArchive: Send + Sync + 'static {
    /// Write `batch`, in order, keeping what `keep` says. The background
    /// writer calls it; nothing waits for it but the writer.
    fn write<'a>(
        &'a self,
        batch: &'a [Record],
        keep: Keep,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The session `session_id`, if the archive knows it.
    fn session<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<ArchivedSession>, StoreError>>;

    /// Instance `instance` is alive for `ttl` more (`None`: it stopped).
    fn heartbeat<'a>(
        &'a self,
        instance: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Whether instance `instance` is alive (its last heartbeat has not run
    /// out).
    fn alive<'a>(&'a self, instance: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// A reader of stream `stream` of the session, `None` when the archive
    /// has nothing of that stream. [`StoreError::Full`] when the archive
    /// serves as many readers as it is allowed to.
    fn reader<'a>(
        &'a self,
        session_id: &'a str,
        stream: u64,
    ) -> BoxFuture<'a, Result<Option<Box<dyn ArchiveReader>>, StoreError>>;
}

/// Reads one archived stream.
pub trait ArchiveReader: Send {
    /// What the stream holds after event number `after`, in order, its end
    /// mark last when it has ended (even when `after` is past its last
    /// event: the stream has nothing more); waits up to `wait` for something
    /// when there is nothing yet (an empty answer: nothing came in time).
    fn read(
        &mut self,
        after: u64,
        wait: Duration,
    ) -> BoxFuture<'_, Result<Vec<Archived>, StoreError>>;
}

/// How often an instance says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a heartbeat holds: an instance silent this long is taken for
/// dead, and streams followed elsewhere end.
pub const HEARTBEAT_TTL: Duration = Duration::from_secs(4);

/// An [`EventArchive`] for [`HttpOptions::event_archive`](super::HttpOptions::event_archive),
/// with the writer's queue bound and its count of dropped records.
#[derive(Clone)]
pub struct Archive {
    store: Arc<dyn EventArchive>,
    queue: usize,
    dropped: Arc<AtomicU64>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("queue", &self.queue)
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

impl Archive {
    /// The default bound of the writer's queue, in records.
    pub const DEFAULT_QUEUE: usize = 4096;

    /// Archive to `store`, with a queue of [`DEFAULT_QUEUE`](Self::DEFAULT_QUEUE).
    pub fn new(store: Arc<dyn EventArchive>) -> Self {
        Self {
            store,
            queue: Self::DEFAULT_QUEUE,
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Bound the writer's queue to `records` (at least 1): past it, records
    /// are dropped and counted rather than wait.
    pub fn queue(mut self, records: usize) -> Self {
        self.queue = records.max(1);
        self
    }

    /// Records dropped so far because the writer's queue was full (every
    /// listener using this archive counts here).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn EventArchive> {
        &self.store
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_hold_a_digest_not_the_principal() {
        assert_eq!(Owner::of(None).as_str(), "anonymous");
        // SHA-256("abc") = ba7816bf…
        let alice = Owner::of(Some("abc"));
        assert_eq!(
            alice.as_str(),
            "principal:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(Owner::from_stored(alice.as_str()), alice);
        assert_ne!(Owner::of(Some("")), Owner::of(None));
        assert_ne!(Owner::of(Some("anonymous")), Owner::of(None));
    }
}
