//! The 2025-11-25 session table: one [`Entry`] per `Mcp-Session-Id`, holding
//! the core [`Session`], the session's SSE streams (stream 0 is the GET
//! stream, fed from [`Session::unsolicited`]; POST streams count up from 1)
//! and when it was last used. Bounded in size; idle sessions are swept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::archive::{Owner, Tap, Writer};
use super::sse::EventLog;
use crate::fingerprint::fingerprint;
use crate::server::transport::Session;

/// Ended POST streams kept for replay per session.
const KEPT_STREAMS: usize = 32;

/// One live session.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) session: Arc<Session>,
    /// Who created the session (`None`: anonymous); only they may use it.
    pub(crate) principal: Option<String>,
    /// Whose quota the session counts against (the principal, or the
    /// address of an anonymous client).
    pub(crate) client: String,
    pub(crate) get_log: Arc<EventLog>,
    /// The POST streams by number, oldest first (a list: a B-tree's first
    /// node was 196 bytes for a session's one or few streams; issue 27).
    streams: Mutex<Vec<(u64, Arc<EventLog>)>>,
    next_stream: AtomicU64,
    /// Where the streams' events are archived, if anywhere.
    tap: Option<Tap>,
    replay: usize,
    last_seen: Mutex<Instant>,
}

impl Entry {
    /// Wrap `session`; its unsolicited messages go onto the GET stream's
    /// log. With `archive`, the session's record and every
    /// event of its streams are archived.
    pub(crate) fn new(
        session: Arc<Session>,
        principal: Option<String>,
        client: String,
        replay: usize,
        archive: Option<&Arc<Writer>>,
    ) -> Arc<Self> {
        crate::metrics::gauge(crate::metrics::SESSIONS_OPEN, 1.0);
        let tap = archive.map(|w| Tap::new(w, session.id(), Owner::of(principal.as_deref())));
        let entry = Arc::new(Self {
            get_log: Arc::new(EventLog::archived(0, replay, tap.clone())),
            tap,
            session,
            principal,
            client,
            streams: Mutex::new(Vec::new()),
            next_stream: AtomicU64::new(1),
            replay,
            last_seen: Mutex::new(Instant::now()),
        });
        // Logged as they are sent, without a task and a channel per
        // session; the GET stream's log ends when the entry is closed.
        let log = Arc::clone(&entry.get_log);
        entry.session.unsolicited_to(Box::new(move |m| {
            log.push(Some(&m));
        }));
        entry
    }

    /// The session id (`Mcp-Session-Id`).
    pub(crate) fn id(&self) -> &str {
        self.session.id()
    }

    /// Whether priming events may be sent: SDK clients before 2025-11-25
    /// expect every `data:` to be JSON.
    pub(crate) fn primes(&self) -> bool {
        self.session
            .protocol_version()
            .is_some_and(|v| v.as_str() >= "2025-11-25")
    }

    /// A new POST stream (older ended streams beyond the bound are dropped).
    pub(crate) fn new_stream(&self) -> Arc<EventLog> {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let log = Arc::new(EventLog::archived(n, self.replay, self.tap.clone()));
        if let Ok(mut list) = self.streams.lock() {
            // Numbers only grow: the list stays oldest first.
            list.push((n, Arc::clone(&log)));
            let ended = list.iter().filter(|(_, l)| l.is_ended()).count();
            let mut excess = ended.saturating_sub(KEPT_STREAMS);
            if excess > 0 {
                // The oldest ended ones go.
                list.retain(|(_, l)| {
                    let drop = excess > 0 && l.is_ended();
                    excess -= usize::from(drop);
                    !drop
                });
            }
        }
        log
    }

    /// Stream `n` (0 is the GET stream), if still known.
    pub(crate) fn stream(&self, n: u64) -> Option<Arc<EventLog>> {
        if n == 0 {
            return Some(Arc::clone(&self.get_log));
        }
        self.streams
            .lock()
            .ok()?
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, log)| Arc::clone(log))
    }

    /// Whether a request is in flight or a stream is being read.
    fn busy(&self) -> bool {
        self.session.in_flight() > 0
            || self.get_log.has_live()
            || self
                .streams
                .lock()
                .map(|m| m.iter().any(|(_, l)| !l.is_ended()))
                .unwrap_or(false)
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_seen.lock() {
            *t = Instant::now();
        }
        if let Some(tap) = &self.tap {
            tap.touch();
        }
    }

    fn idle_for(&self) -> Duration {
        self.last_seen
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// The client ended the session: the archive forgets who may use it.
    pub(crate) fn forget(&self) {
        if let Some(tap) = &self.tap {
            tap.forget();
        }
    }

    /// End the session: waiting questions end, streams end.
    pub(crate) fn close(&self) {
        self.session.close();
        self.get_log.end();
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        crate::metrics::gauge(crate::metrics::SESSIONS_OPEN, -1.0);
    }
}

