//! The keeper of one parked call (`frontdesk park-keeper`, started by `call --park`):
//! it runs the call with a [`ParkedHandler`], listens on the call's socket, and ends
//! when the result has been handed over or its time is up.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use frontdesk::client::Direction;
use frontdesk_host::parked::{ParkedAnswer, ParkedHandler, QuestionState, RespondError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

use super::protocol;
use super::report::{ANSWER_WAIT, Shared, URL_GRACE, Until, report};
use crate::call::arguments;
use crate::client_args::{Reach, timeout};
use crate::hosting::{ProtocolArg, Target, check_tool, client_error, wire_line};
use crate::signin::RemoteArgs;

/// The longest a keeper lives, whatever happens.
const MAX_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a keeper stays after its questions were cancelled, to finish the call.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// Arguments of the hidden `frontdesk park-keeper` (given by `call --park`).
///
/// Only the call id and the directory: what to call arrives on stdin
/// ([`CallSpec`]), since other users can read a process's command line.
#[derive(Debug, Args)]
pub struct KeeperArgs {
    /// The call id.
    #[arg(long)]
    call: String,
    /// The directory of parked calls.
    #[arg(long)]
    dir: PathBuf,
}

/// What the keeper is to call: one JSON line on its stdin, written by `call
/// --park`.
#[derive(Debug, Serialize, Deserialize)]
pub struct CallSpec {
    /// The server: `demo`, a URL, or a command line.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The tool's arguments (JSON text).
    pub args: String,
    /// Protocol revision, as `--protocol` spells it.
    pub protocol: String,
    /// Seconds to connect and per request.
    pub timeout: f64,
    /// Seconds without an answer before the questions are cancelled.
    pub ttl: u64,
    /// `--show-wire`: every JSON-RPC message goes back with the replies.
    pub show_wire: bool,
    /// `--root DIR`s offered to the server.
    pub roots: Vec<PathBuf>,
    /// The remote flags (CA certificates, token file, client id).
    pub remote: RemoteArgs,
}

/// Read the [`CallSpec`] from stdin (bounded), with its protocol.
fn read_spec() -> anyhow::Result<(CallSpec, ProtocolArg)> {
    use std::io::{BufRead, Read};
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .take(protocol::MAX_LINE)
        .read_line(&mut line)
        .context("cannot read the call from stdin")?;
    let spec: CallSpec =
        serde_json::from_str(&line).context("the call on stdin is not readable")?;
    let revision = ProtocolArg::from_str(&spec.protocol, true)
        .map_err(|e| anyhow::anyhow!("the call's protocol: {e}"))?;
    Ok((spec, revision))
}

/// Removes the socket and the log when the keeper ends.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Run the keeper until the call is over.
pub fn keep(args: &KeeperArgs) -> ExitCode {
    let spec = match read_spec() {
        Ok(spec) => spec,
        Err(e) => {
            return crate::exit::cannot_start("park-keeper", &e);
        }
    };
    crate::run::block_on("park-keeper", keeper(args, spec))
}

async fn keeper(
    args: &KeeperArgs,
    (spec, revision): (CallSpec, ProtocolArg),
) -> anyhow::Result<()> {
    // Bound and listening under a name of its own, owner-only, then moved to
    // the name the parking command waits for: it appears only once a
    // connection is accepted (between bind and listen, or before the chmod,
    // a connection was refused or allowed to anyone the directory lets in).
    let socket = args.dir.join(format!("{}.sock", args.call));
    let binding = args.dir.join(format!("{}.binding", args.call));
    let listener = UnixListener::bind(&binding)?;
    let _cleanup = Cleanup(vec![
        socket.clone(),
        binding.clone(),
        args.dir.join(format!("{}.log", args.call)),
    ]);
    std::fs::set_permissions(&binding, std::fs::Permissions::from_mode(0o600))?;
    std::fs::rename(&binding, &socket)?;
    let uid = socket_owner(&socket)?;
    let handler = Arc::new(ParkedHandler::new(args.call.clone()));
    let (outcome_tx, outcome) = watch::channel(None);
    let ttl = spec.ttl;
    let shared = Arc::new(Shared {
        call: args.call.clone(),
        ttl,
        handler: handler.clone(),
        outcome: outcome.clone(),
        delivered: AtomicBool::new(false),
        wire: Mutex::new(Vec::new()),
    });
    tokio::spawn(run_call(spec, revision, shared.clone(), outcome_tx));
    let ttl = Duration::from_secs(ttl.max(1));
    let end_of_life = tokio::time::Instant::now() + MAX_LIFETIME;
    let mut idle_until = tokio::time::Instant::now() + ttl;
    let mut winding_down = false;
    loop {
        if shared.delivered.load(Ordering::SeqCst) {
            return Ok(());
        }
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                idle_until = tokio::time::Instant::now() + ttl;
                let shared = shared.clone();
                tokio::spawn(async move {
                    if let Err(e) = serve(stream, uid, &shared).await {
                        tracing::info!(error = %e, "a connection to the parked call failed");
                    }
                });
            }
            () = tokio::time::sleep_until(idle_until.min(end_of_life)) => {
                if winding_down || outcome.borrow().is_some() {
                    return Ok(());
                }
                tracing::info!("nobody answered in time; cancelling the parked questions");
                handler.cancel_all();
                winding_down = true;
                idle_until = tokio::time::Instant::now() + WIND_DOWN;
            }
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
    }
}

