//! What `frontdesk serve` mounts besides `/mcp`, and who may call it (issue
//! 24, row 12), against a real `frontdesk serve` child on loopback:
//!
//! - every route (the sign-in page, the protected-resource metadata) answers
//!   only the `Host` names `/mcp` answers (DNS rebinding);
//! - with `--stdio`, the sign-in page's own listener has the HTTP server's
//!   bounds (connections per address, `Host`);
//! - a browser `Origin` is accepted when it is the server's own (its bound or
//!   `--public-url` origin) or listed with `--allow-origin`, not merely any
//!   loopback port.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{BIN, Running};

/// A running `frontdesk serve`, killed when dropped.
struct Serve {
    _process: Running,
    /// `127.0.0.1:PORT` of the listener under test.
    authority: String,
}

impl Serve {
    /// `frontdesk serve ARGS`, waiting for the stderr line starting with
    /// `marker`, whose `http://127.0.0.1:PORT` is the listener under test.
    fn start(args: &[&str], marker: &'static str) -> Self {
        Self::start_at(args, marker, None)
    }

    /// As [`start`](Self::start); `authority`, when known, is the listener
    /// under test (the marker line then only says it is up).
    fn start_at(args: &[&str], marker: &'static str, authority: Option<String>) -> Self {
        let mut command = Command::new(BIN);
        command
            .arg("serve")
            .args(args)
            .args(["--store", "memory"])
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped());
        let process = Running::spawn(command);
        let authority = process
            .first(Duration::from_secs(30), |line| {
                if !line.contains(marker) {
                    return None;
                }
                if let Some(known) = &authority {
                    return Some(known.clone());
                }
                let at = line.find("http://127.0.0.1:")?;
                let rest = &line[at + "http://".len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
                    .unwrap_or(rest.len());
                Some(rest[..end].to_string())
            })
            .expect("serve did not start within 30 s");
        Self {
            _process: process,
            authority,
        }
    }

    fn http(args: &[&str]) -> Self {
        let mut all = vec!["--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Self::start(&all, "MCP endpoint at")
    }

    fn port(&self) -> &str {
        self.authority.rsplit(':').next().unwrap_or_default()
    }

    /// Send `head` (request line and headers, without the blank line) and
    /// `body`; the response's status.
    fn status(&self, head: &str, body: &str) -> u16 {
        status_of(&self.authority, head, body)
    }
}

fn status_of(authority: &str, head: &str, body: &str) -> u16 {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"))
}

/// A JWKS file with one (public, example) signing key.
fn jwks_file() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-pages");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("jwks.json");
    // The P-256 public key of RFC 7517, appendix A.1, as a signing key.
    let jwks = r#"{"keys":[{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"1",
        "x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
        "y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]}"#;
    std::fs::write(&path, jwks).unwrap();
    path
}

const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A 2026-07-28 `tools/list` POST to `/mcp`, with `Origin: origin` if any.
fn tools_list(s: &Serve, origin: Option<&str>) -> u16 {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list",
        s.authority
    );
    if let Some(o) = origin {
        head.push_str(&format!("\r\nOrigin: {o}"));
    }
    s.status(&head, TOOLS_LIST)
}

#[test]
fn every_route_of_serve_answers_only_its_own_host() {
    let jwks = jwks_file();
    let s = Serve::http(&[
        "--auth-jwks",
        jwks.to_str().unwrap(),
        "--auth-issuer",
        "https://auth.test.example",
        "--auth-audience",
        "https://mcp.test.example/mcp",
    ]);
    for path in [
        "/signin?token=abc",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let own = s.status(&format!("GET {path} HTTP/1.1\r\nHost: {}", s.authority), "");
        assert_ne!(own, 403, "{path} on its own Host");
        let rebound = s.status(
            &format!("GET {path} HTTP/1.1\r\nHost: evil.example:{}", s.port()),
            "",
        );
        assert_eq!(rebound, 403, "{path} with Host: evil.example");
    }
    let post = s.status(
        "POST /signin HTTP/1.1\r\nHost: evil.example\r\n\
         Content-Type: application/x-www-form-urlencoded",
        "token=abc",
    );
    assert_eq!(post, 403, "POST /signin with Host: evil.example");
    // As /mcp has always answered.
    let mcp = s.status(
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream",
        TOOLS_LIST,
    );
    assert_eq!(mcp, 403);
}

#[test]
fn the_stdio_sign_in_page_has_the_http_servers_bounds() {
    let s = Serve::start(&["--stdio"], "sign-in page listening");
    let page = format!("GET /signin?token=abc HTTP/1.1\r\nHost: {}", s.authority);
    assert_ne!(s.status(&page, ""), 403);
    let rebound = format!(
        "GET /signin?token=abc HTTP/1.1\r\nHost: evil.example:{}",
        s.port()
    );
    assert_eq!(s.status(&rebound, ""), 403, "Host: evil.example");
    // 64 connections from one address are held open; the next is refused at
    // once (429), as on the HTTP server, instead of being served. Once the
    // listener has taken all 64 (on a loaded machine that is not at once)
    // the next is refused; a machine loaded enough to let some of them time
    // out gets a fresh try, three in all: without the cap, every try fails.
    let mut refused = false;
    let mut held: Vec<TcpStream> = Vec::new();
    for _ in 0..3 {
        held = (0..64)
            .map(|_| TcpStream::connect(&s.authority).unwrap())
            .collect();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !refused && std::time::Instant::now() < deadline {
            refused = s.status(&page, "") == 429;
            if !refused {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        if refused {
            break;
        }
        held.clear();
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(refused, "the 65th connection was served");
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    assert_ne!(s.status(&page, ""), 429, "served again once they closed");
}

#[test]
fn the_default_origin_is_the_servers_own() {
    let s = Serve::http(&[]);
    assert_eq!(tools_list(&s, None), 200, "no Origin: not a browser");
    for own in [
        format!("http://127.0.0.1:{}", s.port()),
        format!("http://localhost:{}", s.port()),
    ] {
        assert_eq!(tools_list(&s, Some(&own)), 200, "{own}");
    }
    // A page on another local port (another local web app, or one a
    // DNS-rebinding attack serves from elsewhere on this machine).
    let other_port = if s.port() == "1" { "2" } else { "1" };
    for foreign in [
        format!("http://localhost:{other_port}"),
        format!("http://127.0.0.1:{other_port}"),
        "http://evil.example".to_string(),
    ] {
        assert_eq!(tools_list(&s, Some(&foreign)), 403, "{foreign}");
    }
    drop(s);

    // MCP Inspector's page talking to the server directly: allowed by name.
    let s = Serve::http(&["--allow-origin", "http://localhost:6274"]);
    assert_eq!(tools_list(&s, Some("http://localhost:6274")), 200);
    assert_eq!(tools_list(&s, Some("http://localhost:6275")), 403);
    drop(s);

    // Behind a proxy: the public origin is the server's own too (the bound
    // address is not printed then: pick a free port first).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let authority = format!("127.0.0.1:{port}");
    let s = Serve::start_at(
        &[
            "--http",
            &authority,
            "--public-url",
            "https://mcp.test.example",
        ],
        "MCP endpoint at",
        Some(authority.clone()),
    );
    assert_eq!(tools_list(&s, Some("https://mcp.test.example")), 200);
    assert_eq!(tools_list(&s, Some("https://other.test.example")), 403);
}
