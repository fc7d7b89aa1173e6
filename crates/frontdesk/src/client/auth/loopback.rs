//! The loopback redirect of a native app (RFC 8252 §7.3): listen on
//! `127.0.0.1` on a free port and take the one request the browser makes
//! when the authorization server redirects to `http://127.0.0.1:PORT/callback`.
//!
//! Only that path is answered; any other request gets `404` and the wait
//! goes on. Requests are read with a size and a time limit.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::AuthError;

/// The path the redirect comes back on.
const CALLBACK_PATH: &str = "/callback";
/// Largest request head read.
const MAX_HEAD: usize = 16 * 1024;

const PAGE: &str = "<!doctype html><meta charset=utf-8><title>Signed in</title>\
<p>Signed in. You can close this tab and go back to the terminal.</p>";

/// A listener waiting for one authorization redirect.
#[derive(Debug)]
pub struct LoopbackRedirect {
    listener: TcpListener,
    port: u16,
}

impl LoopbackRedirect {
    /// Listen on `127.0.0.1` on a free port.
    pub async fn bind() -> Result<Self, AuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| AuthError::Network(format!("cannot listen for the redirect: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::Network(e.to_string()))?
            .port();
        Ok(Self { listener, port })
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Wait up to `timeout` for the redirect; the full URL it came to.
    pub async fn wait(self, timeout: Duration) -> Result<String, AuthError> {
        let accept = async {
            loop {
                let Ok((stream, _)) = self.listener.accept().await else {
                    continue;
                };
                if let Some(target) = serve(stream).await {
                    return format!("http://127.0.0.1:{}{target}", self.port);
                }
            }
        };
        tokio::time::timeout(timeout, accept).await.map_err(|_| {
            AuthError::Callback("no redirect arrived before the sign-in timed out".into())
        })
    }
}

/// Answer one connection; the request target when it is the callback.
async fn serve(mut stream: TcpStream) -> Option<String> {
    let head = tokio::time::timeout(Duration::from_secs(10), read_head(&mut stream))
        .await
        .ok()
        .flatten();
    let target = head.as_deref().and_then(callback_target);
    let response = match &target {
        Some(_) => format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
             cache-control: no-store\r\nreferrer-policy: no-referrer\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
            PAGE.len()
        ),
        None => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".into(),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    target
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
        let waiting = tokio::spawn(redirect.wait(Duration::from_secs(5)));
        let ask = |path: &'static str| async move {
            let mut s = TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connects");
            s.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes())
                .await
                .expect("writes");
            let mut out = String::new();
            let _ = s.read_to_string(&mut out).await;
            out
        };
        assert!(ask("/favicon.ico").await.starts_with("HTTP/1.1 404"));
        assert!(
            ask("/callback?code=c&state=s")
                .await
                .starts_with("HTTP/1.1 200")
        );
        let got = waiting.await.expect("joined").expect("a redirect");
        assert_eq!(got, format!("{}?code=c&state=s", uri));
    }
}
