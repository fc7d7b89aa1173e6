//! `frontdesk serve --config FILE` (issue 28): the file's keys are serve's
//! flags; the command line and the environment win over it; a wrong key,
//! type or value stops the server with one line naming the file, the line
//! and the key.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{BIN, Running, frontdesk, texts};

/// A fresh directory under the target directory.
fn fresh(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("serve-config")
        .join(format!("{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Write `text` as `dir/serve.toml`.
fn config(dir: &Path, text: &str) -> PathBuf {
    let file = dir.join("serve.toml");
    std::fs::write(&file, text).unwrap();
    file
}

/// `GET /metrics` on `addr` (`host:port`): the status line.
fn metrics_status(addr: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply.lines().next().unwrap_or_default().to_string()
}

/// A file alone starts the HTTP server: its address, store, data
/// directory, durability, share, browser origins and metrics listener are
/// used, and a client lists the tools.
#[test]
fn a_config_file_starts_the_server_with_its_store_and_data_dir() {
    let dir = fresh("starts");
    let data = dir.join("data");
    let file = config(
        &dir,
        &format!(
            "# frontdesk serve's configuration\n\
             http = \"127.0.0.1:0\"\n\
             store = \"sqlite\"\n\
             data-dir = \"{}\"\n\
             sqlite-durability = \"full\"\n\
             redemptions-per-client = 500\n\
             allow-origin = [\n  \"http://localhost:6274\",\n  \"https://inspector.example\",\n]\n\
             metrics = \"127.0.0.1:0\"\n",
            data.display()
        ),
    );
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--config"])
        .arg(&file)
        .env("RUST_LOG", "info")
        .env_remove("FRONTDESK_DATA_DIR")
        .env_remove("FRONTDESK_REDIS_URL")
        .stdin(Stdio::null());
    let server = Running::spawn(command);
    let mut sqlite_logged = None;
    let mut metrics = None;
    let endpoint = server
        .first(Duration::from_secs(30), |line| {
            if line.contains("flows, redeemed states and tasks in SQLite") {
                sqlite_logged = Some(line.to_string());
            }
            if let Some(url) = line.strip_prefix("frontdesk: metrics at http://") {
                metrics = url.strip_suffix("/metrics").map(str::to_string);
            }
            line.strip_prefix("frontdesk: MCP endpoint at ")
                .map(str::to_string)
        })
        .expect("the server prints its endpoint");
    let sqlite = data.join("frontdesk.sqlite3");
    assert!(sqlite.exists(), "{}", sqlite.display());
    assert!(
        sqlite_logged
            .as_deref()
            .is_some_and(|l| l.contains(&format!("file={}", sqlite.display()))
                && l.contains("durability=full")),
        "{sqlite_logged:?}"
    );
    // The banner's line after the endpoint's.
    let origins = server.first(Duration::from_secs(10), |line| {
        line.strip_prefix("  browser pages also allowed from: ")
            .map(str::to_string)
    });
    assert_eq!(
        origins.as_deref(),
        Some("http://localhost:6274, https://inspector.example")
    );
    let metrics = metrics.expect("the metrics listener from the file");
    assert_eq!(metrics_status(&metrics), "HTTP/1.1 200 OK");
    let out = frontdesk(&["tools", &endpoint], &[]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("\"book_return\""), "{stdout}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `frontdesk serve ARGS` with stdin closed, `env` set (and the platform's
/// data directory under the target directory, should one be used): its exit
/// status and stderr.
fn serve_stdio(args: &[&str], env: &[(&str, &Path)]) -> (Option<i32>, String) {
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .args(args)
        .env("RUST_LOG", "warn")
        .env_remove("FRONTDESK_DATA_DIR")
        .env(
            "XDG_DATA_HOME",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-config-xdg"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The command line wins over the file, and so does the environment; a
/// transport on the command line wins over the file's other transport.
#[test]
fn the_command_line_and_the_environment_override_the_file() {
    let dir = fresh("override");
    let (in_file, on_line, in_env) = (dir.join("file"), dir.join("line"), dir.join("env"));
    let file = config(
        &dir,
        &format!(
            "http = \"127.0.0.1:0\"\ndata-dir = \"{}\"\n",
            in_file.display()
        ),
    );
    let file = file.to_str().unwrap();
    let sqlite = |d: &Path| d.join("frontdesk.sqlite3").exists();

    // --stdio over the file's http, --data-dir over the file's data-dir.
    let on_line_arg = on_line.to_str().unwrap();
    let (code, stderr) = serve_stdio(
        &["--config", file, "--stdio", "--data-dir", on_line_arg],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(sqlite(&on_line) && !sqlite(&in_file), "{stderr}");

    // FRONTDESK_DATA_DIR over the file's data-dir.
    let (code, stderr) = serve_stdio(
        &["--config", file, "--stdio"],
        &[("FRONTDESK_DATA_DIR", &in_env)],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(sqlite(&in_env) && !sqlite(&in_file), "{stderr}");

    // And the file's data-dir where neither gives one.
    let (code, stderr) = serve_stdio(&["--config", file, "--stdio"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(sqlite(&in_file), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An unknown key, a wrong type, a bad value or bad TOML: the server does
/// not start (status 2, as other start errors), and says which file, which
/// line and which key, in one line.
#[test]
fn a_wrong_key_type_or_value_stops_the_server_naming_the_line() {
    let dir = fresh("bad");
    let cases = [
        (
            "htp = \"127.0.0.1:0\"",
            "unknown key `htp`; the keys are serve's flags without their dashes: stdio, http, \
             conformance-fixtures, store, redemptions-per-client, data-dir, redis-url, \
             redis-prefix, auth-jwks, auth-issuer, auth-audience, auth-tokens, principal, \
             public-url, tls-cert, tls-key, max-connections, max-connections-per-client, \
             max-sessions, max-sessions-per-client, max-requests-per-client, task-lease, \
             sqlite-durability, allow-origin, metrics, otlp-endpoint, revision",
        ),
        (
            "data_dir = \"/tmp\"",
            "unknown key `data_dir`: keys are kebab-case, like the flags: `data-dir`",
        ),
        (
            "store = \"postgres\"",
            "bad value `postgres` for `store`: expected one of sqlite, memory, redis",
        ),
        (
            "http = \"everywhere\"",
            "bad value `everywhere` for `http`: `everywhere` is not an address to listen on: \
             give an IP address and a port, like 127.0.0.1:8080 or localhost:8080 (this \
             machine only) or 0.0.0.0:8080 (every interface)",
        ),
        (
            "redemptions-per-client = \"many\"",
            "`redemptions-per-client` must be an integer, not a string",
        ),
        (
            "max-connections = 0",
            "bad value `0` for `max-connections`: a cap of 0 would refuse every client: give 1 \
             or more",
        ),
        (
            "conformance-fixtures = \"yes\"",
            "`conformance-fixtures` must be true or false, not a string",
        ),
        ("stdio = false", "duplicate key (at `stdio`)"),
        (
            "allow-origin = [\n  \"http://localhost:6274\",\n  6274,\n]",
            "`allow-origin` must be an array of strings, not an integer",
        ),
        (
            "config = \"other.toml\"",
            "`config` cannot be set in a config file",
        ),
        (
            "store = memory",
            "string values must be quoted, expected literal string (at `memory`)",
        ),
    ];
    for (body, why) in cases {
        // The wrong line is the third (or, in the array, the fifth).
        let text = format!("# serve\nstdio = true\n{body}\n");
        let file = config(&dir, &text);
        let line = if body.starts_with("allow-origin") {
            5
        } else {
            3
        };
        let (code, stderr) = serve_stdio(&["--config", file.to_str().unwrap()], &[]);
        assert_eq!(code, Some(2), "{body}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "frontdesk serve: config file {}, line {line}: {why}\n",
                file.display()
            ),
            "{body}"
        );
    }
    let missing = dir.join("missing.toml");
    let (code, stderr) = serve_stdio(&["--config", missing.to_str().unwrap()], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "frontdesk serve: cannot read the config file {}: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A key that needs another flag is checked as the flag is, and the error
/// says which of the flags came from the file.
#[test]
fn a_key_missing_what_it_requires_is_named_with_its_line() {
    let dir = fresh("requires");
    let file = config(&dir, "http = \"127.0.0.1:0\"\ntls-cert = \"cert.pem\"\n");
    let (code, stderr) = serve_stdio(&["--config", file.to_str().unwrap()], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--tls-key <FILE>"), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "frontdesk serve: the config file {} gave http (line 1), tls-cert (line 2)\n",
            file.display()
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve --help` documents `--config`.
#[test]
fn serve_help_documents_config() {
    let out = frontdesk(&["serve", "--help"], &[]);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("--config <FILE>"), "{stdout}");
    assert!(
        stdout.contains("Read flags from this TOML file: each key is a flag's long name"),
        "{stdout}"
    );
    assert!(
        stdout.contains("frontdesk serve --config /etc/frontdesk/serve.toml"),
        "{stdout}"
    );
}
