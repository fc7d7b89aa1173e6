//! Parked calls: `frontdesk call --park` keeps a call open in a small background
//! process (the keeper) and prints its questions as JSON; `frontdesk respond` answers
//! them.
//!
//! - Reach: one Unix socket per parked call, `DIR/CALL.sock`, in a directory only the
//!   user can open (`$FRONTDESK_PARK_DIR`, else `$XDG_RUNTIME_DIR/frontdesk`, else
//!   `$TMPDIR/frontdesk-UID`; created `0700`, refused when it is a symlink, someone
//!   else's, or open to others); the socket is `0600` and the keeper checks the peer's
//!   user id on every connection.
//! - Lifetime: the keeper ends when the call's result has been handed over, when
//!   `--park-ttl` seconds pass without an answer (its questions are then answered
//!   `cancel`, and the server hears it), and after a day at the latest.
//! - Several calls can be parked at once: each has its own keeper and socket.
//! - Protocol: one JSON request line, one JSON reply line (see [`protocol`]).

mod keeper;
mod protocol;
mod respond;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
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

/// This process's user id.
fn current_uid() -> anyhow::Result<u32> {
    Ok(std::fs::metadata("/proc/self")
        .or_else(|_| std::fs::metadata(std::env::temp_dir()))
        .context("cannot tell which user this is")?
        .uid())
}

/// The directory of parked calls, created and checked (see the module docs).
pub fn park_dir() -> anyhow::Result<PathBuf> {
    let uid = current_uid()?;
    let dir = match (
        std::env::var_os("FRONTDESK_PARK_DIR").filter(|d| !d.is_empty()),
        std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()),
    ) {
        (Some(d), _) => PathBuf::from(d),
        (None, Some(run)) => PathBuf::from(run).join("frontdesk"),
        (None, None) => std::env::temp_dir().join(format!("frontdesk-{uid}")),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => bail!("cannot create {}: {e}", dir.display()),
    }
    let meta = std::fs::symlink_metadata(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?;
    if !meta.is_dir() {
        bail!(
            "{} is not a directory (a symlink?); remove it",
            dir.display()
        );
    }
    if meta.uid() != uid {
        bail!("{} belongs to another user; remove it", dir.display());
    }
    if meta.mode() & 0o077 != 0 {
        bail!(
            "{} can be opened by other users; `chmod 700` it or remove it",
            dir.display()
        );
    }
    Ok(dir)
}

/// A new call id: 8 hex digits.
fn new_call_id() -> String {
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

/// Print a keeper's reply and turn it into the exit status.
fn print_reply(command: &str, reply: &Value) -> ExitCode {
    output::json(reply);
    let status = reply.get("status").and_then(Value::as_str).unwrap_or("");
    let code = match status {
        "parked" => exit::PARKED,
        "complete" if reply.pointer("/result/isError") == Some(&Value::Bool(true)) => exit::FAILED,
        "complete" => exit::OK,
        "invalid" => exit::ANSWER_REFUSED,
        "failed" => reply
            .get("exit")
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
        Ok((dir, call)) => match ask_keeper(&dir, &call, &protocol::wait()) {
            Ok(reply) => print_reply("call", &reply),
            Err(e) => {
                output::error("call", &format!("{e:#}"));
                exit::code(exit::FAILED)
            }
        },
        Err(e) => {
            output::error("call", &format!("{e:#}"));
            exit::code(exit::CANNOT_START)
        }
    }
}

fn start_keeper(args: &CallArgs) -> anyhow::Result<(PathBuf, String)> {
    arguments(&args.args)?;
    Target::parse(&args.server)?;
    let dir = park_dir()?;
    let call = new_call_id();
    let log_path = dir.join(format!("{call}.log"));
    let log = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;
    let exe = std::env::current_exe().context("cannot find this program to start the keeper")?;
    let protocol = clap::ValueEnum::to_possible_value(&args.protocol)
        .map(|v| v.get_name().to_owned())
        .unwrap_or_else(|| "auto".to_owned());
    let mut keeper = std::process::Command::new(exe)
        .arg("park-keeper")
        .args(["--call", &call])
        .arg("--dir")
        .arg(&dir)
        .args(["--ttl", &args.park_ttl.to_string()])
        .args(["--timeout", &args.timeout.to_string()])
        .args(["--protocol", &protocol])
        .args(["--args", &args.args])
        .arg("--")
        .args([&args.server, &args.tool])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        // Its own process group: Ctrl-C or a closed terminal ends this command, not
        // the parked call.
        .process_group(0)
        .spawn()
        .context("cannot start the keeper of the parked call")?;
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
