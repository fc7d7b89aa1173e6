//! Opening the browser host's page (issue 24, row 15): the browser used to be
//! started with the page's address, launch secret included, on its command
//! line, which every local user reads from `/proc/PID/cmdline`. Now it gets a
//! one-time address, `/open/CODE`, that works once (and only for a short
//! while) and sends the browser on to the page; the address printed on stderr
//! for the person is unchanged.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{BIN, Running};

/// `GET path` on `authority`: the status and the `Location` header.
fn get(authority: &str, path: &str) -> (u16, Option<String>) {
    let (status, location, _) = fetch(authority, path);
    (status, location)
}

/// `GET path` on `authority`: the status, the `Location` header and the body.
fn fetch(authority: &str, path: &str) -> (u16, Option<String>, String) {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let location = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(str::to_owned);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    (status, location, body)
}

/// Start `command` (`lab --web …`): the process, and the page's address it prints.
fn started(command: Command) -> (Running, String) {
    let child = Running::spawn(command);
    let printed = child
        .first(Duration::from_secs(30), |line| {
            let at = line.find("the page is at ")?;
            Some(line[at + "the page is at ".len()..].trim().to_owned())
        })
        .expect("the address on stderr");
    (child, printed)
}

/// `http://AUTHORITY/PATH` → (`AUTHORITY`, `/PATH`).
fn authority_and_path(address: &str) -> (&str, &str) {
    let rest = address.strip_prefix("http://").expect("an http address");
    rest.split_at(rest.find('/').expect("a path"))
}

/// `lab --web --transport http` serves the demo on loopback with its sign-in
/// page, where the demo's URL question sends the person. It used to serve the
/// endpoint alone, so the link of `connect_store_account` was a 404 (the terminal
/// lab mounted the page; the two now start the demo in one place).
#[test]
fn lab_web_over_http_serves_the_demos_sign_in_page() {
    let mut command = Command::new(BIN);
    command
        .args(["lab", "--web", "--transport", "http", "--no-open"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    let (child, printed) = started(command);
    let (authority, path) = authority_and_path(&printed);
    let (status, _, page) = fetch(authority, path);
    assert_eq!(status, 200, "the page");
    // The page names where the demo listens.
    let at = page
        .find("Streamable HTTP at http://")
        .expect("the demo's endpoint on the page");
    let endpoint = &page[at + "Streamable HTTP at http://".len()..];
    let demo = &endpoint[..endpoint.find('/').expect("a path after the authority")];
    assert_ne!(demo, authority, "the demo has its own listener");
    let (status, _, signin) = fetch(demo, "/signin?token=not-a-flow");
    assert_eq!(status, 200, "the sign-in page: {signin}");
    assert!(signin.contains("Brightgrid sign-in"), "{signin}");
    drop(child);
}

#[test]
fn the_browser_is_opened_without_the_launch_secret_on_its_command_line() {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("web-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The "browser": records its own command line as /proc shows it to anyone.
    let record = dir.join("browser-cmdline");
    let _ = std::fs::remove_file(&record);
    let browser = dir.join("browser.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\ntr '\\0' ' ' < /proc/$$/cmdline > '{}.tmp' && mv '{0}.tmp' '{0}'\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();

    let mut command = Command::new(BIN);
    command
        .args(["lab", "--web"])
        .env("BROWSER", &browser)
        .env("RUST_LOG", "warn")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null());
    let (child, printed) = started(command);
    let (authority, path) = authority_and_path(&printed);
    let secret = path.trim_matches('/');
    assert_eq!(secret.len(), 64, "{printed}");

    let started = Instant::now();
    while !record.exists() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let cmdline = std::fs::read_to_string(&record).expect("the browser was started");
    assert!(
        !cmdline.contains(secret),
        "the launch secret is on the browser's command line: {cmdline}"
    );
    let opened = cmdline
        .split_whitespace()
        .find(|a| a.starts_with("http://"))
        .expect("an address on the browser's command line")
        .to_owned();
    let open_path = opened
        .strip_prefix(&format!("http://{authority}"))
        .unwrap_or("");
    assert!(open_path.starts_with("/open/"), "{opened}");

    // The one-time address sends the browser on to the page, once.
    let (status, location) = get(authority, open_path);
    assert_eq!(status, 303, "{opened}");
    assert_eq!(location.as_deref(), Some(path));
    assert_eq!(get(authority, path).0, 200, "the page itself");
    assert_eq!(
        get(authority, open_path).0,
        404,
        "used: it opens nothing again"
    );
    drop(child);
    let _ = std::fs::remove_dir_all(&dir);
}
