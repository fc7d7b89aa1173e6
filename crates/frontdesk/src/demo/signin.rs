//! The demo's own sign-in page, on loopback: `GET /signin?token=…` shows a
//! form, `POST /signin` completes the flow whose connect token it carries.
//! A deliberately tiny HTTP/1.1 responder: one request per connection.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::server::Server;

const MAX_REQUEST: usize = 16 * 1024;

pub(crate) async fn serve(listener: TcpListener, server: Server) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let server = server.clone();
        tokio::spawn(async move {
            if let Err(e) = handle(stream, &server).await {
                tracing::debug!(error = %e, "sign-in page connection failed");
            }
        });
    }
}

async fn handle(mut stream: TcpStream, server: &Server) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    let (head_end, content_length) = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_REQUEST {
            return respond(&mut stream, "413 Payload Too Large", "Too large.").await;
        }
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_string();
            let len = head
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (i + 4, len.min(MAX_REQUEST));
        }
    };
    while buf.len() < head_end + content_length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let body = String::from_utf8_lossy(&buf[head_end.min(buf.len())..]).to_string();
    let mut parts = head.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match (method, path) {
        ("GET", "/signin") => {
            let token = form_value(query, "token").unwrap_or_default();
            let page = format!(
                "<!doctype html><meta charset=utf-8><title>Brightgrid sign-in</title>\
                 <h1>Sign in to Brightgrid</h1>\
                 <form method=post action=/signin>\
                 <input type=hidden name=token value=\"{}\">\
                 <label>Email <input name=email type=email required></label>\
                 <label>Password <input name=password type=password required></label>\
                 <button>Sign in and connect</button></form>",
                html_escape(&token)
            );
            respond_html(&mut stream, "200 OK", &page).await
        }
        ("POST", "/signin") => {
            let token = form_value(&body, "token").unwrap_or_default();
            match server.complete_flow(&token, None).await {
                Ok(()) => {
                    respond_html(
                        &mut stream,
                        "200 OK",
                        "<!doctype html><meta charset=utf-8><h1>Connected</h1><p>You can close this page and go back.</p>",
                    )
                    .await
                }
                Err(_) => respond(&mut stream, "404 Not Found", "This sign-in link is unknown or has expired.").await,
            }
        }
        _ => respond(&mut stream, "404 Not Found", "Not found.").await,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn form_value(encoded: &str, key: &str) -> Option<String> {
    encoded.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == key).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && s.is_char_boundary(i + 1)
                && s.is_char_boundary(i + 3) =>
            {
                match u8::from_str_radix(&s[i + 1..i + 3], 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn respond_html(stream: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    write_response(stream, status, "text/html; charset=utf-8", body).await
}

async fn respond(stream: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    write_response(stream, status, "text/plain; charset=utf-8", body).await
}

async fn write_response(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}
