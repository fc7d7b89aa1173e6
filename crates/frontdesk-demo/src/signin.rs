//! The demo's sign-in page, the one page that completes brightgrid's URL flows
//! (the links `connect_store_account` hands out, see [`crate::register`]):
//! `GET /signin?token=…` shows a small self-contained form, `POST /signin`
//! completes the flow through [`Server::complete_flow`] for the person the
//! page identified. Every answer, errors included, is an HTML page for a
//! person.
//!
//! It is mounted next to the MCP endpoint by `frontdesk serve --http`, and on
//! its own loopback listener for stdio. The library mounts nothing of the
//! kind by itself.
//!
//! # Who is in the browser
//!
//! The link alone proves nothing about who opened it: it travels through the
//! person's client, maybe a model, maybe a forward to someone else. So with an
//! authenticator ([`SignIn::authenticator`], the one the MCP endpoint uses)
//! the page signs the person in with the same credentials their client
//! presents — in this demo the bearer access token itself; a real server
//! sends the browser through its authorization server's login (OIDC) instead
//! — and remembers them for ten minutes in a sealed cookie (`fd_signin`:
//! `HttpOnly`, `SameSite=Lax`, `Path=/signin`, `Secure` when served over
//! HTTPS; sealed with the request-state keys, bound to its own purpose, so it
//! is valid on every instance that shares the keys and useless as anything
//! else). The page then completes the flow only for that principal:
//!
//! - the link's owner completes it (and the retry of the tool reports the
//!   account connected);
//! - anyone else — Bob, who was sent Alice's link — gets a `403` page saying
//!   the link was started from another account, nothing is redeemed, and the
//!   flow stays pending for Alice;
//! - an unknown, used or expired link is a `404` page; a POST from another
//!   site (`Origin` not this page's, [`SignIn::served_at`]; without it, not
//!   a loopback page) is a `403` page, and the `SameSite` cookie is not sent
//!   with it anyway.
//!
//! Without an authenticator (the loopback demo, everyone anonymous) the page
//! cannot identify anyone and trusts the single-use link alone; that is only
//! acceptable where nobody else can reach the page. The whole threat model is
//! in the `frontdesk::flows` docs.

use std::collections::HashMap;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use frontdesk::flows::FlowError;
use frontdesk::http::OriginPolicy;
use frontdesk::http::auth::Authenticator;
use frontdesk::server::Server;
use frontdesk::state::{Binding, Keyring, RequestDigest, StateKey, StateSealer};
use serde_json::json;

/// The longest connect token (or access token) the page accepts.
const MAX_TOKEN: usize = 4096;
/// The sign-in cookie.
const COOKIE: &str = "fd_signin";
/// How long a browser stays signed in.
const COOKIE_TTL: Duration = Duration::from_secs(600);

/// The sign-in routes (`/signin`), completing flows of `server` on the link
/// alone (no authenticator: everyone is anonymous). See [`SignIn`].
pub fn router(server: Server) -> Router {
    SignIn::new(server).router()
}

/// The sign-in page, configured.
///
/// ```
/// use frontdesk::http::auth::tokens::StaticTokens;
/// use frontdesk::server::Server;
/// use frontdesk_demo::signin::SignIn;
/// use std::sync::Arc;
///
/// let tokens = StaticTokens::parse("alice 0123456789abcdef0123\n").unwrap();
/// let server = Server::builder("demo", "1").build();
/// let pages = SignIn::new(server).authenticator(Arc::new(tokens)).router();
/// # let _ = pages;
/// ```
#[derive(Clone)]
pub struct SignIn {
    server: Server,
    authenticator: Option<Authenticator>,
    cookies: Arc<StateSealer>,
    secure: bool,
    origins: OriginPolicy,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("authenticator", &self.authenticator.is_some())
            .field("secure", &self.secure)
            .finish_non_exhaustive()
    }
}

impl SignIn {
    /// The page for `server`'s flows; without an authenticator it trusts the
    /// link alone. Cookies are sealed with a fresh key unless
    /// [`cookie_sealer`](Self::cookie_sealer) says otherwise.
    pub fn new(server: Server) -> Self {
        let cookies = match StateKey::generate("signin") {
            Ok(key) => StateSealer::new(Keyring::new(key)),
            Err(_) => StateSealer::development(),
        };
        Self {
            server,
            authenticator: None,
            cookies: Arc::new(cookies),
            secure: false,
            origins: OriginPolicy::Loopback(Vec::new()),
        }
    }

    /// Sign people in with the credentials `authenticator` accepts (the MCP
    /// endpoint's), and complete flows only for the principal signed in.
    pub fn authenticator(mut self, authenticator: Authenticator) -> Self {
        self.authenticator = Some(authenticator);
        self
    }

