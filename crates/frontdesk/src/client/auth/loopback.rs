//! The loopback redirect of a native app (RFC 8252 §7.3): listen on
//! `127.0.0.1` on a free port and take the request the browser makes when
//! the authorization server redirects to `http://127.0.0.1:PORT/callback`.
//!
//! Any local process, or a web page the person has open, can request that
//! URL too. So only a callback carrying this sign-in's `state` is taken; one
//! with another `state` (or none) is answered `400` and ignored, and the wait
//! goes on, up to `MAX_WRONG_CALLBACKS` of them and the sign-in's timeout.
//! Other paths get `404`. Connections are served side by side, at most
//! [`MAX_CONNECTIONS`] at once (one that sends nothing cannot hold up the
//! browser's), each read with a size and a time limit.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use super::AuthError;

/// The path the redirect comes back on.
const CALLBACK_PATH: &str = "/callback";
/// Largest request head read.
const MAX_HEAD: usize = 16 * 1024;
/// How long one connection may take to send its request head.
const HEAD_TIME: Duration = Duration::from_secs(5);
/// Callbacks with a wrong `state` before the sign-in gives up: a bound on
/// the noise a local process can make, not a way to end the sign-in early
/// for one that makes less.
pub(super) const MAX_WRONG_CALLBACKS: u32 = 16;
/// Connections served at once; more wait to be accepted.
pub(super) const MAX_CONNECTIONS: usize = 16;

const PAGE: &str = "<!doctype html><meta charset=utf-8><title>Signed in</title>\
<p>Signed in. You can close this tab and go back to the terminal.</p>";

const WRONG_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Not this sign-in</title>\
<p>This is not the answer to the sign-in frontdesk is waiting for; it was ignored.</p>";

/// A listener waiting for one authorization redirect.
#[derive(Debug)]
pub struct LoopbackRedirect {
    listener: TcpListener,
    port: u16,
}

/// What one connection turned out to be.
enum Served {
    /// The callback of this sign-in: its request target.
    Callback(String),
    /// A callback with another `state`, or none.
    WrongState,
    /// Anything else (another path, a broken or slow request).
    Other,
}

impl LoopbackRedirect {
    /// Listen on `127.0.0.1` on a free port.
    pub async fn bind() -> Result<Self, AuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| {
            AuthError::Network(crate::Reason::from(format!(
                "cannot listen for the redirect: {e}"
            )))
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::Network(crate::Reason::new(e)))?
            .port();
        Ok(Self { listener, port })
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Wait up to `timeout` for the redirect whose `state` is `state`; the
    /// full URL it came to. Callbacks with another `state` are answered
    /// `400` and ignored, up to `MAX_WRONG_CALLBACKS`.
    pub async fn wait(self, state: &str, timeout: Duration) -> Result<String, AuthError> {
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut serving: JoinSet<Served> = JoinSet::new();
        let mut wrong = 0u32;
        loop {
            tokio::select! {
                accepted = self.listener.accept(), if serving.len() < MAX_CONNECTIONS => {
                    if let Ok((stream, _)) = accepted {
                        serving.spawn(serve(stream, state.to_owned()));
                    }
                }
                Some(done) = serving.join_next() => match done {
                    Ok(Served::Callback(target)) => {
                        return Ok(format!("http://127.0.0.1:{}{target}", self.port));
                    }
                    Ok(Served::WrongState) => {
                        wrong += 1;
                        tracing::warn!(wrong, "a sign-in callback with another state; ignored");
                        if wrong >= MAX_WRONG_CALLBACKS {
                            return Err(AuthError::Callback(crate::Reason::from(format!(
                                "{wrong} answers that were not this sign-in's came to its \
                                 listener (another program on this machine is interfering)"
                            ))));
                        }
                    }
                    Ok(Served::Other) | Err(_) => {}
                },
                () = &mut deadline => {
                    return Err(AuthError::Callback(crate::Reason::from("no redirect arrived before the sign-in timed out")));
                }
            }
        }
    }
}

