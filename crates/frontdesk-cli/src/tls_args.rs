//! `--tls-cert` / `--tls-key`: HTTPS on a command's `--http` listener
//! (`serve`, `gateway`), reloaded on SIGHUP.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use frontdesk::http::HttpListener;
use frontdesk::http::tls::Tls;

/// The TLS flags of a command that listens with `--http`.
#[derive(Debug, Clone, Default, Args)]
pub struct TlsArgs {
    /// Serve HTTPS with this PEM certificate chain (leaf first); HTTP/2 or
    /// HTTP/1.1 by ALPN. SIGHUP reloads it and the key without dropping
    /// connections (a failed reload keeps the old pair).
    #[arg(long, value_name = "FILE", requires_all = ["http", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl TlsArgs {
    /// `listener` serving HTTPS when the flags are given (SIGHUP reloads
    /// the pair); as it is otherwise.
    pub fn apply(&self, listener: HttpListener) -> anyhow::Result<HttpListener> {
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(listener);
        };
        let tls = Tls::from_pem_files(cert, key).context("cannot use --tls-cert and --tls-key")?;
        tls.reload_on_sighup();
        Ok(listener.tls(tls))
    }
}
