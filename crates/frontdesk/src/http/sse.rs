//! Server-sent events: frames (one compact JSON `data:` line per event),
//! event ids that encode their stream (`<stream>-<seq>`, unique per
//! session), and the bounded per-stream [`EventLog`] that feeds one live
//! subscriber and replays what a resuming client missed.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::body::Bytes;
use futures::StreamExt as _;
use futures::channel::mpsc;
use serde_json::Value;

use super::archive::Tap;

/// One SSE frame `id: …\ndata: …\n\n` (`id` omitted when `None`; `data`
/// empty for a priming event).
pub fn frame(id: Option<&str>, data: &str) -> Bytes {
    let mut s = String::with_capacity(data.len() + 32);
    if let Some(id) = id {
        s.push_str("id: ");
        s.push_str(id);
        s.push('\n');
    }
    s.push_str("data: ");
    s.push_str(data);
    s.push_str("\n\n");
    Bytes::from(s)
}

/// A keep-alive comment (clients ignore it).
pub fn keepalive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

/// A JSON message as one compact line (serde_json never emits raw newlines).
pub fn compact(message: &Value) -> String {
    serde_json::to_string(message).unwrap_or_else(|e| {
        tracing::error!(error = %e, "could not serialize an outgoing message");
        String::new()
    })
}

/// An event id `<stream>-<seq>`.
pub fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Parse an event id back into `(stream, seq)`.
pub fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (s, n) = id.trim().split_once('-')?;
    let digits = |x: &str| !x.is_empty() && x.len() <= 20 && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(s) || !digits(n) {
        return None;
    }
    Some((s.parse().ok()?, n.parse().ok()?))
}

/// One stored event.
#[derive(Debug, Clone)]
pub struct Event {
    /// Sequence number within the stream (from 1).
    pub seq: u64,
    /// The encoded frame.
    pub bytes: Bytes,
}

#[derive(Debug)]
struct LogInner {
    next_seq: u64,
    buffer: VecDeque<Event>,
    /// Highest seq handed to a live subscriber.
    delivered: u64,
    live: Option<mpsc::UnboundedSender<Event>>,
    ended: bool,
}

/// The live events of a stream for its one subscriber, in order; ends with
/// the stream or when another subscriber replaces this one.
///
/// A channel that allocates per event queued: an open stream waiting for
/// its next event (a 2025-11-25 call waiting for its person's answer) holds
/// little (a tokio channel preallocated a block of 32 events, 1.8 KiB;
/// issue 27).
#[derive(Debug)]
pub struct Live {
    rx: mpsc::UnboundedReceiver<Event>,
}

impl Live {
    /// A feed and the sender that feeds it.
    pub(crate) fn channel() -> (mpsc::UnboundedSender<Event>, Self) {
        let (tx, rx) = mpsc::unbounded();
        (tx, Self { rx })
    }

    /// The next event; `None` once the feed has ended.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.next().await
    }

    /// The next event if one is queued already.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }
}

/// A subscription: missed events to send first, then the live feed (`None`
/// when the stream has ended).
#[derive(Debug)]
pub struct Attached {
    /// Events to replay, in order.
    pub replay: Vec<Event>,
    /// Further events as they happen.
    pub live: Option<Live>,
}

/// The events of one SSE stream of a session, with a bounded replay buffer
/// and at most one live subscriber.
#[derive(Debug)]
pub struct EventLog {
    stream: u64,
    capacity: usize,
    inner: Mutex<LogInner>,
    /// Where a copy of each event goes, when the session is archived.
    tap: Option<Tap>,
}

impl EventLog {
    /// An empty log for stream number `stream` keeping `capacity` events.
    pub fn new(stream: u64, capacity: usize) -> Self {
        Self::archived(stream, capacity, None)
    }

    /// [`new`](Self::new), handing a copy of each event and the end to `tap`.
    pub(crate) fn archived(stream: u64, capacity: usize, tap: Option<Tap>) -> Self {
        Self {
            tap,
            stream,
            capacity: capacity.max(1),
            inner: Mutex::new(LogInner {
                next_seq: 1,
                buffer: VecDeque::new(),
                delivered: 0,
                live: None,
                ended: false,
            }),
        }
    }

    /// The stream number encoded in this log's event ids.
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// Append one message (`None`: a priming event with empty data), deliver
    /// it to the live subscriber if any; returns its id.
    pub fn push(&self, message: Option<&Value>) -> String {
        self.push_text(message.map(compact).as_deref())
    }

    /// [`push`](Self::push) for a message already serialized.
    pub fn push_text(&self, message: Option<&str>) -> String {
        let data = message.unwrap_or_default();
        let Ok(mut inner) = self.inner.lock() else {
            return String::new();
        };
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let id = event_id(self.stream, seq);
        // Queued under the lock, so the archive gets the stream's events in
        // order; never after the end (the archive has the end mark).
        if let Some(tap) = &self.tap
            && !inner.ended
        {
            tap.event(self.stream, seq, data);
        }
        let event = Event {
            seq,
            bytes: frame(Some(&id), data),
        };
        if inner.buffer.len() >= self.capacity {
            inner.buffer.pop_front();
        }
        inner.buffer.push_back(event.clone());
        let sent = inner
            .live
            .as_ref()
            .is_some_and(|tx| tx.unbounded_send(event).is_ok());
        if sent {
            inner.delivered = seq;
        } else {
            inner.live = None;
        }
        id
    }

