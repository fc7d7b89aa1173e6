//! The background writer of one listener ([`Writer`]: a bounded queue,
//! batched writes, the instance's heartbeat) and what sessions hand it
//! ([`Tap`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{Archive, EventArchive, HEARTBEAT, HEARTBEAT_TTL, Keep, Owner, Record};

/// Events the writer takes from its queue for one write.
const BATCH: usize = 256;

/// The running background writer of one listener.
pub(crate) struct Writer {
    store: Arc<dyn EventArchive>,
    /// This instance, as its sessions' records and heartbeats name it.
    instance: Arc<str>,
    /// How often a session in use has its record written again.
    refresh: Duration,
    tx: mpsc::Sender<Record>,
    dropped: Arc<AtomicU64>,
    stop: CancellationToken,
    /// The writer's task and the heartbeat's.
    tasks: std::sync::Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer {
    /// Start writing to `archive` (needs a Tokio runtime).
    pub(crate) fn start(archive: &Archive, keep: Keep) -> Arc<Self> {
        let (tx, rx) = mpsc::channel(archive.queue);
        let stop = CancellationToken::new();
        let instance: Arc<str> = Arc::from(crate::flows::random_token::<12>());
        let beating = tokio::spawn(beat(
            Arc::clone(&archive.store),
            Arc::clone(&instance),
            stop.clone(),
        ));
        let writing = tokio::spawn(write_loop(
            Arc::clone(&archive.store),
            rx,
            keep,
            stop.clone(),
        ));
        Arc::new(Self {
            store: Arc::clone(&archive.store),
            instance,
            refresh: (keep.idle / 4).max(Duration::from_secs(1)),
            tx,
            dropped: Arc::clone(&archive.dropped),
            stop,
            tasks: std::sync::Mutex::new(vec![writing, beating]),
        })
    }

    /// The archive written to (and read from, to resume elsewhere).
    pub(crate) fn store(&self) -> &Arc<dyn EventArchive> {
        &self.store
    }

    /// Queue `record`; when the queue is full, drop it and count it.
    pub(crate) fn send(&self, record: Record) {
        if self.tx.try_send(record).is_err() {
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            crate::metrics::archive_dropped();
            // The first, then every 1024th: a stalled archive does not
            // flood the log.
            if n == 1 || n.is_multiple_of(1024) {
                tracing::warn!(
                    dropped = n,
                    "event archive queue full; event not archived (a stream resumed on \
                     another instance will miss it)"
                );
            }
        }
    }

    /// Write what is queued and stop, within `within`; then say this
    /// instance stopped (streams followed elsewhere end once they have
    /// read what it wrote).
    pub(crate) async fn finish(&self, within: Duration) {
        self.stop.cancel();
        let tasks = self
            .tasks
            .lock()
            .map(|mut t| std::mem::take(&mut *t))
            .unwrap_or_default();
        // The last heartbeat too: none may land after the one saying the
        // instance stopped.
        if tokio::time::timeout(within, futures::future::join_all(tasks))
            .await
            .is_err()
        {
            tracing::warn!("event archive writer did not finish in time");
        }
        let gone = self.store.heartbeat(&self.instance, None);
        match tokio::time::timeout(within, gone).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "event archive: could not say this instance stopped")
            }
            Err(_) => tracing::warn!("event archive: saying this instance stopped took too long"),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // The heartbeat and the writer end with the last session using them.
        self.stop.cancel();
    }
}

/// Say every [`HEARTBEAT`] that `instance` is alive, until `stop`.
async fn beat(store: Arc<dyn EventArchive>, instance: Arc<str>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failures = 0u64;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        match store.heartbeat(&instance, Some(HEARTBEAT_TTL)).await {
            Ok(()) => failures = 0,
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(60) {
                    tracing::warn!(error = %e, failures, "event archive heartbeat failed");
                }
            }
        }
    }
}

/// Take what is queued, write it, repeat; on `stop`, once the queue is
/// empty, end. (At a shutdown, what is queued last is the end of the
/// instance's streams, a drain's withdrawals and answers: written first.)
async fn write_loop(
    store: Arc<dyn EventArchive>,
    mut rx: mpsc::Receiver<Record>,
    keep: Keep,
    stop: CancellationToken,
) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut failures = 0u64;
    loop {
        let n = tokio::select! {
            // Queued records before the stop: the queue is emptied first.
            biased;
            n = rx.recv_many(&mut batch, BATCH) => n,
            () = stop.cancelled() => return,
        };
        if n == 0 {
            return;
        }
        let result = crate::metrics::timed_store("archive", store.write(&batch, keep)).await;
        match result {
            // The first failure, then every 100th: a store that is down
            // does not flood the log (the metric counts each).
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(100) {
                    tracing::warn!(error = %e, failures, records = batch.len(), "event archive write failed");
                }
            }
            Ok(()) if failures > 0 => {
                tracing::info!(failures, "event archive writes succeed again");
                failures = 0;
            }
            Ok(()) => {}
        }
        batch.clear();
    }
}

