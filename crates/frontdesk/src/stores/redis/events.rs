//! [`EventArchive`] on Redis: the events of 2025-11-25 session streams,
//! shared by every instance, so a broken stream can be resumed on any of
//! them (what still needs a sticky load balancer is said in
//! [`crate::http::archive`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use frontdesk::http::{HttpOptions, archive::Archive};
//! use frontdesk::stores::redis::RedisEventArchive;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let events = RedisEventArchive::connect("redis://127.0.0.1:6379", "frontdesk:").await?;
//! let options = HttpOptions::new().event_archive(Archive::new(Arc::new(events)));
//! # let _ = options; Ok(()) }
//! ```
//!
//! Layout, every key under the prefix, `<sid>` being the hex SHA-256 of the
//! session id (the id is a credential: it is not stored):
//!
//! - `sse:<sid>`: a hash, `owner` ([`Owner`]: `anonymous`, or the SHA-256 of
//!   the principal) and `instance` (the instance holding the session),
//!   expiring [`Keep::idle`] after the session's last write;
//! - `sse:<sid>:<stream>`: a Redis stream of the stream's events, the entry
//!   of event `n` having the id `0-n` and the field `d` (its data); the end
//!   mark is one more entry with the field `end`. Trimmed to
//!   [`Keep::events`] entries (`MAXLEN`), expiring with the session;
//! - `inst:<instance>`: there while the instance is alive (set with a time
//!   to live at each heartbeat, deleted when it stops).
//!
//! Writes go in one pipeline per batch over the shared multiplexed
//! connection. A replay is one pipelined `XRANGE` and `XREVRANGE` (the
//! latter to see an end mark the client is already past); following a
//! stream is `XREAD BLOCK` on a connection of the reader's own (a blocking
//! command would hold up every other command on a shared connection), so
//! each stream followed on an instance holds one Redis connection, and at
//! most [`RedisEventArchive::with_max_readers`] are followed at once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, MultiplexedConnection};
use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::backend;
use crate::BoxFuture;
use crate::http::archive::{
    ArchiveReader, Archived, ArchivedSession, EventArchive, Keep, Owner, Record,
};
use crate::store::StoreError;

/// Most entries one read returns.
const READ_COUNT: usize = 1024;

/// An [`EventArchive`] in Redis.
pub struct RedisEventArchive {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
    readers: Arc<Semaphore>,
    max_readers: usize,
}

impl std::fmt::Debug for RedisEventArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventArchive")
            .field("prefix", &self.prefix)
            .field("max_readers", &self.max_readers)
            .finish_non_exhaustive()
    }
}

impl RedisEventArchive {
    /// The default of [`with_max_readers`](Self::with_max_readers).
    pub const DEFAULT_MAX_READERS: usize = 256;

    /// Connect to `url` (as [`RedisStore::connect`](super::RedisStore::connect));
    /// every key is under `prefix` (use the store's).
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(backend)?;
        let conn = client.get_connection_manager().await.map_err(backend)?;
        Ok(Self {
            client,
            conn,
            prefix: prefix.to_owned(),
            readers: Arc::new(Semaphore::new(Self::DEFAULT_MAX_READERS)),
            max_readers: Self::DEFAULT_MAX_READERS,
        })
    }

    /// Follow at most `readers` streams at once (each holds a connection);
    /// past it a resume is refused (`503`) until one ends.
    pub fn with_max_readers(mut self, readers: usize) -> Self {
        let readers = readers.max(1);
        self.readers = Arc::new(Semaphore::new(readers));
        self.max_readers = readers;
        self
    }

    fn session_key(&self, session_id: &str) -> String {
        session_key(&self.prefix, session_id)
    }

    fn stream_key(&self, session_id: &str, stream: u64) -> String {
        stream_key(&self.prefix, session_id, stream)
    }
}

