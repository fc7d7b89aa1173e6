//! Signing in to a server that wants a token (OAuth), as a person expects:
//! the authorization URL on the sign-in screen (the URL-mode review and
//! consent), the browser opened only after consent, a loopback listener
//! for the redirect, and the tokens kept in an owner-only file keyed by the
//! server, so the next run uses them without asking.
//!
//! Also the remote-connection flags `connect` and `call` share: the token
//! file, a pre-registered client id, and extra CA certificates.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use frontdesk::BoxFuture;
use frontdesk::client::ClientConfig;
use frontdesk::client::auth::{
    AuthError, AuthorizationPrompt, AuthorizationRequest, FileTokenStore, LoopbackRedirect,
    OAuthConfig, PendingRedirect, PreregisteredClient, UserAgent,
};
use frontdesk_host::signin::{SignInChoice, SignInRequest, ask_sign_in, open_sign_in};
use frontdesk_host::terminal::TtyScreen;
use frontdesk_host::{SystemBrowser, terminal_available};

/// How long the browser may take to come back after consent.
const SIGN_IN_TIME: Duration = Duration::from_secs(300);

/// Flags for servers reached over HTTP (also handed to a parked call's keeper).
#[derive(Debug, Clone, Args, serde::Serialize, serde::Deserialize)]
pub struct RemoteArgs {
    /// Trust this CA certificate (PEM) for HTTPS, on top of the system's (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub ca_certs: Vec<PathBuf>,
    /// Keep sign-in tokens in this file (default: $XDG_STATE_HOME/frontdesk/tokens.json,
    /// else ~/.local/state/frontdesk/tokens.json; readable by you only).
    #[arg(long, value_name = "FILE", env = "FRONTDESK_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// Sign in as this client id, registered beforehand with the authorization server
    /// --client-issuer names (its secret, if any, from $FRONTDESK_CLIENT_SECRET); without
    /// it the client registers itself where the server allows.
    #[arg(long, value_name = "ID", requires = "client_issuer")]
    pub client_id: Option<String>,
    /// The issuer of the authorization server --client-id is registered with, exactly as
    /// its metadata writes it. The id and its secret are used with that server only, never
    /// with one another server names.
    #[arg(long, value_name = "URL", requires = "client_id")]
    pub client_issuer: Option<String>,
}

/// The default token file.
fn default_token_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|s| !s.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("state"))
        })?;
    Some(state.join("frontdesk").join("tokens.json"))
}

/// The certificates of a PEM file, as DER.
fn certificates(path: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let certs = CertificateDer::pem_file_iter(path)
        .with_context(|| format!("cannot read --ca-cert {}", path.display()))?
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("--ca-cert {} is not PEM certificates", path.display()))?;
    anyhow::ensure!(
        !certs.is_empty(),
        "--ca-cert {} holds no certificate",
        path.display()
    );
    Ok(certs)
}

impl RemoteArgs {
    /// Add the CA certificates and the sign-in to `config`.
    pub fn apply(&self, config: &mut ClientConfig) -> anyhow::Result<()> {
        for path in &self.ca_certs {
            config.extra_root_certificates.extend(certificates(path)?);
        }
        let Some(file) = self.token_file.clone().or_else(default_token_file) else {
            anyhow::bail!("no place for sign-in tokens: set --token-file or HOME");
        };
        let mut oauth = OAuthConfig::new(TerminalSignIn)
            .client_name("frontdesk")
            .store(FileTokenStore::new(file));
        if let (Some(id), Some(issuer)) = (&self.client_id, &self.client_issuer) {
            oauth = oauth.preregistered(PreregisteredClient {
                issuer: issuer.clone(),
                client_id: id.clone(),
                client_secret: std::env::var("FRONTDESK_CLIENT_SECRET")
                    .ok()
                    .filter(|s| !s.is_empty()),
            });
        }
        config.oauth = Some(oauth);
        Ok(())
    }
}

/// Signs in at this terminal (and refuses, saying why, without one).
struct TerminalSignIn;

struct Waiting {
    redirect: LoopbackRedirect,
}

impl UserAgent for TerminalSignIn {
    fn prepare(&self) -> BoxFuture<'_, Result<Box<dyn PendingRedirect>, AuthError>> {
        Box::pin(async move {
            if !terminal_available() {
                return Err(AuthError::Unattended);
            }
            let redirect = LoopbackRedirect::bind().await?;
            Ok(Box::new(Waiting { redirect }) as Box<dyn PendingRedirect>)
        })
    }
}

impl PendingRedirect for Waiting {
    fn redirect_uri(&self) -> String {
        self.redirect.redirect_uri()
    }

    fn consent<'a>(
        &'a mut self,
        prompt: &'a AuthorizationPrompt,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(async move {
            let request = SignInRequest {
                server: prompt.server.clone(),
                issuer: prompt.issuer.clone(),
                scopes: prompt.scopes.clone(),
            };
            let review = prompt.review.clone();
            let choice = tokio::task::spawn_blocking(move || {
                let _quiet = frontdesk_host::logs::hold();
                ask_sign_in(&mut TtyScreen::new(), &request, &review)
            })
            .await
            .map_err(|e| AuthError::Network(frontdesk::Reason::new(e)))?;
            match choice {
                SignInChoice::Agreed => Ok(()),
                SignInChoice::Declined | SignInChoice::Refused => Err(AuthError::NotApproved),
            }
        })
    }

    fn complete(
        self: Box<Self>,
        request: AuthorizationRequest,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        Box::pin(async move {
            let review = request.review;
            let outcome = tokio::task::spawn_blocking(move || {
                let _quiet = frontdesk_host::logs::hold();
                open_sign_in(&mut TtyScreen::new(), &review, &SystemBrowser)
            })
            .await
            .map_err(|e| AuthError::Network(frontdesk::Reason::new(e)))?;
            if !outcome.consented() {
                return Err(AuthError::NotApproved);
            }
            crate::output::note("frontdesk: waiting for the browser to come back (Ctrl-C stops) …");
            // The listener takes only the callback carrying this request's state.
            let answer = self.redirect.wait(&request.state, SIGN_IN_TIME).await?;
            crate::output::note("frontdesk: signed in.");
            Ok(answer)
        })
    }
}
