//! The process's default rustls crypto provider, for the `reqwest` clients
//! of the HTTP client and of the JWT checker's JWKS fetches (both build
//! `reqwest` on provider-less rustls). Public as
//! `frontdesk::client::install_default_tls_provider`.

/// Make `ring` the process's default rustls crypto provider, unless one is
/// installed already (then nothing changes). Idempotent and cheap.
///
/// The client's own HTTPS connections do not need it (they are configured
/// with `ring` explicitly). It is for every *other* `reqwest` client in the
/// process: this crate builds `reqwest` with provider-less rustls (to avoid
/// the slow aws-lc build), and such a client panics when it is built while no
/// default provider is installed. The runtime calls this whenever a
/// connection starts, and the HTTP server when it binds; an application that
/// builds its own `reqwest` clients before either, or that wants another
/// provider, installs its choice first.
#[cfg_attr(not(feature = "http-client"), allow(unreachable_pub))]
pub fn install_default_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine: a default exists.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
