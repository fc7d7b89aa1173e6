//! An OAuth-protected MCP server for the CLI's tests (built by `cargo test`
//! with the examples), all on one loopback port:
//!
//! - an authorization server: metadata (RFC 8414), dynamic registration,
//!   `/authorize` (approves at once: it stands in for the person's click and
//!   redirects with a code, `state` and `iss`), `/token` (authorization code
//!   with PKCE S256 checked, refresh tokens);
//! - the MCP endpoint `/mcp` (frontdesk's HTTP transport with an
//!   authenticator that takes only tokens issued here) with one tool,
//!   `whoami`, and its protected resource metadata;
//! - `/stats`: how many registrations, authorizations and token requests it
//!   saw, as JSON.
//!
//! `oauth_server [--token-lifetime SECS] [--attack NAME]` prints the MCP
//! endpoint URL on its first line, then serves until killed. Attacks, each a
//! lie the client must refuse: `wrong-iss` (the redirect names another
//! issuer), `resource-elsewhere` (the resource metadata names another
//! server), `hostile-authorize-endpoint` (the metadata sends the person to
//! plain http elsewhere), `issuer-mismatch` (the metadata names another
//! issuer).
//!
//! `oauth_server browse URL` is the tests' "browser" (`BROWSER=…`): it
//! follows URL and its redirects, as a browser whose person approves would.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Json, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use frontdesk::BoxFuture;
use frontdesk::http::HttpOptions;
use frontdesk::http::auth::{Authenticate, Unauthorized};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use serde_json::{Value, json};
use sha2::Digest as _;

struct Code {
    client_id: String,
    challenge: String,
    redirect_uri: String,
    resource: String,
    scope: String,
}

struct Access {
    client_id: String,
    until: Instant,
}

#[derive(Default)]
struct Books {
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Code>,
    access: HashMap<String, Access>,
    refresh: HashMap<String, (String, String)>,
    registrations: u64,
    authorizations: u64,
    token_requests: u64,
    refreshes: u64,
}

struct Shared {
    /// `http://127.0.0.1:PORT`, set once the listener is bound.
    base_url: std::sync::OnceLock<String>,
    attack: String,
    lifetime: Duration,
    books: Mutex<Books>,
    counter: AtomicU64,
}

type App = Arc<Shared>;

impl Shared {
    fn base(&self) -> &str {
        self.base_url.get().map_or("", String::as_str)
    }

    fn issuer(&self) -> String {
        if self.attack == "issuer-mismatch" {
            "https://attacker.example.com".to_owned()
        } else {
            self.base().to_owned()
        }
    }

    fn secret(&self, prefix: &str) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let a = std::collections::hash_map::RandomState::new().hash_one(n);
        let b = std::collections::hash_map::RandomState::new().hash_one(n ^ a);
        format!("{prefix}-{a:016x}{b:016x}")
    }
}

async fn resource_metadata(State(app): State<App>) -> Json<Value> {
    let resource = if app.attack == "resource-elsewhere" {
        "https://evil.example.com/mcp".to_owned()
    } else {
        format!("{}/mcp", app.base())
    };
    Json(json!({
        "resource": resource,
        "authorization_servers": [app.base()],
        "scopes_supported": ["mcp"],
    }))
}

