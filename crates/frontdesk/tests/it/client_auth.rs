//! The OAuth client against servers that lie (issue 24 rows 9 and 10), with
//! every request each fixture server saw logged in order:
//!
//! - a `401`'s `resource_metadata` naming another origin (here another
//!   loopback port) is never fetched;
//! - dynamic client registration is sent only after the person consented;
//! - a pre-registered client's secret goes only to the token endpoint of
//!   the issuer it is registered with.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use frontdesk::BoxFuture;
use frontdesk::client::auth::{
    AuthError, AuthorizationPrompt, AuthorizationRequest, OAuthConfig, PendingRedirect,
    PreregisteredClient, UserAgent,
};
use frontdesk::client::{Client, ClientConfig, ClientError};
use serde_json::{Value, json};

use crate::support::client::TestHandler;

/// One request a fixture server saw (or, for `person`, what the person did).
#[derive(Debug, Clone)]
struct Seen {
    server: &'static str,
    method: String,
    path: String,
    authorization: Option<String>,
    body: String,
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    fn push(&self, seen: Seen) {
        self.0.lock().unwrap().push(seen);
    }

    fn all(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    fn of(&self, server: &str) -> Vec<Seen> {
        self.all()
            .into_iter()
            .filter(|s| s.server == server)
            .collect()
    }

    /// Where in the log the first entry matching `f` is.
    fn position(&self, f: impl Fn(&Seen) -> bool) -> Option<usize> {
        self.all().iter().position(f)
    }
}

type Respond = Arc<dyn Fn(&Seen, &str) -> Response + Send + Sync>;

/// A server on 127.0.0.1 that logs every request as `name` and answers
/// with `respond` (given the request and its own base URL).
async fn server(name: &'static str, log: &Log, respond: Respond) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let own = base.clone();
    let log = log.clone();
    let app = axum::Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let seen = Seen {
                server: name,
                method: method.to_string(),
                path: uri.to_string(),
                authorization: headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned),
                body: String::from_utf8_lossy(&body).into_owned(),
            };
            log.push(seen.clone());
            let response = respond(&seen, &own);
            async move { response }
        },
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// The MCP endpoint (`/mcp`) and its resource metadata: `401` without a
/// token, naming `metadata_url(base)` as `resource_metadata`; with any token
/// it answers `server/discover`.
async fn resource_server(
    log: &Log,
    issuer: String,
    metadata_url: impl Fn(&str) -> String + Send + Sync + 'static,
) -> String {
    server(
        "resource",
        log,
        Arc::new(move |seen, base| {
            if seen
                .path
                .starts_with("/.well-known/oauth-protected-resource")
            {
                return axum::Json(json!({
                    "resource": format!("{base}/mcp"),
                    "authorization_servers": [issuer],
                }))
                .into_response();
            }
            if seen.authorization.is_none() {
                let challenge = format!("Bearer resource_metadata=\"{}\"", metadata_url(base));
                return (
                    StatusCode::UNAUTHORIZED,
                    [("www-authenticate", challenge)],
                    "",
                )
                    .into_response();
            }
            let id: Value = serde_json::from_str::<Value>(&seen.body)
                .map(|m| m["id"].clone())
                .unwrap_or(Value::Null);
            axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": {
                "resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {}, "ttlMs": 0, "cacheScope": "private"}}))
            .into_response()
        }),
    )
    .await
}

/// An authorization server that approves at once: metadata, `/authorize`
/// (redirects with a code, the state and `iss`), `/token`, `/register`.
async fn authorization_server(log: &Log, name: &'static str) -> String {
    server(
        name,
        log,
        Arc::new(|seen, base| {
            let path = seen.path.split('?').next().unwrap_or("");
            match path {
                "/.well-known/oauth-authorization-server" => axum::Json(json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "registration_endpoint": format!("{base}/register"),
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
                }))
                .into_response(),
                "/authorize" => {
                    let url = url::Url::parse(&format!("{base}{}", seen.path)).unwrap();
                    let get = |k: &str| {
                        url.query_pairs()
                            .find(|(n, _)| n == k)
                            .map(|(_, v)| v.into_owned())
                            .unwrap_or_default()
                    };
                    let mut back = url::Url::parse(&get("redirect_uri")).unwrap();
                    back.query_pairs_mut()
                        .append_pair("code", "the-code")
                        .append_pair("state", &get("state"))
                        .append_pair("iss", base);
                    (StatusCode::FOUND, [("location", back.to_string())], "").into_response()
                }
                "/token" => axum::Json(json!({
                    "access_token": "the-token", "token_type": "Bearer", "expires_in": 3600}))
                .into_response(),
                "/register" => (
                    StatusCode::CREATED,
                    axum::Json(json!({"client_id": "dynamic-1"})),
                )
                    .into_response(),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }),
    )
    .await
}

/// The person and their browser: the consent is logged as `person`; when
/// they approve, the browser follows the authorization URL and brings back
/// where the authorization server redirects.
struct Person {
    approve: bool,
    log: Log,
}

struct Waiting {
    approve: bool,
    log: Log,
}

impl UserAgent for Person {
    fn prepare(&self) -> BoxFuture<'_, Result<Box<dyn PendingRedirect>, AuthError>> {
        let waiting = Waiting {
            approve: self.approve,
            log: self.log.clone(),
        };
        Box::pin(async move { Ok(Box::new(waiting) as Box<dyn PendingRedirect>) })
    }
}

