//! stdio transport: newline-delimited JSON on any reader/writer pair, logs on
//! stderr only.
//!
//! Each line is one message. Requests that may wait on a person (`tools/call`,
//! `prompts/get`, `resources/read`) and `subscriptions/listen` (which lasts
//! until cancelled) run concurrently; everything else is
//! handled in order, so `initialize` is done before the next line is read.
//! One writer task writes every outgoing message as one compact line. Lines
//! longer than the configured bound are skipped (with a `-32600` error) and
//! the loop keeps serving. At end of input the session is closed: waiting
//! questions end and in-flight calls are dropped.

use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::server::contract::{OutboundSink, Outgoing, RequestInfo, into_text};
use crate::server::entry::Server;

/// Serve on the process's stdin and stdout until stdin closes, or Ctrl-C or
/// SIGTERM arrive.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    serve_with_shutdown(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        crate::shutdown::requested(),
    )
    .await
}

/// Like [`serve_stdio`], with every message made by `principal`: a stdio
/// server has no request headers to authenticate, so whoever launches it
/// says who the person is (e.g. `frontdesk serve --stdio --principal NAME`).
/// Sealed state and URL flows are bound to it as on HTTP.
pub async fn serve_stdio_as(server: Server, principal: Option<String>) -> std::io::Result<()> {
    serve_with_principal(
        server,
        principal,
        tokio::io::stdin(),
        tokio::io::stdout(),
        crate::shutdown::requested(),
    )
    .await
}

/// Serve on `reader`/`writer` until `reader` reaches end of input.
pub async fn serve<R, W>(server: Server, reader: R, writer: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_with_shutdown(server, reader, writer, std::future::pending()).await
}

/// Serve on `reader`/`writer` until `reader` reaches end of input or `signal`
/// completes. At the end of input waiting questions end and in-flight calls
/// are dropped; at `signal` the server drains first ([`Server::drain`]:
/// waiting questions are withdrawn with a reason and their calls answered,
/// for up to 5 s). Either way pending output is written.
pub async fn serve_with_shutdown<R, W, F>(
    server: Server,
    reader: R,
    writer: W,
    signal: F,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: std::future::Future<Output = ()> + Send,
{
    serve_with_principal(server, None, reader, writer, signal).await
}

/// [`serve_with_shutdown`] with every message made by `principal` (`None`:
/// anonymous).
pub async fn serve_with_principal<R, W, F>(
    server: Server,
    principal: Option<String>,
    reader: R,
    writer: W,
    signal: F,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: std::future::Future<Output = ()> + Send,
{
    tokio::pin!(signal);
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Outgoing>();
    let writer_task = tokio::spawn(write_loop(writer, out_rx));
    let session = server.session();
    // Messages unrelated to any request (e.g. `notifications/elicitation/complete`
    // after a -32042) go out on the same line stream.
    let forwarder = session.unsolicited().map(|mut rx| {
        let out = out_tx.clone();
        tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                if out.send(Outgoing::Message(message)).is_err() {
                    break;
                }
            }
        })
    });
    let sink = OutboundSink::into_lines(out_tx.clone());
    let info = RequestInfo {
        principal,
        ..RequestInfo::default()
    };
    let limit = server.config().max_message_bytes;
    let mut reader = BufReader::new(reader);
    let mut tasks = JoinSet::new();
    let mut line = Vec::new();
    let mut signalled = false;
    loop {
        line.clear();
        let read = tokio::select! {
            r = read_line_bounded(&mut reader, &mut line, limit) => r?,
            () = &mut signal => {
                signalled = true;
                break;
            }
        };
        match read {
            LineRead::Eof => break,
            LineRead::TooLong => {
                tracing::warn!(limit, "line over the size limit skipped");
                let _ = out_tx.send(Outgoing::Message(server.oversize_error()));
                continue;
            }
            LineRead::Line => {}
        }
        let text = trim_line(&line);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message = match server.parse_message(text) {
            Ok(m) => m,
            Err(error_response) => {
                let _ = out_tx.send(Outgoing::Message(error_response));
                continue;
            }
        };
        while tasks.try_join_next().is_some() {}
        let slow = message.is_request()
            && matches!(
                message.method(),
                Some("tools/call" | "prompts/get" | "resources/read" | "subscriptions/listen")
            );
        if slow {
            let server = server.clone();
            let session = Arc::clone(&session);
            let sink = sink.clone();
            let info = info.clone();
            let out = out_tx.clone();
            tasks.spawn(async move {
                let handled = server.handle(Some(&session), message, &sink, &info).await;
                if let Some(r) = handled.response {
                    let _ = out.send(Outgoing::Text(r));
                }
            });
        } else {
            let handled = server.handle(Some(&session), message, &sink, &info).await;
            if let Some(r) = handled.response {
                let _ = out_tx.send(Outgoing::Text(r));
            }
        }
    }
    if signalled {
        // Withdraw the questions waiting for the person and let their calls
        // answer ("call the tool again") before the session ends.
        tracing::info!("shutting down; ending the session");
        server.drain();
        let answered = async { while tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(DRAIN_GRACE, answered).await.is_err() {
            tracing::info!("calls still running after the drain's grace time");
        }
    } else {
        tracing::info!("input closed; ending the session");
    }
    session.close();
    while tasks.join_next().await.is_some() {}
    drop(session);
    if let Some(f) = forwarder {
        f.abort();
    }
    drop(sink);
    drop(out_tx);
    match writer_task.await {
        Ok(r) => r,
        Err(e) => Err(std::io::Error::other(e)),
    }
}

/// How long calls may take to answer after a shutdown signal withdrew
/// their questions.
const DRAIN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

pub(crate) enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Read one line into `buf` (without allocating past `limit`); an over-long
/// line is consumed up to its newline and reported as `TooLong`.
pub(crate) async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<LineRead> {
    let mut too_long = false;
    let mut saw_any = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong
            } else if saw_any {
                LineRead::Line
            } else {
                LineRead::Eof
            });
        }
        saw_any = true;
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let used = part.len();
        if !too_long {
            if buf.len() + used > limit + 2 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        reader.consume(used);
        if done {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && (line[end - 1] == b'\n' || line[end - 1] == b'\r') {
        end -= 1;
    }
    &line[..end]
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
) -> std::io::Result<()> {
    while let Some(message) = rx.recv().await {
        let mut bytes = match message {
            Outgoing::Text(text) => into_text(text).into_bytes(),
            Outgoing::Message(value) => match serde_json::to_vec(&value) {
                Ok(b) => b,
                Err(e) => {
                    tracing::error!(error = %e, "could not serialize an outgoing message");
                    continue;
                }
            },
        };
        bytes.push(b'\n');
        let written = async {
            writer.write_all(&bytes).await?;
            writer.flush().await
        };
        if let Err(e) = written.await {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                // The client went away; what was left to say has no reader.
                tracing::info!("output closed by the client");
                return Ok(());
            }
            return Err(e);
        }
    }
    match writer.shutdown().await {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}