    /// Seal sign-in cookies with `sealer` (use the server's request-state
    /// sealer, so cookies hold across restarts and instances).
    pub fn cookie_sealer(mut self, sealer: StateSealer) -> Self {
        self.cookies = Arc::new(sealer);
        self
    }

    /// Mark cookies `Secure` (the page is served over HTTPS).
    pub fn secure_cookies(mut self, secure: bool) -> Self {
        self.secure = secure;
        self
    }

    /// The page is served at `base_url`: accept form posts from its own
    /// origin only ([`frontdesk::http::origin::origins_of`]). Without it, any
    /// page on this machine's loopback addresses may post.
    pub fn served_at(mut self, base_url: &str) -> Self {
        self.origins = OriginPolicy::default().resolve_for(&[base_url]);
        self
    }

    /// The routes.
    pub fn router(self) -> Router {
        Router::new()
            .route(
                "/signin",
                get(show)
                    .post(submit)
                    .layer(DefaultBodyLimit::max(16 * 1024)),
            )
            .with_state(self)
    }
}

/// Escape text for HTML content and double-quoted attributes.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;\
padding:0 1rem;color:#1b1b1b}h1{font-size:1.4rem}label{display:block;margin:.8rem 0}\
input{display:block;width:100%;padding:.4rem;box-sizing:border-box}\
button{margin-top:1rem;padding:.5rem 1rem}.note{color:#555;font-size:.9rem}";

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        escape_html(title)
    );
    let mut r = (status, html).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    // `same-origin`, not `no-referrer`: under `no-referrer` browsers send
    // `Origin: null` on the form's POST, which the origin check must refuse.
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

fn field<'a>(fields: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    fields
        .get(name)
        .map(String::as_str)
        .filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN)
}

fn token_of(fields: &HashMap<String, String>) -> Option<&str> {
    field(fields, "token")
}

fn unknown_link() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Sign-in link not valid",
        "<h1>This sign-in link is not valid</h1>\
         <p>It is unknown, already used or expired. Go back to your assistant and start again.</p>",
    )
}

/// What the cookie is bound to: its own purpose, so a cookie never opens as
/// a request state (whose digest names a method and a tool) or vice versa.
fn cookie_binding() -> Binding {
    Binding::anonymous(RequestDigest::new(
        "frontdesk-demo/signin-cookie",
        None,
        None,
    ))
}

impl SignIn {
    /// The principal the browser's sign-in cookie names, if it is valid.
    fn signed_in(&self, h: &HeaderMap) -> Option<String> {
        let value = h
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .next()?;
        let opened = self
            .cookies
            .open(value, &cookie_binding(), SystemTime::now())
            .ok()?;
        opened.payload()["sub"].as_str().map(str::to_owned)
    }

    fn cookie_for(&self, principal: &str) -> Option<HeaderValue> {
        let sealed = self
            .cookies
            .seal(&cookie_binding(), &json!({"sub": principal}), COOKIE_TTL)
            .map_err(|e| tracing::error!(error = %e, "sign-in cookie not sealed"))
            .ok()?;
        let secure = if self.secure { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{COOKIE}={sealed}; Path=/signin; Max-Age={}; HttpOnly; SameSite=Lax{secure}",
            COOKIE_TTL.as_secs()
        ))
        .ok()
    }

    /// Who submitted the form: a fresh sign-in with `access_token`, or the
    /// cookie. `Ok(None)` when nobody is signed in; `Err` for credentials
    /// the authenticator refused.
    async fn who(
        &self,
        auth: &Authenticator,
        h: &HeaderMap,
        fields: &HashMap<String, String>,
    ) -> Result<Option<(String, bool)>, ()> {
        if let Some(credential) = field(fields, "access_token") {
            let mut headers = HeaderMap::new();
            let bearer =
                HeaderValue::from_str(&format!("Bearer {}", credential.trim())).map_err(|_| ())?;
            headers.insert(header::AUTHORIZATION, bearer);
            return match auth.authenticate(&headers).await {
                Ok(Some(p)) => Ok(Some((p, true))),
                Ok(None) | Err(_) => Err(()),
            };
        }
        Ok(self.signed_in(h).map(|p| (p, false)))
    }
}

const INTRO: &str = "<h1>Sign in to Brightgrid</h1>\
    <p>Connect your Brightgrid store account to your assistant.</p>";

/// The form that signs the person in (and completes the flow in one step).
fn sign_in_form(token: &str, note: &str) -> String {
    format!(
        "{note}<form method=post action=signin>\
         <input type=hidden name=token value=\"{}\">\
         <label>Your access token (the one your assistant signs in with) \
         <input name=access_token type=password autocomplete=current-password required></label>\
         <button type=submit>Sign in and connect</button></form>\
         <p class=note>Demo page: a real server sends you through its own login instead.</p>",
        escape_html(token)
    )
}

