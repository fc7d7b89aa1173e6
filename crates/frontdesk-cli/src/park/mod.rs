//! Parked calls: `frontdesk call --park` keeps a call open in a small background
//! process (the keeper) and prints its questions as JSON; `frontdesk respond` answers
//! them.
//!
//! - Reach: one Unix socket per parked call, `DIR/CALL.sock`, in a directory only the
//!   user can open (see [`dir`]); the socket is `0600` and the keeper checks the
//!   peer's user id on every connection.
//! - What the keeper is to call (server, tool, arguments) reaches it as one JSON line
//!   on its stdin, never on its command line or in its environment: any local user
//!   can read another's `/proc/PID/cmdline`. Its command line has only the call id
//!   and the directory.
//! - Lifetime: the keeper ends when the call's result has been handed over, when
//!   `--park-ttl` seconds pass without an answer (its questions are then answered
//!   `cancel`, and the server hears it), and after a day at the latest.
//! - Several calls can be parked at once: each has its own keeper and socket.
//! - Protocol: one JSON request line, one JSON reply line (see [`protocol`]); what
//!   the commands print is the agent contract, `schema/park.v1.json`
//!   (`frontdesk respond --schema`), described in `docs/agents.md`.

mod dir;
mod keeper;
mod protocol;
mod report;
mod respond;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

pub use keeper::{KeeperArgs, keep};
pub use respond::{RespondArgs, respond};

use crate::call::{CallArgs, arguments};
use crate::exit;
use crate::hosting::Target;
use crate::output;

/// 8 random hex digits (a call id, a private directory's name).
fn random_hex() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:08x}", h.finish() as u32)
}

/// The call part of a question id (`1a2b3c4d` of `1a2b3c4d.2`), checked.
pub fn call_of(question: &str) -> anyhow::Result<&str> {
    let call = question.split('.').next().unwrap_or("");
    if call.len() == 8 && call.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(call)
    } else {
        bail!("`{question}` is not a parked question id (like 1a2b3c4d.1)")
    }
}

fn socket_path(dir: &Path, call: &str) -> PathBuf {
    dir.join(format!("{call}.sock"))
}

/// Send one request to the keeper of `call` and read its reply.
fn ask_keeper(dir: &Path, call: &str, request: &Value) -> anyhow::Result<Value> {
    let path = socket_path(dir, call);
    let mut stream = UnixStream::connect(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound
            || e.kind() == std::io::ErrorKind::ConnectionRefused
        {
            anyhow::anyhow!("no parked call {call} here: it finished, expired, or was never parked")
        } else {
            anyhow::anyhow!("cannot reach the parked call {call}: {e}")
        }
    })?;
    let mut line = serde_json::to_string(request)?;
    line.push('\n');
    stream.write_all(line.as_bytes())?;
    let mut reply = String::new();
    BufReader::new(stream)
        .take(protocol::MAX_LINE)
        .read_line(&mut reply)
        .with_context(|| format!("the parked call {call} did not answer"))?;
    serde_json::from_str(&reply)
        .with_context(|| format!("the parked call {call} answered something unreadable"))
}

/// Print a keeper's reply (its `--show-wire` lines on stderr) and turn it into
/// the exit status.
fn print_reply(command: &str, reply: &Value) -> ExitCode {
    let mut reply = reply.clone();
    if let Some(lines) = reply.as_object_mut().and_then(|o| o.remove("wireLines"))
        && let Some(lines) = lines.as_array()
    {
        for line in lines.iter().filter_map(Value::as_str) {
            output::note_unwrapped(line);
        }
    }
    output::json(&reply);
    let status = reply.get("status").and_then(Value::as_str).unwrap_or("");
    let code = match status {
        "parked" => exit::PARKED,
        "waiting" => exit::WAITING,
        "complete" if reply.pointer("/result/isError") == Some(&Value::Bool(true)) => exit::FAILED,
        "complete" => exit::OK,
        "invalid" => exit::ANSWER_REFUSED,
        "cancelled" => exit::FAILED,
        "failed" => reply
            .get("exitCode")
            .and_then(Value::as_u64)
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(exit::FAILED),
        _ => exit::CANNOT_START,
    };
    if let Some(error) = reply.get("error").and_then(Value::as_str) {
        output::error(command, error);
    }
    exit::code(code)
}

/// `frontdesk call --park`: start the keeper, wait for its first question (or the
/// result), print it.
pub fn start(args: &CallArgs) -> ExitCode {
    match start_keeper(args) {
        Ok((dir, call)) => match ask_keeper(&dir, &call, &protocol::next()) {
            Ok(reply) => print_reply("call", &reply),
            Err(e) => {
                output::error("call", &format!("{e:#}"));
                exit::code(exit::FAILED)
            }
        },
        Err(e) => exit::cannot_start("call", &e),
    }
}

fn start_keeper(args: &CallArgs) -> anyhow::Result<(PathBuf, String)> {
    arguments(&args.args)?;
    Target::parse(&args.server)?;
    let dir = dir::for_new_call()?;
    let call = random_hex();
    let log_path = dir.join(format!("{call}.log"));
    let log = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;
    let exe = std::env::current_exe().context("cannot find this program to start the keeper")?;
    let protocol = clap::ValueEnum::to_possible_value(&args.client.protocol)
        .map(|v| v.get_name().to_owned())
        .unwrap_or_else(|| "auto".to_owned());
    let spec = keeper::CallSpec {
        server: args.server.clone(),
        tool: args.tool.clone(),
        args: args.args.clone(),
        protocol,
        timeout: args.client.timeout.secs,
        ttl: args.park_ttl,
        show_wire: args.client.show_wire,
        roots: args.client.roots.clone(),
        remote: args.client.remote.clone(),
    };
    let mut keeper = std::process::Command::new(exe)
        .arg("park-keeper")
        .args(["--call", &call])
        .arg("--dir")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(log)
        // Its own process group: Ctrl-C or a closed terminal ends this command, not
        // the parked call.
        .process_group(0)
        .spawn()
        .context("cannot start the keeper of the parked call")?;
    // The call goes on the pipe, then the pipe is closed.
    let sent = keeper.stdin.take().map(|mut pipe| {
        let mut line = serde_json::to_vec(&spec)?;
        line.push(b'\n');
        pipe.write_all(&line)
            .map_err(|e| anyhow::anyhow!("cannot hand the call to its keeper: {e}"))
    });
    if let Some(Err(e)) = sent {
        let _ = keeper.kill();
        return Err(e);
    }
    let socket = socket_path(&dir, &call);
    let started = Instant::now();
    while !socket.exists() {
        if let Ok(Some(status)) = keeper.try_wait() {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            let last = log.lines().last().unwrap_or("");
            bail!("the keeper of the parked call ended at once ({status}): {last}");
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = keeper.kill();
            bail!("the keeper of the parked call did not start within 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((dir, call))
}