/// What a session and its [`EventLog`](crate::http::sse::EventLog)s hand to the
/// writer. The session's record is written again when it is used after a
/// quarter of [`Keep::idle`], so it does not expire while its instance
/// still holds it (a session with quick JSON answers writes no events).
#[derive(Debug, Clone)]
pub(crate) struct Tap {
    writer: Arc<Writer>,
    session: Arc<str>,
    owner: Owner,
    /// When the session's record was last queued.
    recorded: Arc<std::sync::Mutex<std::time::Instant>>,
}

impl Tap {
    /// Archive session `session` of `owner` with `writer` (its record is
    /// queued now).
    pub(crate) fn new(writer: &Arc<Writer>, session: &str, owner: Owner) -> Self {
        let tap = Self {
            writer: Arc::clone(writer),
            session: Arc::from(session),
            owner,
            recorded: Arc::new(std::sync::Mutex::new(std::time::Instant::now())),
        };
        tap.record();
        tap
    }

    fn record(&self) {
        self.writer.send(Record::Session {
            session: Arc::clone(&self.session),
            owner: self.owner.clone(),
            instance: Arc::clone(&self.writer.instance),
        });
    }

    /// The session is used: write its record again when it is due.
    pub(crate) fn touch(&self) {
        let due = self.recorded.lock().is_ok_and(|mut at| {
            let due = at.elapsed() >= self.writer.refresh;
            if due {
                *at = std::time::Instant::now();
            }
            due
        });
        if due {
            self.record();
        }
    }

    /// Event `seq` of stream `stream`.
    pub(crate) fn event(&self, stream: u64, seq: u64, data: &str) {
        self.touch();
        self.writer.send(Record::Event {
            session: Arc::clone(&self.session),
            stream,
            seq,
            data: data.to_owned(),
        });
    }

    /// Stream `stream` ended before event `seq`.
    pub(crate) fn end(&self, stream: u64, seq: u64) {
        self.writer.send(Record::End {
            session: Arc::clone(&self.session),
            stream,
            seq,
        });
    }

    /// The client ended the session.
    pub(crate) fn forget(&self) {
        self.writer.send(Record::Forget {
            session: Arc::clone(&self.session),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BoxFuture;
    use crate::http::archive::{ArchiveReader, ArchivedSession};
    use crate::store::StoreError;

    /// Keeps every batch it is given.
    #[derive(Default)]
    struct Kept(std::sync::Mutex<Vec<Record>>);

    impl EventArchive for Kept {
        fn write<'a>(
            &'a self,
            batch: &'a [Record],
            _: Keep,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                self.0.lock().unwrap().extend_from_slice(batch);
                Ok(())
            })
        }

        fn session<'a>(
            &'a self,
            _: &'a str,
        ) -> BoxFuture<'a, Result<Option<ArchivedSession>, StoreError>> {
            Box::pin(async { Ok(None) })
        }

        fn heartbeat<'a>(
            &'a self,
            _: &'a str,
            _: Option<Duration>,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Ok(()) })
        }

        fn alive<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async { Ok(true) })
        }

        fn reader<'a>(
            &'a self,
            _: &'a str,
            _: u64,
        ) -> BoxFuture<'a, Result<Option<Box<dyn ArchiveReader>>, StoreError>> {
            Box::pin(async { Ok(None) })
        }
    }

    #[tokio::test]
    async fn finishing_writes_everything_queued_first() {
        let kept = Arc::new(Kept::default());
        let archive = Archive::new(kept.clone()).queue(1000);
        let keep = Keep {
            events: 8,
            idle: Duration::from_secs(60),
        };
        let writer = Writer::start(&archive, keep);
        let session: Arc<str> = Arc::from("s");
        let sent: Vec<Record> = (1..=600)
            .map(|seq| Record::Event {
                session: Arc::clone(&session),
                stream: 1,
                seq,
                data: format!("{{\"n\":{seq}}}"),
            })
            .collect();
        for r in &sent {
            writer.send(r.clone());
        }
        writer.finish(Duration::from_secs(5)).await;
        assert_eq!(*kept.0.lock().unwrap(), sent);
        assert_eq!(archive.dropped(), 0);
    }
}