/// How the parked call reaches its server: the flags `call --park` handed over
/// (revision, time limit, `--root`, for a URL the remote flags), the keeper's
/// wait for a person, and its wire tap (completions of URL flows; `--show-wire`).
fn config(
    spec: &CallSpec,
    revision: ProtocolArg,
    target: Target,
    shared: &Arc<Shared>,
) -> anyhow::Result<Reach> {
    let mut reach = Reach::new(target, revision, timeout(spec.timeout))
        .roots(&spec.roots)?
        .remote(&spec.remote)?;
    // The person's time is bounded by the keeper's ttl, not the runtime's default.
    reach.config.human_wait = Duration::from_secs(spec.ttl.max(1)) + Duration::from_secs(5);
    let tap = Arc::clone(shared);
    let show = spec.show_wire;
    reach.config = reach.config.on_wire(move |direction, message| {
        if direction == Direction::Incoming
            && message.get("method").and_then(Value::as_str)
                == Some("notifications/elicitation/complete")
            && let Some(id) = message
                .pointer("/params/elicitationId")
                .and_then(Value::as_str)
        {
            tap.handler.url_completed(id);
        }
        if show {
            tap.record_wire(wire_line(direction, message));
        }
    });
    Ok(reach)
}

/// Run the call and publish how it ended.
async fn run_call(
    spec: CallSpec,
    revision: ProtocolArg,
    shared: Arc<Shared>,
    outcome: watch::Sender<Option<Value>>,
) {
    let failed =
        |error: String, exit: u8| json!({"status": "failed", "error": error, "exitCode": exit});
    let prepared = arguments(&spec.args).and_then(|a| {
        let target = Target::parse(&spec.server)?;
        Ok((a, config(&spec, revision, target, &shared)?))
    });
    let (arguments, reach) = match prepared {
        Ok(p) => p,
        Err(e) => {
            let _ = outcome.send(Some(failed(format!("{e:#}"), crate::exit::CANNOT_START)));
            return;
        }
    };
    let handler = shared.handler.clone();
    let connection = match reach.connect(handler.clone()).await {
        Ok(c) => c,
        Err(e) => {
            let _ = outcome.send(Some(failed(format!("{e:#}"), crate::exit::CANNOT_START)));
            return;
        }
    };
    if let Err(e) = check_tool(&connection.client, &spec.tool).await {
        connection.close().await;
        let _ = outcome.send(Some(failed(format!("{e:#}"), crate::exit::CANNOT_START)));
        return;
    }
    let mut stop = handler.stop_requested();
    let result = tokio::select! {
        r = connection.client.call_tool(&spec.tool, Value::Object(arguments)) => Some(r),
        _ = stop.wait_for(|stop| *stop) => None,
    };
    connection.close().await;
    let _ = outcome.send(Some(match result {
        Some(Ok(r)) => json!({"status": "complete", "result": r}),
        Some(Err(e)) => failed(
            format!("the call failed: {}", client_error(&e)),
            crate::exit::FAILED,
        ),
        None => json!({
            "status": "cancelled",
            "error": "the call was stopped while the person was finishing in the browser: \
                      the connection to the server was closed, so the tool did not finish",
        }),
    }));
}

