//! Newline-delimited JSON over any reader/writer pair: a spawned server's
//! stdin/stdout, or an in-process `tokio::io::duplex` pair.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::Child;
#[cfg(feature = "stdio")]
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::error::ClientError;
use super::transport::{Inbound, Tap, Transport, id_key, is_response, not_json, too_large};
use crate::BoxFuture;

/// Longest line read from a server (bytes); longer lines are skipped.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// Lines waiting to be written to the server. A server that stops reading
/// its input makes the client wait here (and, in turn, stop reading the
/// server's output) instead of queueing replies without bound.
const OUTGOING_CAPACITY: usize = 64;

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

/// What to do with a spawned server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerStderr {
    /// Pass it through to this process's stderr (default).
    #[default]
    Inherit,
    /// Read it line by line into the log (`tracing` at info).
    Log,
    /// Discard it.
    Discard,
}

pub(crate) struct LineTransport {
    out: Mutex<Option<mpsc::Sender<String>>>,
    pending: Pending,
    closed: CancellationToken,
    child: tokio::sync::Mutex<Option<Child>>,
}

impl LineTransport {
    /// Run over `reader`/`writer`; server-initiated messages go to `inbound`.
    pub(super) fn new<R, W>(reader: R, writer: W, inbound: Inbound, tap: Tap) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::channel::<String>(OUTGOING_CAPACITY);
        let pending: Pending = Arc::default();
        let closed = CancellationToken::new();
        tokio::spawn(write_loop(writer, rx));
        tokio::spawn(read_loop(
            reader,
            pending.clone(),
            inbound,
            tap,
            closed.clone(),
        ));
        Self {
            out: Mutex::new(Some(tx)),
            pending,
            closed,
            child: tokio::sync::Mutex::new(None),
        }
    }

    #[cfg(feature = "stdio")]
    /// Spawn `command` and talk to it over its stdin/stdout.
    pub(super) fn spawn(
        mut command: Command,
        stderr: ServerStderr,
        inbound: Inbound,
        tap: Tap,
    ) -> std::io::Result<Self> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        command.stderr(match stderr {
            ServerStderr::Inherit => std::process::Stdio::inherit(),
            ServerStderr::Log => std::process::Stdio::piped(),
            ServerStderr::Discard => std::process::Stdio::null(),
        });
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the server's stdio was not piped"));
        };
        if let Some(err) = child.stderr.take() {
            tokio::spawn(async move {
                let mut lines = BufReader::new(err).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::info!(target: "frontdesk::client::server_stderr", "{line}");
                }
            });
        }
        let transport = Self::new(stdout, stdin, inbound, tap);
        transport
            .child
            .try_lock()
            .map(|mut c| *c = Some(child))
            .ok();
        Ok(transport)
    }

    async fn write(&self, message: &Value) -> Result<(), ClientError> {
        let line = serde_json::to_string(message).map_err(ClientError::transport)?;
        let tx = self
            .out
            .lock()
            .map_err(|_| ClientError::Closed)?
            .clone()
            .ok_or(ClientError::Closed)?;
        tx.send(line).await.map_err(|_| ClientError::Closed)
    }
}

/// Removes a pending entry when its request future is dropped (timeout).
struct PendingGuard<'a> {
    pending: &'a Pending,
    key: String,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut map) = self.pending.lock() {
            map.remove(&self.key);
        }
    }
}

impl Transport for LineTransport {
    fn request<'a>(
        &'a self,
        id: &'a Value,
        message: Value,
    ) -> BoxFuture<'a, Result<Value, ClientError>> {
        Box::pin(async move {
            let key = id_key(id);
            let (tx, rx) = oneshot::channel();
            self.pending
                .lock()
                .map_err(|_| ClientError::Closed)?
                .insert(key.clone(), tx);
            let _guard = PendingGuard {
                pending: &self.pending,
                key,
            };
            self.write(&message).await?;
            // The read loop ends every request pending when the server's output
            // ends; one registered after that would wait for a reply that cannot
            // come (its line may still be written to a server that reads on).
            tokio::select! {
                biased;
                reply = rx => reply.map_err(|_| ClientError::Closed),
                () = self.closed.cancelled() => Err(ClientError::Closed),
            }
        })
    }

    fn send(&self, message: Value) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move { self.write(&message).await })
    }

    fn initialized<'a>(&'a self, _version: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }

    fn is_http(&self) -> bool {
        false
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Closing stdin is the shutdown signal (both revisions).
            if let Ok(mut out) = self.out.lock() {
                out.take();
            }
            let mut child = self.child.lock().await;
            if let Some(child) = child.as_mut() {
                match tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
                    Ok(_) => {}
                    Err(_) => {
                        tracing::info!("server did not exit after stdin closed; killing it");
                        let _ = child.kill().await;
                    }
                }
            }
            self.closed.cancel();
        })
    }
}

