//! Signing in to an OAuth-protected server (`examples/oauth_server.rs`: an
//! authorization server that approves at once, next to a protected MCP
//! endpoint), as a person does it in a terminal: the sign-in screen shows
//! the authorization URL, the browser (`BROWSER`, the example's `browse`)
//! comes back to the loopback redirect, the tool call succeeds, and the next
//! run uses the kept token without asking. And the lies a server or an
//! authorization server may tell, each refused before a token is asked for.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::support::{BIN, frontdesk, texts};
use crate::tmux::{Tmux, flat, keep};

/// The example server, running until dropped.
struct OAuthServer {
    child: Child,
    /// Its MCP endpoint.
    url: String,
}

fn example() -> PathBuf {
    let path = PathBuf::from(BIN)
        .parent()
        .map(|d| d.join("examples").join("oauth_server"))
        .unwrap_or_default();
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p frontdesk-cli` (it builds the examples)",
        path.display()
    );
    path
}

impl OAuthServer {
    fn start(args: &[&str]) -> OAuthServer {
        let mut child = Command::new(example())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the example server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout"))
            .read_line(&mut line)
            .expect("it prints its URL");
        OAuthServer {
            child,
            url: line.trim().to_owned(),
        }
    }

    /// What the authorization server has seen.
    fn stats(&self) -> Value {
        let base = self.url.trim_end_matches("/mcp");
        let addr = base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).expect("connects");
        write!(
            s,
            "GET /stats HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"
        )
        .expect("asks");
        let mut out = String::new();
        s.read_to_string(&mut out).expect("reads");
        let body = out.split("\r\n\r\n").nth(1).unwrap_or("");
        serde_json::from_str(body).expect("stats are JSON")
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A token file of its own for one test.
fn token_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("signin");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&file);
    file
}

fn browser() -> String {
    format!("{} browse", example().display())
}

#[test]
fn connect_signs_in_through_the_consent_screen_and_reuses_the_token() {
    let server = OAuthServer::start(&[]);
    let tokens = token_file("connect");
    let tokens_text = tokens.display().to_string();
    let browser = browser();
    let env = [
        ("BROWSER", browser.as_str()),
        ("FRONTDESK_TOKEN_FILE", tokens_text.as_str()),
    ];
    let command = format!("{BIN} connect --url {}", server.url);
    let Some(tmux) = Tmux::start("signin", 100, &command, &env) else {
        return;
    };
    let screen = tmux.prompt("[o] open the sign-in page");
    keep("signin-consent.txt", &screen);
    assert!(screen.contains("asks you to sign in"), "{screen}");
    let base = server.url.trim_end_matches("/mcp");
    // Before consent the screen shows the page the person will be sent to:
    // the request itself (with a client id) needs a registration, which
    // waits for their consent (issue 24, row 9).
    let shown: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("URL:"))
        .map(str::trim)
        .collect();
    assert_eq!(
        shown,
        [format!("{base}/authorize")],
        "the authorization endpoint is shown whole:\n{screen}"
    );
    assert!(
        flat(&screen).contains("Nothing has been opened"),
        "{screen}"
    );
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 0, "nothing opened before consent");
    assert_eq!(
        stats["registrations"], 0,
        "nothing registered before consent"
    );
    tmux.keys(&["o"]);
    let screen = tmux.wait_for("Call which tool?");
    assert!(screen.contains("signed in."), "{screen}");
    assert!(screen.contains("whoami"), "{screen}");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("Next: [n] call another tool");
    keep("signin-result.txt", &screen);
    assert!(flat(&screen).contains("signed in as client-"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
    drop(tmux);
    let stats = server.stats();
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["token_requests"], 1, "{stats}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&tokens)
            .expect("kept")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is owner-only");
    }
    let kept = std::fs::read_to_string(&tokens).expect("kept");
    assert!(kept.contains(&server.url), "keyed by the server: {kept}");

    // The next run uses the kept token: no sign-in screen, no authorization.
    let Some(tmux) = Tmux::start("signin-again", 100, &command, &env) else {
        return;
    };
    let screen = tmux.wait_for("Call which tool?");
    assert!(!screen.contains("asks you to sign in"), "{screen}");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("Next: [n] call another tool");
    assert!(flat(&screen).contains("signed in as client-"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
    let raw = tmux.raw_output();
    let kept_token =
        serde_json::from_str::<Value>(&kept).expect("JSON")[&server.url]["tokens"]["access_token"]
            .as_str()
            .map(str::to_owned)
            .expect("an access token");
    assert!(
        !String::from_utf8_lossy(&raw).contains(&kept_token),
        "the token never reaches the terminal"
    );
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["token_requests"], 1, "{stats}");
}

#[test]
fn an_expired_token_is_refreshed_without_asking() {
    let server = OAuthServer::start(&["--token-lifetime", "1"]);
    let tokens = token_file("refresh");
    let tokens_text = tokens.display().to_string();
    let browser = browser();
    let env = [
        ("BROWSER", browser.as_str()),
        ("FRONTDESK_TOKEN_FILE", tokens_text.as_str()),
    ];
    let command = format!("{BIN} call {} whoami", server.url);
    let Some(tmux) = Tmux::start("signin-refresh", 100, &command, &env) else {
        return;
    };
    tmux.prompt("[o] open the sign-in page");
    tmux.keys(&["o"]);
    tmux.wait_for("EXITED 0");
    drop(tmux);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // No terminal now: only the refresh token can get a new access token.
    let out = frontdesk(&["call", &server.url, "whoami"], &env);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("signed in as client-"), "{stdout}");
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["refreshes"], 1, "{stats}");
}

#[test]
fn without_a_terminal_a_sign_in_is_refused_with_how_to_do_it() {
    let server = OAuthServer::start(&[]);
    let tokens = token_file("unattended");
    let tokens = tokens.display().to_string();
    let out = frontdesk(
        &["call", &server.url, "whoami"],
        &[("FRONTDESK_TOKEN_FILE", tokens.as_str())],
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("needs a sign-in, and there is no terminal here to approve it"),
        "{stderr}"
    );
    assert!(stderr.contains("frontdesk connect --url"), "{stderr}");
    assert_eq!(server.stats()["authorizations"], 0);
}

/// Attacks caught before anyone is asked to sign in: `frontdesk call` fails
/// with the reason, and the authorization server saw no authorization or
/// token request.
#[test]
fn lying_metadata_is_refused_before_any_authorization() {
    for (attack, reason) in [
        (
            "resource-elsewhere",
            "resource metadata names https://evil.example.com/mcp",
        ),
        (
            "issuer-mismatch",
            "issuer https://attacker.example.com, not",
        ),
        (
            "hostile-authorize-endpoint",
            "the authorization endpoint must be https (plain http only to this machine): http://evil.example.com/authorize",
        ),
    ] {
        let server = OAuthServer::start(&["--attack", attack]);
        let tokens = token_file(attack);
        let tokens = tokens.display().to_string();
        let out = frontdesk(
            &["call", &server.url, "whoami"],
            &[("FRONTDESK_TOKEN_FILE", tokens.as_str())],
        );
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{attack}: {stderr}");
        assert!(stderr.contains(reason), "{attack}: {stderr}");
        let stats = server.stats();
        assert_eq!(stats["authorizations"], 0, "{attack}: {stats}");
        assert_eq!(stats["token_requests"], 0, "{attack}: {stats}");
    }
}

/// An authorization response naming another issuer (a mix-up attack,
/// RFC 9207): the code is never sent to the token endpoint.
#[test]
fn a_redirect_from_another_issuer_is_refused() {
    let server = OAuthServer::start(&["--attack", "wrong-iss"]);
    let tokens = token_file("wrong-iss");
    let tokens_text = tokens.display().to_string();
    let browser = browser();
    let env = [
        ("BROWSER", browser.as_str()),
        ("FRONTDESK_TOKEN_FILE", tokens_text.as_str()),
    ];
    let command = format!("{BIN} call {} whoami", server.url);
    let Some(tmux) = Tmux::start("signin-iss", 100, &command, &env) else {
        return;
    };
    tmux.prompt("[o] open the sign-in page");
    tmux.keys(&["o"]);
    let screen = tmux.wait_for("EXITED 2");
    assert!(
        flat(&screen).contains("it comes from issuer https://evil.example.com, not"),
        "{screen}"
    );
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["token_requests"], 0, "{stats}");
    assert!(!tokens.exists(), "nothing kept");
}