/// The hex SHA-256 of a session id.
fn digest(session_id: &str) -> String {
    Sha256::digest(session_id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `<prefix>sse:<sha256 of the id>`.
fn session_key(prefix: &str, session_id: &str) -> String {
    format!("{prefix}sse:{}", digest(session_id))
}

/// `<prefix>sse:<sha256 of the id>:<stream>`.
fn stream_key(prefix: &str, session_id: &str, stream: u64) -> String {
    format!("{prefix}sse:{}:{stream}", digest(session_id))
}

/// The entry id of event `seq` (`0-<seq>`: Redis orders entries by it).
fn entry_id(seq: u64) -> String {
    format!("0-{seq}")
}

/// The event number of an entry id `0-<seq>`.
fn seq_of(entry: &str) -> Option<u64> {
    entry.strip_prefix("0-")?.parse().ok()
}

/// Entries as `XRANGE` answers them (and `XREAD`, per key).
type Entries = Vec<(String, HashMap<String, String>)>;

/// The archived items of `entries`.
fn items(entries: Entries) -> Vec<Archived> {
    let mut out = Vec::with_capacity(entries.len());
    for (id, mut fields) in entries {
        if fields.contains_key("end") {
            out.push(Archived::End);
            break;
        }
        match (seq_of(&id), fields.remove("d")) {
            (Some(seq), Some(data)) => out.push(Archived::Event { seq, data }),
            _ => tracing::warn!(entry = %id, "unreadable entry in the event archive"),
        }
    }
    out
}

impl EventArchive for RedisEventArchive {
    fn write<'a>(
        &'a self,
        batch: &'a [Record],
        keep: Keep,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let idle = i64::try_from(keep.idle.as_secs().max(1)).unwrap_or(i64::MAX);
            let mut pipe = redis::pipe();
            let mut touched: HashSet<String> = HashSet::new();
            for record in batch {
                match record {
                    Record::Session {
                        session,
                        owner,
                        instance,
                    } => {
                        let key = self.session_key(session);
                        pipe.cmd("HSET")
                            .arg(&key)
                            .arg("owner")
                            .arg(owner.as_str())
                            .arg("instance")
                            .arg(&**instance);
                        touched.insert(key);
                    }
                    Record::Event {
                        session,
                        stream,
                        seq,
                        data,
                    } => {
                        let key = self.stream_key(session, *stream);
                        pipe.cmd("XADD")
                            .arg(&key)
                            .arg("MAXLEN")
                            .arg(keep.events)
                            .arg(entry_id(*seq))
                            .arg("d")
                            .arg(data);
                        touched.insert(key);
                        touched.insert(self.session_key(session));
                    }
                    Record::End {
                        session,
                        stream,
                        seq,
                    } => {
                        let key = self.stream_key(session, *stream);
                        pipe.cmd("XADD")
                            .arg(&key)
                            .arg("MAXLEN")
                            .arg(keep.events)
                            .arg(entry_id(*seq))
                            .arg("end")
                            .arg("1");
                        touched.insert(key);
                        touched.insert(self.session_key(session));
                    }
                    Record::Forget { session } => {
                        let key = self.session_key(session);
                        pipe.cmd("DEL").arg(&key);
                        touched.remove(&key);
                    }
                }
            }
            // A key lives `idle` past its session's last write; EXPIRE on a
            // forgotten session's key does nothing (the key is gone).
            for key in &touched {
                pipe.cmd("EXPIRE").arg(key).arg(idle);
            }
            let mut conn = self.conn.clone();
            let replies: Vec<redis::RedisResult<redis::Value>> = pipe
                .ignore_errors()
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            // One refused command (an event older than what the stream
            // holds) does not undo the others.
            let failed = replies.iter().filter(|r| r.is_err()).count();
            if let Some(Err(e)) = replies.iter().find(|r| r.is_err()) {
                tracing::warn!(failed, error = %e, "event archive: commands refused");
            }
            Ok(())
        })
    }

    fn session<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<ArchivedSession>, StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let (owner, instance): (Option<String>, Option<String>) = redis::cmd("HMGET")
                .arg(self.session_key(session_id))
                .arg("owner")
                .arg("instance")
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(owner.map(|o| ArchivedSession {
                owner: Owner::from_stored(o),
                instance: instance.unwrap_or_default(),
            }))
        })
    }

    fn heartbeat<'a>(
        &'a self,
        instance: &'a str,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let key = format!("{}inst:{instance}", self.prefix);
            let mut conn = self.conn.clone();
            let cmd = match ttl {
                Some(ttl) => {
                    let mut c = redis::cmd("SET");
                    let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
                    c.arg(&key).arg("1").arg("PX").arg(millis);
                    c
                }
                None => {
                    let mut c = redis::cmd("DEL");
                    c.arg(&key);
                    c
                }
            };
            cmd.query_async::<()>(&mut conn).await.map_err(backend)
        })
    }

    fn alive<'a>(&'a self, instance: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("EXISTS")
                .arg(format!("{}inst:{instance}", self.prefix))
                .query_async(&mut conn)
                .await
                .map_err(backend)
        })
    }

    fn reader<'a>(
        &'a self,
        session_id: &'a str,
        stream: u64,
    ) -> BoxFuture<'a, Result<Option<Box<dyn ArchiveReader>>, StoreError>> {
        Box::pin(async move {
            let key = self.stream_key(session_id, stream);
            let mut conn = self.conn.clone();
            let exists: bool = redis::cmd("EXISTS")
                .arg(&key)
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            if !exists {
                return Ok(None);
            }
            let permit =
                Arc::clone(&self.readers)
                    .try_acquire_owned()
                    .map_err(|_| StoreError::Full {
                        limit: self.max_readers,
                    })?;
            Ok(Some(Box::new(Reader {
                key,
                client: self.client.clone(),
                shared: conn,
                own: None,
                _permit: permit,
            }) as Box<dyn ArchiveReader>))
        })
    }
}