impl PendingRedirect for Waiting {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:9/callback".to_owned()
    }

    fn consent<'a>(
        &'a mut self,
        prompt: &'a AuthorizationPrompt,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(async move {
            self.log.push(Seen {
                server: "person",
                method: if self.approve { "consents" } else { "declines" }.into(),
                path: prompt.issuer.clone(),
                authorization: None,
                body: String::new(),
            });
            if self.approve {
                Ok(())
            } else {
                Err(AuthError::NotApproved)
            }
        })
    }

    fn complete(
        self: Box<Self>,
        request: AuthorizationRequest,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        Box::pin(async move {
            let url = request
                .review
                .consented()
                .expect("a URL that may be opened");
            browse(url.as_str()).await
        })
    }
}

/// What the browser does with the authorization URL: where it is sent back.
async fn browse(url: &str) -> Result<String, AuthError> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = http.get(url).send().await.unwrap();
    Ok(response.headers()["location"].to_str().unwrap().to_owned())
}

fn config(person: Person, preregistered: Option<PreregisteredClient>) -> ClientConfig {
    let mut oauth = OAuthConfig::new(person);
    if let Some(p) = preregistered {
        oauth = oauth.preregistered(p);
    }
    ClientConfig {
        oauth: Some(oauth),
        ..Default::default()
    }
}

fn auth_error(result: Result<Client, ClientError>) -> AuthError {
    match result {
        Err(ClientError::Auth(e)) => e,
        Err(other) => panic!("expected an authorization error, got {other}"),
        Ok(_) => panic!("expected an authorization error, got a connection"),
    }
}

/// Row 9: a `resource_metadata` URL on another origin (another port of this
/// machine, where anything may listen) is never requested.
#[tokio::test]
async fn resource_metadata_on_another_origin_is_never_fetched() {
    let log = Log::default();
    let elsewhere = server(
        "elsewhere",
        &log,
        Arc::new(|_, _| StatusCode::NOT_FOUND.into_response()),
    )
    .await;
    let issuer = authorization_server(&log, "authz").await;
    let target = format!("{elsewhere}/admin/delete-everything");
    let mcp = resource_server(&log, issuer, move |_| target.clone()).await;
    let person = Person {
        approve: true,
        log: log.clone(),
    };
    let err = auth_error(
        Client::connect_http(
            &format!("{mcp}/mcp"),
            config(person, None),
            TestHandler::new([]),
        )
        .await,
    );
    assert!(
        err.to_string().contains("not on the server's origin"),
        "{err}"
    );
    assert!(log.of("elsewhere").is_empty(), "{:?}", log.of("elsewhere"));
    assert!(log.of("authz").is_empty(), "{:?}", log.of("authz"));
    assert!(
        log.of("person").is_empty(),
        "nobody was asked: {:?}",
        log.all()
    );
}

/// Row 9: dynamic registration is a request to a server the person has
/// not agreed to talk to yet: it waits for their consent, and a person who
/// declines has sent the authorization server nothing but metadata reads.
#[tokio::test]
async fn dynamic_registration_waits_for_the_persons_consent() {
    for approve in [false, true] {
        let log = Log::default();
        let issuer = authorization_server(&log, "authz").await;
        let mcp = resource_server(&log, issuer, |base| {
            format!("{base}/.well-known/oauth-protected-resource/mcp")
        })
        .await;
        let person = Person {
            approve,
            log: log.clone(),
        };
        let connected = Client::connect_http(
            &format!("{mcp}/mcp"),
            config(person, None),
            TestHandler::new([]),
        )
        .await;
        let consent = log.position(|s| s.server == "person");
        let registered = log.position(|s| s.server == "authz" && s.path == "/register");
        if approve {
            let client = connected.unwrap();
            assert!(
                registered > consent && consent.is_some(),
                "registered before consent: {:?}",
                log.all()
            );
            client.close().await;
        } else {
            assert!(matches!(auth_error(connected), AuthError::NotApproved));
            assert_eq!(registered, None, "registered anyway: {:?}", log.all());
            assert!(
                log.of("authz")
                    .iter()
                    .all(|s| s.method == "GET" && s.path.starts_with("/.well-known/")),
                "{:?}",
                log.of("authz")
            );
        }
    }
}

/// Row 10: a pre-registered client with a secret, and a server that names
/// another authorization server: the secret never reaches it.
#[tokio::test]
async fn a_preregistered_secret_goes_only_to_its_own_issuer() {
    let log = Log::default();
    let hostile = authorization_server(&log, "hostile").await;
    let mcp = resource_server(&log, hostile, |base| {
        format!("{base}/.well-known/oauth-protected-resource/mcp")
    })
    .await;
    let person = Person {
        approve: true,
        log: log.clone(),
    };
    let client = PreregisteredClient {
        issuer: "https://auth.registered.example".into(),
        client_id: "registered-client".into(),
        client_secret: Some("s3cret".into()),
    };
    let connected = Client::connect_http(
        &format!("{mcp}/mcp"),
        config(person, Some(client)),
        TestHandler::new([]),
    )
    .await;
    let leaked: Vec<Seen> = log
        .of("hostile")
        .into_iter()
        .filter(|s| {
            s.body.contains("s3cret")
                || s.body.contains("registered-client")
                || s.authorization
                    .as_deref()
                    .is_some_and(|a| a.starts_with("Basic"))
        })
        .collect();
    assert!(
        leaked.is_empty(),
        "the client's credentials went to {leaked:?}"
    );
    if let Ok(client) = connected {
        client.close().await;
    }
}
