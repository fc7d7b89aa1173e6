//! A client end for the stdio transport, in process over a duplex pipe.

use std::time::Duration;

use frontdesk::server::{Server, ServerBuilder, stdio};
use frontdesk_demo::{self as demo, DemoOptions};
use frontdesk_testkit::TestClient;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;

/// The demo with fixtures, its sign-in links pointing nowhere.
pub fn builder() -> ServerBuilder {
    demo::register(
        Server::builder("brightgrid-test", "0.0.1"),
        "http://127.0.0.1:9",
        &DemoOptions {
            conformance_fixtures: true,
        },
    )
}

pub fn test_server() -> Server {
    builder().build()
}

pub struct Client {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    pub task: JoinHandle<std::io::Result<()>>,
}

impl Client {
    pub fn start(server: Server) -> Self {
        Self::start_with_shutdown(server, std::future::pending())
    }

    /// Serve until the input ends or `signal` completes.
    pub fn start_with_shutdown(
        server: Server,
        signal: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 22);
        let (sr, sw) = tokio::io::split(theirs);
        let task = tokio::spawn(stdio::serve_with_shutdown(server, sr, sw, signal));
        let (r, w) = tokio::io::split(ours);
        Self {
            write: w,
            lines: BufReader::new(r).lines(),
            task,
        }
    }

    pub async fn send_raw(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    pub async fn send(&mut self, v: Value) {
        let s = serde_json::to_string(&v).unwrap();
        self.send_raw(&s).await;
    }

    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a message within 10 s")
            .unwrap()
            .expect("the server is still writing");
        assert!(!line.contains('\n'));
        serde_json::from_str(&line).unwrap()
    }

    /// Nothing arrives within `ms`.
    pub async fn quiet(&mut self, ms: u64) {
        let r = tokio::time::timeout(Duration::from_millis(ms), self.lines.next_line()).await;
        if let Ok(Ok(Some(line))) = r {
            panic!("unexpected message: {line}");
        }
    }

    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.recv().await
    }

    pub async fn initialize(&mut self, capabilities: Value) -> Value {
        let client = test_client().capabilities(capabilities);
        let r = self
            .request(json!(0), "initialize", client.initialize_params())
            .await;
        self.send(frontdesk_testkit::initialized()).await;
        r
    }

    /// Answer the server's request `id`.
    pub async fn reply(&mut self, id: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    pub async fn close(self) -> std::io::Result<()> {
        drop(self.write);
        drop(self.lines);
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the loop ends")
            .unwrap()
    }
}

/// Who the test client is: `test` 1.
pub fn test_client() -> TestClient {
    TestClient::new("test", "1")
}

/// `_meta` of a 2026-07-28 request with these client capabilities.
pub fn meta(caps: Value) -> Value {
    test_client().capabilities(caps).meta()
}

/// Params of a 2026-07-28 `tools/call`.
pub fn call(name: &str, args: Value, caps: Value) -> Value {
    json!({"name": name, "arguments": args, "_meta": meta(caps)})
}
