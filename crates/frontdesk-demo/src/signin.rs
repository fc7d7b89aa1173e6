//! The demo's sign-in page, the one page that completes brightgrid's URL flows:
//! `GET /signin?token=…` shows a small self-contained form (the person "signs
//! in"), `POST /signin` (form field `token`) completes the flow through
//! [`Server::complete_flow`]. These are the links `connect_store_account`
//! hands out (see [`crate::register`]).
//!
//! It is mounted next to the MCP endpoint by `frontdesk serve --http`, and on
//! its own loopback listener by [`crate::brightgrid`] for stdio and in-process
//! use. The library mounts nothing of the kind by itself: a real server's page
//! identifies the person and passes who it is to `complete_flow`.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use frontdesk::http::OriginPolicy;
use frontdesk::server::Server;

/// The longest connect token the page accepts.
const MAX_TOKEN: usize = 512;

/// The sign-in routes (`/signin`), completing flows of `server`.
pub fn router(server: Server) -> Router {
    Router::new()
        .route(
            "/signin",
            get(show)
                .post(submit)
                .layer(DefaultBodyLimit::max(16 * 1024)),
        )
        .with_state(server)
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
         <title>{}</title><style>{STYLE}</style></head><body>{body}</body></html>",
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

fn token_of(fields: &HashMap<String, String>) -> Option<&str> {
    fields
        .get("token")
        .map(String::as_str)
        .filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN)
}

fn unknown_link() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Sign-in link not valid",
        "<h1>This sign-in link is not valid</h1>\
         <p>It is unknown, already used or expired. Go back to your assistant and start again.</p>",
    )
}

/// `GET /signin?token=…`: the sign-in form.
async fn show(Query(q): Query<HashMap<String, String>>) -> Response {
    let Some(token) = token_of(&q) else {
        return unknown_link();
    };
    let body = format!(
        "<h1>Sign in to Brightgrid</h1>\
         <p>Connect your Brightgrid store account to your assistant.</p>\
         <form method=post action=signin>\
         <input type=hidden name=token value=\"{}\">\
         <label>Email <input name=email type=email autocomplete=username required></label>\
         <label>Password <input name=password type=password autocomplete=current-password></label>\
         <button type=submit>Sign in and connect</button></form>\
         <p class=note>Demo page served by frontdesk on this computer; nothing you type leaves it.</p>",
        escape_html(token)
    );
    page(StatusCode::OK, "Brightgrid sign-in", &body)
}

/// `POST /signin` (form `token`): complete the flow.
async fn submit(
    State(server): State<Server>,
    h: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Response {
    let origin = h.get(header::ORIGIN).map(HeaderValue::as_bytes);
    if !OriginPolicy::default().allows(origin) {
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
    match server.complete_flow(token, None).await {
        Ok(()) => page(
            StatusCode::OK,
            "Connected",
            "<h1>Done</h1><p>Your store account is connected. You can close this tab and go back \
             to your assistant.</p>",
        ),
        Err(e) => {
            tracing::info!(error = %e, "sign-in page: flow not completed");
            unknown_link()
        }
    }
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