/// The table is full and no session can be ended to make room.
#[derive(Debug)]
pub(crate) struct Full;

/// All sessions of one endpoint.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Entry>>>,
    max: usize,
    max_per_client: usize,
    idle: Duration,
}

impl Sessions {
    pub(crate) fn new(max: usize, max_per_client: usize, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
            max_per_client: max_per_client.max(1),
            idle,
        }
    }

    /// Add a session of `client`. To make room, the client's own least
    /// recently used idle session is ended when it is at its limit, and the
    /// table's least recently used idle session when the table is full; a
    /// session with a request in flight or a live stream is never ended for
    /// room. `Full` when nothing could be ended.
    pub(crate) fn insert(&self, entry: Arc<Entry>) -> Result<(), Full> {
        let mut ended = Vec::new();
        let outcome = {
            let Ok(mut map) = self.map.lock() else {
                return Err(Full);
            };
            map.retain(|_, e| {
                let gone = e.session.is_closed();
                if gone {
                    ended.push(Arc::clone(e));
                }
                !gone
            });
            let own = map.values().filter(|e| e.client == entry.client).count();
            let mut ok = true;
            if own >= self.max_per_client {
                ok = evict_lru(&mut map, Some(&entry.client), &mut ended);
            }
            if ok && map.len() >= self.max {
                ok = evict_lru(&mut map, None, &mut ended);
            }
            if ok {
                map.insert(entry.id().to_string(), entry);
            }
            ok
        };
        for e in ended {
            tracing::info!(session = %fingerprint(e.id()), "session ended to make room");
            e.close();
        }
        if outcome { Ok(()) } else { Err(Full) }
    }

    /// The session with this id, marking it used.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Entry>> {
        let entry = self.map.lock().ok()?.get(id).cloned()?;
        if entry.session.is_closed() {
            return None;
        }
        entry.touch();
        Some(entry)
    }

    /// Remove and close a session; `false` when unknown.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let entry = self.map.lock().ok().and_then(|mut m| m.remove(id));
        match entry {
            Some(e) => {
                e.close();
                true
            }
            None => false,
        }
    }

    /// Close sessions idle longer than the limit with nothing in flight.
    pub(crate) fn sweep(&self) {
        let stale: Vec<Arc<Entry>> = match self.map.lock() {
            Ok(mut map) => {
                let ids: Vec<String> = map
                    .iter()
                    .filter(|(_, e)| {
                        e.session.is_closed() || (e.idle_for() > self.idle && !e.busy())
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                ids.iter().filter_map(|k| map.remove(k)).collect()
            }
            Err(_) => Vec::new(),
        };
        for e in stale {
            tracing::info!(session = %fingerprint(e.id()), "idle session closed");
            e.close();
        }
    }

    /// Close every session (shutdown).
    pub(crate) fn close_all(&self) {
        let all: Vec<Arc<Entry>> = match self.map.lock() {
            Ok(mut map) => map.drain().map(|(_, e)| e).collect(),
            Err(_) => Vec::new(),
        };
        for e in all {
            e.close();
        }
    }
}

/// Remove the least recently used idle session (of `client`, when given)
/// into `ended`; `false` when there is none.
fn evict_lru(
    map: &mut HashMap<String, Arc<Entry>>,
    client: Option<&str>,
    ended: &mut Vec<Arc<Entry>>,
) -> bool {
    let oldest = map
        .iter()
        .filter(|(_, e)| client.is_none_or(|c| e.client == c) && !e.busy())
        .max_by_key(|(_, e)| e.idle_for())
        .map(|(k, _)| k.clone());
    match oldest.and_then(|k| map.remove(&k)) {
        Some(e) => {
            ended.push(e);
            true
        }
        None => false,
    }
}

/// Sweep `sessions` every tenth of their idle limit (at least every second),
/// until `stop`.
pub(crate) fn sweep_periodically(sessions: &Arc<Sessions>, stop: CancellationToken) {
    let every = (sessions.idle / 10).max(Duration::from_secs(1));
    let weak = Arc::downgrade(sessions);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                _ = tick.tick() => match weak.upgrade() {
                    Some(s) => s.sweep(),
                    None => break,
                },
            }
        }
    });
}