async fn server_metadata(State(app): State<App>) -> Json<Value> {
    let authorize = if app.attack == "hostile-authorize-endpoint" {
        "http://evil.example.com/authorize".to_owned()
    } else {
        format!("{}/authorize", app.base())
    };
    Json(json!({
        "issuer": app.issuer(),
        "authorization_endpoint": authorize,
        "token_endpoint": format!("{}/token", app.base()),
        "registration_endpoint": format!("{}/register", app.base()),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["mcp", "offline_access"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

async fn register(State(app): State<App>, Json(body): Json<Value>) -> Response {
    let uris: Vec<String> = body["redirect_uris"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|u| u.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_redirect_uri"})),
        )
            .into_response();
    }
    let id = app.secret("client");
    let Ok(mut books) = app.books.lock() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    books.registrations += 1;
    books.clients.insert(id.clone(), uris.clone());
    (
        StatusCode::CREATED,
        Json(json!({"client_id": id, "redirect_uris": uris, "token_endpoint_auth_method": "none"})),
    )
        .into_response()
}

/// A loopback redirect URI matches a registered one whatever its port (RFC 8252 §7.3).
fn same_redirect(registered: &str, asked: &str) -> bool {
    let strip = |u: &str| {
        let u = url::Url::parse(u).ok()?;
        Some((
            u.scheme().to_owned(),
            u.host_str()?.to_owned(),
            u.path().to_owned(),
        ))
    };
    registered == asked || (strip(registered).is_some() && strip(registered) == strip(asked))
}

async fn authorize(State(app): State<App>, Query(q): Query<HashMap<String, String>>) -> Response {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
    let Ok(mut books) = app.books.lock() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    books.authorizations += 1;
    let known = books
        .clients
        .get(&client_id)
        .is_some_and(|uris| uris.iter().any(|u| same_redirect(u, &redirect_uri)));
    if !known || get("code_challenge_method") != "S256" || get("code_challenge").is_empty() {
        return (StatusCode::BAD_REQUEST, "unknown client, redirect or PKCE").into_response();
    }
    let code = app.secret("code");
    books.codes.insert(
        code.clone(),
        Code {
            client_id,
            challenge: get("code_challenge"),
            redirect_uri: redirect_uri.clone(),
            resource: get("resource"),
            scope: get("scope"),
        },
    );
    let iss = if app.attack == "wrong-iss" {
        "https://evil.example.com".to_owned()
    } else {
        app.issuer()
    };
    let Ok(mut target) = url::Url::parse(&redirect_uri) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    target
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"))
        .append_pair("iss", &iss);
    Redirect::to(target.as_str()).into_response()
}

fn token_error(error: &str) -> Response {
    (StatusCode::BAD_REQUEST, Json(json!({"error": error}))).into_response()
}

async fn token(State(app): State<App>, Form(f): Form<HashMap<String, String>>) -> Response {
    let get = |k: &str| f.get(k).cloned().unwrap_or_default();
    let Ok(mut books) = app.books.lock() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    books.token_requests += 1;
    let (client_id, scope) = match get("grant_type").as_str() {
        "authorization_code" => {
            let Some(code) = books.codes.remove(&get("code")) else {
                return token_error("invalid_grant");
            };
            let digest = sha2::Sha256::digest(get("code_verifier").as_bytes());
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
            if computed != code.challenge
                || code.client_id != get("client_id")
                || code.redirect_uri != get("redirect_uri")
                || code.resource != get("resource")
                || code.resource != format!("{}/mcp", app.base())
            {
                return token_error("invalid_grant");
            }
            (code.client_id, code.scope)
        }
        "refresh_token" => {
            let Some(grant) = books.refresh.remove(&get("refresh_token")) else {
                return token_error("invalid_grant");
            };
            books.refreshes += 1;
            grant
        }
        _ => return token_error("unsupported_grant_type"),
    };
    let access = app.secret("at");
    let refresh = app.secret("rt");
    books.access.insert(
        access.clone(),
        Access {
            client_id: client_id.clone(),
            until: Instant::now() + app.lifetime,
        },
    );
    books
        .refresh
        .insert(refresh.clone(), (client_id, scope.clone()));
    (
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": app.lifetime.as_secs(),
            "refresh_token": refresh,
            "scope": scope,
        })),
    )
        .into_response()
}

async fn stats(State(app): State<App>) -> Json<Value> {
    let books = app.books.lock().map(|b| {
        json!({
            "registrations": b.registrations,
            "authorizations": b.authorizations,
            "token_requests": b.token_requests,
            "refreshes": b.refreshes,
        })
    });
    Json(books.unwrap_or(Value::Null))
}

/// Takes only live tokens issued here; the principal is the client id.
struct Tokens(App);

impl Authenticate for Tokens {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
        Box::pin(async move {
            let challenge = format!(
                "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
                self.0.base()
            );
            let token = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            let books = self
                .0
                .books
                .lock()
                .map_err(|_| Unauthorized::bearer("invalid_token", "the server is confused"))?;
            match token.and_then(|t| books.access.get(t)) {
                Some(a) if a.until > Instant::now() => Ok(Some(a.client_id.clone())),
                _ => Err(Unauthorized::bearer("invalid_token", "sign in first")
                    .with_challenge(challenge)),
            }
        })
    }
}

async fn whoami(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("signed in as {}", cx.principal())))
}

async fn browse(url: &str) -> Result<(), String> {
    frontdesk::client::install_default_tls_provider();
    let response = reqwest::get(url).await.map_err(|e| e.to_string())?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("{} answered {}", response.url(), response.status()))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("browse") {
        let url = args.get(1).ok_or("browse URL")?;
        return browse(url).await.map_err(Into::into);
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let lifetime = Duration::from_secs(
        flag("--token-lifetime")
            .and_then(|s| s.parse().ok())
            .unwrap_or(3600),
    );
    let addr: SocketAddr = "127.0.0.1:0".parse()?;
    let app = Arc::new(Shared {
        base_url: std::sync::OnceLock::new(),
        attack: flag("--attack").unwrap_or_default(),
        lifetime,
        books: Mutex::default(),
        counter: AtomicU64::new(0),
    });
    let listener =
        frontdesk::http::bind(addr, HttpOptions::new().authenticator(Tokens(app.clone()))).await?;
    let _ = app.base_url.set(listener.base_url());
    let routes = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/stats", get(stats))
        .with_state(app.clone());
    let server = Server::builder("protected-demo", "1.0")
        .tool(ToolDef::new(
            "whoami",
            "Who the server thinks you are",
            whoami,
        ))
        .build();
    println!("{}", listener.endpoint_url());
    listener.routes(routes).serve(server).await?;
    Ok(())
}
