//! Streamable HTTP with an authenticator: refused requests get `401` and the
//! challenge, the principal reaches the handler, and a 2025-11-25 session is
//! usable only by the principal that created it.

use crate::support::http::{self as support, LEGACY, modern_call, start_with};
use axum::http::HeaderMap;
use frontdesk::BoxFuture;
use frontdesk::http::auth::{Authenticate, Unauthorized};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use serde_json::{Value, json};

/// `Bearer alice-token` is alice, `Bearer bob-token` is bob, nothing else passes.
struct TwoUsers;

impl Authenticate for TwoUsers {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Result<Option<String>, Unauthorized>> {
        Box::pin(async move {
            match headers.get("authorization").and_then(|v| v.to_str().ok()) {
                Some("Bearer alice-token") => Ok(Some("alice".into())),
                Some("Bearer bob-token") => Ok(Some("bob".into())),
                Some(_) => Err(Unauthorized::bearer("invalid_token", "unknown token")),
                None => Err(Unauthorized::bearer("invalid_request", "no token")),
            }
        })
    }
}

async fn whoami(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("you are {:?}", cx.principal())))
}

fn server(_: &str) -> Server {
    Server::builder("auth-test", "1")
        .tool(ToolDef::new("whoami", "Who is calling", whoami))
        .build()
}

fn text(v: &Value) -> &str {
    v["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn refused_requests_get_401_with_the_challenge() {
    let s = start_with(server, |o| {
        o.authenticator = Some(std::sync::Arc::new(TwoUsers))
    })
    .await;
    let body = modern_call(1, "whoami", json!({}));
    for auth in [None, Some("Bearer stolen")] {
        let mut req = s
            .post()
            .header("mcp-protocol-version", support::MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "whoami");
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        let r = req.body(body.to_string()).send().await.unwrap();
        assert_eq!(r.status(), 401, "{auth:?}");
        let challenge = r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_"),
            "{challenge}"
        );
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], -32600);
    }
}

#[tokio::test]
async fn the_principal_reaches_the_handler_and_owns_its_session() {
    let s = start_with(server, |o| {
        o.authenticator = Some(std::sync::Arc::new(TwoUsers))
    })
    .await;
    let modern = s
        .post()
        .header("authorization", "Bearer alice-token")
        .header("mcp-protocol-version", support::MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .body(modern_call(1, "whoami", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(text(&modern.json().await.unwrap()), "you are \"alice\"");

    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = s
        .post()
        .header("authorization", "Bearer bob-token")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    let as_user = |token: &'static str| {
        s.post()
            .header("authorization", token)
            .header("mcp-session-id", sid.clone())
            .header("mcp-protocol-version", LEGACY)
            .body(call.to_string())
            .send()
    };
    // Alice presenting Bob's session id finds no session; Bob's own call works.
    let r = as_user("Bearer alice-token").await.unwrap();
    assert_eq!(r.status(), 404);
    let r = as_user("Bearer bob-token").await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(text(&r.json().await.unwrap()), "you are \"bob\"");
    // Nor can Alice end it.
    let r = s
        .http
        .delete(&s.mcp)
        .header("authorization", "Bearer alice-token")
        .header("mcp-session-id", sid.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

/// A principal over its share of pending URL flows is refused without
/// writing to the flow store, so however often it tries, the store never
/// fills for anyone else. Regression: each refused attempt used to create a
/// flow and mark it failed, the record kept until it expired, and after
/// 100,050 first rounds every client's URL question got "the server has too
/// many sign-ins in progress" (found by the abuse suite's full run).
#[tokio::test]
async fn refused_url_flows_do_not_fill_the_store_for_others() {
    use frontdesk::flows::InMemoryFlowStore;
    use frontdesk::server::{Answer, Question, ServerConfig};

    async fn sign_in(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
        let question = Question::url("Sign in.", |t| {
            format!("http://127.0.0.1:1/signin?token={}", t.connect_token)
        });
        Ok(match cx.ask(question.key("signin")).await? {
            Answer::Accepted(()) => ToolOutput::text("connected"),
            _ => ToolOutput::text("not connected"),
        })
    }
    // Room for 8 flows in all, 2 per principal: alice tries 40 times.
    let store = std::sync::Arc::new(InMemoryFlowStore::new().with_max_flows(8));
    let s = start_with(
        move |_| {
            Server::builder("flows-test", "1")
                .config(ServerConfig::new().max_flows_per_client(2))
                .flow_store(store)
                .tool(ToolDef::new("sign_in", "Sign in", sign_in))
                .build()
        },
        |o| o.authenticator = Some(std::sync::Arc::new(TwoUsers)),
    )
    .await;
    let call = async |token: &'static str| -> Value {
        s.post()
            .header("mcp-protocol-version", support::MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "sign_in")
            .header("authorization", token)
            .body(modern_call(1, "sign_in", json!({})).to_string())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    };
    let mut asked = 0;
    let mut refused = 0;
    for _ in 0..40 {
        let v: Value = call("Bearer alice-token").await;
        if v["result"]["resultType"] == "input_required" {
            asked += 1;
        } else {
            let said = v["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(said.contains("of this client"), "{v}");
            refused += 1;
        }
    }
    assert_eq!((asked, refused), (2, 38));
    // Bob's URL question is still asked.
    let v: Value = call("Bearer bob-token").await;
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
    assert!(
        v["result"]["inputRequests"]["signin"]["params"]["url"].is_string(),
        "{v}"
    );
}