/// `GET /signin?token=…`: the sign-in form, or "connect as …" when the
/// browser is signed in.
async fn show(
    State(page_cfg): State<SignIn>,
    h: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(token) = token_of(&q) else {
        return unknown_link();
    };
    if page_cfg.authenticator.is_none() {
        let body = format!(
            "{INTRO}<form method=post action=signin>\
             <input type=hidden name=token value=\"{}\">\
             <label>Email <input name=email type=email autocomplete=username required></label>\
             <label>Password <input name=password type=password autocomplete=current-password></label>\
             <button type=submit>Sign in and connect</button></form>\
             <p class=note>Demo page served by frontdesk on this computer; nothing you type leaves it.</p>",
            escape_html(token)
        );
        return page(StatusCode::OK, "Brightgrid sign-in", &body);
    }
    let body = match page_cfg.signed_in(&h) {
        Some(p) => format!(
            "{INTRO}<p>You are signed in as <b>{}</b>.</p>\
             <form method=post action=signin><input type=hidden name=token value=\"{}\">\
             <button type=submit>Connect</button></form>\
             <details><summary>Not you?</summary>{}</details>",
            escape_html(&p),
            escape_html(token),
            sign_in_form(token, "")
        ),
        None => sign_in_form(token, INTRO),
    };
    page(StatusCode::OK, "Brightgrid sign-in", &body)
}

/// `POST /signin` (form `token`, and `access_token` to sign in): complete
/// the flow for the person signed in.
async fn submit(
    State(page_cfg): State<SignIn>,
    h: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Response {
    let origin = h.get(header::ORIGIN).map(HeaderValue::as_bytes);
    if !page_cfg.origins.allows(origin) {
        tracing::warn!(origin = ?origin.map(String::from_utf8_lossy), "sign-in from a disallowed Origin");
        return page(
            StatusCode::FORBIDDEN,
            "Not allowed",
            "<h1>This page cannot be submitted from another site</h1>\
             <p>Open the sign-in link your assistant gave you and submit the form there.</p>",
        );
    }
    let Some(token) = token_of(&fields) else {
        return unknown_link();
    };
    let Some(auth) = page_cfg.authenticator.clone() else {
        return finish(&page_cfg, token, None, None).await;
    };
    match page_cfg.who(&auth, &h, &fields).await {
        Ok(Some((principal, fresh))) => {
            let cookie = if fresh {
                page_cfg.cookie_for(&principal)
            } else {
                None
            };
            finish(&page_cfg, token, Some(&principal), cookie).await
        }
        Ok(None) => page(
            StatusCode::UNAUTHORIZED,
            "Sign in first",
            &sign_in_form(
                token,
                "<h1>Sign in first</h1><p>Sign in to connect your account.</p>",
            ),
        ),
        Err(()) => {
            tracing::info!("sign-in page: credentials refused");
            page(
                StatusCode::UNAUTHORIZED,
                "Sign-in failed",
                &sign_in_form(
                    token,
                    "<h1>Sign-in failed</h1><p>That access token is not valid. Nothing was connected.</p>",
                ),
            )
        }
    }
}

/// Complete the flow for `principal` and say how it went.
async fn finish(
    page_cfg: &SignIn,
    token: &str,
    principal: Option<&str>,
    cookie: Option<HeaderValue>,
) -> Response {
    let mut response = match page_cfg.server.complete_flow(token, principal).await {
        Ok(()) => page(
            StatusCode::OK,
            "Connected",
            "<h1>Connected</h1><p>Your store account is connected. You can close this tab and go back \
             to your assistant.</p>",
        ),
        Err(FlowError::OtherPrincipal) => {
            tracing::warn!(signed_in = ?principal, "sign-in page: a link of another account was used");
            page(
                StatusCode::FORBIDDEN,
                "Not your sign-in link",
                &format!(
                    "<h1>This link belongs to someone else</h1>\
                     <p>You are signed in as <b>{}</b>, but this sign-in link was started from \
                     another account's assistant. Nothing was connected.</p>\
                     <p>If someone sent you this link, do not use it: completing it would connect \
                     your account to theirs. Start the connection from your own assistant \
                     instead.</p>",
                    escape_html(principal.unwrap_or_default())
                ),
            )
        }
        Err(e) => {
            tracing::info!(error = %e, "sign-in page: flow not completed");
            unknown_link()
        }
    };
    if let Some(c) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, c);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_everything_it_prints() {
        assert_eq!(
            escape_html("\"><script>alert('x')</script>&"),
            "&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
    }
}
