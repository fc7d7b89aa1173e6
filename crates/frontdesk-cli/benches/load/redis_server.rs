//! A `redis-server` of the benchmark's own (issue 27): from `PATH`, on a
//! free loopback port, without persistence, in a temporary directory,
//! stopped when dropped.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use crate::support::{TempDir, cpu_ticks_of};

/// A running redis-server.
pub struct RedisServer {
    child: Child,
    addr: SocketAddr,
    _dir: TempDir,
}

impl RedisServer {
    /// Start one, on `cpu` alone when one is given (like the servers).
    pub fn start(cpu: Option<core_affinity::CoreId>) -> anyhow::Result<Self> {
        let dir = TempDir::new("frontdesk-load-redis")?;
        // A free port: bind one, let it go, hand it to redis-server.
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut command = Command::new("redis-server");
        command
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = crate::support::start(&mut command, cpu).context(
            "cannot start redis-server (--store redis needs it on PATH; \
             on Debian: apt-get install redis-server)",
        )?;
        let mut server = Self {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            _dir: dir,
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// `redis://ADDR`.
    pub fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    /// Its CPU time so far, in clock ticks.
    pub fn cpu_ticks(&self) -> anyhow::Result<u64> {
        cpu_ticks_of(self.child.id()).context("redis-server")
    }

    /// Until it answers `PING` (10 s at most).
    fn wait_ready(&mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                bail!("redis-server exited at once ({status})");
            }
            if let Ok(mut s) = TcpStream::connect(self.addr) {
                let mut reply = [0u8; 7];
                if s.write_all(b"PING\r\n").is_ok()
                    && s.read_exact(&mut reply).is_ok()
                    && &reply == b"+PONG\r\n"
                {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!(
            "redis-server did not answer PING on {} within 10 s",
            self.addr
        )
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
