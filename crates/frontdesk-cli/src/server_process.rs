//! A stdio server this CLI starts: found on `PATH` first (so a typo says "not found"
//! instead of an OS error), its stderr read line by line into the (escaped) log with
//! its last lines kept, and its exit status told when it ends before answering.

use std::collections::VecDeque;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::bail;
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Lines of the server's stderr kept for an error message.
const LAST_LINES: usize = 3;

/// A running server process.
pub struct ServerProcess {
    child: Child,
    last_lines: Arc<Mutex<VecDeque<String>>>,
}

/// `words` quoted as a shell would need them (`sh -c 'exit 1'`).
pub fn quoted(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shlex::try_quote(w).map_or_else(|_| w.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where `program` is: itself when it names a path, else the first match on `PATH`.
fn find_program(program: &str) -> anyhow::Result<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        if is_executable(&path) {
            return Ok(path);
        }
        bail!("`{program}` is not an executable file");
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    });
    match found {
        Some(path) => Ok(path),
        None => bail!(
            "`{program}` was not found on PATH: check the server command, or give its full path"
        ),
    }
}

/// `line` without a leading RFC 3339 timestamp (`2026-12-03T16:13:02.123456Z `,
/// as `tracing` and most loggers start a line), so a server's log line carries
/// one timestamp in ours, not two.
fn without_timestamp(line: &str) -> &str {
    let bytes = line.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    let stamp = digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(bytes.get(10), Some(b'T' | b' '))
        && digits(11..13)
        && bytes.get(13) == Some(&b':');
    if !stamp {
        return line;
    }
    let Some((_, rest)) = line.split_once(char::is_whitespace) else {
        return line;
    };
    let rest = rest.trim_start();
    if bytes.get(10) == Some(&b' ') {
        // `2026-12-03 16:13:02 INFO …`: the time after the space goes too.
        return rest
            .split_once(char::is_whitespace)
            .map_or(rest, |(_, r)| r.trim_start());
    }
    rest
}

impl ServerProcess {
    /// Start `words` with piped stdin and stdout.
    pub fn spawn(words: &[String]) -> anyhow::Result<(ServerProcess, ChildStdout, ChildStdin)> {
        let Some((program, args)) = words.split_first() else {
            bail!("the server command is empty");
        };
        let path = find_program(program)?;
        let mut child = Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start `{}`: {e}", quoted(words)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!(
                "cannot talk to `{}`: its stdio was not piped",
                quoted(words)
            );
        };
        let last_lines: Arc<Mutex<VecDeque<String>>> = Arc::default();
        if let Some(stderr) = child.stderr.take() {
            let keep = last_lines.clone();
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(stderr).split(b'\n');
                while let Ok(Some(line)) = lines.next_segment().await {
                    let line = String::from_utf8_lossy(&line).into_owned();
                    // Our log line has its own timestamp: the server's goes.
                    tracing::info!(target: "frontdesk::server_stderr", "{}", without_timestamp(&line));
                    if let Ok(mut keep) = keep.lock() {
                        keep.push_back(line);
                        while keep.len() > LAST_LINES {
                            keep.pop_front();
                        }
                    }
                }
            });
        }
        Ok((ServerProcess { child, last_lines }, stdout, stdin))
    }

    /// Wait until the process ends.
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        self.child.wait().await.ok()
    }

    /// What ended it, for a sentence ("exited with status 1"), with its last stderr
    /// lines when it wrote any.
    pub fn ended(&self, status: Option<ExitStatus>) -> String {
        let how = match status {
            Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(signal)) => format!("was killed by signal {signal}"),
                (None, None) => "ended".to_owned(),
            },
            None => "ended".to_owned(),
        };
        let last: Vec<String> = self
            .last_lines
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default();
        if last.is_empty() {
            how
        } else {
            format!("{how}; its last words: {}", last.join(" / "))
        }
    }

    /// After the client closed its stdin: wait a little, then kill it.
    pub async fn shut_down(mut self) {
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            tracing::info!("the server did not exit after its input closed; killing it");
            let _ = self.child.kill().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_timestamp;

    #[test]
    fn a_leading_timestamp_goes_and_nothing_else() {
        assert_eq!(
            without_timestamp("2026-12-03T16:13:02.123456Z  INFO frontdesk: listening"),
            "INFO frontdesk: listening"
        );
        assert_eq!(
            without_timestamp("2026-12-03 16:13:02 warn: slow"),
            "warn: slow"
        );
        assert_eq!(without_timestamp("plain line"), "plain line");
        assert_eq!(without_timestamp("2026-12-03"), "2026-12-03");
        assert_eq!(
            without_timestamp("1234-56 not a date"),
            "1234-56 not a date"
        );
    }
}
