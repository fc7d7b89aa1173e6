//! HTTPS for the listener (feature `tls`): rustls on ring, a certificate
//! chain and key from PEM files, reloaded without a restart.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use frontdesk::http::{self, HttpOptions, tls::Tls};
//! use frontdesk::server::Server;
//!
//! let tls = Tls::from_pem_files("cert.pem".as_ref(), "key.pem".as_ref())?;
//! tls.reload_on_sighup(); // after renewing the files: kill -HUP <pid>
//! let listener = http::bind("0.0.0.0:8443".parse()?, HttpOptions::default()).await?.tls(tls);
//! listener.serve(Server::builder("shop", "1.0.0").build()).await?;
//! # Ok(()) }
//! ```
//!
//! ALPN offers `h2` and `http/1.1`: a client that picks `h2` gets HTTP/2,
//! any other HTTP/1.1. A reload swaps the certificate for the handshakes
//! that follow; connections already open keep theirs and are not dropped.
//! A reload that fails (a file missing, unreadable, or a key that does not
//! match the certificate) keeps the certificate in use and says why.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

/// Why a certificate or key could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read or holds no usable PEM item.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What was wrong with it.
        reason: String,
    },
    /// rustls refused the certificate and key (a key that does not match
    /// the certificate, an unsupported key type).
    #[error("certificate and key not usable: {0}")]
    Rejected(crate::Reason),
}

impl TlsError {
    /// Who must act to get past it: always the operator (the certificate and key files are theirs).
    pub fn party(&self) -> crate::Party {
        crate::Party::Operator
    }
}

crate::errors::party_predicates!(TlsError);

/// A certificate chain and key from PEM files, for
/// [`HttpListener::tls`](super::HttpListener::tls); cheap to clone (clones
/// share the certificate, so reloading one reloads all).
#[derive(Clone)]
pub struct Tls {
    cert: PathBuf,
    key: PathBuf,
    current: Arc<Current>,
    acceptor: TlsAcceptor,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("cert", &self.cert)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// The certificate in use, swapped by a reload.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(
            &self
                .0
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        ))
    }
}

impl Tls {
    /// Read the chain (`cert`, leaf first) and its private key (`key`,
    /// PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        let loaded = load(cert, key)?;
        let current = Arc::new(Current(RwLock::new(Arc::new(loaded))));
        let acceptor = acceptor(&current)?;
        Ok(Self {
            cert: cert.to_owned(),
            key: key.to_owned(),
            current,
            acceptor,
        })
    }

    /// Read the files again and use them for the handshakes from now on;
    /// on an error the certificate in use stays.
    pub fn reload(&self) -> Result<(), TlsError> {
        let loaded = load(&self.cert, &self.key)?;
        *self
            .current
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(loaded);
        Ok(())
    }

    /// [`reload`](Self::reload) on every `SIGHUP`, logging the outcome, for
    /// as long as the process runs (a no-op off Unix). Needs a tokio runtime.
    pub fn reload_on_sighup(&self) {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let tls = self.clone();
            let mut hangups = match signal(SignalKind::hangup()) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for SIGHUP; the certificate will not be reloaded");
                    return;
                }
            };
            tokio::spawn(async move {
                while hangups.recv().await.is_some() {
                    match tls.reload() {
                        Ok(()) => {
                            tracing::info!(cert = %tls.cert.display(), "TLS certificate reloaded")
                        }
                        Err(e) => {
                            tracing::error!(error = %e, "TLS certificate not reloaded; the previous one stays in use")
                        }
                    }
                }
            });
        }
    }

    /// The acceptor the listener uses.
    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}

/// An acceptor taking its certificate from `current`, ALPN `h2` then
/// `http/1.1`.
fn acceptor(current: &Arc<Current>) -> Result<TlsAcceptor, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::DEFAULT_VERSIONS)
        .map_err(|e| TlsError::Rejected(crate::Reason::new(e)))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::clone(current) as Arc<dyn ResolvesServerCert>);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

fn load(cert: &Path, key: &Path) -> Result<CertifiedKey, TlsError> {
    let file_error = |path: &Path, reason: String| TlsError::File {
        path: path.to_owned(),
        reason,
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| file_error(cert, e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(cert, e.to_string()))?;
    if chain.is_empty() {
        return Err(file_error(cert, "no CERTIFICATE in the file".into()));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| file_error(key, e.to_string()))?;
    let provider = rustls::crypto::ring::default_provider();
    let certified = CertifiedKey::from_der(chain, private, &provider)
        .map_err(|e| TlsError::Rejected(crate::Reason::new(e)))?;
    Ok(certified)
}
