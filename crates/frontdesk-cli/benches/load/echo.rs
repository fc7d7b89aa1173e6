//! The floor: a bare hyper HTTP/1.1 server that answers every request with
//! its own body as `application/json`. Run as a child process of the
//! benchmark (`--echo-server`), so its CPU time is its own.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// Serve on an ephemeral loopback port until killed; the address goes to
/// stderr as `echo server at http://ADDR/mcp`.
pub async fn serve() -> std::io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    eprintln!("echo server at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(echo))
                .await;
        });
    }
}

async fn echo(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let response = match request.into_body().collect().await {
        Ok(body) => {
            let mut r = Response::new(Full::new(body.to_bytes()));
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r
        }
        Err(_) => {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::BAD_REQUEST;
            r
        }
    };
    Ok(response)
}