/// The owner of the socket file: the only user whose connections are served.
fn socket_owner(path: &Path) -> anyhow::Result<u32> {
    use std::os::unix::fs::MetadataExt;
    Ok(std::fs::metadata(path)?.uid())
}

async fn serve(stream: UnixStream, uid: u32, shared: &Shared) -> anyhow::Result<()> {
    let peer = stream.peer_cred()?;
    if peer.uid() != uid {
        anyhow::bail!("refused a connection from user {}", peer.uid());
    }
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    BufReader::new(read.take(protocol::MAX_LINE))
        .read_line(&mut line)
        .await?;
    let reply = match serde_json::from_str::<Value>(&line) {
        Ok(request) => answer(&request, shared).await,
        Err(e) => protocol::error(format!("an unreadable request: {e}")),
    };
    let final_reply = matches!(
        reply.get("status").and_then(Value::as_str),
        Some("complete" | "failed" | "cancelled")
    );
    let mut text = serde_json::to_string(&reply)?;
    text.push('\n');
    write.write_all(text.as_bytes()).await?;
    write.shutdown().await?;
    if final_reply {
        shared.delivered.store(true, Ordering::SeqCst);
    }
    Ok(())
}

async fn answer(request: &Value, shared: &Shared) -> Value {
    match request.get("op").and_then(Value::as_str) {
        Some("next") => report(shared, Until::Open).await,
        Some("wait") => {
            let secs = request
                .get("seconds")
                .and_then(Value::as_u64)
                .unwrap_or(60)
                .min(3600);
            report(shared, Until::Deadline(Duration::from_secs(secs))).await
        }
        Some("respond") => {
            let question = request
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or("");
            let content: Option<Map<String, Value>> = match request.get("content") {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) => Some(m.clone()),
                Some(_) => return protocol::error("--content must be a JSON object"),
            };
            let answer = match request.get("answer").and_then(Value::as_str) {
                Some("accept") => ParkedAnswer::Accept(content),
                Some("decline") => ParkedAnswer::Decline,
                Some("cancel") => ParkedAnswer::Cancel,
                _ => return protocol::error("the answer must be accept, decline or cancel"),
            };
            let in_progress = || {
                shared
                    .handler
                    .states()
                    .iter()
                    .any(|(_, s)| matches!(s, QuestionState::InProgress { .. }))
            };
            match shared.handler.respond(question, answer) {
                Ok(_) if in_progress() => report(shared, Until::Deadline(URL_GRACE)).await,
                Ok(_) => report(shared, Until::Deadline(ANSWER_WAIT)).await,
                Err(RespondError::Invalid(problems)) => shared.reply(
                    "invalid",
                    vec![
                        ("question", json!(question)),
                        ("problems", json!(problems)),
                        ("questions", json!(shared.handler.questions())),
                    ],
                ),
                Err(RespondError::NoSuchQuestion { .. }) if shared.outcome.borrow().is_some() => {
                    report(shared, Until::Open).await
                }
                Err(e) => {
                    let mut reply = protocol::error(e.to_string());
                    if let Some(obj) = reply.as_object_mut() {
                        obj.insert("call".into(), json!(shared.call));
                        obj.insert("questions".into(), json!(shared.handler.questions()));
                    }
                    reply
                }
            }
        }
        _ => protocol::error("unknown request"),
    }
}
