//! `frontdesk serve`'s data directory and its SQLite file (issue 24, row 14):
//! the file is owner-only from the moment it exists, whatever the umask, and a
//! data directory other users can write to, or that belongs to another user,
//! stops the server with a message saying what to do.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::support::BIN;

/// A fresh path under the target dir (not created).
fn fresh(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("data-dir")
        .join(format!("{name}-{}-{nanos}", std::process::id()))
}

/// `frontdesk serve --stdio --data-dir DIR` under `umask`, stdin closed: it
/// opens the store, reads the end of input and stops.
fn serve_stdio(dir: &Path, umask: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask {umask}; exec \"$0\" serve --stdio --data-dir \"$1\""
        ))
        .arg(BIN)
        .arg(dir)
        .env("RUST_LOG", "warn")
        .env_remove("FRONTDESK_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Every mode seen on the store's files while `serve` creates them, watched
/// as another user would (stat in a loop), under umask 000: none is open to
/// group or others, not even for an instant. (The old code let SQLite create
/// the file with the umask's mode and only then made it 0600.)
#[test]
fn the_sqlite_file_is_owner_only_from_the_start() {
    for round in 0..20 {
        let dir = fresh(&format!("umask-{round}"));
        let files: Vec<PathBuf> = ["", "-wal", "-shm"]
            .iter()
            .map(|s| dir.join(format!("frontdesk.sqlite3{s}")))
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (stop, files) = (Arc::clone(&stop), files.clone());
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    for f in &files {
                        if let Ok(m) = std::fs::symlink_metadata(f)
                            && m.mode() & 0o077 != 0
                        {
                            seen.push(format!("{}: {:o}", f.display(), m.mode() & 0o7777));
                        }
                    }
                }
                seen
            })
        };
        let out = serve_stdio(&dir, "000");
        stop.store(true, Ordering::Relaxed);
        let seen = watcher.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            seen.is_empty(),
            "round {round}: open to others, seen {} times: {:?}",
            seen.len(),
            &seen[..seen.len().min(3)]
        );
        let dir_mode = std::fs::metadata(&dir).unwrap().mode() & 0o7777;
        assert_eq!(dir_mode, 0o700, "the data directory is created owner-only");
        for f in files.iter().filter(|f| f.exists()) {
            let mode = std::fs::metadata(f).unwrap().mode() & 0o7777;
            assert_eq!(mode, 0o600, "{}", f.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A data directory other users can write to (they could have put a
/// database, its `-wal`, or a symlink there first) is refused, not used.
#[test]
fn a_data_directory_others_can_write_to_stops_the_server() {
    let dir = fresh("writable");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = serve_stdio(&dir, "022");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{} can be written by other users", dir.display())),
        "{stderr}"
    );
    assert!(stderr.contains("chmod go-w"), "{stderr}");
    assert!(!dir.join("frontdesk.sqlite3").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A data directory that belongs to another user is refused (run as root,
/// the test gives it to `nobody`; otherwise it says so and checks nothing).
#[test]
fn a_data_directory_of_another_user_stops_the_server() {
    let dir = fresh("theirs");
    std::fs::create_dir_all(&dir).unwrap();
    if std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).is_err() {
        eprintln!("not root: cannot give a directory to another user; skipped");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let out = serve_stdio(&dir, "022");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{} belongs to another user", dir.display())),
        "{stderr}"
    );
    assert!(!dir.join("frontdesk.sqlite3").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29: the store goes in the platform's data directory (XDG on Linux),
/// never in the working directory of whatever host started the server, and
/// the log names it by its whole path.
#[test]
fn the_default_store_is_in_the_data_directory_not_the_working_directory() {
    let root = fresh("xdg");
    let (data, cwd) = (root.join("data"), root.join("cwd"));
    std::fs::create_dir_all(&cwd).unwrap();
    let out = Command::new(BIN)
        .args(["serve", "--stdio"])
        .current_dir(&cwd)
        .env("XDG_DATA_HOME", &data)
        .env("RUST_LOG", "info")
        .env_remove("FRONTDESK_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let file = data.join("frontdesk").join("frontdesk.sqlite3");
    assert!(file.exists(), "{}: {stderr}", file.display());
    assert_eq!(
        std::fs::read_dir(&cwd).unwrap().count(),
        0,
        "nothing in the working directory"
    );
    assert!(
        stderr.contains(&format!("file={}", file.display())),
        "the absolute path is logged: {stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// `serve` without a transport names both; `--http localhost:PORT` works; the
/// banner says how to connect, and warns plainly about a non-loopback address
/// without authentication.
#[test]
fn serve_names_both_transports_takes_localhost_and_says_how_to_connect() {
    let out = Command::new(BIN).arg("serve").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--stdio") && stderr.contains("--http"),
        "{stderr}"
    );
    let out = Command::new(BIN)
        .args(["serve", "--http", "localhost"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("like 127.0.0.1:8080 or localhost:8080"),
        "{stderr}"
    );
    for (addr, warned) in [("localhost:0", false), ("0.0.0.0:0", true)] {
        let dir = fresh("banner");
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--store", "memory", "--http", addr])
            .arg("--data-dir")
            .arg(&dir)
            .env("RUST_LOG", "warn");
        let server = crate::support::Running::spawn(command);
        let endpoint = server
            .first(std::time::Duration::from_secs(20), |l| {
                l.strip_prefix("frontdesk: MCP endpoint at ")
                    .map(str::to_owned)
            })
            .expect("the endpoint line");
        if addr.starts_with("localhost") {
            assert!(endpoint.starts_with("http://127.0.0.1:"), "{endpoint}");
        }
        let connect = server.first(std::time::Duration::from_secs(5), |l| {
            l.contains("connect a client: `frontdesk connect --url")
                .then(|| l.to_owned())
        });
        assert!(connect.is_some(), "{addr}: how to connect");
        let warning = server.first(std::time::Duration::from_secs(2), |l| {
            l.contains("WARNING").then(|| l.to_owned())
        });
        assert_eq!(warning.is_some(), warned, "{addr}: {warning:?}");
        if let Some(w) = warning {
            assert!(w.contains("no authentication"), "{w}");
        }
        server.kill();
    }
}

/// A child server's log lines carry one timestamp (ours), not two.
#[test]
fn a_child_servers_stderr_is_logged_with_one_timestamp() {
    let dir = fresh("child");
    let server = format!(
        "{BIN} serve --stdio --store memory --data-dir {}",
        dir.display()
    );
    let out = Command::new(BIN)
        .args(["tools", &server])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("sign-in page listening"))
        .unwrap_or_else(|| panic!("the server's line: {stderr}"));
    let stamps = line
        .split_whitespace()
        .filter(|w| w.len() > 19 && w.as_bytes()[4] == b'-' && w.as_bytes()[10] == b'T')
        .count();
    assert_eq!(stamps, 1, "{line}");
}