/// A reader of one stream: replays on the shared connection, blocks on its
/// own (opened at the first blocking read).
struct Reader {
    key: String,
    client: redis::Client,
    shared: ConnectionManager,
    own: Option<MultiplexedConnection>,
    _permit: OwnedSemaphorePermit,
}

impl Reader {
    /// The entries after `after`, and the end mark even when the client is
    /// past it (as the instance holding the session says the stream ended
    /// to a client resuming after its last event).
    async fn range(&mut self, after: u64) -> Result<Vec<Archived>, StoreError> {
        let mut pipe = redis::pipe();
        // Inclusive from the next number: `(0-<u64::MAX>` would be refused.
        if let Some(next) = after.checked_add(1) {
            pipe.cmd("XRANGE")
                .arg(&self.key)
                .arg(entry_id(next))
                .arg("+")
                .arg("COUNT")
                .arg(READ_COUNT);
        }
        pipe.cmd("XREVRANGE")
            .arg(&self.key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1);
        let mut replies: Vec<Entries> =
            pipe.query_async(&mut self.shared).await.map_err(backend)?;
        let last = replies.pop().unwrap_or_default();
        let entries = replies.pop().unwrap_or_default();
        let whole = entries.len() < READ_COUNT;
        let mut out = items(entries);
        let ended = last.first().is_some_and(|(_, f)| f.contains_key("end"));
        if whole && ended && !out.contains(&Archived::End) {
            out.push(Archived::End);
        }
        Ok(out)
    }

    async fn block(&mut self, after: u64, wait: Duration) -> Result<Vec<Archived>, StoreError> {
        let conn = match &mut self.own {
            Some(c) => c,
            None => {
                // Replies come after up to `wait`: the default response
                // timeout (0.5 s) would cut them off.
                let config = redis::AsyncConnectionConfig::new()
                    .set_response_timeout(Some(wait + Duration::from_secs(5)));
                let c = self
                    .client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map_err(backend)?;
                self.own.insert(c)
            }
        };
        let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
        let reply: Option<Vec<(String, Entries)>> = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("BLOCK")
            .arg(millis)
            .arg("STREAMS")
            .arg(&self.key)
            .arg(entry_id(after))
            .query_async(conn)
            .await
            .map_err(backend)?;
        Ok(reply
            .into_iter()
            .flatten()
            .flat_map(|(_, entries)| items(entries))
            .collect())
    }
}

impl ArchiveReader for Reader {
    fn read(
        &mut self,
        after: u64,
        wait: Duration,
    ) -> BoxFuture<'_, Result<Vec<Archived>, StoreError>> {
        Box::pin(async move {
            if wait.is_zero() {
                self.range(after).await
            } else {
                self.block(after, wait).await
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hold_a_digest_of_the_session_id() {
        // SHA-256("abc") = ba7816bf…
        let h = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(session_key("fd:", "abc"), format!("fd:sse:{h}"));
        assert_eq!(stream_key("fd:", "abc", 3), format!("fd:sse:{h}:3"));
        assert_eq!(stream_key("fd:", "abc", 0), format!("fd:sse:{h}:0"));
    }

    #[test]
    fn entry_ids_are_the_event_numbers() {
        assert_eq!(entry_id(17), "0-17");
        assert_eq!(seq_of(&entry_id(u64::MAX)), Some(u64::MAX));
        assert_eq!(seq_of("1700000000000-0"), None);
        assert_eq!(seq_of("0-x"), None);
    }

    #[test]
    fn entries_become_events_then_the_end() {
        let entry = |id: &str, k: &str, v: &str| {
            (id.to_owned(), HashMap::from([(k.to_owned(), v.to_owned())]))
        };
        let got = items(vec![
            entry("0-1", "d", ""),
            entry("0-2", "d", "{\"a\":1}"),
            entry("0-3", "end", "1"),
            entry("0-4", "d", "after the end"),
        ]);
        assert_eq!(
            got,
            vec![
                Archived::Event {
                    seq: 1,
                    data: String::new()
                },
                Archived::Event {
                    seq: 2,
                    data: "{\"a\":1}".into()
                },
                Archived::End,
            ]
        );
    }
}