    /// No more events: the live subscriber's feed ends.
    pub fn end(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            if let Some(tap) = &self.tap
                && !inner.ended
            {
                tap.end(self.stream, inner.next_seq);
            }
            inner.ended = true;
            inner.live = None;
        }
    }

    /// Whether the stream has ended.
    pub fn is_ended(&self) -> bool {
        self.inner.lock().map(|i| i.ended).unwrap_or(true)
    }

    /// Whether a subscriber is currently attached (its receiver still open).
    pub fn has_live(&self) -> bool {
        self.inner
            .lock()
            .map(|i| i.live.as_ref().is_some_and(|tx| !tx.is_closed()))
            .unwrap_or(false)
    }

    /// Subscribe unless a subscriber is attached (its receiver still open):
    /// `None` then. A live stream is never taken over.
    pub fn attach_exclusive(&self, after: Option<u64>) -> Option<Attached> {
        let mut inner = self.inner.lock().ok()?;
        if inner.live.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        Some(self.attach_locked(&mut inner, after))
    }

    /// Subscribe, replacing any previous subscriber. Replays buffered events
    /// after `after`, or, with `None`, those never handed to a subscriber.
    /// Events older than the buffer are gone (logged).
    pub fn attach(&self, after: Option<u64>) -> Attached {
        let Ok(mut inner) = self.inner.lock() else {
            return Attached {
                replay: Vec::new(),
                live: None,
            };
        };
        self.attach_locked(&mut inner, after)
    }

    fn attach_locked(&self, inner: &mut LogInner, after: Option<u64>) -> Attached {
        let from = after.unwrap_or(inner.delivered);
        // Events after `from` the buffer no longer holds. None after the
        // largest number: like any id past the last event, it misses nothing.
        let lost = match (inner.buffer.front(), from.checked_add(1)) {
            (Some(first), Some(next)) => first.seq.saturating_sub(next),
            _ => 0,
        };
        if lost > 0 {
            tracing::warn!(
                stream = self.stream,
                missed = lost,
                "replay buffer no longer holds every missed event"
            );
        }
        let replay: Vec<Event> = inner
            .buffer
            .iter()
            .filter(|e| e.seq > from)
            .cloned()
            .collect();
        if let Some(last) = replay.last() {
            inner.delivered = inner.delivered.max(last.seq);
        }
        let live = if inner.ended {
            inner.live = None;
            None
        } else {
            let (tx, live) = Live::channel();
            inner.live = Some(tx);
            Some(live)
        };
        Attached { replay, live }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_round_trip() {
        assert_eq!(parse_event_id(&event_id(3, 17)), Some((3, 17)));
        assert_eq!(parse_event_id("x-1"), None);
        assert_eq!(parse_event_id("1-"), None);
        assert_eq!(parse_event_id("1"), None);
        assert_eq!(parse_event_id("99999999999999999999999-1"), None);
    }

    #[test]
    fn frames_are_one_data_line() {
        let f = frame(Some("1-1"), &compact(&json!({"a": "x\ny"})));
        assert_eq!(&f[..], b"id: 1-1\ndata: {\"a\":\"x\\ny\"}\n\n");
        assert_eq!(&frame(Some("1-0"), "")[..], b"id: 1-0\ndata: \n\n");
    }

    #[tokio::test]
    async fn replay_after_an_id_and_live_feed() {
        let log = EventLog::new(2, 3);
        log.push(None);
        log.push(Some(&json!(1)));
        let mut a = log.attach(None);
        assert_eq!(a.replay.len(), 2);
        log.push(Some(&json!(2)));
        let e = a.live.as_mut().unwrap().recv().await.unwrap();
        assert_eq!(e.seq, 3);
        drop(a);
        log.push(Some(&json!(3)));
        log.push(Some(&json!(4)));
        // Capacity 3: seq 3, 4, 5 remain.
        let b = log.attach(Some(3));
        assert_eq!(
            b.replay.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![4, 5]
        );
        log.end();
        let mut live = b.live.unwrap();
        assert!(live.recv().await.is_none());
        let c = log.attach(Some(0));
        assert!(c.live.is_none());
        assert_eq!(c.replay.len(), 3);
    }

    #[test]
    fn an_id_past_every_event_replays_nothing() {
        let log = EventLog::new(0, 4);
        log.push(None);
        log.push(Some(&serde_json::json!({"n": 1})));
        let attached = log.attach(Some(u64::MAX));
        assert!(attached.replay.is_empty());
        assert!(attached.live.is_some());
        // The log is still usable: an earlier id replays what followed it.
        assert_eq!(log.attach(Some(1)).replay.len(), 1);
    }

    #[test]
    fn second_attach_replaces_the_first() {
        let log = EventLog::new(0, 8);
        let a = log.attach(None);
        assert!(log.has_live());
        let _b = log.attach(None);
        let mut a_live = a.live.unwrap();
        assert!(a_live.try_recv().is_none());
        log.push(Some(&json!(1)));
        assert!(
            a_live.try_recv().is_none(),
            "the replaced subscriber gets nothing"
        );
    }
}