/// Bytes of queued messages joined into one write, at most (a larger
/// message is written alone).
const WRITE_BATCH: usize = 64 * 1024;

/// Write each queued message as one line: one `write` for a message and
/// the newline, and the messages already waiting joined into the same write
/// (a pipe write is a system call each; a gateway call writes two).
async fn write_loop<W: AsyncWrite + Unpin>(mut writer: W, mut rx: mpsc::Receiver<String>) {
    let mut batch: Vec<u8> = Vec::new();
    while let Some(line) = rx.recv().await {
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
        while batch.len() < WRITE_BATCH {
            let Ok(line) = rx.try_recv() else { break };
            batch.extend_from_slice(line.as_bytes());
            batch.push(b'\n');
        }
        let ok = writer.write_all(&batch).await.is_ok() && writer.flush().await.is_ok();
        if !ok {
            tracing::debug!("server input closed");
            break;
        }
        batch.clear();
        if batch.capacity() > WRITE_BATCH {
            // One large message does not keep its buffer for the session.
            batch = Vec::new();
        }
    }
    let _ = writer.shutdown().await;
}

/// Read and drop the rest of a line, holding no more than the reader's
/// buffer.
async fn skip_line<R: AsyncBufReadExt + Unpin>(reader: &mut R) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

async fn read_loop<R: AsyncRead + Unpin>(
    reader: R,
    pending: Pending,
    inbound: Inbound,
    tap: Tap,
    closed: CancellationToken,
) {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut bounded = (&mut reader).take(MAX_LINE as u64 + 1);
        let read = tokio::select! {
            r = bounded.read_until(b'\n', &mut line) => r,
            () = closed.cancelled() => break,
        };
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) if line.len() > MAX_LINE => {
                tracing::warn!("a line from the server is over {MAX_LINE} bytes; skipped");
                if skip_line(&mut reader).await.is_err()
                    || !inbound.unreadable(too_large(MAX_LINE)).await
                {
                    break;
                }
                continue;
            }
            Ok(_) => {}
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_slice(trimmed) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "unparseable line from the server");
                if !inbound.unreadable(not_json(&e)).await {
                    break;
                }
                continue;
            }
        };
        tap.incoming(&message);
        if is_response(&message) {
            let key = message.get("id").map(id_key).unwrap_or_default();
            let waiter = pending.lock().ok().and_then(|mut m| m.remove(&key));
            match waiter {
                Some(tx) => {
                    let _ = tx.send(message);
                }
                None => tracing::debug!(id = %key, "response to no pending request"),
            }
        } else if !inbound.deliver(message).await {
            break;
        }
    }
    closed.cancel();
    if let Ok(mut map) = pending.lock() {
        map.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::*;

    /// Records each `write` it is given.
    #[derive(Clone, Default)]
    struct Writes(Arc<Mutex<Vec<Vec<u8>>>>);

    impl AsyncWrite for Writes {
        fn poll_write(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            self.0.lock().unwrap().push(buf.to_vec());
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn queued_messages_go_out_as_lines_in_one_write() {
        let writes = Writes::default();
        let (tx, rx) = mpsc::channel(8);
        for m in [r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":3}"#] {
            tx.send(m.to_owned()).await.unwrap();
        }
        drop(tx);
        write_loop(writes.clone(), rx).await;
        let writes = writes.0.lock().unwrap().clone();
        assert_eq!(writes, vec![b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n".to_vec()]);
    }

    #[tokio::test]
    async fn a_message_over_the_batch_is_written_alone() {
        let writes = Writes::default();
        let (tx, rx) = mpsc::channel(8);
        let big = "x".repeat(WRITE_BATCH);
        tx.send(big.clone()).await.unwrap();
        tx.send("{}".to_owned()).await.unwrap();
        drop(tx);
        write_loop(writes.clone(), rx).await;
        let writes = writes.0.lock().unwrap().clone();
        assert_eq!(
            writes,
            vec![format!("{big}\n").into_bytes(), b"{}\n".to_vec()]
        );
    }
}