/// Answer one connection: the callback of this sign-in (`state`), another
/// one, or something else.
async fn serve(mut stream: TcpStream, state: String) -> Served {
    let head = tokio::time::timeout(HEAD_TIME, read_head(&mut stream))
        .await
        .ok()
        .flatten();
    let served = match head.as_deref().and_then(callback_target) {
        Some(target) if carries_state(&target, &state) => Served::Callback(target),
        Some(_) => Served::WrongState,
        None => Served::Other,
    };
    let response = match &served {
        Served::Callback(_) => page("200 OK", PAGE),
        Served::WrongState => page("400 Bad Request", WRONG_PAGE),
        Served::Other => {
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".into()
        }
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    served
}

fn page(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n\
         cache-control: no-store\r\nreferrer-policy: no-referrer\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Whether the request target `/callback?…` has exactly one `state`, equal
/// to `state`.
fn carries_state(target: &str, state: &str) -> bool {
    let Ok(url) = url::Url::parse(&format!("http://127.0.0.1{target}")) else {
        return false;
    };
    let mut states = url.query_pairs().filter(|(k, _)| k == "state");
    matches!((states.next(), states.next()), (Some((_, v)), None) if v == state)
}

async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 || head.len() + n > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(head).ok()
}

/// `GET /callback?… HTTP/1.1` → `/callback?…`.
fn callback_target(head: &str) -> Option<String> {
    let line = head.lines().next()?;
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    let path = target.split('?').next()?;
    (method == "GET" && path == CALLBACK_PATH).then(|| target.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn takes_the_callback_and_ignores_other_paths() {
        let redirect = LoopbackRedirect::bind().await.expect("bound");
        let uri = redirect.redirect_uri();
        let port = redirect.port;
        let waiting = tokio::spawn(redirect.wait("s", Duration::from_secs(5)));
        assert!(get(port, "/favicon.ico").await.starts_with("HTTP/1.1 404"));
        assert!(
            get(port, "/callback?code=c&state=s")
                .await
                .starts_with("HTTP/1.1 200")
        );
        let got = waiting.await.expect("joined").expect("a redirect");
        assert_eq!(got, format!("{}?code=c&state=s", uri));
    }

    /// Any local process (or a web page) can request the callback first:
    /// a wrong `state` must not end the sign-in.
    #[tokio::test]
    async fn a_forged_callback_does_not_end_the_sign_in() {
        let redirect = LoopbackRedirect::bind().await.expect("bound");
        let port = redirect.port;
        let waiting = tokio::spawn(redirect.wait("right", Duration::from_secs(5)));
        for forged in [
            "/callback?error=access_denied&state=forged",
            "/callback?code=c",
            "/callback?code=c&state=right&state=forged",
        ] {
            let answer = get(port, forged).await;
            assert!(answer.starts_with("HTTP/1.1 400"), "{forged}: {answer}");
            assert!(answer.contains("it was ignored"), "{answer}");
        }
        // A connection that never sends its request does not hold the
        // listener up.
        let _idle = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connects");
        assert!(
            get(port, "/callback?code=c&state=right")
                .await
                .starts_with("HTTP/1.1 200")
        );
        let got = waiting.await.expect("joined").expect("a redirect");
        assert!(got.ends_with("/callback?code=c&state=right"), "{got}");
    }

    #[tokio::test]
    async fn too_many_forged_callbacks_end_the_wait_with_the_reason() {
        let redirect = LoopbackRedirect::bind().await.expect("bound");
        let port = redirect.port;
        let waiting = tokio::spawn(redirect.wait("right", Duration::from_secs(5)));
        for _ in 0..MAX_WRONG_CALLBACKS {
            get(port, "/callback?state=forged").await;
        }
        let err = waiting.await.expect("joined").expect_err("gave up");
        assert!(err.to_string().contains("interfering"), "{err}");
    }

    async fn get(port: u16, path: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connects");
        s.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes())
            .await
            .expect("writes");
        let mut out = String::new();
        let _ = s.read_to_string(&mut out).await;
        out
    }
}
